#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Argument checks of the GPU experiment's tools that need no GPU: each bad
# invocation must exit 2 with a message on stderr. Prints TAP lines only.
# gsp-load, lcprotect and hwprobe link only the static CUDA runtime, so they start
# without a driver; gsp-check and launch-overhead need libcuda.so.1 and are left out.
BUILD=${BUILD:-build}
cd "$(dirname "$0")/../.." || exit 1
err=$(mktemp)
trap 'rm -f "$err"' EXIT

expect2() {	# WHAT COMMAND...: exit status 2 and a non-empty stderr
	local what=$1 rc
	shift
	"$@" >/dev/null 2>"$err"
	rc=$?
	if [ "$rc" = 2 ] && [ -s "$err" ]; then
		echo "ok - cli: $what"
	else
		echo "not ok - cli: $what (exit $rc)"
		sed 's/^/# /' "$err"
	fi
}

L=$BUILD/gpu/gsp-load
expect2 "gsp-load without --kernel-us" "$L" --out /dev/null
expect2 "gsp-load --kernel-us 0" "$L" --kernel-us 0 --out /dev/null
expect2 "gsp-load --kernel-us 12x" "$L" --kernel-us 12x --out /dev/null
expect2 "gsp-load period shorter than the kernel" "$L" --kernel-us 500 --period-us 100 --out /dev/null
expect2 "gsp-load without --out" "$L" --kernel-us 100
expect2 "gsp-load unknown option" "$L" --kernel-us 100 --out /dev/null --bogus
expect2 "gsp-load --tag with a comma" "$L" --kernel-us 100 --out /dev/null --tag a,b
expect2 "gsp-load --duration-s without a value" "$L" --kernel-us 100 --out /dev/null --duration-s
H=$BUILD/gpu/hwprobe
expect2 "hwprobe without --out" "$H"
expect2 "hwprobe --dram-mib under 1 GiB" "$H" --out /nonexistent/x --dram-mib 512
expect2 "hwprobe --reps 0" "$H" --out /nonexistent/x --reps 0
expect2 "hwprobe unknown option" "$H" --out /nonexistent/x --bogus
P=$BUILD/gpu/lcprotect
expect2 "lcprotect without a role" "$P"
expect2 "lcprotect unknown role" "$P" serve
expect2 "lcprotect --body gpu" "$P" be --body gpu --iters 10
expect2 "lcprotect be without --iters" "$P" be --body compute
expect2 "lcprotect lc without --period-us" "$P" lc --iters 10 --blocks 264
expect2 "lcprotect --arrival burst" "$P" lc --iters 10 --blocks 264 --period-us 100 --arrival burst
expect2 "lcprotect --prio 2" "$P" lc --iters 10 --blocks 264 --period-us 100 --prio 2
expect2 "lcprotect both without --prio 1" "$P" both --lc-iters 1 --lc-blocks 1 --period-us 100 --iters 1
expect2 "lcprotect calibrate without --target-us" "$P" calibrate --body compute
expect2 "lcprotect an option without its value" "$P" be --iters
S=$BUILD/gpu/stm
expect2 "stm without --out" "$S"
expect2 "stm --reps 0" "$S" --reps 0 --out /nonexistent/x
expect2 "stm --est best" "$S" --est best --out /nonexistent/x
expect2 "stm --sets with one workload" "$S" --sets mm --list-sets
expect2 "stm --sets with a workload twice" "$S" --sets mm+mm --list-sets
expect2 "stm --sets with 6 workloads" "$S" --sets mm+nn+cfd+md+bp+lbm --list-sets
expect2 "stm --wls with an unknown workload" "$S" --wls mm,bogus --list-sets
expect2 "stm --target-ms -5" "$S" --target-ms -5 --out /nonexistent/x
expect2 "stm an option without its value" "$S" --out
if [ "$("$S" --list-sets 2>"$err" | wc -l)" = 76 ] &&
   [ "$("$S" --list-sets --sets pairs --wls mm,lbm,nn 2>"$err" | tr '\n' ' ')" = "mm+lbm mm+nn lbm+nn " ]; then
	echo "ok - cli: stm --list-sets: 76 default sets, and the pairs of --wls"
else
	echo "not ok - cli: stm --list-sets"
	sed 's/^/# /' "$err"
