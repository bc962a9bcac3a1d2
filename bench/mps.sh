# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by the bench scripts that run every cell under one MPS daemon
# (after bench/outdir.sh, whose log_cmd they use):
#
#   mps_up NAME LOGDIR   starts MPS through gspctl with its pipes in a
#                        short temporary folder (it holds sockets) and its
#                        logs in LOGDIR; says so as NAME and exits 1 if it
#                        does not start
#   mps_down             stops it and removes the pipes' folder
mps_up() {
	CUDA_MPS_PIPE_DIRECTORY=$(mktemp -d) || exit 1
	export CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY=$2
	mkdir -p "$CUDA_MPS_LOG_DIRECTORY"
	log_cmd "$BUILD/gspctl" mps start
	"$BUILD/gspctl" mps start || { echo "$1: MPS did not start" >&2; exit 1; }
}

mps_down() {
	"$BUILD/gspctl" mps stop >/dev/null 2>&1
	rm -rf "$CUDA_MPS_PIPE_DIRECTORY"
}
