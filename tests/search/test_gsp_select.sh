#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# gsp-select (libgsp/tools/gsp-select.c) on the fixture of
# tests/search/fixtures/select, whose answer gen.py computed without the
# library; then its refusals: bad arguments exit 2, unusable data 1,
# each with a message. Prints TAP lines only.
#
#   tests/search/test_gsp_select.sh GSP_SELECT SCRATCH_DIR
S=$1
d=$2
F=tests/search/fixtures/select
cd "$(dirname "$0")/../.." || exit 1
mkdir -p "$d"
run=(--set "$F" --profiles "$F" --pairs "$F/pairs.csv" --q 1.5
	--gpu fixture --grid "4,2,2,1")
if "$S" "${run[@]}" --out "$d/predict.csv" --model-out "$d/model.csv" \
	>"$d/stdout" 2>"$d/stderr" &&
   cmp -s "$d/predict.csv" "$F/predict.csv" &&
   grep '^summary' "$d/stdout" | cmp -s - "$F/summary.txt" &&
   cmp -s "$d/model.csv" "$F/model.csv"; then
	echo "ok - gsp-select on the fixture: the picks, predictions, errors and NN's model expected"
else
	echo "not ok - gsp-select on the fixture (compare $d with $F)"
	sed 's/^/# /' "$d/stderr"
fi

expect() {	# RC WHAT ARGS...: exit status RC and a message
	local want=$1 what=$2 rc
	shift 2
	"$S" "$@" >/dev/null 2>"$d/err"
	rc=$?
	if [ "$rc" = "$want" ] && [ -s "$d/err" ]; then
		echo "ok - gsp-select refuses $what"
	else
		echo "not ok - gsp-select refuses $what (exit $rc, not $want)"
		sed 's/^/# /' "$d/err"
	fi
}
expect 2 "no arguments"
expect 2 "a run without --gpu" "${run[@]:0:8}"
expect 2 "--q 0" "${run[@]}" --q 0
expect 2 "--q x" "${run[@]}" --q x
expect 2 "a grid with a 0 step" "${run[@]}" --grid 4,2,0,1
expect 2 "a grid of three numbers" "${run[@]}" --grid 4,2,2
expect 2 "a --gpu with a comma" "${run[@]}" --gpu a,b
expect 2 "an unknown option" "${run[@]}" --bogus 1
expect 2 "an option without its value" "${run[@]}" --out
expect 1 "a grid the tables do not fit" "${run[@]}" --grid 4,2,1,1 \
	--out "$d/x.csv"
mkdir -p "$d/p"
cp "$F"/features.csv "$F"/features-real.csv "$d/p"
sed 's/^7,16:/7,32:/' "$F/instances.csv" >"$d/p/instances.csv"
expect 1 "profiles of other instances than the set's" "${run[@]}" \
	--profiles "$d/p" --out "$d/x.csv"
sed 's/^bp,md,/bp,mm,/' "$F/pairs.csv" >"$d/pairs.csv"
expect 1 "a pair of a workload without a profile" "${run[@]}" \
	--pairs "$d/pairs.csv" --out "$d/x.csv"
expect 1 "a missing folder" "${run[@]}" --set "$d/none" --out "$d/x.csv"