fi
# the saturating family: 6 pairs and 6 triples, each one of stream or cfd
# (stop scaling on part of the GPU) with fma, mm or md (scale with SMs)
sat="stream+fma stream+mm stream+md cfd+fma cfd+mm cfd+md stream+fma+mm stream+fma+md stream+mm+md cfd+fma+mm cfd+fma+md cfd+mm+md "
if [ "$("$S" --list-sets --sets saturating 2>"$err" | tr '\n' ' ')" = "$sat" ] &&
   grep -q '^stm: 12 sets, 30 jobs of 30 ms over 5 workloads; GPU time at most about [0-9]* s' "$err"; then
	echo "ok - cli: stm --list-sets --sets saturating: the 12 sets, and a bound on the GPU time"
else
	echo "not ok - cli: stm --list-sets --sets saturating"
	sed 's/^/# /' "$err"
fi
if [ "$("$S" --list-sets --sets saturating --wls stream,fma,mm 2>"$err" | tr '\n' ' ')" = "stream+fma stream+mm stream+fma+mm " ] &&
   [ "$("$S" --list-wls --sets saturating 2>"$err" | tr '\n' ' ')" = "mm cfd md stream fma " ] &&
   [ "$("$S" --list-wls 2>"$err" | tr '\n' ' ')" = "mm nn cfd md bp lbm hotspot pathfinder streamcluster spmv lud " ] &&
   [ "$("$S" --list-sets --sets pairs --wls stream,fma,lbm 2>"$err" | tr '\n' ' ')" = "stream+fma stream+lbm fma+lbm " ] &&
   [ "$("$S" --list-sets --sets fma+stream+md 2>"$err")" = "fma+stream+md" ]; then
	echo "ok - cli: stm: --wls narrows saturating; --list-wls; stream and fma in --wls and --sets, not in the default"
else
	echo "not ok - cli: stm: --wls with saturating, --list-wls, stream and fma"
	sed 's/^/# /' "$err"
fi
expect2 "stm --sets saturating with --wls that leaves no set" "$S" --sets saturating --wls mm,md --list-sets
expect2 "stm --list-wls with a bad --sets" "$S" --list-wls --sets stream+bogus
expect2 "run-stm.sh without OUT" bash bench/run-stm.sh
expect2 "run-stm.sh unknown option" bash bench/run-stm.sh --bogus /nonexistent/x
R=bench/gpu/run-experiment.sh
expect2 "run-experiment.sh without OUT" env -u OUT bash "$R"
expect2 "run-experiment.sh unknown part" env OUT=/nonexistent/x bash "$R" everything
expect2 "run-experiment.sh DUR=0" env OUT=/nonexistent/x DUR=0 bash "$R"
expect2 "analyze.py without a directory" python3 bench/gpu/analyze.py /nonexistent/x
expect2 "run-be-cost.sh without OUT" bash bench/run-be-cost.sh
expect2 "run-lcprotect.sh without OUT" bash bench/run-lcprotect.sh
expect2 "run-lcprotect.sh unknown option" bash bench/run-lcprotect.sh --bogus /nonexistent/x
expect2 "run-lcprotect.sh --measure-s 0" bash bench/run-lcprotect.sh --measure-s 0 /nonexistent/x
expect2 "run-lcprotect.sh --help (an option where OUT goes)" bash bench/run-lcprotect.sh --help
if [ -e ./--help ] || [ -e bench/--help ]; then
	echo "not ok - cli: run-lcprotect.sh --help created a folder"
else
	echo "ok - cli: run-lcprotect.sh --help creates nothing"
fi
expect2 "run-preempt.sh without OUT" bash bench/run-preempt.sh
expect2 "run-preempt.sh --help" bash bench/run-preempt.sh --help
expect2 "run-preempt.sh unknown option" bash bench/run-preempt.sh --bogus /nonexistent/x
expect2 "run-preempt.sh --measure-s 0" bash bench/run-preempt.sh --measure-s 0 /nonexistent/x
R=bench/run-timeplane.sh
expect2 "run-timeplane.sh without OUT" bash "$R"
expect2 "run-timeplane.sh --help" bash "$R" --help
expect2 "run-timeplane.sh unknown option" bash "$R" --bogus /nonexistent/x
expect2 "run-timeplane.sh --dur 0" bash "$R" --dur 0 /nonexistent/x
expect2 "run-timeplane.sh --configs matching nothing" bash "$R" --configs nope /nonexistent/x
expect2 "run-timeplane.sh --modes that is no regex" bash "$R" --modes '(' /nonexistent/x
if [ "$(bash "$R" --dry-run --configs 'mix[48]' --modes band /nonexistent/x 2>/dev/null | tr '\n' ' ')" = \
	"mix4.band mix4.band-q2000 mix4.band-q5000 mix8.band mix8.band-q2000 mix8.band-q5000 " ] && [ ! -e /nonexistent/x ]; then
	echo "ok - cli: run-timeplane.sh --dry-run lists the cells --configs and --modes keep, creates nothing"
