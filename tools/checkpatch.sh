#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs the kernel's checkpatch.pl over each file given, one TAP line per
# file. checkpatch comes from $CHECKPATCH, or is unpacked once from
# Debian's linux-source tarball into $BUILD/checkpatch.
set -eu
build=${BUILD:-build}
cp=${CHECKPATCH:-}
if [ -z "$cp" ]; then
	cp=$build/checkpatch/scripts/checkpatch.pl
	if [ ! -f "$cp" ]; then
		tarball=$(ls /usr/src/linux-source-*.tar.* 2>/dev/null | sort -V | tail -n 1)
		if [ -z "$tarball" ]; then
			echo "not ok 1 - checkpatch: no linux-source tarball; apt-get install linux-source"
			exit 1
		fi
		mkdir -p "$build/checkpatch"
		top=$(basename "${tarball%%.tar.*}")
		tar -xf "$tarball" -C "$build/checkpatch" --strip-components=1 \
			"$top/scripts/checkpatch.pl" "$top/scripts/spelling.txt" \
			"$top/scripts/const_structs.checkpatch"
	fi
fi
n=0
rc=0
for f in "$@"; do
	n=$((n + 1))
	if out=$(perl "$cp" --no-tree --quiet -f \
			--ignore SPDX_LICENSE_TAG,FILE_PATH_CHANGES "$f" 2>&1); then
		echo "ok $n - checkpatch $f"
	else
		echo "not ok $n - checkpatch $f"
		echo "$out" | sed 's/^/# /'
		rc=1
	fi
done
echo "1..$n"
exit $rc
