#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The GPU experiment for libgsp, gspaced and the interposer, in one go on
# a GPU host (no root, no MPS). See Documentation/gpu-experiment.rst.
#
#   OUT=DIR bench/gpu/run-experiment.sh [PART...]
#
# PART: correctness fairness lc overhead (default: all four, in that
# order). Builds what it needs (run `make -s user` first), records the
# GPU, driver, CUDA and torch versions and every command, starts gspaced
# on a private socket (stopped on exit), runs each experiment into DIR,
# then bench/gpu/analyze.py DIR. A failed experiment is recorded in
# DIR/status.csv and the script goes on; exit status 1 if any failed.
#
# Knobs (environment): BUILD (build), DUR (fairness seconds, 10),
# LC_DUR (10), LC_KERNEL_US (200), LC_PERIOD_US (5000), BE_KERNEL_US
# (5000), LC_TARGET_US (1000), BUDGET_S (470: experiments that would
# start later than this are skipped), GSPACED_CONF_EXTRA (lines appended
# to gspaced's config).
set -uo pipefail

usage() {
	echo "run-experiment: $*" >&2
	echo "usage: OUT=DIR $0 [correctness] [fairness] [lc] [overhead]" >&2
	exit 2
}

[ -n "${OUT:-}" ] || usage "set OUT to a directory for the results (it is created)"
num_env() {	# NAME DEFAULT: a positive integer from the environment
	local v=${!1:-$2}
	[[ $v =~ ^[1-9][0-9]*$ ]] || usage "$1 must be a positive integer, got '$v'"
	printf -v "$1" %s "$v"
}
num_env DUR 10
num_env LC_DUR 10
num_env LC_KERNEL_US 200
num_env LC_PERIOD_US 5000
num_env BE_KERNEL_US 5000
num_env LC_TARGET_US 1000
num_env BUDGET_S 470
parts=${*:-correctness fairness lc overhead}
for p in $parts; do
	case $p in
	correctness | fairness | lc | overhead) ;;
	*) usage "unknown part '$p'" ;;
	esac
done

cd "$(dirname "$0")/../.." || exit 2
BUILD=${BUILD:-build}
G=$BUILD/gpu
GSPACED=$BUILD/gspaced
GSPRUN=$BUILD/gsp-run
GSPCTL=$BUILD/gspctl
PRELOAD=$BUILD/lib/libgsp_preload.so
mkdir -p "$OUT" || usage "cannot create $OUT"
OUT=$(cd "$OUT" && pwd)
exec > >(tee -a "$OUT/run.log") 2>&1
T0=$SECONDS
failed=0
echo "experiment,rc,seconds,note" >"$OUT/status.csv"

# Every command that produces results is logged first (log_cmd), so
# commands.txt is the exact list (background ones end with "&").
# shellcheck source=bench/outdir.sh
. bench/outdir.sh

status() {	# NAME RC SECONDS NOTE
	echo "$1,$2,$3,$4" >>"$OUT/status.csv"
	echo "== $1: rc $2 in $3 s${4:+ ($4)}"
	[ "$2" = 0 ] || failed=1
}

BG=()
GSPD_PID=
SOCKDIR=$(mktemp -d /tmp/gspexp.XXXXXX)	# a short path: socket names are limited
SOCK=$SOCKDIR/gspaced.sock
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	local p
	for p in "${BG[@]}"; do
		kill "$p" 2>/dev/null
	done
	if [ -n "$GSPD_PID" ]; then
		kill "$GSPD_PID" 2>/dev/null
		wait "$GSPD_PID" 2>/dev/null
	fi
	rm -rf "$SOCKDIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- build and environment -------------------------------------------------
make -s "$G/gsp-check" "$G/gsp-load" "$G/launch-overhead" ||
	status build 1 0 "the gpu programs did not build"
make -s "$GSPACED" "$GSPRUN" "$PRELOAD" ||
	echo "run-experiment: gspaced, gsp-run or the interposer did not build; gspace runs will fail" >&2

