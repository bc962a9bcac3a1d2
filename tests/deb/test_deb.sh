#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check-deb (mk/deb.mk): the Debian packages of debian/, built,
# linted, unpacked into a scratch root and run there. TAP lines on
# stdout, unnumbered; exits 1 if one is "not ok", 2 on bad usage.
#
#   tests/deb/test_deb.sh SCRATCH
#
# 1. debian/changelog's upstream version is mk/version.mk's VERSION.
# 2. dpkg-buildpackage -b -us -uc in a copy of the tree under SCRATCH
#    (git's files, as they are in the working tree: nothing is written in
#    the tree itself, and the .debs land in SCRATCH). With cuda.h of CUDA
#    12.4 or later in $CUDA_HOME (default /usr/local/cuda) all the
#    packages, gspace-preload included (with -d when that cuda.h is not
#    dpkg's, after checking every other build dependency); without, the
#    profile pkg.gspace.nocuda, every package but gspace-preload.
# 3. lintian: no error or warning (debian/*.lintian-overrides say why
#    each override is there); info tags are printed as comments.
# 4. dpkg -x of every package into SCRATCH/root (no package owns a file
#    of another), then: the files each package holds; the man pages
#    render without warnings; dkms.conf in /usr/src/gspace-VERSION, the
#    same tree as make dkms-src; the maintainer scripts (dkms add/remove,
#    systemd-sysusers, the unit neither enabled nor started), and
#    systemd-sysusers --root making the group gspace in the scratch root;
#    systemd-analyze verify of the unit.
# 5. The smoke test, from the scratch root: every program's --version;
#    gspaced started on a socket in SCRATCH with the installed config
#    example copied as its config; gspctl status answering through it; a
#    program built with libgsp-dev's pkg-config against libgsp1 opening
#    a tenant of it; gsp-run preloading the installed interposer.
# Then make check-deb runs tests/deb/test_chroot.sh: the same packages
# installed by apt into a Debian 12 chroot, run there and purged.
set -u

[ $# -eq 1 ] || { echo "usage: $0 SCRATCH" >&2; exit 2; }
if [ ! -f Makefile ] || [ ! -f debian/control ]; then
	echo "$0: run from the top of the gspace tree" >&2
	exit 2
fi
S=$(mkdir -p "$1" && cd "$1" && pwd)
# shellcheck source=tests/ship/lib.sh
. tests/ship/lib.sh

# The packages and what each holds, but for /usr/share/doc/PACKAGE's
# copyright and changelog.Debian.gz and PACKAGE's lintian overrides
# (every package has them).
# VER and MA are put in below.
# man_pages SECTIONS: the pages of man/*.in in those sections, installed
# (gspace(4), the device, is the module's; the others are the tools').
man_pages() {
	for m in man/*.["$1"].in; do
		[ -f "$m" ] || continue
		m=${m#man/}
		m=${m%.in}
		echo "./usr/share/man/man${m##*.}/$m.gz"
	done
}
expect_files() {
	case $1 in
	gspace-dkms)
		echo ./usr/src/gspace-VER/Kbuild
		echo ./usr/src/gspace-VER/dkms.conf
		(cd "$S/src/build/dkms/gspace-$ver" 2>/dev/null &&
			find kmod uapi -type f | sed 's|^|./usr/src/gspace-VER/|')
		man_pages 4
		;;
	libgsp1)
		echo ./usr/lib/MA/libgsp.so.1
		echo ./usr/lib/MA/libgsp.so.1.2
		;;
	libgsp-dev)
		echo ./usr/include/gsp.h
		echo ./usr/include/gsp_board.h
		echo ./usr/include/gspace.h
		echo ./usr/lib/MA/libgsp.so
		echo ./usr/lib/MA/pkgconfig/libgsp.pc
		;;
	gspace-preload)
		echo ./usr/lib/gspace/libgsp_preload.so
		;;
	gspace-tools)
		for p in gspaced gspctl gsp-run gsp-xform gsp-select gsp-psim; do
			echo "./usr/bin/$p"
		done
		echo ./etc/gspace/gspaced.conf.example
		echo ./lib/systemd/system/gspaced.service
		echo ./lib/udev/rules.d/60-gspace.rules
		echo ./usr/lib/sysusers.d/gspace.conf
		echo ./usr/lib/gspace/libgsp_drmshim.so
		man_pages 1235678
		for d in $docs; do
			echo "./usr/share/doc/gspace-tools/${d##*/}"
		done
		;;
	esac
}

