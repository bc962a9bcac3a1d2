#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What of corun and profile.sh can be checked without a GPU: corun's
# argument checks (exit 2 and a message, before any CUDA call) and its
# instance lists; profile.sh's argument checks, and its whole flow with
# a stand-in ncu that writes ncu-like CSVs (the features themselves are
# test_ncu_features.py's). Prints TAP lines only.
BUILD=${BUILD:-build}
cd "$(dirname "$0")/../.." || exit 1
C=$BUILD/gpu/corun
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

expect2() {	# WHAT COMMAND...: exit status 2 and a non-empty stderr
	local what=$1 rc
	shift
	"$@" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ "$rc" = 2 ] && [ -s "$tmp/err" ]; then
		echo "ok - corun: $what"
	else
		echo "not ok - corun: $what (exit $rc)"
		sed 's/^/# /' "$tmp/err"
	fi
}

ok() {	# WHAT COND...
	local what=$1
	shift
	if "$@"; then echo "ok - corun: $what"; else echo "not ok - corun: $what"; fi
}

expect2 "without --out" "$C"
expect2 "--out without a value" "$C" --out
expect2 "--out that is an option" "$C" --out --reps
expect2 "--reps 0" "$C" --out "$tmp/o" --reps 0
expect2 "--reps 3x" "$C" --out "$tmp/o" --reps 3x
expect2 "--k-max 9" "$C" --out "$tmp/o" --k-max 9
expect2 "--grid-n-step 0" "$C" --out "$tmp/o" --grid-n-step 0
expect2 "--cells 0" "$C" --out "$tmp/o" --cells 0
expect2 "an unknown option" "$C" --out "$tmp/o" --bogus 1
expect2 "a stray word" "$C" --out "$tmp/o" stray
expect2 "a stride not in the family" "$C" --list --instances 5:0:1
expect2 "an overlap not in the family" "$C" --list --instances 1:0.3:1
expect2 "iters 5" "$C" --list --instances 1:0:5
expect2 "an instance given twice" "$C" --list --instances 1:0:1,micro:1:0.00:1
expect2 "an empty name in the list" "$C" --list --instances 1:0:1,,2:0:1
expect2 "--profile with --list" "$C" --profile --list
ok "makes no folder for a bad option" test ! -e "$tmp/o"
ok "the default set is 36 instances: 9 strides x overlaps 0, 0.2 x iters 1, 4" \
	test "$("$C" --list | tail -n +2 | cut -d, -f2 | tr '\n' ' ')" = \
	"$(for s in 1 2 3 4 6 8 12 16 32; do for o in 0.00 0.20; do
		for i in 1 4; do printf '%s ' "$s:$o:$i"; done; done; done)"
ok "all is gsp-wl list's 180 micro instances, in its order" \
	test "$("$C" --list --instances all | tail -n +2 | cut -d, -f2 | head -n 6 | tr '\n' ' ')" = \
	"1:0.00:1 1:0.00:2 1:0.00:3 1:0.00:4 1:0.05:1 1:0.05:2 "
printf '# two\n 2:0.05:3\r\n\nmicro:32:0.20:4  # last\n' >"$tmp/list"
ok "a file of names: comments, blanks, CRLF and micro: skipped" \
	test "$("$C" --list --instances "$tmp/list")" = "$(printf 'mb,name\n0,2:0.05:3\n1,32:0.20:4')"

# profile.sh: its arguments, then its flow with a stand-in ncu.
P=bench/gpu/profile.sh
mkdir -p "$tmp/b/gpu" "$tmp/bin"
ln -s "$(pwd)/$C" "$tmp/b/gpu/corun"
printf '#!/bin/sh\nexit 0\n' >"$tmp/b/gsp-wl"
printf '#!/bin/sh\necho "stand-in GPU, 0.0, 80 GiB"\n' >"$tmp/bin/nvidia-smi"
cat >"$tmp/bin/ncu" <<'EOF'
#!/bin/bash
# ncu's stand-in: the kernels the program would launch, as ncu's CSV.
[ "$1" = --version ] && { echo "stand-in ncu 0.0"; exit 0; }
while [ $# -gt 0 ]; do
	case $1 in
	--log-file) log=$2; shift 2 ;;
	--metrics) metrics=$2; shift 2 ;;
	--kernel-name | --print-units | --print-kernel-base) shift 2 ;;
	-*) shift ;;
	*) break ;;
	esac
