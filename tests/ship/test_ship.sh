#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check-ship (mk/ship.mk): gspace built, installed and asked its
# version as an operator does, on a host with no nvcc, no cuda.h and no
# headers for the running kernel. TAP lines on stdout, unnumbered
# (tools/check.sh numbers them); exits 1 if one is "not ok", 2 on bad
# usage.
#
#   tests/ship/test_ship.sh SCRATCH
#
# Run from the top of the tree. CUDA_HOME is the real toolkit, if any:
# its include/ (alone, no nvcc) stands for a host with CUDA's headers.
# SCRATCH keeps the scratch build's objects from one run to the next;
# the programs and libraries are removed before each build, so each
# check sees what this run built.
set -u

# shellcheck source=tests/ship/lib.sh
. "$(dirname "$0")/lib.sh"
ship_setup "$@"
REL=0.0.0-gspace-ship-test	# a kernel with no headers (KVER)
P=/opt/gspace-ship-test		# the PREFIX installed to
D=$S/dest			# the DESTDIR, with files of its own
D2=$S/dest2			# a DESTDIR empty before install
CC=${CC:-cc}
JOBS=$(nproc 2>/dev/null || echo 2)
[ "$JOBS" -le 4 ] || JOBS=4


rm -rf "$S/nowhere" "$S/cuda-h" "$D" "$D2" "$S/fake" "$S/verify" "$S"/*.log
rm -rf "${B:?}/gpu" "${B:?}/lib" "${B:?}/gen" "${B:?}/install"
for p in gspaced gspctl gsp-run gsp-xform gsp-select gsp-sim gsp-psim \
	 gsp-bench gsp-wl; do
	rm -f "$B/$p"
done

# A host with CUDA's headers and no nvcc: the toolkit's include/ alone.
mkdir -p "$S/nowhere" "$S/cuda-h"
if [ -n "${CUDA_HOME:-}" ] && [ -f "$CUDA_HOME/include/cuda.h" ]; then
	ln -s "$CUDA_HOME/include" "$S/cuda-h/include"
	have_h=1
else
	have_h=0
fi
# cuda.h where the compiler finds it alone (nvidia-cuda-dev) counts as
# CUDA's headers even with CUDA_HOME nowhere.
if printf '#include <cuda.h>\n' | "$CC" -E -x c - >/dev/null 2>&1; then
	sys_h=1
else
	sys_h=0
fi

# 1. make, the default target: no nvcc, no cuda.h, no headers.
m -j"$JOBS" BUILD="$B" CUDA_HOME="$S/nowhere" KVER="$REL" \
	>"$S/make.log" 2>&1
rc=$?
for p in lib/libgsp.so.1.2 gspctl gsp-run gspaced gsp-xform gsp-select; do
	[ "$rc" = 0 ] && [ -x "$B/$p" ]
	check $? "make with no nvcc, cuda.h or kernel headers succeeds and builds $p" \
		"$S/make.log"
done
[ "$rc" = 0 ] &&
	[ "$(lines '^skipped: .*gsp-wl.*: no nvcc at .*install the CUDA toolkit, or set CUDA_HOME=' "$S/make.log")" = 1 ] &&
	[ ! -e "$B/gsp-wl" ] && [ ! -e "$B/gpu/lcprotect" ]
check $? "make skips the nvcc programs (gsp-wl, build/gpu/*) with one line saying to install the toolkit or set CUDA_HOME" \
	"$S/make.log"
if [ "$sys_h" = 1 ]; then
	[ "$rc" = 0 ] && [ -f "$B/lib/libgsp_preload.so" ] &&
		[ "$(lines '^skipped: libgsp_preload' "$S/make.log")" = 0 ]
	check $? "make builds libgsp_preload.so with the compiler's own cuda.h" \
		"$S/make.log"
else
	[ "$rc" = 0 ] && [ ! -e "$B/lib/libgsp_preload.so" ] &&
		[ "$(lines '^skipped: libgsp_preload.so: no cuda.h .*install' "$S/make.log")" = 1 ]
	check $? "make skips libgsp_preload.so with one line: no cuda.h, what to install" \
		"$S/make.log"
fi
[ "$rc" = 0 ] &&
	[ "$(lines "^skipped: gspace.ko: no headers for kernel $REL .*install linux-headers-$REL, .*KDIR=" "$S/make.log")" = 1 ]
check $? "make skips gspace.ko with one line naming the kernel, linux-headers-$REL and KDIR=" \
	"$S/make.log"
[ "$rc" = 0 ] && [ "$(lines '^skipped: ' "$S/make.log")" = $((3 - sys_h)) ]
check $? "make prints one skip line per thing skipped, and no other" \
	"$S/make.log"

# 2. make user with CUDA's headers and still no nvcc: the interposer too.
if [ "$have_h" = 1 ]; then
	m -j"$JOBS" BUILD="$B" CUDA_HOME="$S/cuda-h" KVER="$REL" user \
		>"$S/user.log" 2>&1
	rc=$?
	[ "$rc" = 0 ] && [ -f "$B/lib/libgsp_preload.so" ] &&
		[ -x "$B/gsp-run" ] &&
		[ "$(lines '^skipped: ' "$S/user.log")" = 1 ] &&
		[ "$(lines '^skipped: .*: no nvcc at ' "$S/user.log")" = 1 ]
	check $? "make user with cuda.h but no nvcc builds libgsp_preload.so and skips only the nvcc programs" \
		"$S/user.log"
	icuda=$S/cuda-h
else
	ok "make user with cuda.h but no nvcc # SKIP no \$CUDA_HOME/include/cuda.h here"
	icuda=$S/nowhere
fi

# 3. What must fail, saying why.
m BUILD="$B" KVER="$REL" module >"$S/module.log" 2>&1
rc=$?
[ "$rc" != 0 ] &&
	grep -q "no headers for kernel $REL" "$S/module.log" &&
	grep -q "install linux-headers-$REL" "$S/module.log" &&
	grep -q "KDIR=" "$S/module.log"
check $? "make module for a kernel with no headers fails, naming it, linux-headers-$REL and KDIR=" \
	"$S/module.log"
run=$(uname -r)
if [ -f "/lib/modules/$run/build/Makefile" ]; then
	ok "make module for the running kernel without its headers # SKIP $run has headers here"
else
	m BUILD="$B" module >"$S/module-run.log" 2>&1
	rc=$?
	[ "$rc" != 0 ] &&
		grep -q "no headers for the running kernel $run" "$S/module-run.log" &&
		grep -q "install linux-headers-$run" "$S/module-run.log"
	check $? "make module with the running kernel's headers missing fails, naming $run and linux-headers-$run, and builds for no other kernel" \
		"$S/module-run.log"
fi
m BUILD="$B" KDIR="$S/nowhere" module >"$S/module-kdir.log" 2>&1
rc=$?
[ "$rc" != 0 ] && grep -q "KDIR=$S/nowhere is not a kernel build tree" "$S/module-kdir.log"
check $? "make module KDIR=a folder that is no kernel tree fails, saying so" \
	"$S/module-kdir.log"
m BUILD="$B" CUDA_HOME="$S/nowhere" "$B/gpu/lcprotect" >"$S/nvcc.log" 2>&1
rc=$?
[ "$rc" != 0 ] && [ ! -e "$B/gpu/lcprotect" ] &&
	grep -q "no nvcc at $S/nowhere/bin/nvcc: install the CUDA toolkit" "$S/nvcc.log"
check $? "make \$(BUILD)/gpu/lcprotect without nvcc fails, saying what to install" \
	"$S/nvcc.log"

# 4. make install into a DESTDIR that has a config and a tool of its own,
# with a PREFIX of its own and a module (a file with a vermagic, as
# install reads it).
mkdir -p "$D/etc/gspace" "$D$P/bin" "$S/fake"
echo "policy = band  # the operator's" >"$D/etc/gspace/gspaced.conf"
echo "#!/bin/sh" >"$D$P/bin/site-tool"
printf 'license=GPL\0vermagic=%s SMP mod_unload \0name=gspace\0' "$REL" \
	>"$S/fake/gspace.ko"
own="./etc/gspace/gspaced.conf
.$P/bin/site-tool"
expect="$own
.$P/bin/gspaced
.$P/bin/gspctl
.$P/bin/gsp-run
.$P/bin/gsp-xform
.$P/bin/gsp-select
.$P/bin/gsp-psim
.$P/lib/libgsp.so.1.2
.$P/lib/libgsp.so.1
.$P/lib/libgsp.so
.$P/lib/libgsp_drmshim.so
.$P/include/gsp.h
.$P/include/gsp_board.h
.$P/include/gspace.h
.$P/lib/pkgconfig/libgsp.pc
.$P/lib/systemd/system/gspaced.service
./etc/gspace/gspaced.conf.example
.$P/lib/udev/rules.d/60-gspace.rules
.$P/lib/sysusers.d/gspace.conf
.$P/share/man/man1/gsp-run.1
.$P/share/man/man1/gsp-xform.1
.$P/share/man/man1/gsp-select.1
.$P/share/man/man1/gsp-psim.1
.$P/share/man/man4/gspace.4
.$P/share/man/man5/gspaced.conf.5
.$P/share/man/man8/gspaced.8
.$P/share/man/man8/gspctl.8
.$P/share/doc/gspace/README.md
.$P/share/doc/gspace/gspaced.rst
.$P/share/doc/gspace/interposer.rst
.$P/share/doc/gspace/libgsp.rst
.$P/share/doc/gspace/uapi.rst
.$P/share/doc/gspace/drm.rst
.$P/share/gspace/install-manifest"
if [ "$icuda" = "$S/cuda-h" ] || [ "$sys_h" = 1 ]; then
	expect="$expect
.$P/lib/libgsp_preload.so"
fi
expect=$(sort <<<"$expect")
inst() {
	m BUILD="$B" CUDA_HOME="$icuda" KVER="$REL" PREFIX="$P" "$@"
}

expect_ko=$(sort <<<"$expect
./lib/modules/$REL/extra/gspace.ko")
inst DESTDIR="$D" MODULE_KO="$S/fake/gspace.ko" install >"$S/install.log" 2>&1
rc=$?
[ "$rc" = 0 ] && [ "$(tree "$D")" = "$expect_ko" ]
check $? "make install DESTDIR PREFIX=$P installs exactly the expected files, gspaced and its unit among them" \
	"$S/install.log"
diff <(echo "$expect_ko") <(tree "$D") | sed -n 's/^[<>]/#   &/p'
unit=$D$P/lib/systemd/system/gspaced.service
[ -x "$D$P/bin/gspaced" ] &&
	[ "$(grep '^ExecStart=' "$unit" 2>/dev/null)" = "ExecStart=$P/bin/gspaced --foreground" ]
check $? "the installed unit's ExecStart is the installed gspaced ($P/bin/gspaced)"
cmp -s "$D/etc/gspace/gspaced.conf" - <<<"policy = band  # the operator's" &&
	cmp -s "$D/etc/gspace/gspaced.conf.example" gspaced/gspaced.conf.example
check $? "make install puts gspaced.conf.example beside the operator's gspaced.conf and leaves that alone"
cmp -s "$S/fake/gspace.ko" "$D/lib/modules/$REL/extra/gspace.ko"
check $? "make install puts the built module under /lib/modules/<its vermagic's release>/extra"
cmp -s packaging/60-gspace.rules "$D$P/lib/udev/rules.d/60-gspace.rules" &&
	cmp -s packaging/gspace.sysusers "$D$P/lib/sysusers.d/gspace.conf"
check $? "make install puts the udev rule in PREFIX/lib/udev/rules.d and the group gspace in PREFIX/lib/sysusers.d"
man1=$D$P/share/man/man1/gsp-run.1
grep -q "^\.TH GSP-RUN 1 \"[0-9-]*\" \"gspace $(bare_version)\"" "$man1" &&
	grep -q "^\.I $P/lib/libgsp_preload.so\$" "$man1" &&
	! grep -l '@[A-Z]*@' "$D$P"/share/man/man*/* >/dev/null
