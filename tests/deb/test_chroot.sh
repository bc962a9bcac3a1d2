#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check-deb (mk/deb.mk), after tests/deb/test_deb.sh: the .debs it
# built in SCRATCH installed with apt into a minimal Debian 12 chroot,
# run there, and purged. TAP lines on stdout, unnumbered; exits 1 if one
# is "not ok", 2 on bad usage. Needs root (debootstrap, chroot, mount)
# and, the first time, Debian's archive; without either, or without
# debootstrap, every test is "ok - ... # SKIP".
#
#   tests/deb/test_chroot.sh SCRATCH
#
# 1. The chroot: debootstrap --variant=minbase bookworm from the mirror
#    this host's apt uses (its bookworm, bookworm-updates and
#    bookworm-security lines become the chroot's sources.list; the
#    environment's http_proxy, https_proxy and no_proxy go in), then
#    apt-get update and apt-get install --download-only of the packages
#    and EXTRA below. Cached as SCRATCH/chroot-bookworm.tar, keyed
#    (SCRATCH/chroot-bookworm.key) by the sources, EXTRA and the
#    packages' Depends, and remade after 7 days: a cached run unpacks it
#    and needs no network. The chroot is SCRATCH/chroot, removed once
#    every test passed, else kept for a look until the next run. One run
#    at a time in SCRATCH (flock on SCRATCH/chroot.lock).
# 2. apt-get install --no-install-recommends ./*.deb EXTRA in it, /proc
#    mounted (unmounted on every exit): dependencies come from the
#    archive (dkms, systemd for systemd-sysusers, gcc...), and the
#    maintainer scripts run: gspace-dkms' postinst has DKMS build and
#    install gspace.ko for the kernel of linux-headers-ARCH (Debian 12's
#    6.1; the host's kernel has no headers there and DKMS skips it);
#    gspace-tools' makes the group gspace. Then: the module's vermagic;
#    the unit installed, disabled (systemctl is-enabled, offline) and
#    passing systemd-analyze verify; the udev rule and sysusers file.
# 3. The smoke test, in the chroot: every program's --version; gspaced
#    on a scratch socket with the installed gspaced.conf.example as its
#    config; gspctl status and gspctl metrics through it; a program built
#    with gcc and pkg-config --cflags --libs libgsp against libgsp-dev,
#    run against libgsp1 as ld.so.cache finds it; gsp-run preloading the
#    installed interposer (gspace-preload, when built). Then apt-get
#    install --reinstall of the packages: their scripts as an upgrade
#    runs them (prerm upgrade, postinst configure with a version).
# 4. apt-get purge of every package: none left in dpkg's database, no
#    file of theirs left (dpkg -L before, every path gone but folders
#    that other packages own), no file named after gspace anywhere but
#    /tmp, /proc and apt's logs and caches; DKMS's tree and gspace.ko
#    gone, modules.dep and ld.so.cache without them. The group gspace
#    stays (no Debian package removes a system group on purge: files
#    may still belong to it).
#
# Not exercised (no systemd as PID 1, no udev, no kernel of the chroot's
# own): starting gspaced.service, udev applying 60-gspace.rules to
# /dev/gspace, loading gspace.ko, and the interposer under a CUDA
# program (no driver in the chroot).
set -u

