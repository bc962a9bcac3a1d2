#!/bin/bash
# PyTorch training as BE beside an LC gsp-wl, under MPS: plain (no gspace),
# gsp-run --spatial (green fallback), gsp-run --no-spatial (time plane)
set -u
R=$OUT/tl; mkdir -p $R
BUILD=build
make -s -j16 build/gsp-wl build/gspaced build/gsp-run build/lib/libgsp_preload.so build/lib/libgsp.so.1.0 > $R/build.log 2>&1 || { tail -30 $R/build.log; exit 1; }
log_cmd() { printf '%q ' "$@" >>"$R/commands.txt"; echo >>"$R/commands.txt"; }
O=$OUT; OUT=$R
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
log_cmd nvidia-cuda-mps-control -d
nvidia-cuda-mps-control -d || echo "no MPS"
. bench/gspaced.sh
printf 'lease_devices = 1\nsim_devices = 0\nlc_uids = %s\npartition = 66,8\n' "$(id -u)" >$R/gspaced.conf
gspaced_up tl $R/gspaced.conf $R/gspaced.log || { echo no gspaced; exit 1; }
STEPS=${STEPS:-1500}
LCWL=${LCWL:-hotspot}
LCDUR=${LCDUR:-6}
TR=(python3 bench/gpu/torch_train.py --steps $STEPS --batch ${BATCH:-128})
LC=(build/gsp-wl run --lc $LCWL --duration $LCDUR --period-ms 5)
echo "mode,role,rc,wall_ms,result" > $R/runs.csv
runpair() { # MODE: plain | sp | tp | lcalone | bealone
	local m=$1 bepre=() lcpre=() t0 t1 bp lp
	case $m in
	sp) bepre=(build/gsp-run --arbiter daemon --socket $sockdir/s --class be --spatial --)
	    lcpre=(build/gsp-run --arbiter daemon --socket $sockdir/s --class lc --lc-target-us 2000 --) ;;
	tp) bepre=(build/gsp-run --arbiter daemon --socket $sockdir/s --class be --no-spatial --)
	    lcpre=(build/gsp-run --arbiter daemon --socket $sockdir/s --class lc --lc-target-us 2000 --) ;;
	esac
	t0=$(date +%s%N)
	if [ $m != lcalone ]; then
		log_cmd env GSP_LOG=1 GSP_STATS_FILE=OUT/be-$m.stats "${bepre[@]}" "${TR[@]}"
		GSP_LOG=1 GSP_STATS_FILE=$R/be-$m.stats timeout 250 "${bepre[@]}" "${TR[@]}" > $R/be-$m.out 2> $R/be-$m.err &
		bp=$!
		sleep 8
	fi
	if [ $m != bealone ]; then
		log_cmd env GSP_STATS_FILE=OUT/lc-$m.stats "${lcpre[@]}" "${LC[@]}" --lat-out OUT/lc-$m.lat
		GSP_STATS_FILE=$R/lc-$m.stats timeout 100 "${lcpre[@]}" "${LC[@]}" --lat-out $R/lc-$m.lat > $R/lc-$m.out 2> $R/lc-$m.err
		echo "$m,lc,$?,,$(grep RESULT $R/lc-$m.out | tr ',' ' ')" >> $R/runs.csv
	fi
	if [ $m != lcalone ]; then
		# was the BE still running when the LC ended?
		kill -0 $bp 2>/dev/null && echo "$m: BE still running at LC end" >> $R/overlap.txt || echo "$m: BE ENDED BEFORE LC END" >> $R/overlap.txt
		wait $bp; local rc=$?; t1=$(date +%s%N)
		echo "$m,be,$rc,$(( (t1 - t0) / 1000000 )),$(tail -1 $R/be-$m.out)" >> $R/runs.csv
	fi
	echo "$m done $(date +%T)"
}
runpair bealone
for rep in ${ROUNDS:-1}; do
	R0=$R; R=$R0/$rep; mkdir -p $R; cp $R0/be-bealone.out $R/
	echo "mode,role,rc,wall_ms,result" > $R/runs.csv
	runpair lcalone
	runpair plain
	runpair sp
	runpair tp
	R=$R0
done
for m in plain sp tp; do for rep in ${ROUNDS:-1}; do cmp -s $R/be-bealone.out $R/$rep/be-$m.out && echo "$rep $m: BE stdout equals alone" || echo "$rep $m: BE stdout DIFFERS"; done; done | tee $R/compare.txt
cat $R/*/runs.csv $R/*/overlap.txt
grep -h 'green\|spatial_launches\|fallback' $R/*/be-sp.stats
gspaced_down
echo quit | nvidia-cuda-mps-control
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -1; python3 -c 'import torch; print("torch", torch.__version__)'; } > $R/env.txt 2>&1
cd $O && tar czf tl.tgz tl && rm -rf tl