check $? "the installed man pages carry VERSION and the install paths, no @NAME@ left"
mf=$D$P/share/gspace/install-manifest
grep -qx "f $P/lib/udev/rules.d/60-gspace.rules" "$mf" &&
	grep -qx "f $P/share/man/man8/gspaced.8" "$mf" &&
	grep -qx "group gspace $P/lib/sysusers.d/gspace.conf" "$mf" &&
	grep -qx "udev gspace" "$mf"
check $? "the manifest lists the udev rule, the man pages, the group and the udev reload"

# systemd-analyze verify checks that ExecStart's program exists, so it
# reads a copy whose paths point into DESTDIR.
if ! command -v systemd-analyze >/dev/null 2>&1; then
	ok "systemd-analyze verify accepts the installed unit # SKIP no systemd-analyze here"
else
	mkdir -p "$S/verify/probe"
	printf '[Service]\nExecStart=/bin/true\n' >"$S/verify/probe/probe.service"
	if ! systemd-analyze verify "$S/verify/probe/probe.service" \
		>"$S/verify/probe.log" 2>&1; then
		ok "systemd-analyze verify accepts the installed unit # SKIP systemd-analyze verify cannot run here: $(head -n 1 "$S/verify/probe.log")"
	else
		sed "s|^ExecStart=/|ExecStart=$D/|" "$unit" >"$S/verify/gspaced.service"
		systemd-analyze verify "$S/verify/gspaced.service" >"$S/verify/verify.log" 2>&1 &&
			! grep -q . "$S/verify/verify.log"
		check $? "systemd-analyze verify accepts the installed unit" \
			"$S/verify/verify.log"
	fi