[ $# -eq 1 ] || { echo "usage: $0 SCRATCH" >&2; exit 2; }
if [ ! -f Makefile ] || [ ! -f debian/control ]; then
	echo "$0: run from the top of the gspace tree" >&2
	exit 2
fi
S=$(mkdir -p "$1" && cd "$1" && pwd)
# shellcheck source=tests/ship/lib.sh
. tests/ship/lib.sh

SUITE=bookworm
C=$S/chroot
TAR=$S/chroot-$SUITE.tar
KEY=$S/chroot-$SUITE.key
# The cache's format: bump it when the chroot is made differently.
FORMAT=1
arch=$(dpkg --print-architecture 2>/dev/null)
# What the smoke test needs beside the packages' own dependencies: the
# headers DKMS builds gspace.ko against, a compiler and pkg-config for
# a libgsp-dev client.
EXTRA="linux-headers-$arch gcc libc6-dev pkgconf"

deb_ver=$(dpkg-parsechangelog -l debian/changelog -S Version 2>/dev/null)
pkgs=
debs=()
for p in gspace-dkms libgsp1 libgsp-dev gspace-tools gspace-preload; do
	d=$(ls "$S/${p}_${deb_ver}_"*.deb 2>/dev/null)
	[ -n "$d" ] || continue
	pkgs="$pkgs $p"
	debs+=("$d")
done
pkgs=${pkgs# }

skip_all() {
	skip "the packages installed, run and purged in a Debian 12 chroot" "$1"
	exit 0
}
[ -n "$pkgs" ] || skip_all "no .deb of $deb_ver in $S: test_deb.sh built none"
[ "$(id -u)" = 0 ] || skip_all "not root: debootstrap, chroot and mount need it"
for t in debootstrap chroot mount umount tar; do
	command -v "$t" >/dev/null 2>&1 ||
		skip_all "no $t here: tools/install-deps.sh installs debootstrap"
done

# One run at a time in SCRATCH: a second waits.
exec 9>"$S/chroot.lock"
flock 9

# umount_all: nothing of the host stays mounted in the chroot.
umount_all() {
	local mp
	# The deepest first.
	awk -v c="$C/" 'index($2 "/", c) == 1 { print $2 }' /proc/mounts |
		sort -r | while read -r mp; do
			umount "$mp" 2>/dev/null || umount -l "$mp"
		done
}
# shellcheck disable=SC2317 # called by the trap
# chroot_pids: the processes whose root is the chroot (this script's
# own: gspaced, or what a maintainer script left behind).
chroot_pids() {
	local d
	for d in /proc/[0-9]*; do
		[ "$(readlink "$d/root" 2>/dev/null)" = "$C" ] && echo "${d#/proc/}"
	done
}
gpid=
# shellcheck disable=SC2317 # the trap's
cleanup() {
	local p
	if [ -n "$gpid" ]; then
		kill "$gpid" 2>/dev/null
		wait "$gpid" 2>/dev/null
	fi
	for p in $(chroot_pids); do
		kill -9 "$p" 2>/dev/null
	done
	umount_all
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# in_chroot CMD...: CMD in the chroot, with a clean environment;
# exec_chroot CMD...: the same in place of the shell (in the
# background, $! is then CMD's process).
in_chroot() {
	(exec_chroot "$@")
}
# The host's proxy, if any, goes in with it.
proxy=()
for v in http_proxy https_proxy no_proxy; do
	[ -z "${!v:-}" ] || proxy+=("$v=${!v}")
done
exec_chroot() {
	exec chroot "$C" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
		"${proxy[@]}" "$@"
}
mount_proc() {
	mountpoint -q "$C/proc" || mount -t proc proc "$C/proc"
}
# new_chroot_dir: an empty $C, no process and nothing mounted in the old
# one.
new_chroot_dir() {
	local p
	for p in $(chroot_pids); do
		kill -9 "$p" 2>/dev/null
	done
	umount_all
	if awk -v c="$C/" 'index($2 "/", c) == 1 { f = 1 } END { exit !f }' \
		/proc/mounts; then
		echo "$C: still mounted in" >&2
		return 1
	fi
	rm -rf --one-file-system "$C" && mkdir -p "$C"
}

# The host's Debian sources: "URI SUITE" for each deb line of main, from
# the one-line lists and the deb822 .sources files.
apt_sources() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk '$1 == "deb" {
			i = 2
			if ($i ~ /^\[/) while ($i !~ /\]$/) i++
			if ($i ~ /^\[/ || $i ~ /\]$/) i++
			uri = $i; suite = $(i + 1)
			for (j = i + 2; j <= NF; j++) if ($j == "main") print uri, suite
		}' "$f"
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'function flush(  i, j, k, u, s) {
			if (types ~ /(^| )deb( |$)/ && comps ~ /(^| )main( |$)/ &&
			    enabled != "no") {
				split(uris, u, " "); split(suites, s, " ")
				for (i in u) for (j in s) print u[i], s[j]
			}
			types = uris = suites = comps = enabled = ""
		}
		/^[ \t]*#/ { next }
		/^[ \t]*$/ { flush(); next }
		{
			k = tolower($1); $1 = ""; sub(/^ +/, "")
			if (k == "types:") types = $0
			else if (k == "uris:") uris = $0
			else if (k == "suites:") suites = $0
			else if (k == "components:") comps = $0
			else if (k == "enabled:") enabled = tolower($0)
		}
		END { flush() }' "$f"
	done
}
sources=$(apt_sources | awk -v s="$SUITE" \
	'$2 == s || $2 == s "-updates" || $2 == s "-security" { sub(/\/$/, "", $1); print }' |
	sort -u)
