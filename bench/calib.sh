# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by the bench scripts that run lcprotect's bodies (after
# bench/outdir.sh, whose log_cmd they use; $LCP is lcprotect):
#
#   calib NAME KEY ARGS...   the --iters for KEY: OUT/calib.txt's, or
#                            "lcprotect calibrate ARGS" once, kept there
#                            (so runs into one OUT reuse it); says so as
#                            NAME and exits 1 if calibration fails
calib() {
	local name=$1 key=$2 v
	shift 2
	touch "$OUT/calib.txt"
	v=$(awk -v k="$key" '$1 == k { print $2 }' "$OUT/calib.txt")
	if [ -z "$v" ]; then
		log_cmd "$LCP" calibrate "$@"
		v=$("$LCP" calibrate "$@") || { echo "$name: calibrate $* failed" >&2; exit 1; }
		echo "$key $v" >>"$OUT/calib.txt"
	fi
	echo "$v"
}
