#!/bin/bash
# An unmodified PyTorch BE under gsp-run --spatial: outputs vs plain, stats, wall time
set -u
R=$OUT/t; mkdir -p $R
BUILD=build
make -s -j16 build/gsp-wl build/gspaced build/gsp-run build/lib/libgsp_preload.so build/lib/libgsp.so.1.0 > $R/build.log 2>&1 || { tail -30 $R/build.log; exit 1; }
log_cmd() { printf '%q ' "$@" >>"$R/commands.txt"; echo >>"$R/commands.txt"; }
O=$OUT; OUT=$R
. bench/gspaced.sh
printf 'lease_devices = 1\nsim_devices = 0\nlc_uids = %s\npartition = 132,8\n' "$(id -u)" >$R/gspaced.conf
gspaced_up torch $R/gspaced.conf $R/gspaced.log || { echo no gspaced; exit 1; }
python3 -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.get_arch_list())' > $R/torch.txt 2>&1
cuobjdump --list-ptx $(python3 -c 'import torch,os; print(os.path.join(os.path.dirname(torch.__file__),"lib","libtorch_cuda.so"))') 2>/dev/null | awk '{print $NF}' | sed 's/.*\.//' | sort | uniq -c > $R/libtorch_cuda.ptx-archs.txt
one() { # NAME MODE CMD...
	local name=$1 mode=$2; shift 2
	local pre=()
	case $mode in
	plain) ;;
	tp) pre=(build/gsp-run --arbiter daemon --socket $sockdir/s --class be --no-spatial --) ;;
	sp) pre=(build/gsp-run --arbiter daemon --socket $sockdir/s --class be --spatial --) ;;
	esac
	log_cmd env GSP_LOG=1 GSP_STATS_FILE=OUT/$name-$mode.stats timeout 280 "${pre[@]}" "$@"
	local t0=$(date +%s%N)
	GSP_LOG=1 GSP_STATS_FILE=$R/$name-$mode.stats timeout 280 "${pre[@]}" "$@" > $R/$name-$mode.out 2> $R/$name-$mode.err
	local rc=$? t1=$(date +%s%N)
	local ms=$(( (t1 - t0) / 1000000 ))
	echo "$name,$mode,$rc,$ms" >> $R/runs.csv
	echo "$name $mode rc=$rc $ms ms"
}
echo "prog,mode,rc,wall_ms" > $R/runs.csv
one train plain python3 bench/gpu/torch_train.py --steps 30
one train tp python3 bench/gpu/torch_train.py --steps 30
one train sp python3 bench/gpu/torch_train.py --steps 30
one resnet plain python3 bench/gpu/torch_resnet.py
one resnet sp python3 bench/gpu/torch_resnet.py
for p in train resnet; do cmp -s $R/$p-plain.out $R/$p-sp.out && echo "$p: spatial stdout equals plain" || echo "$p: spatial stdout DIFFERS"; done | tee $R/compare.txt
grep -h -i 'spatial' $R/*-sp.stats | head -60
gspaced_down
cd $O && tar czf t.tgz t && rm -rf t
