# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by the bench scripts that write a results folder:
#
#   outdir_init NAME DIR   creates DIR, sets OUT to its absolute path and
#                          empties OUT/commands.txt; if DIR cannot be
#                          created, says so as NAME and exits 2
#   log_cmd CMD...         appends CMD, shell-quoted, to OUT/commands.txt
outdir_init() {
	mkdir -p "$2" || { echo "$1: cannot create $2" >&2; exit 2; }
	OUT=$(cd "$2" && pwd)
	: >"$OUT/commands.txt"
}

log_cmd() {
	printf '%q ' "$@" >>"$OUT/commands.txt"
	echo >>"$OUT/commands.txt"
}
