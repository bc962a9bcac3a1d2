#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# gspctl predict and gspctl admit (libgsp/tools/gspctl_admit.c) on the
# fixtures of tests/admit/fixtures, whose answers test_prophet.c's
# synthetic pairs compute by hand: an LC of 1 ms pageable copies beside
# 100 ms pageable batch copies (k instances: (k + 1) ms), and an LC
# kernel on 5 of 15 SMs beside a batch kernel that holds every SM it
# frees unless --be-pes caps it. Then the refusals: bad arguments exit
# 2, unreadable files 1, each with a message. Prints TAP lines only.
#
#   tests/admit/test_gspctl_admit.sh GSPCTL SCRATCH_DIR
G=$1
d=$2
F=tests/admit/fixtures
cd "$(dirname "$0")/../.." || exit 1
mkdir -p "$d"
hw=(--hw "$F/hw.csv")
cp=("${hw[@]}" --lc "$F/lc_copy.csv" --be "$F/be_copy.csv")
kn=("${hw[@]}" --lc "$F/lc_kernel.csv" --be "$F/be_kernel.csv")

# expect_out RC WHAT WANT ARGS...: exit status RC, the last line WANT
expect_out() {
	local want_rc=$1 what=$2 want=$3 rc
	shift 3
	"$G" "$@" >"$d/out" 2>"$d/err"
	rc=$?
	if [ "$rc" = "$want_rc" ] && [ "$(tail -n 1 "$d/out")" = "$want" ]; then
		echo "ok - gspctl $what"
	else
		echo "not ok - gspctl $what (exit $rc, not $want_rc)"
		sed 's/^/# out: /' "$d/out"
		sed 's/^/# err: /' "$d/err"
	fi
}

expect_out 0 "predict: the LC alone is its solo latency" \
	"lc_solo_us=1000.000 lc_mean_us=1000.000 lc_p95_us=1000.000 be_tasks_per_s=0.000 be_iters_per_s=0.000" \
	predict "${hw[@]}" --lc "$F/lc_copy.csv"
expect_out 0 "predict: 2 batch copies share the channel, 3 ms" \
	"lc_solo_us=1000.000 lc_mean_us=3000.000 lc_p95_us=3000.000 be_tasks_per_s=0.000 be_iters_per_s=0.000" \
	predict "${cp[@]}" --k 2
expect_out 0 "predict --model fluid2: 14.403 us of host time a query" \
	"lc_solo_us=1014.403 lc_mean_us=3014.403 lc_p95_us=3014.403 be_tasks_per_s=0.000 be_iters_per_s=0.000" \
	predict "${cp[@]}" --k 2 --model fluid2
expect_out 0 "predict: 2 batch kernels capped at 5 SMs leave the LC its own 5" \
	"lc_solo_us=1000.000 lc_mean_us=1000.000 lc_p95_us=1000.000 be_tasks_per_s=65.934 be_iters_per_s=65.934" \
	predict "${kn[@]}" --k 2 --be-pes 5
expect_out 0 "predict --skip 0: a 5 ms set-up query in the LC's mean" \
	"lc_solo_us=2000.000 lc_mean_us=2000.000 lc_p95_us=5000.000 be_tasks_per_s=0.000 be_iters_per_s=0.000" \
	predict "${hw[@]}" --lc "$F/lc_setup.csv" --skip 0
expect_out 0 "predict: the set-up query left out by default" \
	"lc_solo_us=1000.000 lc_mean_us=1000.000 lc_p95_us=1000.000 be_tasks_per_s=0.000 be_iters_per_s=0.000" \
	predict "${hw[@]}" --lc "$F/lc_setup.csv"
"$G" predict "${kn[@]}" --model sequential >"$d/out" 2>"$d/err"
rc=$?
if [ $rc = 0 ] && grep -Eq '^lc_solo_us=[0-9.]+ lc_mean_us=[0-9.]+ lc_p95_us=[0-9.]+ be_tasks_per_s=[0-9.]+ be_iters_per_s=[0-9.]+$' "$d/out" &&
   [ "$(wc -l <"$d/out")" = 1 ]; then
	echo "ok - gspctl predict --model sequential: one line of the five keys"
else
	echo "not ok - gspctl predict --model sequential (exit $rc)"
	sed 's/^/# /' "$d/out" "$d/err"
fi

expect_out 0 "admit q = 2: k = 1" \
	"admit k=1 lc_solo_us=1000.000 target_us=2000.000" \
	admit "${cp[@]}" --kmax 4
if grep -qx 'k=2 lc_mean_us=3000.000 ok=0' "$d/out" &&
   [ "$(grep -c '^k=' "$d/out")" = 5 ]; then
	echo "ok - gspctl admit: a line per k = 0..4, k = 2 at 3 ms not ok"
else
	echo "not ok - gspctl admit: the per-k lines"
	sed 's/^/# /' "$d/out"
fi
expect_out 0 "admit --target-us 4500: k = 3" \
	"admit k=3 lc_solo_us=1000.000 target_us=4500.000" \
	admit "${cp[@]}" --kmax 8 --target-us 4500
