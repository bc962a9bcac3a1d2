#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What of corun can be checked without a GPU: its argument checks (exit
# 2 and a message, before any CUDA call) and its instance lists. Prints
# TAP lines only.
BUILD=${BUILD:-build}
cd "$(dirname "$0")/../.." || exit 1
C=$BUILD/gpu/corun
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

expect2() {	# WHAT COMMAND...: exit status 2 and a non-empty stderr
	local what=$1 rc
	shift
	"$@" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ "$rc" = 2 ] && [ -s "$tmp/err" ]; then
		echo "ok - corun: $what"
	else
		echo "not ok - corun: $what (exit $rc)"
		sed 's/^/# /' "$tmp/err"
	fi
}

ok() {	# WHAT COND...
	local what=$1
	shift
	if "$@"; then echo "ok - corun: $what"; else echo "not ok - corun: $what"; fi
}

expect2 "without --out" "$C"
expect2 "--out without a value" "$C" --out
expect2 "--out that is an option" "$C" --out --reps
expect2 "--reps 0" "$C" --out "$tmp/o" --reps 0
expect2 "--reps 3x" "$C" --out "$tmp/o" --reps 3x
expect2 "--k-max 9" "$C" --out "$tmp/o" --k-max 9
expect2 "--grid-n-step 0" "$C" --out "$tmp/o" --grid-n-step 0
expect2 "--cells 0" "$C" --out "$tmp/o" --cells 0
expect2 "an unknown option" "$C" --out "$tmp/o" --bogus 1
expect2 "a stray word" "$C" --out "$tmp/o" stray
expect2 "a stride not in the family" "$C" --list --instances 5:0:1
expect2 "an overlap not in the family" "$C" --list --instances 1:0.3:1
expect2 "iters 5" "$C" --list --instances 1:0:5
expect2 "an instance given twice" "$C" --list --instances 1:0:1,micro:1:0.00:1
expect2 "an empty name in the list" "$C" --list --instances 1:0:1,,2:0:1
expect2 "--profile with --list" "$C" --profile --list
ok "makes no folder for a bad option" test ! -e "$tmp/o"
ok "the default set is 36 instances: 9 strides x overlaps 0, 0.2 x iters 1, 4" \
	test "$("$C" --list | tail -n +2 | cut -d, -f2 | tr '\n' ' ')" = \
	"$(for s in 1 2 3 4 6 8 12 16 32; do for o in 0.00 0.20; do
		for i in 1 4; do printf '%s ' "$s:$o:$i"; done; done; done)"
ok "all is gsp-wl list's 180 micro instances, in its order" \
	test "$("$C" --list --instances all | tail -n +2 | cut -d, -f2 | head -n 6 | tr '\n' ' ')" = \
	"1:0.00:1 1:0.00:2 1:0.00:3 1:0.00:4 1:0.05:1 1:0.05:2 "
printf '# two\n 2:0.05:3\r\n\nmicro:32:0.20:4  # last\n' >"$tmp/list"
ok "a file of names: comments, blanks, CRLF and micro: skipped" \
	test "$("$C" --list --instances "$tmp/list")" = "$(printf 'mb,name\n0,2:0.05:3\n1,32:0.20:4')"