done
prog=$1
shift
n=2; name=_Z6stand_v
if [ "$(basename "$prog")" = corun ]; then
	# corun --profile [--instances L] [--out DIR]: what it would write
	args=()
	while [ $# -gt 0 ]; do
		case $1 in --out) out=$2; shift 2 ;; --profile) shift ;; *) args+=("$1"); shift ;; esac
	done
	list=$("$prog" --list "${args[@]}") || exit 1
	n=$(($(echo "$list" | wc -l) - 1))
	[ -n "${out:-}" ] && echo "$list" >"$out/instances.csv"
	name=_Z8corun_lcmPKfifiPf
fi
{
	echo '==PROF== Connected to process 1'
	echo '"ID","Kernel Name","Block Size","Grid Size","Metric Name","Metric Unit","Metric Value"'
	for ((i = 0; i < n; i++)); do
		for m in ${metrics//,/ }; do
			echo "\"$i\",\"$name\",\"(256, 1, 1)\",\"(640, 1, 1)\",\"$m\",\"\",\"$((i + 10))\""
		done
	done
} >"$log"
EOF
chmod +x "$tmp/bin/ncu" "$tmp/b/gsp-wl"
pexpect2() {	# WHAT ARGS...
	local what=$1 rc
	shift
	BUILD=$tmp/b NCU=$tmp/bin/ncu bash "$P" "$@" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ "$rc" = 2 ] && [ -s "$tmp/err" ]; then
		echo "ok - corun: profile.sh $what"
	else
		echo "not ok - corun: profile.sh $what (exit $rc)"
		sed 's/^/# /' "$tmp/err"
	fi
}
pexpect2 "without OUT"
pexpect2 "with an option for OUT" --help
pexpect2 "with an unknown option" "$tmp/p" --bogus
pexpect2 "with --instances without a value" "$tmp/p" --instances
pexpect2 "with a bad instance" "$tmp/p" --instances 7:0:1
ok "profile.sh creates nothing for bad arguments" test ! -e "$tmp/p"
BUILD=$tmp/b NCU=/nonexistent bash "$P" "$tmp/p" >/dev/null 2>"$tmp/err"
ok "profile.sh without ncu exits 2 and says NCU" \
	grep -q NCU "$tmp/err"
if PATH=$tmp/bin:$PATH BUILD=$tmp/b NCU=$tmp/bin/ncu bash "$P" "$tmp/p" \
	--instances 1:0:1,2:0.2:4,32:0.1:2 >"$tmp/out" 2>"$tmp/err"; then
	ok "profile.sh with a stand-in ncu: features.csv, a row per instance" \
		test "$(wc -l <"$tmp/p/features.csv")" = 4 -a \
		"$(head -n 1 "$tmp/p/features.csv")" = "mb,l1_hit,l2_hit,dram_bw,l2_bw,l1_bw,arith,insts"
	ok "profile.sh with a stand-in ncu: features-real.csv, the ten workloads" \
		test "$(tail -n +2 "$tmp/p/features-real.csv" | cut -d, -f1 | tr '\n' ' ')" = \
		"bp lbm hotspot pathfinder streamcluster spmv cfd md mm nn "
	ok "profile.sh with a stand-in ncu: env.txt, commands.txt, profiles.csv" \
		test -s "$tmp/p/env.txt" -a "$(wc -l <"$tmp/p/commands.txt")" = 13 -a \
		"$(wc -l <"$tmp/p/profiles.csv")" = 24
else
	echo "not ok - corun: profile.sh with a stand-in ncu exited with an error"
	sed 's/^/# /' "$tmp/err"
fi