{
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "git: $(git rev-parse HEAD 2>/dev/null) ($(git status --porcelain 2>/dev/null | grep -vc '^??') modified tracked files)"
	echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total,compute_mode --format=csv,noheader 2>&1 | head -1)"
	"$G/gsp-load" --info 2>&1
	echo "nvcc: $("${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" --version 2>&1 | tail -1)"
	echo "torch: $(python3 -c 'import torch; print(torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())' 2>&1 | tail -1)"
	echo "torchvision: $(python3 -c 'import torchvision; print(torchvision.__version__)' 2>&1 | tail -1)"
	echo "kernel: $(uname -r)"
	echo "mps: not used"
	echo "command: OUT=<dir> bench/gpu/run-experiment.sh $parts" \
		"(DUR=$DUR LC_DUR=$LC_DUR LC_KERNEL_US=$LC_KERNEL_US LC_PERIOD_US=$LC_PERIOD_US" \
		"BE_KERNEL_US=$BE_KERNEL_US LC_TARGET_US=$LC_TARGET_US)"
} >"$OUT/env.txt"
nvidia-smi -q >"$OUT/nvidia-smi-q.txt" 2>&1
cat "$OUT/env.txt"

# --- gspaced ---------------------------------------------------------------
{
	echo "lease_devices = 1"
	echo "sim_devices = 0"
	echo "policy = band"
	echo "lc_uids = $(id -u)"
	[ -z "${GSPACED_CONF_EXTRA:-}" ] || printf '%s\n' "$GSPACED_CONF_EXTRA"
} >"$OUT/gspaced.conf"

start_gspaced() {
	local i
	rm -f "$SOCK"
	log_cmd "$GSPACED" --foreground --config "$OUT/gspaced.conf" --socket "$SOCK"
	"$GSPACED" --foreground --config "$OUT/gspaced.conf" --socket "$SOCK" \
		>>"$OUT/gspaced.log" 2>&1 &
	GSPD_PID=$!
	for i in $(seq 100); do
		[ -S "$SOCK" ] && return 0
		kill -0 "$GSPD_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "run-experiment: gspaced did not come up (see $OUT/gspaced.log)" >&2
	kill "$GSPD_PID" 2>/dev/null
	GSPD_PID=
	return 1
}

# Before each experiment under gspace: restart gspaced if it died, and
# say so (a crash is a finding, not something to hide).
ensure_gspaced() {	# EXPERIMENT
	if [ -n "$GSPD_PID" ] && kill -0 "$GSPD_PID" 2>/dev/null; then
		return 0
	fi
	if [ -n "$GSPD_PID" ]; then
		wait "$GSPD_PID"
		status "gspaced-died-before-$1" "$?" 0 "gspaced exited; restarting"
		GSPD_PID=
	fi
	start_gspaced
}

# PRE=(the gsp-run prefix for MODE): plain runs get none.
set_pre() {	# MODE [WEIGHT]: plain | be | lc
	case $1 in
	plain) PRE=() ;;
	be) PRE=("$GSPRUN" --arbiter daemon --socket "$SOCK" --class be --weight "${2:-100}" --) ;;
	lc) PRE=("$GSPRUN" --arbiter daemon --socket "$SOCK" --class lc
		--lc-target-us "$LC_TARGET_US" --) ;;
	esac
}

snapshot() {	# FILE: the daemon's view of the tenants, if gspctl exists
	[ -x "$GSPCTL" ] && "$GSPCTL" --arbiter daemon --socket "$SOCK" status >"$1" 2>&1
	return 0
}

over_budget() {	# NAME
	if [ $((SECONDS - T0)) -ge "$BUDGET_S" ]; then
		status "$1" skipped 0 "time budget of $BUDGET_S s spent"
		return 0
	fi
	return 1
}

start_at() {	# ms since the epoch, $1 ms from now
	echo $(($(date +%s%3N) + $1))
}

