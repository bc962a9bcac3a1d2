#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Liang et al.'s spatial-temporal multitasking (STM) on a GPU host, from a
# bare checkout (nvcc in CUDA_HOME or PATH, ncu optional):
#
#   bench/run-stm.sh [--no-ncu] [--est drr|pinned] [--reps R] [--sets S] OUT
#
# --est defaults to pinned, the estimator of green-context partitions
# (Documentation/plan.rst, "Numbers"); --sets is stm's (default, pairs,
# saturating or a list: the comment at the top of bench/gpu/stm.cu).
#
# 1. unless --no-ncu, and if ncu is there (NCU, else PATH, else
#    $CUDA_HOME/bin/ncu): the DRAM bytes of one unit of each workload the
#    sets use (stm --list-wls), dram__bytes.sum summed over the unit's
#    kernels under gsp-wl digest (about 5 s a workload, a minute for the
#    default's 11); else stm takes each job's footprint instead and
#    profile.csv says so (bytes_from);
# 2. build/gpu/stm --out OUT (Documentation/plan.rst): profiles each job
#    on every number of green-context groups, then runs the sets
#    sequentially, with plain streams and by the STM plan (the 76 default
#    sets: about 3 minutes of GPU time on an H100; `build/gpu/stm
#    --list-sets --sets S` prints a bound for any sets);
# 3. bench/gpu/stm-eval.py OUT: summary.csv and summary.txt.
#
# Writes into OUT: stm.csv, profile.csv, bytes.csv (if ncu ran), ncu/,
# stm.log, summary.csv, summary.txt, env.txt, commands.txt, README.md.
set -uo pipefail
ncu_on=1 est=pinned reps=5 sets=default
while [ $# -gt 1 ]; do
	case $1 in
	--no-ncu) ncu_on= ;;
	--est) est=$2; shift ;;
	--reps) reps=$2; shift ;;
	--sets) sets=$2; shift ;;
	*) echo "run-stm: unknown option $1 (see the comment at the top of $0)" >&2; exit 2 ;;
	esac
	shift
done
case ${1:-} in
''|-*) echo "usage: $0 [--no-ncu] [--est drr|pinned] [--reps R] [--sets S] OUT" >&2; exit 2 ;;
esac
case $est in drr|pinned) ;; *) echo "run-stm: --est is drr or pinned" >&2; exit 2 ;; esac
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build}

# shellcheck source=bench/outdir.sh
. bench/outdir.sh
outdir_init run-stm "$1"
build_or_die run-stm "$BUILD/gpu/stm" "$BUILD/gsp-wl"
# the workloads of the sets; a bad --sets ends the run here (stm says why)
wls=$("$BUILD/gpu/stm" --list-wls --sets "$sets") || exit 2
wl_names=${wls//$'\n'/ }
# streams beyond 8 would share hardware queues and falsely serialise
export CUDA_DEVICE_MAX_CONNECTIONS=32
cuda=${CUDA_HOME:-/usr/local/cuda}
NCU=${NCU:-$(command -v ncu || echo "$cuda/bin/ncu")}
bytes_opt=()
if [ -n "$ncu_on" ] && [ -x "$NCU" ]; then
	mkdir -p "$OUT/ncu"
	echo "wl,bytes_per_unit" >"$OUT/bytes.csv"
	for w in $wls; do
		# digest: setup (input made on the host, uploaded by copies,
		# which ncu does not profile), a memset, one unit; so the
		# kernels ncu sees should be the unit's (unchecked: plan.rst)
		log_cmd "$NCU" --csv --metrics dram__bytes.sum --cache-control none \
			"$BUILD/gsp-wl" digest "$w"
		"$NCU" --csv --metrics dram__bytes.sum --cache-control none \
			"$BUILD/gsp-wl" digest "$w" >"$OUT/ncu/$w.csv" 2>"$OUT/ncu/$w.err" ||
			{ echo "run-stm: ncu failed on $w (ncu/$w.err); its footprint stands in" >&2; continue; }
		python3 - "$OUT/ncu/$w.csv" "$w" >>"$OUT/bytes.csv" <<'PY'
import csv, sys
total, unit = 0.0, {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9}
rows = [l for l in open(sys.argv[1]) if l.startswith('"')]
for r in csv.DictReader(rows):
    if r.get("Metric Name") == "dram__bytes.sum":
        total += float(r["Metric Value"].replace(",", "")) * unit.get(r.get("Metric Unit", "byte"), 1)
if total > 0:
    print(f"{sys.argv[2]},{total:.0f}")
PY
	done
	bytes_opt=(--bytes "$OUT/bytes.csv")
fi
gpu_env "$OUT/env.txt" "bench: run-stm.sh est=$est reps=$reps sets=$sets ncu=${ncu_on:+yes}" \
	"CUDA_DEVICE_MAX_CONNECTIONS=$CUDA_DEVICE_MAX_CONNECTIONS" \
	"command: $BUILD/gpu/stm --out $OUT --est $est --reps $reps --sets $sets ${bytes_opt[*]}"
log_cmd "$BUILD/gpu/stm" --out "$OUT" --est "$est" --reps "$reps" --sets "$sets" "${bytes_opt[@]}"
"$BUILD/gpu/stm" --out "$OUT" --est "$est" --reps "$reps" --sets "$sets" \
	"${bytes_opt[@]}" 2>&1 | tee "$OUT/stm.log"
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || { echo "run-stm: stm exited with status $rc (stm.log)" >&2; exit 1; }
log_cmd python3 bench/gpu/stm-eval.py "$OUT"
python3 bench/gpu/stm-eval.py "$OUT" || exit 1
cat >"$OUT/README.md" <<MD
# STM (Liang et al.) against sequential and stream concurrency

Made by \`bench/run-stm.sh\` (commands.txt, env.txt); Documentation/plan.rst
says what each column means and how the runs differ from the paper's.

- sets: \`$sets\` (the comment at the top of bench/gpu/stm.cu says what
  each family is); workloads: $wl_names
- stm.csv: per set, the medians of $reps runs of each mode, the model's
  STM and optimum latencies, and the plan (NAME:GROUPS, phases split by |)
- profile.csv: each job alone on every number of green-context groups
  (bytes_from: ncu, or footprint where ncu was not run)
- summary.txt, summary.csv: bench/gpu/stm-eval.py's summary
- STM here partitions SMs with green contexts; the paper interleaves
  thread blocks (leaky bucket) in one merged kernel. A different mechanism.
MD
outdir_scrub
cat "$OUT/summary.txt"
