#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Each kernel-doc directive of Documentation/uapi.rst (":doc:" or
# ":identifiers:") must find its comment in the header it names, and the
# header must give no kernel-doc warning; one TAP line per name. The
# kernel's scripts/kernel-doc comes from $KERNEL_DOC, or is unpacked once
# from Debian's linux-source tarball into $BUILD/kernel-doc.
set -u
build=${BUILD:-build}
rst=Documentation/uapi.rst
kd=${KERNEL_DOC:-$build/kernel-doc/scripts/kernel-doc}
if [ ! -f "$kd" ]; then
	tarball=$(ls /usr/src/linux-source-*.tar.* 2>/dev/null | sort -V | tail -n 1)
	if [ -z "$tarball" ]; then
		echo "not ok 1 - kernel-doc: no linux-source tarball; apt-get install linux-source"
		exit 1
	fi
	mkdir -p "$build/kernel-doc"
	top=$(basename "${tarball%%.tar.*}")
	tar -xf "$tarball" -C "$build/kernel-doc" --strip-components=1 \
		"$top/scripts/kernel-doc" || exit 1
fi
kdoc() { perl "$kd" -sphinx-version 3.4.3 "$@"; }

# "FILE<TAB>NAME" for each name a directive asks for; an :identifiers:
# list may go on over indented lines.
names=$(awk '
	/^\.\. kernel-doc::/ { file = $3; mode = ""; next }
	file && /^   :doc:/ { sub(/^   :doc: */, ""); print file "\t" $0; next }
	file && /^   :identifiers:/ {
		mode = "id"; sub(/^   :identifiers: */, "")
		for (i = 1; i <= NF; i++) print file "\t" $i; next }
	file && mode == "id" && /^    *[^ :]/ {
		for (i = 1; i <= NF; i++) print file "\t" $i; next }
	{ file = ""; mode = "" }' "$rst")
n=0
rc=0
[ -n "$names" ] || { echo "not ok 1 - kernel-doc: no directive in $rst"; exit 1; }
while IFS=$'\t' read -r file name; do
	n=$((n + 1))
	out=$(kdoc -rst -function "$name" "$file" 2>&1 >/dev/null)
	if [ -z "$out" ] && kdoc -rst -function "$name" "$file" 2>/dev/null | grep -q .; then
		echo "ok $n - kernel-doc: $rst: $file \"$name\""
	else
		echo "not ok $n - kernel-doc: $rst: $file \"$name\" not found or warns"
		echo "$out" | sed 's/^/# /'
		rc=1
	fi
done <<<"$names"
n=$((n + 1))
if out=$(kdoc -none uapi/gspace.h 2>&1) && [ -z "$out" ]; then
	echo "ok $n - kernel-doc: uapi/gspace.h has no warning"
else
	echo "not ok $n - kernel-doc: uapi/gspace.h warns"
	echo "$out" | sed 's/^/# /'
	rc=1
fi
echo "1..$n"
exit $rc
