#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The psim suite (make check-psim), TAP on stdout and nothing else:
#  1. test_psim: each mode's behaviour on the SIMULATED GPU, and the
#     default scenario against the measurements behind the model
#  2. gsp-psim: its table (every row, the baseline first, SIMULATED in
#     the title) on a board in memory, and its argument checks
set -u
B=${BUILD:-build}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

"$B/tests/psim/test_psim" | grep -v '^1\.\.'
rc=${PIPESTATUS[0]}
[ "$rc" -le 1 ] || echo "not ok - psim: test_psim exited with status $rc"

if "$B/gsp-psim" --count 40 >"$tmp/out" 2>"$tmp/err" &&
	grep -q '^== SIMULATED GPU' "$tmp/out" &&
	grep -q 'SIMULATED: a model' "$tmp/out" &&
	[ "$(awk 'NF >= 9 && $1 ~ /^(none|mps-priority|time|reactive|reserved|predictive|preemptive)$/ { printf "%s ", $1 }' "$tmp/out")" = \
	  "none mps-priority time reactive reactive reserved reserved predictive predictive preemptive " ]; then
	echo "ok - psim: gsp-psim prints every mode, the baseline first, titled SIMULATED"
else
	echo "not ok - psim: gsp-psim's table"
	sed 's/^/# /' "$tmp/out" "$tmp/err"
fi

n=0
for args in "--sms 0" "--slots 33" "--modes bogus" "--modes reserved@0x8" \
	"--partition 200,8" "--warmup 500" "--jitter-pct 100" "--lead-us 0.5" \
	"extra"; do
	# shellcheck disable=SC2086 # a list of words
	"$B/gsp-psim" $args >/dev/null 2>"$tmp/err"
	rc=$?
	if [ "$rc" = 2 ] && [ -s "$tmp/err" ]; then
		n=$((n + 1))
	else
		echo "# gsp-psim $args: exit $rc"
	fi
done
if [ "$n" = 9 ]; then
	echo "ok - psim: gsp-psim refuses bad arguments with exit 2 and a message"
else
	echo "not ok - psim: gsp-psim accepted a bad argument"
fi