# --- correctness -------------------------------------------------------------
corr() {	# PROG MODE TIMEOUT COMMAND...: stdout, stderr and rc in $OUT/correctness
	local name=$1-$2 mode=$2 to=$3 t=$SECONDS rc
	shift 3
	over_budget "correctness-$name" && return
	if [ "$mode" != plain ]; then
		ensure_gspaced "correctness-$name" || {
			status "correctness-$name" 1 0 "no gspaced"; return; }
	fi
	set_pre "$mode"
	log_cmd timeout "$to" "${PRE[@]}" "$@"
	GSP_STATS_FILE=$OUT/correctness/$name.stats timeout "$to" "${PRE[@]}" "$@" \
		>"$OUT/correctness/$name.out" 2>"$OUT/correctness/$name.err"
	rc=$?
	echo "$rc" >"$OUT/correctness/$name.rc"
	status "correctness-$name" "$rc" $((SECONDS - t)) ""
}

run_correctness() {
	mkdir -p "$OUT/correctness"
	corr check plain 60 "$G/gsp-check"
	corr check be 60 "$G/gsp-check"
	corr check lc 60 "$G/gsp-check"
	corr resnet plain 240 python3 bench/gpu/torch_resnet.py
	corr resnet be 240 python3 bench/gpu/torch_resnet.py
	corr train plain 240 python3 bench/gpu/torch_train.py
	corr train be 240 python3 bench/gpu/torch_train.py
}

# --- fairness ------------------------------------------------------------------
# Each process: TAG:KERNEL_US:WEIGHT (gspaced's default weight is 100).
# Lengths 1:10; in the 1:2 configs the short-kernel processes get weight
# 200, the case that a per-launch round robin gets most wrong (it would
# give them 1/11 of the GPU time).
FAIR_CONFIGS=(
	"be2-eq s1:100:100 l1:1000:100"
	"be2-w12 s1:100:200 l1:1000:100"
	"be4-eq s1:100:100 l1:1000:100 s2:100:100 l2:1000:100"
	"be4-w12 s1:100:200 l1:1000:100 s2:100:200 l2:1000:100"
)

fair_one() {	# CONFIG MODE PROC...
	local cfg=$1 mode=$2 d t=$SECONDS at p tag kus w rc=0 pids=() tags=()
	shift 2
	over_budget "fairness-$cfg-$mode" && return
	d=$OUT/fairness/$cfg/$mode
	mkdir -p "$d"
	if [ "$mode" = gspace ]; then
		ensure_gspaced "fairness-$cfg" || { status "fairness-$cfg-$mode" 1 0 "no gspaced"; return; }
	fi
	at=$(start_at 4000)
	for p in "$@"; do
		IFS=: read -r tag kus w <<<"$p"
		local load=("$G/gsp-load" --kernel-us "$kus" --duration-s "$DUR"
			--start-at-ms "$at" --tag "$tag" --out "$d/$tag.csv")
		if [ "$mode" = gspace ]; then set_pre be "$w"; else set_pre plain; fi
		log_cmd timeout $((DUR + 60)) "${PRE[@]}" "${load[@]}" "&"
		GSP_STATS_FILE=$d/$tag.stats timeout $((DUR + 60)) "${PRE[@]}" \
			"${load[@]}" 2>"$d/$tag.err" &
		pids+=($!)
		tags+=("$tag")
		BG+=($!)
	done
	[ "$mode" = gspace ] && { sleep $((DUR / 2 + 4)); snapshot "$d/gspctl.txt"; }
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || { rc=$?; echo "run-experiment: $cfg/$mode ${tags[$i]}: exit $rc" >&2; }
	done
	BG=()
	status "fairness-$cfg-$mode" "$rc" $((SECONDS - t)) ""
}