fi

inst DESTDIR="$D" MODULE_KO="$S/fake/gspace.ko" install >"$S/install2.log" 2>&1
rc=$?
[ "$rc" = 0 ] && [ "$(tree "$D")" = "$expect_ko" ]
check $? "make install a second time installs the same files" "$S/install2.log"

inst DESTDIR="$D" uninstall >"$S/uninstall.log" 2>&1
rc=$?
[ "$rc" = 0 ] && [ "$(tree "$D")" = "$(sort <<<"$own")" ] &&
	[ "$(cd "$D" && find . -type d | sort)" = "$(printf '.\n./etc\n./etc/gspace\n.%s\n.%s\n.%s/bin\n' "$(dirname "$P")" "$P" "$P" | sort -u)" ]
check $? "make uninstall removes what install put there, folders included, and keeps the DESTDIR's own files" \
	"$S/uninstall.log"

mkdir -p "$D2"
inst DESTDIR="$D2" MODULE_KO="$S/fake/none.ko" install >"$S/install-empty.log" 2>&1
rc=$?
[ "$rc" = 0 ] && [ "$(tree "$D2")" = "$(grep -v -F -x "$own" <<<"$expect")" ] &&
	grep -q '^not installed: gspace.ko: not built (make module' "$S/install-empty.log"