else
	echo "not ok - cli: run-timeplane.sh --dry-run lists the cells --configs and --modes keep"
fi
expect2 "run-be-cost.sh unknown mode" bash bench/run-be-cost.sh /nonexistent/x plain bogus
expect2 "run-be-cost.sh @BUILD without gsp-run" bash bench/run-be-cost.sh /nonexistent/x spatial@/nonexistent/build
if [ -e /nonexistent/x ]; then
	echo "not ok - cli: run-be-cost.sh created OUT for a bad mode"
else
	echo "ok - cli: run-be-cost.sh creates nothing for a bad mode"
fi
R=bench/run-prophet.sh
expect2 "run-prophet.sh without OUT" bash "$R"
expect2 "run-prophet.sh --help" bash "$R" --help
expect2 "run-prophet.sh unknown option" bash "$R" --bogus /nonexistent/x
expect2 "run-prophet.sh --kmax 0" bash "$R" --kmax 0 /nonexistent/x
expect2 "run-prophet.sh --duration 0" bash "$R" --duration 0 /nonexistent/x
expect2 "run-prophet.sh --duration 1.2.3" bash "$R" --duration 1.2.3 /nonexistent/x
expect2 "run-prophet.sh --pairs with an unknown BE" bash "$R" --pairs bp_foo /nonexistent/x
expect2 "run-prophet.sh --pairs BE_LC" bash "$R" --pairs cfd_bp /nonexistent/x
expect2 "green-check.sh without OUT" bash bench/gpu/green-check.sh
expect2 "plot-be-cost.py without be-cost.csv" python3 bench/gpu/plot-be-cost.py /nonexistent/x
pd=$(mktemp -d)
trap 'rm -f "$err"; rm -rf "$pd"' EXIT
printf 'wl,mode,rep,units_per_s,status\na,timeplane,1,100,0\na,spatial,1,50,0\nb,timeplane,1,10,0\nb,spatial,1,20,0\nb,spatial,2,0,1\n' >"$pd/be-cost.csv"
expect2 "plot-be-cost.py with a reference mode the runs lack" python3 bench/gpu/plot-be-cost.py "$pd" plain
if python3 bench/gpu/plot-be-cost.py "$pd" timeplane 2>"$err" &&
   [ "$(cat "$pd/be-cost-summary.csv")" = "$(printf 'wl,spatial\na,0.5000\nb,2.0000\ngeomean,1.0000')" ] &&
   [ -s "$pd/be-cost.svg" ]; then
	echo "ok - cli: plot-be-cost.py compares with the reference mode it is given"
else
	echo "not ok - cli: plot-be-cost.py compares with the reference mode it is given"
	sed 's/^/# /' "$err" "$pd/be-cost-summary.csv"
fi
# build_missing: only what is missing, libgsp.so by its target
got=$(OUT=$(mktemp -d); BUILD=/nonexistent/b; . bench/outdir.sh
	build_or_die() { shift; echo "$*"; }
	build_missing t /nonexistent/b/gspaced /nonexistent/b/lib/libgsp.so bench/outdir.sh
	rm -rf "$OUT")
if [ "$got" = "/nonexistent/b/gspaced libgsp" ]; then
	echo "ok - cli: build_missing builds what is missing, libgsp.so as libgsp"
else
	echo "not ok - cli: build_missing builds what is missing, libgsp.so as libgsp (got '$got')"
fi
# outdir_scrub: no host path left in a results folder's commands and env
sd=$(mktemp -d)
printf 'env X=%s/build/lib/a.so prog --out %s/o --sock /tmp/gsp-x.Ab1/s\n' \
	"$PWD" "$sd" >"$sd/commands.txt"
printf 'models=%s/bench/results/m.csv\n' "$PWD" >"$sd/env.txt"
(OUT=$sd; . bench/outdir.sh; outdir_scrub "/tmp/gsp-x.Ab1:SOCKDIR")
if [ "$(cat "$sd/commands.txt")" = "env X=build/lib/a.so prog --out OUT/o --sock SOCKDIR/s" ] &&
   [ "$(cat "$sd/env.txt")" = "models=bench/results/m.csv" ]; then
	echo "ok - cli: outdir_scrub names OUT, the repository's paths and the sockets, not the host's"
else
	echo "not ok - cli: outdir_scrub names OUT, the repository's paths and the sockets"
	sed 's/^/# /' "$sd/commands.txt" "$sd/env.txt"
fi
rm -rf "$sd"