ver=$(bare_version)
# make install's docs (mk/install.mk's INSTALL_DOCS), in gspace-tools.
# shellcheck disable=SC2016 # make expands it
docs=$(m -s -f Makefile -f - deb-print-docs <<<'deb-print-docs: ; @echo $(INSTALL_DOCS)')
rm -rf "$S/src" "$S/root" "$S"/*.deb "$S"/*.changes "$S"/*.buildinfo \
	"$S"/*.log "$S/gspaced.sock" "$S/gspaced.conf" "$S/t_libgsp"*
mkdir -p "$S/src"

# 1. The version, written once.
deb_ver=$(dpkg-parsechangelog -l debian/changelog -S Version 2>/dev/null)
[ -n "$ver" ] && [ "${deb_ver%-*}" = "$ver" ]
check $? "debian/changelog's version $deb_ver is mk/version.mk's VERSION $ver plus a Debian revision"

missing=
for t in dpkg-buildpackage dpkg-checkbuilddeps dh dh_dkms lintian git; do
	command -v "$t" >/dev/null 2>&1 || missing="$missing $t"
done
if [ -n "$missing" ]; then
	skip "the Debian packages" "no$missing here: tools/install-deps.sh installs debhelper, dh-dkms, lintian"
	exit 0
fi

# 2. Build, in a copy: git's files (tracked, or new and not ignored) as
# the working tree has them.
git ls-files -z --cached --others --exclude-standard |
	while IFS= read -r -d '' f; do
		[ -f "$f" ] || [ -L "$f" ] && printf '%s\0' "$f"
	done | tar --null -T - -cf - | tar -C "$S/src" -xf -
cuda_home=${CUDA_HOME:-/usr/local/cuda}
cuda_ver=$(sed -n 's/^#define CUDA_VERSION \([0-9]*\).*/\1/p' \
	"$cuda_home/include/cuda.h" 2>/dev/null)
bopts=(-b -us -uc "-j$(nproc)")
if [ -n "$cuda_ver" ] && [ "$cuda_ver" -ge 12040 ]; then
	full=1
	how="all packages, cuda.h of CUDA $cuda_ver in $cuda_home"
	if ! (cd "$S/src" && dpkg-checkbuilddeps) >/dev/null 2>&1; then
		# A toolkit that dpkg does not know of (NVIDIA's runfile): the
		# other build dependencies are checked, then -d.
		(cd "$S/src" && dpkg-checkbuilddeps -P pkg.gspace.nocuda) \
			>"$S/builddeps.log" 2>&1
		check $? "every build dependency but cuda.h's is installed" \
			"$S/builddeps.log"
		bopts+=(-d)
		how="$how, not dpkg's: -d"
	fi
	export CUDA_HOME=$cuda_home
else
	full=0
	how="profile pkg.gspace.nocuda: no cuda.h of CUDA 12.4 or later in $cuda_home"
	bopts+=(--build-profiles=pkg.gspace.nocuda)
