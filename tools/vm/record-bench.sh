#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Splits a VM benchmark's output into results.csv and env.txt (the setup:
# host CPU, QEMU, guest kernel, module parameters, exact command).
# usage: record-bench.sh OUTPUT DIR COMMAND VMLINUZ MODPARAMS
set -eu
out=$1 dir=$2 cmd=$3 kernel=$4 params=$5
mkdir -p "$dir"
grep -E '^[a-z_]+,' "$out" >"$dir/results.csv" || {
	echo "record-bench: no CSV rows in $out: did the benchmark run?" >&2
	exit 1
}
{
	echo "command: $cmd"
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "host cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
	echo "host cores: $(nproc)"
	echo "qemu: $(qemu-system-x86_64 --version | head -n 1) (-accel tcg, -smp 2, -m 2G)"
	echo "guest kernel: $(basename "$kernel")"
	echo "module parameters: $params"
	echo "engine: SIMULATED (sim device 0); the VM runs under TCG emulation,"
	echo "so absolute times are emulator times: compare ratios within one run."
	echo "benchmark notes:"
	grep '^# ' "$out" | grep -v -E '^# (vm|suite)' | sed 's/^/  /'
} >"$dir/env.txt"
echo "# recorded $dir/results.csv and $dir/env.txt"
