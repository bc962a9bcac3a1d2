#!/bin/bash
# side by side: timeplane, spatial@base (82e509c), spatial (this tree)
set -u
R=$OUT/r; mkdir -p $R
T=(build/gsp-wl build/gspaced build/gsp-run build/lib/libgsp_preload.so build/lib/libgsp.so.1.0 build/xform/xform-check build/gsp-xform)
mkdir -p ${TMPDIR:-/tmp}/w/base && tar xf .base.tar -C ${TMPDIR:-/tmp}/w/base
( cd ${TMPDIR:-/tmp}/w/base && make -s -j8 "${T[@]}" > $R/build-base.log 2>&1 ) &
make -s -j8 "${T[@]}" > $R/build-new.log 2>&1 || { tail -20 $R/build-new.log; exit 1; }
wait
[ -x ${TMPDIR:-/tmp}/w/base/build/gsp-run ] || { tail -20 $R/build-base.log; exit 1; }
echo built $(date +%T)
timeout 120 bash bench/gpu/xform-check.sh $R/xc-new > $R/xc-new.out 2>&1; echo "xc rc=$? $(date +%T)"
grep -E -i 'fail|not ok|pass|bitwise|cost' $R/xc-new.out | tail -8
REPS=${REPS:-5} DURATION=1 timeout 470 bench/run-be-cost.sh $R/be-cost timeplane spatial@${TMPDIR:-/tmp}/w/base/build spatial > $R/be-cost.out 2>&1; echo "be rc=$? $(date +%T)"
python3 bench/gpu/plot-be-cost.py $R/be-cost timeplane > $R/plot.out 2>&1; tail -20 $R/plot.out
cd $OUT && tar czf r.tgz r && rm -rf r