check $? "make install with no module built installs the rest, saying gspace.ko was not" \
	"$S/install-empty.log"
inst DESTDIR="$D2" uninstall >"$S/uninstall-empty.log" 2>&1
rc=$?
[ "$rc" = 0 ] && [ -z "$(cd "$D2" && find . -mindepth 1)" ]
check $? "make uninstall leaves a DESTDIR that was empty with nothing in it" \
	"$S/uninstall-empty.log"
inst DESTDIR="$D2" uninstall >"$S/uninstall-none.log" 2>&1
rc=$?
[ "$rc" != 0 ] && grep -q "nothing to uninstall: no manifest" "$S/uninstall-none.log"
check $? "make uninstall with nothing installed fails, saying so" \
	"$S/uninstall-none.log"

# 5. --version: NAME VERSION, the one VERSION of make version. The
# programs are brought up to date first: a commit made in the shared
# tree since they were built changes the version.
m -s BUILD="$B" CUDA_HOME="$icuda" "$B/gspaced" "$B/gspctl" "$B/gsp-run" \
	"$B/gsp-xform" "$B/gsp-select" "$B/gsp-psim" >"$S/version.log" 2>&1
ver=$(m -s version 2>>"$S/version.log")
[[ "$ver" =~ ^[0-9]+\.[0-9]+\.[0-9]+([+][0-9A-Za-z.]+)?$ ]]
check $? "make version prints the version ($ver)" "$S/version.log"
base=$(GIT_DIR="$S/nowhere" m -s version 2>>"$S/version.log")
[[ "$base" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] && [ "${ver%%+*}" = "$base" ]
check $? "make version out of a git checkout (a tarball) is the bare VERSION ($base)" \
	"$S/version.log"
# 6. The installed gsp-run finds the interposer under a LIBDIR of its
# own (nothing beside it): DESTDIR holds the files, LIBDIR names where
# they will be, so a link from LIBDIR into DESTDIR stands in for the host.
if [ "$icuda" = "$S/cuda-h" ] || [ "$sys_h" = 1 ]; then
	rm -rf "$S/d2" "$S/libdir"
	inst DESTDIR="$S/d2" LIBDIR="$S/libdir" install >"$S/install-libdir.log" 2>&1 &&
		ln -s "$S/d2$S/libdir" "$S/libdir" &&
		"$S/d2$P/bin/gsp-run" --fail-open -- true >>"$S/install-libdir.log" 2>&1
	check $? "the installed gsp-run finds libgsp_preload.so in its LIBDIR (make install LIBDIR=...)" \
		"$S/install-libdir.log"
	rm -rf "$S/d2" "$S/libdir"
	# back to the default LIBDIR, for the checks below
	inst "$B/gsp-run" >>"$S/install-libdir.log" 2>&1
else
	skip "the installed gsp-run finds the interposer in its LIBDIR" "no cuda.h: no interposer"
fi

for p in gspaced gspctl gsp-run gsp-xform gsp-select gsp-psim; do
	out=$("$B/$p" --version 2>/dev/null)
	rc=$?
	[ "$rc" = 0 ] && [ "$out" = "$p $ver" ]
	check $? "$p --version prints '$p $ver' and exits 0"
	"$B/$p" --help 2>&1 | grep -q -- '--version'
	check $? "$p --help mentions --version"
done

exit "$fail"
