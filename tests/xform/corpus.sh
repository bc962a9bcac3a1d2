#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The gsp-xform corpus check (make check-xform), TAP on stdout only.
#
#   corpus.sh OUTDIR GSP_XFORM FILE.cu...
#
# Each .cu is compiled to PTX for $CUDA_SM (default sm_90, mk/cuda.mk) once
# (cached in OUTDIR while the .cu and kernels/ headers are older), in
# parallel; gsp-xform rewrites it;
# ptxas must assemble the result. One TAP line per (file, kernel): the
# kernel is transformed (and NAME__gsp is among ptxas's entries), or left
# unchanged with the reason that the file expects. Expectations are
# comments in the .cu:
#   // gsp-xform: skip REASON NAME     NAME (source name) must be skipped
#   // gsp-xform: nvcc FLAGS           extra nvcc flags (e.g. -rdc=true)
#   // gsp-xform: barriers MODE NAME   NAME must be transformed with
#                                      none (no thread meets another
#                                      within a task), even or joined
#                                      barriers (flow.c)
# or, for files we do not own, lines "FILE skip REASON NAME" in
# tests/xform/expect. A kernel with no expectation must be transformed.
set -u
out=$1 xform=$2
shift 2
cuda=${CUDA_HOME:-/usr/local/cuda}
nvcc=${NVCC:-$cuda/bin/nvcc}
ptxas=${PTXAS:-$cuda/bin/ptxas}
sm=${CUDA_SM:-sm_90}
mkdir -p "$out"

ptx_of() { local f=$1; echo "$out/$(echo "${f%.cu}" | tr / _).ptx"; }

