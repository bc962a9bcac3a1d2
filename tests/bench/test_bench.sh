#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# gsp-bench without a GPU, TAP:
#   test_bench.sh GSP_BENCH
# The dry run (-n) of a gspace scenario must print the gspaced and gsp-run
# command lines; then a whole run against simulated tools (fake/: gsp-wl,
# gsp-run, gspaced, nvidia-cuda-mps-control; their numbers are made up)
# checks the cells' wiring, gspaced's start and stop, and the outputs.
set -u
bench=$(realpath "$1")
fake=$(realpath "$(dirname "$0")/fake")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
fails=0
ok() {	# COND-STATUS NAME
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		fails=$((fails + 1))
	fi
}
has() {	# FILE LINE: FILE has exactly this line
	grep -qxF -- "$2" "$1" || { echo "# missing in $(basename "$1"): $2"; return 1; }
}

uid=$(id -u)
o=$tmp/out
cat >"$tmp/g.scn" <<'SCN'
duration 0.1
warmup 0.05
mechanisms solo mps gspace
gspace_nk 132:8 66:4
gspace_solo 1
pair mm bp
SCN

"$bench" -n -o "$o" -w "$fake/gsp-wl" "$tmp/g.scn" >"$tmp/dry.txt" 2>&1
ok $? "dry run of a gspace scenario"
S="--socket $o/gspace/gspaced.sock"
M="CUDA_MPS_PIPE_DIRECTORY=$o/mps/pipe CUDA_MPS_LOG_DIRECTORY=$o/mps/log"
W="$fake/gsp-wl run --sync --duration 0.1 --mech solo"
d=$tmp/dry.txt
has "$d" "config $o/gspace/gspaced-132-8.conf: lease_devices = 1; sim_devices = 0; lc_uids = $uid; partition = 132,8" &&
	has "$d" "config $o/gspace/gspaced-66-4.conf: lease_devices = 1; sim_devices = 0; lc_uids = $uid; partition = 66,4"
ok $? "dry run: one gspaced config per n:k, the LC's uid allowed"
has "$d" "cell 3/6 gspace-solo-132-8_mm_-_x0_0" &&
	has "$d" "  gspaced: $fake/gspaced --foreground --config $o/gspace/gspaced-132-8.conf $S" &&
	has "$d" "  be: $fake/gsp-run --arbiter daemon $S --class be --spatial -- $W --be mm --xfer-be 0 --depth 2"
ok $? "dry run: BE solo under gsp-run --spatial, gspaced, no MPS"
has "$d" "cell 6/6 gspace-66-4_mm_bp_x0_0 (MPS)" &&
	has "$d" "  gspaced: $fake/gspaced --foreground --config $o/gspace/gspaced-66-4.conf $S" &&
	has "$d" "  lc: $M $fake/gsp-run --arbiter daemon $S --class lc -- $W --lc bp --period-ms 2 --xfer-lc 0 --lat-out $o/lat/gspace-66-4_mm_bp_x0_0.txt" &&
	has "$d" "  be: $M $fake/gsp-run --arbiter daemon $S --class be --spatial -- $W --be mm --xfer-be 0 --depth 2"
ok $? "dry run: gspace co-run, LC and BE under gsp-run and MPS"
has "$d" "  be: $M $W --be mm --xfer-be 0 --depth 2" &&
	[ "$(grep -c gsp-run "$d")" = 5 ]
ok $? "dry run: mps cells stay plain"

long=$tmp/$(printf 'x%.0s' $(seq 90))
"$bench" -n -o "$long" -w "$fake/gsp-wl" "$tmp/g.scn" >"$tmp/dry2.txt" 2>&1
grep -q -- "--socket /tmp/gsp-bench.XXXXXX/gspaced.sock" "$tmp/dry2.txt"
ok $? "dry run: a socket path too long for gspaced moves to /tmp"

"$bench" -n -o "$o" -w "$fake/gsp-wl" -g /nonexistent "$tmp/g.scn" >"$tmp/dry3.txt" 2>&1 &&
	has "$tmp/dry3.txt" "  gspaced: /nonexistent/gspaced --foreground --config $o/gspace/gspaced-66-4.conf $S"
ok $? "dry run: -g names the folder of gspaced and gsp-run"

"$bench" -o "$tmp/nog" -w "$fake/gsp-wl" -g /nonexistent "$tmp/g.scn" >"$tmp/nog.txt" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "gspace cells need /nonexistent/gspaced and /nonexistent/gsp-run" "$tmp/nog.txt" &&
	[ ! -e "$tmp/nog" ]
ok $? "missing gspaced: exit 2 with what to do, nothing created"