fi
t0=$(date +%s)
# Nothing of the make that runs this test: not its command line, nor its
# BUILD (make check-deb BUILD=/abs/path exports it; the copy's make
# clean would remove that folder, this scratch in it).
(cd "$S/src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES \
	-u BUILD dpkg-buildpackage "${bopts[@]}") >"$S/build.log" 2>&1
rc=$?
t1=$(date +%s)
pkgs="gspace-dkms libgsp1 libgsp-dev gspace-tools"
[ "$full" = 1 ] && pkgs="$pkgs gspace-preload"
got=
for p in $pkgs; do
	d=$(ls "$S/${p}_${deb_ver}_"*.deb 2>/dev/null)
	[ -n "$d" ] && got="$got $p"
done
[ "$rc" = 0 ] && [ "$got" = " $pkgs" ] &&
	{ [ "$full" = 1 ] || [ -z "$(ls "$S"/gspace-preload_*.deb 2>/dev/null)" ]; }
check $? "dpkg-buildpackage ${bopts[*]} builds$got in $((t1 - t0)) s ($how)" \
	"$S/build.log"
if [ "$rc" != 0 ]; then
	exit 1
fi
! grep -E '^dpkg-(gensymbols|shlibdeps): warning' "$S/build.log"
check $? "no dpkg-gensymbols or dpkg-shlibdeps warning (debian/libgsp1.symbols lists libgsp's exports)"
# Everything is built in dh_auto_build: make install compiles nothing.
! sed -n '/^[[:space:]]*dh_auto_install/,/^[[:space:]]*dh_install[a-z]/p' \
	"$S/build.log" | grep -E '^[[:space:]]*cc '
check $? "make install (dh_auto_install) compiles nothing: dh_auto_build built it all, for the same LIBDIR"
grep -q '^debian/rules: the interposer against' "$S/build.log" ||
	[ "$full" = 0 ]
check $? "debian/rules says which cuda.h the interposer is built against"

# 3. lintian.
lintian -I --fail-on error,warning "$S/gspace_${deb_ver}_"*.changes \
	>"$S/lintian.log" 2>&1
rc=$?
grep -E '^[IP]: ' "$S/lintian.log" | sed 's/^/# /'
[ "$rc" = 0 ] && ! grep -qE '^[EW]: ' "$S/lintian.log"
check $? "lintian: no error or warning, overrides in debian/*.lintian-overrides with their reasons" \
	"$S/lintian.log"

# 4. The scratch root: every package unpacked.
R=$S/root
mkdir -p "$R"
dup=
rm -f "$S/owned"
for p in $pkgs; do
	d=$(ls "$S/${p}_${deb_ver}_"*.deb)
	dpkg-deb -x "$d" "$R" || dup="$dup (dpkg -x $p failed)"
	dpkg-deb -c "$d" | awk '$1 !~ /^d/ { print $6 }' |
		sed 's/ -> .*//' >>"$S/owned"
done
dup="$dup$(sort "$S/owned" | uniq -d | tr '\n' ' ')"
[ -z "$dup" ]
check $? "every package unpacks into the scratch root, no file in two${dup:+: $dup}"
ma=$(dpkg-architecture -q DEB_HOST_MULTIARCH)
for p in $pkgs; do
	d=$(ls "$S/${p}_${deb_ver}_"*.deb)
	want=$(expect_files "$p" | sed -e "s|VER|$ver|g" -e "s|/MA/|/$ma/|" |
		sort)
	have=$(dpkg-deb -c "$d" | awk '$1 !~ /^d/ { print $6 }' |
		grep -vxE "\./usr/share/(doc/$p/(copyright|changelog\.Debian\.gz)|lintian/overrides/$p)" |
		sort)
	[ "$want" = "$have" ]
	check $? "$p holds what it should$(diff <(echo "$want") <(echo "$have") |
		sed -n 's/^\([<>]\) /; \1 /p' | tr -d '\n')"
done

# The man pages: in place, and rendered without a warning.
bad=
for m in "$R"/usr/share/man/man*/*.gz; do
	w=$(MANROFFSEQ='' MANWIDTH=80 man --warnings -E UTF-8 -l "$m" \
		2>&1 >/dev/null)
	[ -z "$w" ] || bad="$bad ${m##*/}: $w"
done
n=$(find "$R/usr/share/man" -name '*.gz' 2>/dev/null | wc -l)
[ "$n" -gt 0 ] && [ -z "$bad" ]
check $? "the $n man pages are in /usr/share/man and render without warnings$bad"
man1=$R/usr/share/man/man1/gsp-run.1.gz
zgrep -qx '\.I /usr/lib/gspace/libgsp_preload\.so' "$man1" &&
	zgrep -qx '\.I /usr/lib/gspace/libgsp_drmshim\.so' "$man1" &&
	zgrep -qx '\.I /usr/share/doc/gspace-tools/interposer\.rst' "$man1"
