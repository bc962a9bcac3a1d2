#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs each suite (make check-<suite>), each of which prints TAP lines,
# numbered or not; tests/tap-renumber.sh makes one numbered TAP stream of
# each, in $BUILD/check/<suite>.tap. Ends with the one summary line CI
# reads. Fails if a test failed or a suite exited with an error.
set -o pipefail
out=${BUILD:-build}/check
rm -rf "$out"
mkdir -p "$out"
for s in "$@"; do
	echo "# suite: $s"
	{ make --no-print-directory -s "check-$s" 2>&1 ||
		echo "not ok - suite $s exited with an error"; } |
		tests/tap-renumber.sh | tee "$out/$s.tap"
done
cat "$out"/*.tap | awk '
	/^ok / { if ($0 ~ /# [Ss][Kk][Ii][Pp]/) s++; else p++ }
	/^not ok / { f++ }
	END { printf "%d passed, %d failed, %d skipped\n", p, f, s; exit f ? 1 : 0 }'
