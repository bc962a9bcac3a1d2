#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make install and make uninstall (mk/install.mk), with a manifest, so
# that uninstall removes what install wrote and nothing else.
#
#   tools/install.sh install MANIFEST <SPEC
#   tools/install.sh uninstall MANIFEST
#
# Paths are absolute and $DESTDIR is put before each. SPEC has one line
# per thing to install:
#   file MODE SRC DEST   install -m MODE SRC DEST
#   link TARGET DEST     a symbolic link DEST -> TARGET
#   depmod RELEASE       run depmod RELEASE after install and uninstall
#                        (only when DESTDIR is empty: a staging tree's
#                        modules are the package manager's to index)
#   group NAME FILE      create the system group NAME if it is missing:
#                        systemd-sysusers FILE (a sysusers.d file
#                        installed above), else groupadd --system NAME.
#                        Only when DESTDIR is empty; uninstall keeps the
#                        group (files may carry its gid) and says so
#   udev NAME            when DESTDIR is empty and udevd runs, after
#                        install and uninstall: reload the rules and
#                        apply them to the misc device NAME, if present
#   dkms NAME VERSION    when DESTDIR is empty and dkms is here: after
#                        install, dkms add, then dkms install for every
#                        kernel with headers in /lib/modules; before
#                        uninstall removes a file, dkms remove --all
# Each of these hooks says what it could not do, and fails nothing.
# The manifest, itself installed at MANIFEST, lists each file and link
# ("f PATH"), each folder install created ("d PATH"), and the hook
# lines. A second install keeps what the first recorded. uninstall
# removes the files and links it lists, then each listed folder that is
# empty (deepest first), and keeps everything else: what was there
# before, and what was put into its folders since.
set -eu

die() {
	echo "install.sh: $*" >&2
	exit 1
}

[ $# -eq 2 ] || die "usage: $0 install|uninstall MANIFEST"
mode=$1
manifest=$2
case $manifest in
/*) ;;
*) die "MANIFEST must be an absolute path, not '$manifest'" ;;
esac
dest=${DESTDIR:-}
case $dest in
''|/*) ;;
*) dest=$(pwd)/$dest ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# mkdirs PATH: create the folder PATH under $dest and every missing
# parent, top down, recording each one created.
mkdirs() {
	[ -d "$dest$1" ] && return 0
	[ "$1" = / ] || [ -z "$1" ] && return 0
	mkdirs "$(dirname "$1")"
	mkdir "$dest$1"
	echo "d $1" >>"$tmp/new"
}

run_depmod() {
	[ -z "$dest" ] || return 0
	dm=$(command -v depmod || echo /sbin/depmod)
	if [ -x "$dm" ]; then
		"$dm" -a "$1" || echo "install.sh: depmod -a $1 failed; run it yourself" >&2
	else
		echo "install.sh: no depmod: run depmod -a $1 before modprobe gspace" >&2
	fi
}

make_group() {
	[ -z "$dest" ] || return 0
	if getent group "$1" >/dev/null 2>&1; then
		return 0
	fi
	if command -v systemd-sysusers >/dev/null 2>&1 &&
		systemd-sysusers "$2"; then
		:
	elif command -v groupadd >/dev/null 2>&1 &&
		groupadd --system "$1"; then
		:
	else
		echo "install.sh: could not create the group $1: run groupadd --system $1" >&2
		return 0
	fi
	echo "  group $1 (created)"
}

# Reload only where udevd runs: udevadm control fails fast otherwise.
run_udev() {
	[ -z "$dest" ] || return 0
	command -v udevadm >/dev/null 2>&1 || return 0
	udevadm control --reload >/dev/null 2>&1 || {
		echo "install.sh: udevd does not answer: its rules are read when it starts" >&2
		return 0
	}
	[ -e "/sys/class/misc/$1" ] || return 0
	udevadm trigger --subsystem-match=misc --sysname-match="$1" ||
		echo "install.sh: udevadm trigger failed: reload gspace.ko to apply the rule" >&2
}

# dkms_add NAME VERSION: add the sources, then build and install the
# module for each kernel whose headers are installed.
dkms_add() {
	[ -z "$dest" ] || return 0
	if ! command -v dkms >/dev/null 2>&1; then
		echo "install.sh: no dkms: install it, then: dkms add -m $1 -v $2 && dkms install -m $1 -v $2" >&2
		return 0
	fi
	if [ -z "$(dkms status -m "$1" -v "$2" 2>/dev/null)" ]; then
		dkms add -m "$1" -v "$2" || {
			echo "install.sh: dkms add -m $1 -v $2 failed" >&2
			return 0
		}
	fi
	built=0
	for k in /lib/modules/*; do
		[ -f "$k/build/Makefile" ] || continue
		if dkms install -m "$1" -v "$2" -k "${k##*/}"; then
			built=$((built + 1))
		else
			echo "install.sh: dkms install -m $1 -v $2 -k ${k##*/} failed (see /var/lib/dkms/$1/$2/build/make.log)" >&2
		fi
	done
	[ "$built" -gt 0 ] ||
		echo "install.sh: no kernel with headers: after installing linux-headers-RELEASE, run dkms install -m $1 -v $2 -k RELEASE" >&2
}