check $? "gsp-run(1) names the packaged interposer and DRM shim in /usr/lib/gspace and the packaged docs"

# DKMS: dkms.conf in /usr/src/gspace-VERSION, the tree make dkms-src
# writes, and dkms add / remove in the maintainer scripts.
conf=$R/usr/src/gspace-$ver/dkms.conf
grep -qx "PACKAGE_VERSION=\"$ver\"" "$conf" 2>/dev/null &&
	grep -qx 'PACKAGE_NAME="gspace"' "$conf" &&
	diff -r "$S/src/build/dkms/gspace-$ver" "$R/usr/src/gspace-$ver" \
		>"$S/dkms-diff.log" 2>&1
check $? "gspace-dkms: /usr/src/gspace-$ver/dkms.conf (PACKAGE_VERSION $ver), the tree of make dkms-src" \
	"$S/dkms-diff.log"
mkdir -p "$S/ctl/dkms" "$S/ctl/tools"
dpkg-deb -e "$S/gspace-dkms_${deb_ver}_all.deb" "$S/ctl/dkms"
dpkg-deb -e "$(ls "$S/gspace-tools_${deb_ver}_"*.deb)" "$S/ctl/tools"
grep -qx DKMS_NAME=gspace "$S/ctl/dkms/postinst" 2>/dev/null &&
	grep -qx "DKMS_VERSION=$ver" "$S/ctl/dkms/postinst" &&
	grep -q '/usr/lib/dkms/common.postinst' "$S/ctl/dkms/postinst" &&
	grep -qx "DKMS_VERSION=$ver" "$S/ctl/dkms/prerm" 2>/dev/null &&
	grep -qF "dkms remove -m \$DKMS_NAME -v \$DKMS_VERSION --all" \
		"$S/ctl/dkms/prerm" &&
	dpkg-deb -f "$S/gspace-dkms_${deb_ver}_all.deb" Depends | grep -q dkms
check $? "gspace-dkms depends on dkms; its postinst adds, builds and installs gspace $ver, its prerm removes it (dh_dkms)"
grep -q 'systemd-sysusers .*gspace\.conf' "$S/ctl/tools/postinst" &&
	! grep -q 'deb-systemd-invoke' "$S/ctl/tools/postinst" &&
	! grep -qE "^[[:space:]]*deb-systemd-helper enable" <(
		sed '/was-enabled/,/fi/d' "$S/ctl/tools/postinst")
check $? "gspace-tools' postinst makes the group (systemd-sysusers gspace.conf), neither enables nor starts gspaced"
if command -v systemd-sysusers >/dev/null 2>&1; then
	systemd-sysusers --root="$R" gspace.conf >"$S/sysusers.log" 2>&1 &&
		grep -q '^gspace:x:[0-9]*:' "$R/etc/group"
	check $? "systemd-sysusers --root, as the postinst runs it, makes the system group gspace" \
		"$S/sysusers.log"
else
	skip "the group gspace" "no systemd-sysusers here"
fi
unit=$R/lib/systemd/system/gspaced.service
if command -v systemd-analyze >/dev/null 2>&1; then
	mkdir -p "$S/verify"
	sed "s|^ExecStart=/|ExecStart=$R/|" "$unit" >"$S/verify/gspaced.service"
	grep -qx 'ExecStart=/usr/bin/gspaced --foreground' "$unit" &&
		grep -qx 'Documentation=file:///usr/share/doc/gspace-tools/gspaced.rst' \
			"$unit" && [ -f "$R/usr/share/doc/gspace-tools/gspaced.rst" ] &&
		systemd-analyze verify "$S/verify/gspaced.service" \
			>"$S/verify.log" 2>&1
	check $? "gspaced.service: ExecStart /usr/bin/gspaced, its Documentation in place, systemd-analyze verify" \
		"$S/verify.log"
else
	skip "systemd-analyze verify gspaced.service" "no systemd-analyze here"