expect_out 0 "admit --q 10 --cap-us 2500: the cap wins, k = 1" \
	"admit k=1 lc_solo_us=1000.000 target_us=2500.000" \
	admit "${cp[@]}" --kmax 8 --q 10 --cap-us 2500
expect_out 3 "admit --q 0.5: exit 3, not even k = 0" \
	"admit k=-1 lc_solo_us=1000.000 target_us=500.000" \
	admit "${cp[@]}" --q 0.5
expect_out 3 "admit, batch kernels on the whole GPU: exit 3, k = 0" \
	"admit k=0 lc_solo_us=1000.000 target_us=2000.000" \
	admit "${kn[@]}" --kmax 4
expect_out 0 "admit --be-pes 5: k = 2" \
	"admit k=2 lc_solo_us=1000.000 target_us=2000.000" \
	admit "${kn[@]}" --kmax 4 --be-pes 5
"$G" admit --help >"$d/out" 2>"$d/err"
rc=$?
if [ $rc = 0 ] && grep -q '^usage: gspctl admit' "$d/out" && [ ! -s "$d/err" ]; then
	echo "ok - gspctl admit --help: usage on stdout, exit 0"
else
	echo "not ok - gspctl admit --help (exit $rc)"
fi

# expect RC WHAT WANT ARGS...: exit status RC and WANT in the message
expect() {
	local want_rc=$1 what=$2 want=$3 rc
	shift 3
	"$G" "$@" >/dev/null 2>"$d/err"
	rc=$?
	if [ "$rc" = "$want_rc" ] && grep -qF -- "$want" "$d/err"; then
		echo "ok - gspctl refuses $what"
	else
		echo "not ok - gspctl refuses $what (exit $rc, not $want_rc)"
		sed 's/^/# /' "$d/err"
	fi
}
expect 2 "predict without arguments" "--hw and --lc are required" predict
expect 2 "admit without --be" "--be is required" admit "${hw[@]}" \
	--lc "$F/lc_copy.csv"
expect 2 "--model gpu" "--model takes fluid, fluid2 or sequential" \
	predict "${cp[@]}" --model gpu
expect 2 "--k x" "--k takes an integer in 0..64" predict "${cp[@]}" --k x
expect 2 "--k 65" "--k takes an integer in 0..64" predict "${cp[@]}" --k 65
expect 2 "--k without --be" "--k needs --be" predict "${hw[@]}" \
	--lc "$F/lc_copy.csv" --k 2
expect 2 "--kmax of predict" "--kmax is not an option of predict" \
	predict "${cp[@]}" --kmax 3
expect 2 "--k of admit" "--k is not an option of admit" admit "${cp[@]}" \
	--k 3
expect 2 "--kmax -1" "--kmax takes an integer" admit "${cp[@]}" --kmax -1
expect 2 "--q 0" "--q takes a positive number" admit "${cp[@]}" --q 0
expect 2 "--q nan" "--q takes a positive number" admit "${cp[@]}" --q nan
expect 2 "--target-us -5" "--target-us takes a positive number" \
	admit "${cp[@]}" --target-us -5
expect 2 "--q with --target-us" "give --q or --target-us, not both" \
	admit "${cp[@]}" --q 2 --target-us 100
expect 2 "--be-pes 0" "--be-pes takes at least 1 SM" \
	predict "${kn[@]}" --be-pes 0
expect 2 "--be-pes over the SMs" "--be-pes 16 is more than the 15 SMs" \
	predict "${kn[@]}" --be-pes 16
expect 2 "--be-pes with the sequential model" \
	"--be-pes needs the fluid model" \
	admit "${kn[@]}" --be-pes 5 --model sequential
expect 2 "--skip of every query" "--skip 4 leaves none of the 4 queries" \
	predict "${hw[@]}" --lc "$F/lc_setup.csv" --skip 4
expect 2 "an unknown option" "unknown option '--bogus'" \
	predict "${cp[@]}" --bogus
expect 2 "an option without its value" "--lc needs a value" \
	predict "${hw[@]}" --lc
expect 2 "a stray argument" "unexpected argument 'extra'" \
	predict "${cp[@]}" extra
expect 1 "a missing trace" "$d/none.csv: No such file or directory" \
	predict "${hw[@]}" --lc "$d/none.csv"
sed '3s/,h2d,/,memset,/' "$F/lc_copy.csv" >"$d/bad.csv"
expect 1 "a trace with an unknown type" \
	"$d/bad.csv line 3: unknown type 'memset'" \
	admit "${hw[@]}" --lc "$d/bad.csv" --be "$F/be_copy.csv"
sed '2s/,49152,/,-1,/' "$F/hw.csv" >"$d/hw.csv"
expect 1 "a hw file with a negative field" \
	"$d/hw.csv line 2: smem_per_sm ('-1') is negative" \
	predict --hw "$d/hw.csv" --lc "$F/lc_copy.csv"
