#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The preemptive time plane's benchmark on a GPU host, from a bare
# checkout (root, nvcc and the MPS binaries in PATH):
#
#   bench/run-preempt.sh [--measure-s S] [--no-lc] [--mech REGEX]
#                        [--quantum-us Q] OUT
#
# Two BE programs share the GPU under BAND beside a periodic LC: A runs
# kernels of about 200 ms (909 waves of 220 us blocks), B kernels of about
# 1.4 ms (64 waves of 22 us blocks), each kernel followed by a
# synchronise; the LC is one kernel of about 100 us every 2 ms. Each
# cell runs all three side by side under one mechanism and one pair of
# BAND weights (A:B, gsp-run --weight):
#
#   mps                 no gspace (weights mean nothing to it)
#   gspace-time         the time plane: plain kernels under leases
#   gspace-reactive     transformed kernels, partition 132,32, protect
#                       reactive: a lease runs until its kernel ends
#   gspace-preemptive   the same under protect preemptive: a lease that
#                       ran its quantum while another job waits gives
#                       the GPU back at its kernels' next task boundary
#
# Writes OUT/preempt.csv:
#
#   mechanism,weights,quantum_us,a_per_s,a_solo_per_s,b_per_s,
#   b_solo_per_s,b_share,lc_p50_us,lc_p99_us,lc_solo_p99_us,preemptions,gpu
#
# b_share is B's part of the two BEs' work, each as a fraction of its
# solo throughput: (b/b_solo) / (a/a_solo + b/b_solo); BAND's target is
# B's weight over the sum. preemptions: the leases A and B gave back
# (their stats files). Also OUT/logs.tgz (every program's output and
# stats, gspaced's log), OUT/calib.txt, OUT/env.txt, OUT/commands.txt.
# A cell lasts about 3 + 1 + S seconds (S = 6 by default, so that A ends
# a dozen kernels in it). --no-lc leaves the LC out; --mech keeps the
# mechanisms that match REGEX (the solo runs always run); --quantum-us
# sets the BE leases' quantum (gsp-run --quantum-us; default the
# interposer's, 2000). Rows append to OUT/preempt.csv.
set -uo pipefail
measure=6 with_lc=1 mechs=. quantum=2000
while [ $# -gt 1 ]; do
	case $1 in
	--measure-s) measure=$2; shift ;;
	--no-lc) with_lc=0 ;;
	--mech) mechs=$2; shift ;;
	--quantum-us) quantum=$2; shift ;;
	*) echo "run-preempt: unknown option $1 (see the comment at the top of $0)" >&2; exit 2 ;;
	esac
	shift
done
case ${1:-} in
''|-*) echo "usage: $0 [--measure-s S] [--no-lc] [--mech REGEX] [--quantum-us Q] OUT" >&2; exit 2 ;;
esac
case $measure in ''|*[!0-9]*|0) echo "run-preempt: --measure-s needs a whole number of seconds >= 1" >&2; exit 2 ;; esac
case $quantum in ''|*[!0-9]*) echo "run-preempt: --quantum-us needs a whole number of us (10..10000000)" >&2; exit 2 ;; esac
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build}

# shellcheck source=bench/outdir.sh
. bench/outdir.sh
outdir_init run-preempt "$1"
LOGS=$OUT/logs
mkdir -p "$LOGS"
build_or_die run-preempt "$BUILD/gspaced" "$BUILD/gsp-run" "$BUILD/gspctl" \
	"$BUILD/lib/libgsp_preload.so" libgsp "$BUILD/gpu/lcprotect"
LCP=$BUILD/gpu/lcprotect
TMO=(timeout -k 5 $((measure + 40)))
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
gpu_env "$OUT/env.txt" "bench: run-preempt.sh measure_s=$measure lc=$with_lc mech=$mechs quantum_us=$quantum"

# shellcheck source=bench/mps.sh
. bench/mps.sh
# shellcheck source=bench/gspaced.sh
. bench/gspaced.sh
bench_up run-preempt 'lease_devices = 1\nsim_devices = 0\npolicy = band'
gctl set protect preemptive ||
	{ echo "run-preempt: gspaced has no protect preemptive" >&2; exit 1; }

# shellcheck source=bench/calib.sh
. bench/calib.sh
A_ARGS="be --body compute --iters $(calib run-preempt be-compute-220 --body compute --target-us 220) --waves 909 --sync 1"
B_ARGS="be --body compute --iters $(calib run-preempt be-compute-22 --body compute --target-us 22) --waves 64 --sync 1"
LC_ARGS="lc --iters $(calib run-preempt lc-100 --body compute --target-us 100 --blocks 264) --blocks 264 --period-us 2000"