fi
cmp -s "$R/lib/udev/rules.d/60-gspace.rules" packaging/60-gspace.rules &&
	cmp -s "$R/etc/gspace/gspaced.conf.example" gspaced/gspaced.conf.example &&
	grep -qx /etc/gspace/gspaced.conf.example "$S/ctl/tools/conffiles"
check $? "the udev rule and gspaced.conf.example (a conffile) as the tree has them"

# 5. The smoke test, from the scratch root.
bad=
for p in gspaced gspctl gsp-run gsp-xform gsp-select gsp-psim; do
	v=$("$R/usr/bin/$p" --version 2>&1)
	[ "$v" = "$p $ver" ] || bad="$bad $p: '$v'"
done
[ -z "$bad" ]
check $? "the installed gspaced, gspctl, gsp-run, gsp-xform, gsp-select and gsp-psim answer --version with NAME $ver${bad:+:$bad}"

sock=$S/gspaced.sock
cp "$R/etc/gspace/gspaced.conf.example" "$S/gspaced.conf"
"$R/usr/bin/gspaced" --foreground --config "$S/gspaced.conf" \
	--socket "$sock" >"$S/gspaced.log" 2>&1 &
gpid=$!
for _ in $(seq 100); do
	[ -S "$sock" ] && break
	kill -0 "$gpid" 2>/dev/null || break
	sleep 0.1
done
[ -S "$sock" ]
check $? "the installed gspaced starts on $sock, its config the installed gspaced.conf.example" \
	"$S/gspaced.log"
export GSP_SOCKET=$sock GSP_ARBITER=daemon
"$R/usr/bin/gspctl" --arbiter daemon --socket "$sock" status \
	>"$S/gspctl.log" 2>&1
check $? "the installed gspctl status answers through it" "$S/gspctl.log"

# libgsp-dev and libgsp1: a client built as a user of the packages
# would, through pkg-config, run against the packaged libgsp.so.1.
cp tests/deb/t_libgsp.c "$S/t_libgsp.c"
pcdir=$R/usr/lib/$ma/pkgconfig
flags=$(PKG_CONFIG_PATH='' PKG_CONFIG_LIBDIR="$pcdir" \
	PKG_CONFIG_SYSROOT_DIR="$R" pkg-config --cflags --libs libgsp 2>&1)
# shellcheck disable=SC2086 # pkg-config's flags are words
${CC:-cc} -Wall -Werror -o "$S/t_libgsp" "$S/t_libgsp.c" $flags \
	>"$S/t_libgsp.log" 2>&1 &&
	LD_LIBRARY_PATH=$R/usr/lib/$ma "$S/t_libgsp" >>"$S/t_libgsp.log" 2>&1 &&
	[ "$(LD_LIBRARY_PATH=$R/usr/lib/$ma ldd "$S/t_libgsp" |
		awk '$1 == "libgsp.so.1" { print $3 }')" = "$R/usr/lib/$ma/libgsp.so.1" ]
check $? "a program built with libgsp-dev (pkg-config libgsp: $flags) opens a tenant of it through libgsp1's libgsp.so.1" \
	"$S/t_libgsp.log"

if [ "$full" = 1 ]; then
	# gsp-run finds the interposer as installed (BINDIR/../lib/gspace).
	# shellcheck disable=SC2016 # the program's shell expands it
	pre=$("$R/usr/bin/gsp-run" -- sh -c 'printf %s "$LD_PRELOAD"' \
		2>"$S/gsp-run.log")
	rc=$?
	[ "$rc" = 0 ] && [ "$(readlink -f "$pre")" = "$R/usr/lib/gspace/libgsp_preload.so" ]
	check $? "the installed gsp-run runs a program with the installed interposer preloaded ($pre)" \
		"$S/gsp-run.log"
else
	skip "gsp-run preloads the installed interposer" "gspace-preload not built: $how"
fi
unset GSP_SOCKET GSP_ARBITER
kill "$gpid" 2>/dev/null
wait "$gpid" 2>/dev/null
[ ! -e "$sock" ]
check $? "gspaced stops on SIGTERM and removes its socket" "$S/gspaced.log"

exit "$fail"
