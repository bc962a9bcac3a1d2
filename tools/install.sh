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
# The manifest, itself installed at MANIFEST, lists each file and link
# ("f PATH"), each folder install created ("d PATH"), and the depmod
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
			depmod) ;;
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
	;;
*)
	die "usage: $0 install|uninstall MANIFEST"
	;;
esac
