#!/bin/bash
# ncu metrics: original (timeplane) vs transformed (spatial, spatial B=1)
set -u
R=$OUT/r; mkdir -p $R
BUILD=build
make -s -j16 build/gsp-wl build/gspaced build/gsp-run build/lib/libgsp_preload.so build/lib/libgsp.so.1.0 > $R/build.log 2>&1 || { tail -30 $R/build.log; exit 1; }
log_cmd() { printf '%q ' "$@" >>"$R/commands.txt"; echo >>"$R/commands.txt"; }
OUT_SAVE=$OUT; OUT=$R
. bench/gspaced.sh
printf 'lease_devices = 1\nsim_devices = 0\nlc_uids = %s\npartition = 132,8\n' "$(id -u)" >$R/gspaced.conf
gspaced_up ncu $R/gspaced.conf $R/gspaced.log || { echo no gspaced; exit 1; }
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
for wl in ${WLS:-hotspot nn pathfinder bp lbm cfd md lud streamcluster}; do
  for mode in tp sp sp1; do
    case $mode in
      tp) env=(); fl=--no-spatial ;;
      sp) env=(); fl=--spatial ;;
      sp1) env=(GSP_BATCH_NS=0); fl=--spatial ;;
    esac
    cmd=(ncu --metrics $M --csv --launch-skip 30 --launch-count 20 build/gsp-run --arbiter daemon --socket $sockdir/s --class be $fl -- build/gsp-wl run --be $wl --duration 0.3)
    log_cmd env "${env[@]}" "${cmd[@]}"
    env "${env[@]}" timeout 200 "${cmd[@]}" > $R/$wl-$mode.csv 2> $R/$wl-$mode.err
    echo "$wl $mode rc=$?"
  done
done
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -1; ncu --version | tail -1; } > $R/env.txt
gspaced_down
cd $OUT_SAVE && tar czf r.tgz r && rm -rf r
