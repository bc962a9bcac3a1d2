#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What a BE alone loses under gsp-run, per workload of kernels/ (issue 6's
# cost target), on a GPU host from a bare checkout:
#
#   bench/run-be-cost.sh OUT [MODE...]
#
# Every workload of `gsp-wl digest` runs alone as a BE (`gsp-wl run --be
# WL`) in each MODE, the modes side by side per workload and repeated
# REPS times (default 3) in rotation, so that drifting clocks hit every
# mode alike. A MODE is a base name with optional environment settings,
# e.g. `spatial+GSP_OVERLAP=1`, and optionally `@DIR`: another build tree
# whose gsp-run (and so its interposer) runs that mode, to compare two
# versions side by side (`spatial@../old/build`):
#
#   plain       the program alone, no interposer
#   timeplane   gsp-run --class be --no-spatial: leases, no transformation
#   spatial     gsp-run --class be --spatial: transformed kernels
#
# Default modes: plain timeplane spatial. One gspaced serves the run
# (partition 132,8, no LC). Writes OUT/be-cost.csv
# (wl,mode,rep,units_per_s,status), OUT/env.txt and OUT/commands.txt.
# DURATION (default 2) is each run's window in seconds. WLS (default: all)
# is a space-separated list of workloads to run, in that order.
set -uo pipefail
[ $# -ge 1 ] || { echo "usage: $0 OUT [MODE...] (MODE: plain|timeplane|spatial[+VAR=VALUE...][@BUILD])" >&2; exit 2; }
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build}
REPS=${REPS:-3}
DURATION=${DURATION:-2}
out=$1
shift
modes=("$@")
[ ${#modes[@]} -gt 0 ] || modes=(plain timeplane spatial)
for m in "${modes[@]}"; do
	b=${m%%@*}
	case ${b%%+*} in
	plain | timeplane | spatial) ;;
	*) echo "run-be-cost: unknown mode '$m'; use plain, timeplane or spatial, optionally +VAR=VALUE and @BUILD" >&2
	   exit 2 ;;
	esac
	[ "$b" = "$m" ] || [ -x "${m#*@}/gsp-run" ] ||
		{ echo "run-be-cost: mode '$m': no gsp-run in ${m#*@}; build that tree first" >&2; exit 2; }
done
mapfile -t wls < <(sed -n '/def_wls\[\] = {/,/};/p' kernels/gsp-wl.cu |
	grep -o '"[^"]*"' | tr -d '"')
[ ${#wls[@]} -gt 0 ] || { echo "run-be-cost: no workloads found in kernels/gsp-wl.cu" >&2; exit 1; }
if [ -n "${WLS:-}" ]; then
	read -r -a want <<<"$WLS"
	for w in "${want[@]}"; do
		printf '%s\n' "${wls[@]}" | grep -qxF -- "$w" ||
			{ echo "run-be-cost: WLS names '$w', which is not a workload of kernels/gsp-wl.cu (${wls[*]})" >&2; exit 2; }
	done
	wls=("${want[@]}")
fi
# shellcheck source=bench/outdir.sh
. bench/outdir.sh
outdir_init run-be-cost "$out"
build_or_die run-be-cost "$BUILD/gsp-wl" "$BUILD/gspaced" "$BUILD/gsp-run" \
	"$BUILD/lib/libgsp_preload.so" libgsp

# shellcheck source=bench/gspaced.sh
. bench/gspaced.sh
gspaced_up_gpu becost ||
	{ echo "run-be-cost: gspaced did not come up (see gspaced.log)" >&2; exit 1; }


# one run: wl mode rep -> a CSV line
one() {
	local wl=$1 mode=$2 rep=$3 run=$BUILD envs=() base setting cmd out ups status

	[ "$mode" = "${mode%@*}" ] || run=${mode#*@}
	setting=${mode%%@*}
	base=${setting%%+*}
	[ "$setting" = "$base" ] || IFS=+ read -r -a envs <<<"${setting#"$base"+}"
	cmd=("$BUILD/gsp-wl" run --be "$wl" --duration "$DURATION")
	case $base in
	timeplane) cmd=("$run/gsp-run" --arbiter daemon --socket "$sockdir/s"
			--class be --no-spatial -- "${cmd[@]}") ;;
	spatial) cmd=("$run/gsp-run" --arbiter daemon --socket "$sockdir/s"
		      --class be --spatial -- "${cmd[@]}") ;;
	esac
	[ "$rep" != 1 ] || log_cmd env "${envs[@]}" "${cmd[@]}"
	out=$(env "${envs[@]}" timeout 120 "${cmd[@]}" 2>>"$OUT/stderr.txt")
	status=$?
	ups=$(sed -n 's/^RESULT role=be .*units_per_s=\([0-9.]*\).*/\1/p' <<<"$out")
	[ -n "$ups" ] || { ups=; [ $status != 0 ] || status=1; }
	echo "$wl,$mode,$rep,$ups,$status"
}

echo "wl,mode,rep,units_per_s,status" >"$OUT/be-cost.csv"
rc=0
for wl in "${wls[@]}"; do
	for rep in $(seq "$REPS"); do
		for m in "${modes[@]}"; do
			line=$(one "$wl" "$m" "$rep")
			echo "$line" >>"$OUT/be-cost.csv"
			echo "$line"
			[ "${line##*,}" = 0 ] || rc=1
		done
	done
done
gpu_env "$OUT/env.txt" \
	"reps: $REPS, duration: $DURATION s, modes: ${modes[*]}, workloads: ${wls[*]}"
exit $rc