dkms_remove() {
	[ -z "$dest" ] || return 0
	command -v dkms >/dev/null 2>&1 || return 0
	[ -n "$(dkms status -m "$1" -v "$2" 2>/dev/null)" ] || return 0
	dkms remove -m "$1" -v "$2" --all ||
		echo "install.sh: dkms remove -m $1 -v $2 --all failed" >&2
}

case $mode in
install)
	: >"$tmp/new"
	[ -z "$dest" ] || mkdir -p "$dest"
	while read -r kind a b c; do
		case $kind in
		'' | '#'*) continue ;;
		file)
			[ -f "$b" ] || die "$b: not built"
			mkdirs "$(dirname "$c")"
			install -m "$a" "$b" "$dest$c"
			echo "f $c" >>"$tmp/new"
			echo "  $c"
			;;
		link)
			mkdirs "$(dirname "$b")"
			ln -sfn "$a" "$dest$b"
			echo "f $b" >>"$tmp/new"
			echo "  $b -> $a"
			;;
		depmod)
			echo "depmod $a" >>"$tmp/new"
			run_depmod "$a"
			;;
		group)
			echo "group $a $b" >>"$tmp/new"
			make_group "$a" "$b"
			;;
		udev)
			echo "udev $a" >>"$tmp/new"
			run_udev "$a"
			;;
		dkms)
			echo "dkms $a $b" >>"$tmp/new"
			dkms_add "$a" "$b"
			;;
		*)
			die "bad spec line: $kind $a $b $c"
			;;
		esac
	done
	mkdirs "$(dirname "$manifest")"
	echo "f $manifest" >>"$tmp/new"
	# What an earlier install recorded, and is still there, stays ours.
	if [ -f "$dest$manifest" ]; then
		while read -r kind p; do
			case $kind in
			f) [ -e "$dest$p" ] || [ -L "$dest$p" ] || continue ;;
			d) [ -d "$dest$p" ] || continue ;;
			depmod | group | udev | dkms) ;;
			*) continue ;;
			esac
			echo "$kind $p"
		done <"$dest$manifest" >>"$tmp/new"
	fi
	awk '!seen[$0]++' "$tmp/new" >"$tmp/manifest"
	install -m 644 "$tmp/manifest" "$dest$manifest"
	echo "  $manifest (what make uninstall removes)"
	;;
uninstall)
	[ -f "$dest$manifest" ] ||
		die "nothing to uninstall: no manifest $dest$manifest (give make uninstall the PREFIX, DESTDIR and DATADIR of make install)"
	cp "$dest$manifest" "$tmp/manifest"
	# dkms forgets the module while its sources are still there.
	sed -n 's/^dkms //p' "$tmp/manifest" | while read -r name ver; do
		dkms_remove "$name" "$ver"
	done
	while read -r kind p; do
		[ "$kind" = f ] || continue
		if [ -f "$dest$p" ] || [ -L "$dest$p" ]; then
			rm -f "$dest$p"
			echo "  removed $p"
		fi
	done <"$tmp/manifest"
	# Deepest first: a folder sorts after its parent.
	sed -n 's/^d //p' "$tmp/manifest" | LC_ALL=C sort -r | while read -r p; do
		rmdir "$dest$p" 2>/dev/null || true
	done
	sed -n 's/^depmod //p' "$tmp/manifest" | while read -r rel; do
		run_depmod "$rel"
	done
	sed -n 's/^udev //p' "$tmp/manifest" | while read -r name; do
		run_udev "$name"
	done
	if [ -z "$dest" ]; then
		sed -n 's/^group \([^ ]*\).*/\1/p' "$tmp/manifest" | while read -r g; do
			echo "  kept the group $g (groupdel $g removes it)"
		done
	fi
	;;
*)
	die "usage: $0 install|uninstall MANIFEST"
	;;
esac
