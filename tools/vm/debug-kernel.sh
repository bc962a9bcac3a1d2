#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Builds the debug kernel of make check-vm-debug (KASAN, lockdep,
# kmemleak, debugobjects, fault injection) from Debian's linux-source
# tarball, with "make tinyconfig" plus tools/vm/debug.config, and
# caches it.
#
#   tools/vm/debug-kernel.sh [-b BUILD] [-j JOBS] [-p]
#
#   -b  the build folder (default $BUILD, else build)
#   -j  parallel jobs (default nproc)
#   -p  only print the cache folder, build nothing
#
# The cache folder, BUILD/debug-kernel/<tarball>-<hash of debug.config>,
# holds vmlinuz-RELEASE (the image to boot), src/ (the built tree, the
# KDIR to build gspace.ko against), build.log and build-seconds. It is
# complete when its file "done" names the same tarball (name, size,
# mtime) and config; then a run only prints the folder. The folder is
# the last line on stdout.
set -eu -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
fragment=$here/debug.config
build=${BUILD:-build}
jobs=$(nproc)
print_only=0

die() {
	echo "debug-kernel: $*" >&2
	exit 1
}

while getopts b:j:p opt; do
	case $opt in
	b) build=$OPTARG ;;
	j) jobs=$OPTARG ;;
	p) print_only=1 ;;
	*) die "usage: $0 [-b BUILD] [-j JOBS] [-p]" ;;
	esac
done

tarball=$(printf '%s\n' /usr/src/linux-source-*.tar.* | grep -v '\*' | sort -V | tail -n 1 || true)
[ -n "$tarball" ] ||
	die "no /usr/src/linux-source-*.tar.*: run tools/install-deps.sh (Debian package linux-source)"
[ -f "$fragment" ] || die "$fragment not found"
name=$(basename "${tarball%%.tar.*}")
hash=$(sha256sum "$fragment" | cut -c 1-12)
mkdir -p "$build/debug-kernel"
dir=$(cd "$build/debug-kernel" && pwd)/$name-$hash
stamp="$(basename "$tarball") $(stat -c '%s %Y' "$tarball") $hash"

if [ "$print_only" = 1 ] || { [ -f "$dir/done" ] && [ "$(cat "$dir/done")" = "$stamp" ]; }; then
	echo "$dir"
	exit 0
fi

# What a kernel build needs beyond build-essential; installed here when
# root, as tools/install-deps.sh does for the rest.
have() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'; }
need=()
for p in flex bison bc libelf-dev libssl-dev; do
	have "$p" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] ||
		die "missing Debian packages to build a kernel: ${need[*]}; run: sudo apt-get install ${need[*]}"
	echo "debug-kernel: installing: ${need[*]}" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"${need[@]}" >/dev/null || die "apt-get install ${need[*]} failed"
fi

echo "# debug kernel: building $name with tools/vm/debug.config in $dir ($jobs jobs; 5 to 8 min on 2 CPUs)" >&2
rm -rf "$dir"
mkdir -p "$dir/src"
start=$(date +%s)
tar -xf "$tarball" -C "$dir/src" --strip-components=1
log=$dir/build.log
# Its own make: nothing of a calling make's flags (W=1, jobserver).
unset MAKEFLAGS MFLAGS MAKELEVEL
mk() { make --no-print-directory -C "$dir/src" ARCH=x86_64 "$@"; }
{
	mk tinyconfig
	(cd "$dir/src" && scripts/kconfig/merge_config.sh -m .config "$fragment")
	mk olddefconfig
} >"$log" 2>&1 || { tail -n 30 "$log" >&2; die "configuring failed; see $log"; }

# olddefconfig drops what a dependency refuses: every =y asked for must
# be there.
missing=$(grep -E '^CONFIG_[A-Z0-9_]+=y$' "$fragment" | while IFS= read -r l; do
	grep -qxF "$l" "$dir/src/.config" || echo "${l%=y}"
done)
[ -z "$missing" ] ||
	die "debug.config asks for options that olddefconfig turned off (a dependency is missing): $(echo "$missing" | tr '\n' ' ')"

mk -j"$jobs" bzImage modules >>"$log" 2>&1 ||
	{ tail -n 30 "$log" >&2; die "the kernel build failed; see $log"; }
release=$(mk -s kernelrelease)
cp "$dir/src/arch/x86/boot/bzImage" "$dir/vmlinuz-$release"
end=$(date +%s)
echo $((end - start)) >"$dir/build-seconds"
echo "$stamp" >"$dir/done"
echo "# debug kernel: $release built in $((end - start)) s" >&2
echo "$dir"
