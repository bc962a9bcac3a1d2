#!/bin/bash
# ncu --set full, original vs transformed, for a few workloads; exported as CSV pages
# Run from the root of a tree on a GPU host, with OUT set; writes OUT/r.tgz.
set -u
R=$OUT/r; mkdir -p $R
T="build/gsp-wl build/gspaced build/gsp-run build/lib/libgsp_preload.so build/lib/libgsp.so.1.0"
make -s -j16 $T > $R/build.txt 2>&1 || { echo build failed; tail $R/build.txt; exit 1; }
BUILD=build
log_cmd() { :; }
OUT0=$OUT
. bench/gspaced.sh
OUT=$R
printf 'lease_devices = 1\nsim_devices = 0\nlc_uids = %s\npartition = 132,8\n' "$(id -u)" > $R/gspaced.conf
gspaced_up diag $R/gspaced.conf $R/gspaced.log || { echo no gspaced; exit 1; }
for W in ${WLS:-nn hotspot lbm cfd}; do
 for C in tp x; do
  [ $SECONDS -gt 480 ] && break 2
  if [ $C = tp ]; then pre=(build/gsp-run --arbiter daemon --socket $sockdir/s --class be --no-spatial --); env=(); kf=()
  else pre=(build/gsp-run --arbiter daemon --socket $sockdir/s --class be --spatial --); env=(GSP_ONE_WAVE=0); kf=(-k regex:__gsp); fi
  f=$R/f-$W-$C
  env "${env[@]}" timeout 120 ncu --set full --import-source no --clock-control none "${kf[@]}" --launch-skip 6 --launch-count 1 -o $f "${pre[@]}" build/gsp-wl run --be $W --duration 0.3 > $f.out 2>&1
  ncu -i $f.ncu-rep --page details --csv > $f.details.csv 2>&1
  ncu -i $f.ncu-rep --page raw --csv > $f.raw.csv 2>&1
  ncu -i $f.ncu-rep --page source --csv --print-source sass > $f.sass.csv 2>&1
  ls -la $f.* | awk '{print $5, $9}'
  echo "$W $C done at $SECONDS"
 done
done
rm -f $R/*.ncu-rep
cd $OUT0 && tar -czf r.tgz r && rm -rf r