# run TAG PREFIX_A PREFIX_B PREFIX_LC: the three side by side
run3() {
	local tag=$1 start timing pa pb pl
	IFS='|' read -r pa pb pl <<<"$2|$3|$4"
	start=$(($(date +%s%3N) + 3000))
	timing="--start-ms $start --warmup-s 1 --measure-s $measure"
	local pids=()
	for r in a b lc; do
		local pre args
		case $r in
		a) pre=$pa args=$A_ARGS ;;
		b) pre=$pb args=$B_ARGS ;;
		lc) [ "$with_lc" = 1 ] || continue; pre=$pl args=$LC_ARGS ;;
		esac
		# shellcheck disable=SC2086
		log_cmd env GSP_STATS_FILE="$LOGS/$tag.$r.stats" $pre "$LCP" $args $timing
		# shellcheck disable=SC2086
		"${TMO[@]}" env GSP_STATS_FILE="$LOGS/$tag.$r.stats" $pre "$LCP" $args $timing \
			>"$LOGS/$tag.$r.out" 2>"$LOGS/$tag.$r.err" &
		pids+=($!)
	done
	wait "${pids[@]}"
}
val() { awk -v k="$2" '$1 == k { print $3 }' "$LOGS/$1.out" 2>/dev/null; }
lcval() { awk -v f="$2" '$1 == "lc" { print $f }' "$LOGS/$1.lc.out" 2>/dev/null; }

# solos, plain
start=$(($(date +%s%3N) + 1000))
for r in a b lc; do
	[ "$r" = lc ] && [ "$with_lc" = 0 ] && continue
	case $r in a) args=$A_ARGS ;; b) args=$B_ARGS ;; lc) args=$LC_ARGS ;; esac
	start=$(($(date +%s%3N) + 1000))
	# shellcheck disable=SC2086
	log_cmd "$LCP" $args --start-ms "$start" --warmup-s 1 --measure-s "$measure"
	# shellcheck disable=SC2086
	"${TMO[@]}" "$LCP" $args --start-ms "$start" --warmup-s 1 --measure-s "$measure" \
		>"$LOGS/solo.$r.out" 2>"$LOGS/solo.$r.err"
done
A_SOLO=$(val solo.a be)
B_SOLO=$(val solo.b be)
LC_SOLO=$(awk '$1 == "lc" { print $5 }' "$LOGS/solo.lc.out" 2>/dev/null)

[ -s "$OUT/preempt.csv" ] ||
	echo "mechanism,weights,quantum_us,a_per_s,a_solo_per_s,b_per_s,b_solo_per_s,b_share,lc_p50_us,lc_p99_us,lc_solo_p99_us,preemptions,gpu" \
		>"$OUT/preempt.csv"
G="$BUILD/gsp-run --arbiter daemon --socket $sockdir/s"
Q="--quantum-us $quantum"
for mech in mps gspace-time gspace-reactive gspace-preemptive; do
	[[ $mech =~ $mechs ]] || continue
	for w in 100:100 100:300; do
		[ "$mech" = mps ] && [ "$w" != 100:100 ] && continue
		wa=${w%:*} wb=${w#*:}
		tag=$mech.${wa}_$wb.q$quantum
		case $mech in
		mps) run3 "$tag" "" "" "" ;;
		gspace-time)
			gctl set partition 0,0
			gctl set protect reactive
			run3 "$tag" "$G --class be --no-spatial $Q --weight $wa --" \
				"$G --class be --no-spatial $Q --weight $wb --" "$G --class lc --" ;;
		*)
			gctl set partition 132,32
			gctl set protect "${mech#gspace-}"
			run3 "$tag" "$G --class be --spatial $Q --weight $wa --" \
				"$G --class be --spatial $Q --weight $wb --" "$G --class lc --" ;;
		esac
		a=$(val "$tag.a" be) b=$(val "$tag.b" be)
		share=$(awk -v a="$a" -v as="$A_SOLO" -v b="$b" -v bs="$B_SOLO" \
			'BEGIN { if (a == "" || b == "" || as <= 0 || bs <= 0) print ""; else printf "%.3f", (b / bs) / (a / as + b / bs) }')
		pre=$(cat "$LOGS/$tag".[ab].stats 2>/dev/null |
			awk '$1 == "lease_preemptions" { n += $2 } END { print n + 0 }')
		q=$quantum
		[ "$mech" = mps ] && q=
		echo "$mech,$wa:$wb,$q,$a,$A_SOLO,$b,$B_SOLO,$share,$(lcval "$tag" 3),$(lcval "$tag" 5),$LC_SOLO,$pre,$GPU" >>"$OUT/preempt.csv"
		echo "run-preempt: $tag: a ${a:-failed} b ${b:-failed} share ${share:--} lc p99 $(lcval "$tag" 5) preemptions $pre" >&2
	done
done