# nvcc, in parallel, for stale PTX only
stale() {
	local f=$1 p=$2 h
	[ -s "$p" ] && [ ! "$f" -nt "$p" ] || return 0
	for h in kernels/*.h kernels/*.cuh; do
		[ "$h" -nt "$p" ] && return 0
	done
	return 1
}
for f in "$@"; do
	stale "$f" "$(ptx_of "$f")" && echo "$f"
done | xargs -r -P "$(nproc)" -I{} sh -c '
	f={}; p="$0/$(echo "${f%.cu}" | tr / _).ptx"
	"$1" -ptx -arch="$2" -O2 -std=c++17 -Ikernels \
		$(sed -n "s|^// gsp-xform: nvcc ||p" "$f") "$f" -o "$p.tmp" \
		>"$p.log" 2>&1 && mv "$p.tmp" "$p" || rm -f "$p" "$p.tmp"' \
	"$out" "$nvcc" "$sm"

# does mangled (or plain) kernel name $1 stand for source name $2?
names() {
	case $1 in
	"$2") return 0 ;;
	*[!0-9]"${#2}$2"*) return 0 ;;
	esac
	return 1
}

# The clone of kernel $2 taken alone from $1 (gsp-xform --alone, as the
# interposer JITs it) assembles, and is its only entry.
alone() {
	local p=$1 k=$2 clone=$3 f=$4 a=${1%.ptx}.alone.ptx fl=
	if ! "$xform" "$p" -o "$a" --alone --kernel "$k" 2>"$a.log"; then
		echo "not ok - xform --alone $f $k: gsp-xform failed"
		sed 's/^/# /' "$a.log"
		return
	fi
	grep -q '^\.extern \.func' "$a" && fl=-c
	if ! "$ptxas" -arch="$sm" $fl -v "$a" -o /dev/null >"$a.ptxas" 2>&1; then
		echo "not ok - xform --alone $f $k: $clone alone does not assemble"
		sed 's/^/# /' "$a.ptxas" | head -n 20
	elif [ "$(grep -o "entry function '[^']*'" "$a.ptxas" | sort -u)" != "entry function '$clone'" ]; then
		echo "not ok - xform --alone $f $k: entries other than $clone:" \
			$(grep -o "entry function '[^']*'" "$a.ptxas" | sort -u | tr '\n' ' ')
	else
		echo "ok - xform --alone $f $k: $clone alone assembles, $(wc -c <"$a") of $(wc -c <"${p%.ptx}.xform.ptx") bytes"
	fi
}

for f in "$@"; do
	p=$(ptx_of "$f")
	x=${p%.ptx}.xform.ptx rep=${p%.ptx}.report
	if [ ! -s "$p" ]; then
		echo "not ok - xform $f: nvcc -ptx failed"
		sed 's/^/# /' "$p.log" 2>/dev/null
		continue
	fi
	if ! "$xform" "$p" -o "$x" --report "$rep" 2>"$x.log"; then
		echo "not ok - xform $f: gsp-xform failed"
		sed 's/^/# /' "$x.log"
		continue
	fi
	pflags=
	grep -q '^\.extern \.func' "$x" && pflags=-c	# relocatable (rdc)
	if "$ptxas" -arch="$sm" $pflags -v "$x" -o "$x.cubin" >"$x.ptxas" 2>&1; then
		asm=1
	else
		asm=0
		echo "# ptxas failed on $x:"
		sed 's/^/# /' "$x.ptxas" | head -n 20
	fi
	expect=$(sed -n 's|^// gsp-xform: skip \([a-z-]*\) \([A-Za-z_0-9]*\).*|\1 \2|p' "$f"
		 awk -v f="$f" '$1 == f && $2 == "skip" { print $3, $4 }' \
			"$(dirname "$0")/expect")
	bars=$(sed -n 's|^// gsp-xform: barriers \([a-z]*\) \([A-Za-z_0-9]*\).*|\1 \2|p' "$f")
	matched=
	while read -r k status why rest; do
		want=ok
		while read -r reason name; do
			[ -n "$name" ] && names "$k" "$name" && {
				want=$reason
				matched="$matched $name"
			}
		done <<<"$expect"
		if [ "$status" = ok ]; then
			wantb=
			while read -r mode name; do
				[ -n "$name" ] && names "$k" "$name" && wantb=$mode
			done <<<"$bars"
			if [ "$want" != ok ]; then
				echo "not ok - xform $f $k: transformed, expected skip $want"
			elif [ -n "$wantb" ] && [ "$rest" != "barriers=$wantb" ]; then
				echo "not ok - xform $f $k: $rest, expected barriers=$wantb"
			elif [ $asm = 1 ] && grep -q "entry function '$why'" "$x.ptxas"; then
				echo "ok - xform $f $k: $why assembles for $sm"
				alone "$p" "$k" "$why" "$f"
			else
				echo "not ok - xform $f $k: $why does not assemble for $sm"
			fi
		elif [ "$why" = "$want" ]; then
			if [ $asm = 1 ]; then
				echo "ok - xform $f $k: left unchanged, $why as expected"
			else
				echo "not ok - xform $f $k: left unchanged ($why) but the module does not assemble"
			fi
		else
			echo "not ok - xform $f $k: skip $why $rest (expected $want)"
		fi
	done <"$rep"
	while read -r reason name; do
		[ -z "$name" ] && continue
		case " $matched " in
		*" $name "*) ;;
		*) echo "not ok - xform $f: no kernel $name (expected skip $reason)" ;;
		esac
	done <<<"$expect"
done

# --maxnreg reaches ptxas: lbm's clone capped at 64 registers (it needs
# about 100), its original untouched (the interposer's register cap,
# Documentation/spatial.rst).
p=$(ptx_of kernels/wl_lbm.cu)
if [ -s "$p" ]; then
	x=${p%.ptx}.cap64.ptx
	if "$xform" "$p" -o "$x" --maxnreg 64 2>"$x.log" &&
	   "$ptxas" -arch="$sm" -v "$x" -o /dev/null >"$x.ptxas" 2>&1; then
		set -- $(awk '/Compiling entry/ { clone = /__gsp/ }
			/Used [0-9]+ registers/ {
				for (i = 1; i < NF; i++)
					if ($(i + 1) ~ /^registers/)
						r[clone] = $i
			}
			END { print r[1] + 0, r[0] + 0 }' "$x.ptxas")
		if [ "$1" -lt 1 ] || [ "$1" -gt 64 ]; then
			echo "not ok - xform --maxnreg 64: lbm's clone uses $1 registers"
		elif [ "$2" -le 64 ]; then
			echo "not ok - xform --maxnreg 64: lbm's original was capped too ($2 registers)"
		else
			echo "ok - xform --maxnreg 64: lbm's clone uses $1 registers, its original $2"
		fi
	else
		echo "not ok - xform --maxnreg 64: gsp-xform or ptxas failed"
		sed 's/^/# /' "$x.log" "$x.ptxas" | head -n 20
	fi
fi
if "$xform" "$p" -o /dev/null --maxnreg 256 2>"$out/maxnreg.err"; then
	echo "not ok - xform --maxnreg 256 refused"
elif grep -q "give a register count, 1..255" "$out/maxnreg.err"; then
	echo "ok - xform --maxnreg 256 refused with what to give"
else
	echo "not ok - xform --maxnreg 256: $(head -n 1 "$out/maxnreg.err")"
fi
