#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# gsp-wl's workload registration, from the sources (gsp-wl needs libcuda
# to start, so it cannot be asked here): every `const struct wl_ops wl_X`
# of kernels/wl_*.cu is named "X", declared in kernels/wl.h, listed in
# gsp-wl.cu's wl_all (gsp-wl list, run, scale, digest) and run by `gsp-wl
# check` (def_wls or check_more); every one but micro is in
# bench/gpu/stm.cu's stm_wls (stm's --wls and --sets). Prints TAP lines
# without numbers ("ok - registry: ..."); exit 1 on a failure.
cd "$(dirname "$0")/../.." || exit 1
fails=0

ok() {	# WHAT CONDITION...
	local what=$1
	shift
	if "$@"; then
		echo "ok - registry: $what"
	else
		echo "not ok - registry: $what"
		fails=$((fails + 1))
	fi
}

# the block of C between a line matching $2 and the next "};"
block() {
	sed -n "/$2/,/};/p" "$1"
}

has() {	# TEXT WORD: WORD appears in TEXT as a whole word
	grep -qw -- "$2" <<<"$1"
}

wl_all=$(block kernels/gsp-wl.cu 'wl_all\[\] = {')
checked=$(block kernels/gsp-wl.cu 'def_wls\[\] = {'; block kernels/gsp-wl.cu 'check_more\[\] = {')
stm_wls=$(block bench/gpu/stm.cu 'stm_wls\[\] = {')
decl=$(sed -n '/^extern const struct wl_ops/,/;/p' kernels/wl.h)
n=0
for f in kernels/wl_*.cu; do
	# const struct wl_ops wl_X = { "NAME", ...
	line=$(grep -h -A1 '^const struct wl_ops wl_' "$f" | tr -d '\n')
	[ -n "$line" ] || continue
	sym=$(sed -n 's/^const struct wl_ops \(wl_[a-z0-9_]*\).*/\1/p' <<<"$line")
	name=$(sed -n 's/^[^"]*"\([^"]*\)".*/\1/p' <<<"$line")
	n=$((n + 1))
	miss=
	[ "$name" = "${sym#wl_}" ] || miss+=" named \"$name\""
	has "$decl" "$sym" || miss+=" not-in-wl.h"
	has "$wl_all" "&$sym" || miss+=" not-in-wl_all"
	grep -q "\"${name}[\":]" <<<"$checked" || miss+=" not-checked"
	[ "$name" = micro ] || has "$stm_wls" "&$sym" || miss+=" not-in-stm_wls"
	where="wl.h, wl_all, gsp-wl check"
	[ "$name" = micro ] || where+=", stm_wls"
	ok "$sym ($f) is named \"${sym#wl_}\" and in $where${miss:+; wrong:$miss}" \
		test -z "$miss"
done
ok "the 14 workloads, stream and fma among them ($n found)" \
	test "$n" = 14 -a -f kernels/wl_stream.cu -a -f kernels/wl_fma.cu
# run-be-cost.sh and run-spatial.sh take digest's default list: the 14
ok "digest's default list is the 11 and 3 micro instances, not stream or fma" \
	test "$(block kernels/gsp-wl.cu 'def_wls\[\] = {' | grep -o '"[^"]*"' | wc -l)" = 14 \
	-a -z "$(block kernels/gsp-wl.cu 'def_wls\[\] = {' | grep -ow 'stream\|fma')"
[ "$fails" = 0 ]
