#!/bin/bash
# Per-instruction warp stall samples: original (timeplane) vs clone (spatial)
set -u
O=$OUT; R=$O/s; mkdir -p $R
BUILD=build
make -s -j16 build/gsp-wl build/gspaced build/gsp-run build/lib/libgsp_preload.so build/lib/libgsp.so.1.0 > $R/build.log 2>&1 || { tail -30 $R/build.log; exit 1; }
log_cmd() { printf '%q ' "$@" >>"$R/commands.txt"; echo >>"$R/commands.txt"; }
OUT=$R
. bench/gspaced.sh
printf 'lease_devices = 1\nsim_devices = 0\nlc_uids = %s\npartition = 132,8\n' "$(id -u)" >$R/gspaced.conf
gspaced_up stall $R/gspaced.conf $R/gspaced.log || { echo no gspaced; exit 1; }
for wk in hotspot:hs_kernel pathfinder:pf_kernel nn:nn_kernel; do
  wl=${wk%%:*}; k=${wk#*:}
  for mode in tp sp; do
    [ $mode = tp ] && fl=--no-spatial || fl=--spatial
    cmd=(ncu --section WarpStateStats --section SourceCounters --section SchedulerStats --section Occupancy --section SpeedOfLight -k regex:$k --launch-skip 20 --launch-count 1 -f -o $R/$wl-$mode build/gsp-run --arbiter daemon --socket $sockdir/s --class be $fl -- build/gsp-wl run --be $wl --duration 0.3)
    log_cmd "${cmd[@]}"
    timeout 200 "${cmd[@]}" > $R/$wl-$mode.log 2>&1
    echo "$wl $mode rc=$?"
    ncu -i $R/$wl-$mode.ncu-rep --page details --csv > $R/$wl-$mode.details.csv 2>&1
    ncu -i $R/$wl-$mode.ncu-rep --page source --csv --print-source sass > $R/$wl-$mode.source.csv 2>&1
    ls -la $R/$wl-$mode.*
  done
done
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -1; ncu --version | tail -1; } > $R/env.txt
gspaced_down
cd $O && tar czf s.tgz s && rm -rf s