run_fairness() {
	local c cfg p
	for c in "${FAIR_CONFIGS[@]}"; do
		read -r cfg p <<<"$c"
		mkdir -p "$OUT/fairness/$cfg"
		echo "tag,kernel_us,weight" >"$OUT/fairness/$cfg/procs.csv"
		for p in ${c#* }; do
			echo "${p//:/,}" >>"$OUT/fairness/$cfg/procs.csv"
		done
		# shellcheck disable=SC2086 # the process list splits on spaces
		fair_one "$cfg" gspace ${c#* }
		# shellcheck disable=SC2086
		fair_one "$cfg" plain ${c#* }
	done
}

# --- LC protection -------------------------------------------------------------
lc_one() {	# MODE: solo | solo-gspace | plain | gspace
	local mode=$1 d=$OUT/lc/$1 t=$SECONDS at rc=0 be_pid='' be_rc
	over_budget "lc-$mode" && return
	mkdir -p "$d"
	case $mode in
	*gspace) ensure_gspaced "lc-$mode" || { status "lc-$mode" 1 0 "no gspaced"; return; } ;;
	esac
	at=$(start_at 4000)
	local lc=("$G/gsp-load" --kernel-us "$LC_KERNEL_US" --period-us "$LC_PERIOD_US"
		--duration-s "$LC_DUR" --start-at-ms "$at" --tag lc --out "$d/lc.csv")
	local be=("$G/gsp-load" --kernel-us "$BE_KERNEL_US" --duration-s $((LC_DUR + 1))
		--start-at-ms "$at" --tag be --out "$d/be.csv")
	if [ "$mode" = plain ] || [ "$mode" = gspace ]; then
		if [ "$mode" = gspace ]; then set_pre be; else set_pre plain; fi
		log_cmd timeout $((LC_DUR + 60)) "${PRE[@]}" "${be[@]}" "&"
		GSP_STATS_FILE=$d/be.stats timeout $((LC_DUR + 60)) "${PRE[@]}" \
			"${be[@]}" 2>"$d/be.err" &
		be_pid=$!
		BG+=("$be_pid")
	fi
	case $mode in *gspace) set_pre lc ;; *) set_pre plain ;; esac
	log_cmd timeout $((LC_DUR + 60)) "${PRE[@]}" "${lc[@]}"
	GSP_STATS_FILE=$d/lc.stats timeout $((LC_DUR + 60)) "${PRE[@]}" "${lc[@]}" \
		2>"$d/lc.err"
	rc=$?
	if [ -n "$be_pid" ]; then
		wait "$be_pid"
		be_rc=$?
		[ "$rc" != 0 ] || rc=$be_rc
		BG=()
	fi
	status "lc-$mode" "$rc" $((SECONDS - t)) ""
}

run_lc() {
	local m
	for m in solo solo-gspace plain gspace; do
		lc_one "$m"
	done
}

# --- overhead --------------------------------------------------------------------
ovh_one() {	# MODE: plain | disabled | lc | be
	local mode=$1 t=$SECONDS rc d=$OUT/overhead pre
	over_budget "overhead-$mode" && return
	mkdir -p "$d"
	case $mode in
	plain) PRE=() ;;
	disabled)
		pre=$(realpath "$PRELOAD" 2>/dev/null || echo "$PRELOAD")
		PRE=(env GSP_DISABLE=1 LD_PRELOAD="$pre") ;;
	*)
		ensure_gspaced "overhead-$mode" || { status "overhead-$mode" 1 0 "no gspaced"; return; }
		set_pre "$mode" ;;
	esac
	log_cmd timeout 120 "${PRE[@]}" "$G/launch-overhead" --tag "$mode" --out "$d/$mode.csv"
	GSP_STATS_FILE=$d/$mode.stats timeout 120 "${PRE[@]}" "$G/launch-overhead" \
		--tag "$mode" --out "$d/$mode.csv" >"$d/$mode.txt" 2>"$d/$mode.err"
	rc=$?
	status "overhead-$mode" "$rc" $((SECONDS - t)) ""
}

run_overhead() {
	local m
	for m in plain disabled lc be; do
		ovh_one "$m"
	done
}

start_gspaced || status gspaced 1 0 "gspaced did not start; every gspace run will fail"
for p in $parts; do
	case $p in
	correctness) run_correctness ;;
	fairness) run_fairness ;;
	lc) run_lc ;;
	overhead) run_overhead ;;
	esac
done
log_cmd python3 bench/gpu/analyze.py "$OUT"
python3 bench/gpu/analyze.py "$OUT" || status analyze 1 0 "analyze.py failed"
echo "run-experiment: $((SECONDS - T0)) s; results in $OUT (summary.md, status.csv)"
exit "$failed"