mirror=$(awk -v s="$SUITE" '$2 == s { print $1; exit }' <<<"$sources")
if [ -z "$mirror" ]; then
	# Not a Debian 12 host: Debian's own redirector.
	mirror=http://deb.debian.org/debian
	sources="$mirror $SUITE
$mirror $SUITE-updates
http://deb.debian.org/debian-security $SUITE-security"
fi

key="format $FORMAT, debootstrap --variant=minbase --arch $arch $SUITE $mirror
sources:
$sources
extra: $EXTRA
$(for d in "${debs[@]}"; do dpkg-deb -f "$d" Package Pre-Depends Depends; done)"

# 1. The chroot, from the cache or made.
t0=$(date +%s)
if [ -f "$TAR" ] && [ -f "$KEY" ] && [ "$(cat "$KEY")" = "$key" ] &&
	[ -z "$(find "$TAR" -mtime +7)" ]; then
	new_chroot_dir && tar -C "$C" --numeric-owner -xpf "$TAR" \
		>"$S/chroot-make.log" 2>&1
	rc=$?
	how="cached $(basename "$TAR")"
else
	rm -f "$TAR" "$KEY"
	probe=$S/chroot-probe.Release
	rm -f "$probe"
	if ! timeout 60 /usr/lib/apt/apt-helper download-file \
		"$mirror/dists/$SUITE/Release" "$probe" >/dev/null 2>&1; then
		skip_all "no network: $mirror/dists/$SUITE/Release unreachable, and no cached chroot"
	fi
	rm -f "$probe"
	# An https mirror: the chroot's apt needs the CA certificates.
	inc=()
	[[ "$sources" != *https://* ]] || inc=(--include=ca-certificates)
	{
		new_chroot_dir &&
		debootstrap --variant=minbase --arch "$arch" "${inc[@]}" \
			"$SUITE" "$C" "$mirror" &&
		awk '{ print "deb " $1 " " $2 " main" }' <<<"$sources" \
			>"$C/etc/apt/sources.list" &&
		# No service starts in the chroot (gspace-tools starts none
		# anyway: dh_installsystemd --no-start).
		printf '#!/bin/sh\nexit 101\n' >"$C/usr/sbin/policy-rc.d" &&
		chmod 755 "$C/usr/sbin/policy-rc.d" &&
		mount_proc &&
		in_chroot apt-get update -q &&
		mkdir -p "$C/tmp/debs" && cp "${debs[@]}" "$C/tmp/debs/" &&
		in_chroot sh -c "cd /tmp/debs && apt-get install -y -q -o Dpkg::Use-Pty=0 \
			--no-install-recommends --download-only ./*.deb $EXTRA" &&
		rm -rf "$C/tmp/debs" && umount_all &&
		tar -C "$C" --numeric-owner -cf "$TAR.tmp" . &&
		mv "$TAR.tmp" "$TAR" && printf '%s\n' "$key" >"$KEY"
	} >"$S/chroot-make.log" 2>&1
	rc=$?
	how="debootstrap from $mirror, cached as $(basename "$TAR")"
fi
t1=$(date +%s)
check $rc "a minimal Debian 12 chroot in $((t1 - t0)) s ($how)" \
	"$S/chroot-make.log"
[ "$rc" = 0 ] || exit 1

# 2. The packages installed by apt. dpkg without an fsync per file, as
# in Debian's build chroots: the chroot is thrown away, and on a busy
# disk the syncs took minutes.
printf 'force-unsafe-io\n' >"$C/etc/dpkg/dpkg.cfg.d/unsafe-io"
mount_proc
mkdir -p "$C/tmp/debs"
cp "${debs[@]}" "$C/tmp/debs/"
t0=$(date +%s)
in_chroot sh -c "cd /tmp/debs && apt-get install -y -q -o Dpkg::Use-Pty=0 \
	--no-install-recommends ./*.deb $EXTRA" >"$S/chroot-install.log" 2>&1
rc=$?
t1=$(date +%s)
notinst=
for p in $pkgs; do
	# shellcheck disable=SC2016 # dpkg-query's format
	st=$(in_chroot dpkg-query -W -f '${Status}' "$p" 2>/dev/null)
	[ "$st" = "install ok installed" ] || notinst="$notinst $p ($st)"
done
n=$(grep -c '^Setting up ' "$S/chroot-install.log")
[ "$rc" = 0 ] && [ -z "$notinst" ] && ! grep -q '^[WE]: ' "$S/chroot-install.log"
check $? "apt-get install ./*.deb $EXTRA: $pkgs configured, $n packages set up in $((t1 - t0)) s, dependencies from the archive, no W: or E: line${notinst:+; not installed:$notinst}" \
	"$S/chroot-install.log"
if [ "$rc" != 0 ]; then
	exit 1
fi

# gspace-dkms' postinst: DKMS built and installed gspace.ko for the
# chroot's kernel headers.
ver=${deb_ver%-*}
if [[ " $pkgs " == *" gspace-dkms "* ]]; then
	kvers=$(find "$C/usr/src" -maxdepth 1 -name "linux-headers-*-$arch" \
		-printf '%f\n' | sed 's/^linux-headers-//' | sort)
	bad=
	[ -n "$kvers" ] || bad=" no linux-headers-*-$arch in the chroot"
	for k in $kvers; do
		ko=/lib/modules/$k/updates/dkms/gspace.ko
		st=$(in_chroot dkms status -m gspace -v "$ver" -k "$k" 2>&1)
		vm=$(in_chroot modinfo -F vermagic "$ko" 2>&1)
		[[ "$st" == *": installed"* ]] && [ "${vm%% *}" = "$k" ] ||
			bad="$bad $k: dkms status '$st', vermagic '$vm'"
		in_chroot grep -q 'updates/dkms/gspace\.ko:' \
			"/lib/modules/$k/modules.dep" ||
			bad="$bad $k: gspace.ko not in modules.dep"
	done
	[ -z "$bad" ]
	check $? "gspace-dkms' postinst: DKMS built and installed gspace $ver for $kvers (dkms status, vermagic, modules.dep)${bad:+:$bad}" \
		"$S/chroot-install.log"
fi

if [[ " $pkgs " == *" gspace-tools "* ]]; then
	in_chroot getent group gspace >"$S/chroot-group.log" 2>&1 &&
		grep -q "Creating group 'gspace'" "$S/chroot-install.log"
	check $? "gspace-tools' postinst: systemd-sysusers made the system group $(cut -d: -f1,3 "$S/chroot-group.log")" \
		"$S/chroot-install.log"
	en=$(in_chroot systemctl is-enabled gspaced.service 2>&1)
	in_chroot systemd-analyze verify /lib/systemd/system/gspaced.service \
		>"$S/chroot-verify.log" 2>&1 && [ "$en" = disabled ]
	check $? "gspaced.service installed, $en (systemctl is-enabled, offline), systemd-analyze verify clean" \
		"$S/chroot-verify.log"
	[ -f "$C/lib/udev/rules.d/60-gspace.rules" ] &&
		[ -f "$C/usr/lib/sysusers.d/gspace.conf" ] &&
		[ -f "$C/etc/gspace/gspaced.conf.example" ]
	check $? "the udev rule, the sysusers file and /etc/gspace/gspaced.conf.example in place"

	# 3. The smoke test.
	bad=
	for p in gspaced gspctl gsp-run gsp-xform gsp-select gsp-psim; do
		v=$(in_chroot "$p" --version 2>&1)
		[ "$v" = "$p $ver" ] || bad="$bad $p: '$v'"
	done
	[ -z "$bad" ]
	check $? "in the chroot, gspaced, gspctl, gsp-run, gsp-xform, gsp-select and gsp-psim answer --version with NAME $ver${bad:+:$bad}"

	sock=/tmp/gspaced.sock
	rm -f "$C$sock"
	cp "$C/etc/gspace/gspaced.conf.example" "$C/tmp/gspaced.conf"
	(exec_chroot gspaced --foreground --config /tmp/gspaced.conf \
		--socket "$sock") >"$S/chroot-gspaced.log" 2>&1 &
	gpid=$!
	for _ in $(seq 100); do
		[ -S "$C$sock" ] && break
		kill -0 "$gpid" 2>/dev/null || break
		sleep 0.1
	done
	[ -S "$C$sock" ]
	check $? "in the chroot, gspaced starts on $sock, its config the installed gspaced.conf.example" \
		"$S/chroot-gspaced.log"
	in_chroot gspctl --arbiter daemon --socket "$sock" status \
		>"$S/chroot-gspctl.log" 2>&1
	check $? "gspctl status answers through it" "$S/chroot-gspctl.log"
	in_chroot gspctl --arbiter daemon --socket "$sock" metrics \
		>"$S/chroot-metrics.log" 2>&1 &&
		grep -q '^gspace_up{arbiter="daemon"} 1$' "$S/chroot-metrics.log"
	check $? "gspctl metrics answers through it: gspace_up{arbiter=\"daemon\"} 1" \
		"$S/chroot-metrics.log"
fi

if [[ " $pkgs " == *" libgsp-dev "* ]] && [ -n "$gpid" ]; then
	cp tests/deb/t_libgsp.c "$C/tmp/t_libgsp.c"
	ma=$(in_chroot dpkg-architecture -q DEB_HOST_MULTIARCH 2>/dev/null)
	# shellcheck disable=SC2016 # the chroot's shell expands it
	in_chroot sh -c 'cd /tmp && flags=$(pkg-config --cflags --libs libgsp) &&
		echo "pkg-config: $flags" &&
		gcc -Wall -Werror -o t_libgsp t_libgsp.c $flags &&
		GSP_SOCKET=$1 GSP_ARBITER=daemon ./t_libgsp && ldd ./t_libgsp' \
		sh "$sock" >"$S/chroot-libgsp.log" 2>&1 &&
		grep -q "^arbiter daemon, gsp_version 0" "$S/chroot-libgsp.log" &&
		grep -Eq "libgsp\.so\.1 => (/usr)?/lib/$ma/libgsp\.so\.1 " \
			"$S/chroot-libgsp.log"
	check $? "a program built with gcc and libgsp-dev's pkg-config ($(sed -n '/^pkg-config:/{s/^pkg-config: *//; s/ *$//; p;}' "$S/chroot-libgsp.log")) opens a tenant of gspaced through libgsp1's libgsp.so.1 (ld.so.cache)" \
		"$S/chroot-libgsp.log"
fi

if [[ " $pkgs " == *" gspace-preload "* ]] && [ -n "$gpid" ]; then
	# shellcheck disable=SC2016 # the program's shell expands it
	pre=$(in_chroot GSP_SOCKET="$sock" GSP_ARBITER=daemon gsp-run -- \
		sh -c 'printf %s "$LD_PRELOAD"' 2>"$S/chroot-gsp-run.log")
	rc=$?
	[ "$rc" = 0 ] &&
		[ "$(in_chroot readlink -f "$pre")" = /usr/lib/gspace/libgsp_preload.so ]
	check $? "gsp-run runs a program with gspace-preload's interposer preloaded ($pre)" \
		"$S/chroot-gsp-run.log"
elif [ -n "$gpid" ]; then
	skip "gsp-run preloads the installed interposer in the chroot" \
		"gspace-preload not built"
fi

if [ -n "$gpid" ]; then
	kill "$gpid" 2>/dev/null
	wait "$gpid" 2>/dev/null
	gpid=
	[ ! -e "$C$sock" ]
	check $? "gspaced stops on SIGTERM and removes its socket" \
		"$S/chroot-gspaced.log"
fi

# The same packages again (apt-get install --reinstall): the prerm's
# upgrade and the postinst's configure with a version installed, as an
# upgrade runs them (DKMS removes and rebuilds gspace.ko; sysusers finds
# the group there).
gid=$(in_chroot getent group gspace | cut -d: -f3)
t0=$(date +%s)
in_chroot sh -c "cd /tmp/debs && apt-get install -y -q -o Dpkg::Use-Pty=0 \
	--no-install-recommends --reinstall ./*.deb" >"$S/chroot-reinstall.log" 2>&1
rc=$?
t1=$(date +%s)
bad=
for p in $pkgs; do
	# shellcheck disable=SC2016 # dpkg-query's format
	st=$(in_chroot dpkg-query -W -f '${Status}' "$p" 2>/dev/null)
	[ "$st" = "install ok installed" ] || bad="$bad $p ($st)"
done
if [[ " $pkgs " == *" gspace-dkms "* ]]; then
	for k in $kvers; do
		[ -f "$C/lib/modules/$k/updates/dkms/gspace.ko" ] &&
			[[ "$(in_chroot dkms status -m gspace -v "$ver" -k "$k" 2>&1)" == *": installed"* ]] ||
			bad="$bad gspace.ko for $k not rebuilt"
	done
fi
ngid=$(in_chroot getent group gspace | cut -d: -f3)
[ "$ngid" = "$gid" ] || bad="$bad group gspace $gid then '$ngid'"
[ "$rc" = 0 ] && [ -z "$bad" ] && ! grep -q '^[WE]: ' "$S/chroot-reinstall.log"
check $? "apt-get install --reinstall ./*.deb in $((t1 - t0)) s, as an upgrade runs the scripts: DKMS rebuilt gspace.ko, the group kept its gid${gid:+ $gid}${bad:+:$bad}" \
	"$S/chroot-reinstall.log"

# 4. Purge: nothing of ours left.
rm -rf "$C/tmp/debs" "$C"/tmp/t_libgsp* "$C/tmp/gspaced.conf"
: >"$S/chroot-files"
for p in $pkgs; do
	in_chroot dpkg -L "$p" >>"$S/chroot-files"
done
t0=$(date +%s)
# shellcheck disable=SC2086 # a list of packages
in_chroot apt-get purge -y -q -o Dpkg::Use-Pty=0 $pkgs >"$S/chroot-purge.log" 2>&1
rc=$?
t1=$(date +%s)
left=
for p in $pkgs; do
	# shellcheck disable=SC2016 # dpkg-query's format
	st=$(in_chroot dpkg-query -W -f '${db:Status-Abbrev}' "$p" 2>/dev/null)
	[ -z "$st" ] || left="$left $p ($st)"
done
[ "$rc" = 0 ] && [ -z "$left" ] && ! grep -q '^[WE]: ' "$S/chroot-purge.log"
check $? "apt-get purge $pkgs in $((t1 - t0)) s, no W: or E: line: none left in dpkg's database${left:+:$left}" \
	"$S/chroot-purge.log"

# Every file the packages held is gone; a folder stays only if it holds
# something (another package's files: dpkg removes a folder once empty).
left=
while read -r f; do
	case $f in "" | /.) continue ;; esac
	[ -e "$C$f" ] || [ -L "$C$f" ] || continue
	if [ -d "$C$f" ] && [ -n "$(ls -A "$C$f")" ]; then
		continue
	fi
	left="$left $f"
done < <(sort -u "$S/chroot-files")
[ -z "$left" ]
check $? "none of the $(sort -u "$S/chroot-files" | wc -l) paths of their dpkg -L is left, but folders that hold others' files${left:+:$left}"

# Anything named after gspace, anywhere: DKMS's tree and build,
# gspace.ko, the conffile's folder, systemd's state of the unit, dpkg's
# info files.
find "$C" -xdev \( -path "$C/proc" -o -path "$C/tmp" -o \
	-path "$C/var/log" -o -path "$C/var/cache/apt" \) -prune -o \
	\( -iname '*gspace*' -o -name 'libgsp*' -o -name 'gsp-*' -o \
	-name 'gspctl*' -o -name 'gspaced*' \) -print |
	sed "s|^$C||" >"$S/chroot-left.log"
in_chroot ldconfig -p | grep -q libgsp && echo "libgsp in ld.so.cache" \
	>>"$S/chroot-left.log"
grep -l gspace "$C"/lib/modules/*/modules.dep 2>/dev/null |
	sed "s|^$C|gspace in |" >>"$S/chroot-left.log"
[ ! -s "$S/chroot-left.log" ]
check $? "after the purge nothing is named after gspace, DKMS removed gspace.ko and its tree, ld.so.cache and modules.dep know neither" \
	"$S/chroot-left.log"
if [[ " $pkgs " == *" gspace-tools "* ]]; then
	in_chroot getent group gspace >/dev/null
	check $? "the group gspace stays after the purge (no package removes a system group: files may still be its)"
fi

# The chroot goes once all passed; kept for a look otherwise.
umount_all
[ "$fail" != 0 ] || rm -rf --one-file-system "$C"
exit "$fail"