"$bench" -n "$(dirname "$0")/../../bench/baseline-a.scn" >"$tmp/a.txt" 2>&1 &&
	[ "$(head -1 "$tmp/a.txt")" = "10 solo cells, 24 pairs x 3 mechanisms, 11 scaling workloads" ] &&
	! grep -q "gsp-run\|gspaced" "$tmp/a.txt" && grep -q "^cell 82/82 mps-pct_md_spmv_x0_0 (MPS)$" "$tmp/a.txt"
ok $? "dry run of baseline-a: as before, no gspace"

# A whole run against the simulated tools.
PATH=$fake:$PATH "$bench" -o "$o" -w "$fake/gsp-wl" "$tmp/g.scn" >"$tmp/run.txt" 2>&1
rc=$?
[ $rc = 0 ] || sed 's/^/# /' "$tmp/run.txt"
ok $rc "simulated run: every cell ok"
r=$o/results.csv
has "$r" "mech,n,k,be,lc,xfer_lc,xfer_be,lc_n,lc_p50_us,lc_p99_us,lc_max_us,lc_p50_x,lc_p99_x,lc_max_x,be_units_per_s,be_x,q,qos_threshold_us,qos_viol,qos_viol_frac,qos_ok,util_pct,eq1_breakeven_x,status"
ok $? "results.csv: n,k after mech, every other column kept"
has "$r" "mps,,,mm,bp,0,0,100,300.0,300.0,300.0,3.000,3.000,3.000,700.000,0.7000,2,200.0,100,1.0000,0,nan,0.6667,ok" &&
	has "$r" "gspace,132,8,mm,bp,0,0,100,120.0,120.0,120.0,1.200,1.200,1.200,700.000,0.7000,2,200.0,0,0.0000,1,nan,0.1667,ok" &&
	has "$r" "gspace,66,4,mm,bp,0,0,100,120.0,120.0,120.0,1.200,1.200,1.200,700.000,0.7000,2,200.0,0,0.0000,1,nan,0.1667,ok"
ok $? "results.csv: one row per n:k, ratios to solo"
has "$o/spatial_solo.csv" "wl,xfer,n,k,be_units_per_s,solo_units_per_s,be_x,util_pct,status" &&
	has "$o/spatial_solo.csv" "mm,0,132,8,800.000,1000.000,0.8000,nan,ok"
ok $? "spatial_solo.csv: BE under --spatial against mech solo"
has "$o/summary.csv" "gspace,66,4,1,1.200,1.200,0.700,1" && has "$o/summary.csv" "mps,,,1,3.000,3.000,0.700,0"
ok $? "summary.csv: a row per n:k"
has "$o/log/gspace-66-4_mm_bp_x0_0.gspaced.txt" "fake gspaced: partition = 66,4" &&
	has "$o/log/gspace-66-4_mm_bp_x0_0.gspaced.txt" "fake gspaced: stopped" &&
	has "$o/gspace/gspaced-66-4.conf" "lc_uids = $uid" && [ ! -e "$o/gspace/gspaced.sock" ]
ok $? "gspaced per cell: its config, stopped after the cell, socket gone"
has "$o/log/gspace-132-8_mm_bp_x0_0.txt" "env mps=$o/mps/pipe class=lc spatial=0" &&
	has "$o/log/gspace-132-8_mm_bp_x0_0.txt" "env mps=$o/mps/pipe class=be spatial=1" &&
	has "$o/log/gspace-solo-132-8_mm_-_x0_0.txt" "env mps=none class=be spatial=1"
ok $? "the processes ran under gsp-run as planned"
grep -q "gspace 132:8" "$o/gspace.svg" && grep -q ">mps<" "$o/gspace.svg" &&
	grep -q "gspace 66:4" "$o/lc_p99.svg"
ok $? "plots: gspace.svg with the n:k series and mps, bars per n:k"
[ ! -e "$o/mps/pipe/control" ]
ok $? "MPS control daemon stopped"

cp "$fake/gspaced" "$tmp/gspaced"
sed -i 's/^print("fake gspaced: " + part\[0\], flush=True)$/sys.exit("fake gspaced: refusing")/' "$tmp/gspaced"
cp "$fake/gsp-run" "$tmp/gsp-run"
PATH=$fake:$PATH "$bench" -o "$tmp/o2" -w "$fake/gsp-wl" -g "$tmp" "$tmp/g.scn" >"$tmp/run2.txt" 2>&1
rc=$?
[ $rc = 1 ] && grep -q "gspaced ended at start (exit status 1)" "$tmp/run2.txt" &&
	grep -q "^gspace,66,4,mm,bp,.*,failed$" "$tmp/o2/results.csv" &&
	grep -q "^mps,,,mm,bp,.*,ok$" "$tmp/o2/results.csv"
ok $? "gspaced that fails to start: its cells fail, the others run"

echo "1..$n"
[ $fails = 0 ]
