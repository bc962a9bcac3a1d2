#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check-ship (mk/ship.mk): the man pages of man/*.in, as make man
# writes them. TAP lines on stdout, unnumbered; exits 1 if one is
# "not ok", 2 on bad usage.
#
#   tests/ship/test_man.sh SCRATCH
#
# Checks that each page renders without a warning (man --warnings, else
# groff -ww; mandoc -T lint too where it is installed), and that no page
# can fall behind its program: every long option the program's --help
# prints is described in its page (gspctl's predict and admit too), every knob
# gspctl knobs lists and every key of gspaced.conf.example is a key of
# gspaced.conf(5), every variable of Documentation/interposer.rst's
# table is in gsp-run(1), and every gspace page a page names exists.
set -u

# shellcheck source=tests/ship/lib.sh
. "$(dirname "$0")/lib.sh"
ship_setup "$@"

pages="gspaced.8 gspaced.conf.5 gspctl.8 gsp-run.1 gsp-xform.1 gsp-select.1 gsp-psim.1 gspace.4"
progs="gspaced gspctl gsp-run gsp-xform gsp-select gsp-psim"
rm -rf "$S/man" "$S"/man-*.log
mkdir -p "$S/man"

bins=()
for p in $progs; do bins+=("$B/$p"); done
m -s BUILD="$B" CUDA_HOME=/nonexistent man "${bins[@]}" >"$S/man-build.log" 2>&1
rc=$?
ver=$(bare_version)
have=$(cd "$B/man" 2>/dev/null && find . -type f | sed 's|^\./||' | sort | tr '\n' ' ')
want=$(tr ' ' '\n' <<<"$pages" | sort | tr '\n' ' ')
[ "$rc" = 0 ] && [ "$have" = "$want" ] &&
	for p in $pages; do
		grep -q "^\\.TH [^ ]* [1458] \"[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]\" \"gspace $ver\"" \
			"$B/man/$p" || exit 1
	done
check $? "make man writes $pages, each dated and saying gspace $ver" \
	"$S/man-build.log"

# render PAGE: its text, plain ASCII (\- as -), wide enough that no
# option is hyphenated
render() {
	groff -t -man -Tascii -P-c -rLL=200n -rHY=0 "$1" 2>/dev/null |
		sed 's/.\x08//g'
}

# 1. Rendering: no warning at 80 columns.
for p in $pages; do
	f=$B/man/$p
	if command -v man >/dev/null 2>&1; then
		LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$f" \
			>/dev/null 2>"$S/man-$p.log"
		rc=$?
		how="man --warnings -l"
	elif command -v groff >/dev/null 2>&1; then
		groff -man -ww -z "$f" 2>"$S/man-$p.log"
		rc=$?
		how="groff -man -ww -z"
	else
		skip "$p renders without warnings" "neither man nor groff here (Debian: man-db, groff-base)"
		continue
	fi
	[ "$rc" = 0 ] && [ ! -s "$S/man-$p.log" ]
	check $? "$p renders without warnings ($how)" "$S/man-$p.log"
	if command -v mandoc >/dev/null 2>&1; then
		mandoc -T lint -W warning "$f" >"$S/man-$p.lint" 2>&1
		check $? "$p: mandoc -T lint finds nothing" "$S/man-$p.lint"
	fi
done
if ! command -v mandoc >/dev/null 2>&1; then
	skip "the pages pass mandoc -T lint" "no mandoc here"
fi
if ! command -v groff >/dev/null 2>&1; then
	skip "the pages name every option, knob and variable" "no groff here to render them (Debian: groff-base)"
	exit "$fail"
fi

# 2. Every long option --help prints is described in the page.
for p in $progs; do
	page=$(echo "$B/man/$p".[18])
	helps=$("$B/$p" --help 2>&1)
	[ "$p" = gspctl ] && helps="$helps
$("$B/$p" predict --help 2>&1)
$("$B/$p" admit --help 2>&1)"
	opts=$(grep -oE -- '--[a-z][a-z0-9-]*' <<<"$helps" | sort -u)
	text=$(render "$page")
	missing=
	# As a tag of its own (-x, --opt ARG), or in a command's tag
	# (top [--interval MS]), not just in the synopsis or the prose.
	for o in $opts; do
		grep -qE -- "^ +(-[a-zA-Z], )?$o([ ,=]|\$)|^ +[a-z]+ .*\[${o}[] ]" \
			<<<"$text" || missing="$missing $o"
	done
	[ -n "$opts" ] && [ -z "$missing" ]
	check $? "$(basename "$page") describes every long option of $p --help ($(wc -w <<<"$opts"))${missing:+; missing:$missing}"
done

# 3. gspaced.conf(5): every knob of gspctl knobs, every key of the
# example config, each as a key (at the start of a line of its own).
text=$(render "$B/man/gspaced.conf.5")
keys=$({ "$B/gspctl" knobs | sed -n 's/^  \([a-z_]*\) .*/\1/p'
	 sed -n 's/^#\([a-z_]*\) *=.*/\1/p' gspaced/gspaced.conf.example; } |
	sort -u)
missing=
for k in $keys; do
	grep -qE "^ *$k( |\$)" <<<"$text" || missing="$missing $k"
done
[ -n "$keys" ] && [ -z "$missing" ]
check $? "gspaced.conf.5 describes every knob of gspctl knobs and every key of gspaced.conf.example ($(wc -w <<<"$keys"))${missing:+; missing:$missing}"

# 4. gsp-run(1): every variable of the interposer's table.
text=$(render "$B/man/gsp-run.1")
vars=$(sed -n 's/^\(GSP_[A-Z_]*\) .*/\1/p' Documentation/interposer.rst | sort -u)
missing=
for v in $vars GSPACE_DEV; do
	grep -qE "(^|[^A-Z_])$v([^A-Z_]|\$)" <<<"$text" || missing="$missing $v"
done
[ -n "$vars" ] && [ -z "$missing" ]
check $? "gsp-run.1 names every variable of Documentation/interposer.rst's table ($(wc -w <<<"$vars"))${missing:+; missing:$missing}"

# 5. Cross references: each gspace page named exists, in its section.
bad=
for p in $pages; do
	for ref in $(grep -ohE '^\.BR gsp[a-z\\.-]* \([0-9]\)' "$B/man/$p" |
		     sed 's/^\.BR //; s/\\-/-/g; s/ (\(.\))/.\1/'); do
		[ -f "$B/man/$ref" ] || bad="$bad $p:$ref"
	done
done
[ -z "$bad" ]
check $? "every gspace page a page names exists${bad:+; not:$bad}"

exit "$fail"
