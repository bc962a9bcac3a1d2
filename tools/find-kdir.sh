#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Prints the kernel build tree to build gspace.ko against: the running
# kernel's if it has one, else the newest installed Debian linux-headers.
run=/lib/modules/$(uname -r)/build
if [ -d "$run" ]; then
	echo "$run"
	exit 0
fi
newest=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1)
if [ -n "$newest" ]; then
	echo "$newest"
	exit 0
fi
echo "no kernel build tree: install linux-headers-amd64 or set KDIR=" >&2
echo /nonexistent-kdir
