#!/bin/bash
# side-by-side cost run: base = HEAD archive, new = working tree
set -u
R=$OUT/r; mkdir -p $R
TG="build/gsp-wl build/gspaced build/gsp-run build/lib/libgsp_preload.so build/lib/libgsp.so.1.0 build/xform/xform-check build/gsp-xform"
T=/tmp/w; rm -rf $T; mkdir -p $T/base && tar -xf .base.tar -C $T/base
t0=$(date +%s)
(cd $T/base && make -s -j16 $TG) >$R/build-base.log 2>&1 &
make -s -j16 $TG >$R/build-new.log 2>&1
wait
echo "build $(( $(date +%s) - t0 )) s" | tee $R/time.txt
bash bench/gpu/xform-check.sh $R/xcheck >$R/xcheck.out 2>&1; echo "xcheck rc $?" | tee -a $R/time.txt
tail -5 $R/xcheck/xform-check.log
REPS=${REPS:-4} DURATION=1 timeout ${BUDGET:-470} bench/run-be-cost.sh $R/be-cost timeplane spatial@/tmp/w/base/build spatial >$R/be-cost.out 2>&1
echo "be-cost rc $? at $(( $(date +%s) - t0 )) s" | tee -a $R/time.txt
python3 bench/gpu/plot-be-cost.py $R/be-cost timeplane >/dev/null 2>&1
cat $R/be-cost/be-cost-summary.csv 2>/dev/null
tar czf $OUT/r.tgz -C $OUT r
