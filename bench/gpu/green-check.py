#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The green-context fallback on a GPU (issue 6), under MPS.

    bench/gpu/green-check.sh OUT      (builds, then runs this)
    green-check.py OUT BUILD SASS_BUILD

The BE is gsp-wl built for sm_90 SASS only (SASS_BUILD/gsp-wl): none of
its kernels has PTX, so gsp-xform cannot transform any, and under
gsp-run --spatial each one either waits in the time-plane gate while LC
work runs (--no-green) or runs on a green context of the SMs the LC's
request leaves (132 - 66 = 66, rounded down to 64 on an H200). The LC is
the ordinary build. One gspaced (partition 66,8), MPS started here.

Writes OUT/green.csv: per BE x LC pair and mode (solo-lc, solo-be, gate,
green): LC p50/p99, BE units/s, the BE's green launches; and
OUT/green-digest.csv: the SASS-only BE's digests with an LC running
beside it (green launches happen), against the same build alone.
"""
import os
import re
import subprocess
import sys
import tempfile
import time

DURATION = 2.0
BES = ["mm", "cfd"]
LCS = ["bp", "hotspot"]


def result(text, key):
    m = re.search(r"\b%s=([0-9.]+)" % key, text)
    return m.group(1) if m else ""


def stat(path, key):
    try:
        with open(path) as f:
            for line in f:
                k, _, v = line.partition(" ")
                if k == key:
                    return v.strip()
    except OSError:
        pass
    return ""


def start(cmd, env):
    return subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def wait_ready(p):
    line = p.stdout.readline()
    if line.strip() != "READY":
        raise RuntimeError("expected READY, got %r" % line)


def cell(build, sass, sock, tmp, be, lc, mode):
    """One cell; returns (lc_p50, lc_p99, be_ups, green, status)."""
    base = dict(os.environ, GSP_ARBITER="daemon", GSP_SOCKET=sock)
    run = [os.path.join(build, "gsp-run")]
    procs = {}
    stats = os.path.join(tmp, "be.stats")
    if os.path.exists(stats):
        os.unlink(stats)
    if mode != "solo-lc":
        env = dict(base, GSP_STATS_FILE=stats)
        args = ["--class", "be", "--spatial"]
        if mode == "gate":
            args.append("--no-green")
        procs["be"] = start(run + args + ["--", os.path.join(sass, "gsp-wl"),
                                          "run", "--be", be, "--duration",
                                          str(DURATION), "--sync"], env)
    if mode != "solo-be":
        procs["lc"] = start(run + ["--class", "lc", "--",
                                   os.path.join(build, "gsp-wl"), "run",
                                   "--lc", lc, "--period-ms", "2",
                                   "--duration", str(DURATION), "--sync"],
                            base)
    for p in procs.values():
        wait_ready(p)
    t0 = time.monotonic_ns() + 300_000_000
    t1 = t0 + int(DURATION * 1e9)
    for p in procs.values():
        p.stdin.write("GO %d %d\n" % (t0, t1))
        p.stdin.flush()
    out, status = {}, 0
    for name, p in procs.items():
        o, e = p.communicate(timeout=120)
        out[name] = o
        status |= p.returncode
        with open(os.path.join(tmp, "stderr.txt"), "a") as f:
            f.write("--- %s %s %s %s\n%s" % (be, lc, mode, name, e))
    lc_text, be_text = out.get("lc", ""), out.get("be", "")
    return (result(lc_text, "p50_us"), result(lc_text, "p99_us"),
            result(be_text, "units_per_s"),
            stat(stats, "spatial_green_launches") if "be" in procs else "",
            status)


def digests(build, sass, sock, out):
    """SASS-only digests alone, then beside an LC (green launches)."""
    env = dict(os.environ, GSP_ARBITER="daemon", GSP_SOCKET=sock)
    wl = os.path.join(sass, "gsp-wl")
    alone = subprocess.run([wl, "digest"], capture_output=True, text=True,
                           timeout=600).stdout
    lc = subprocess.Popen([os.path.join(build, "gsp-run"), "--class", "lc",
                           "--", os.path.join(build, "gsp-wl"), "run", "--lc",
                           "bp", "--period-ms", "1", "--duration", "60"],
                          env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL)
    time.sleep(3)		# the LC is set up and running
    stats = os.path.join(out, "green-digest.stats")
    beside = subprocess.run([os.path.join(build, "gsp-run"), "--class", "be",
                             "--spatial", "--", wl, "digest"],
                            env=dict(env, GSP_STATS_FILE=stats),
                            capture_output=True, text=True, timeout=600)
    lc.kill()
    lc.wait()
    a = dict(l.split()[:2] for l in alone.splitlines() if len(l.split()) >= 2)
    b = dict(l.split()[:2] for l in beside.stdout.splitlines()
             if len(l.split()) >= 2)
    with open(os.path.join(out, "green-digest.csv"), "w") as f:
        f.write("wl,alone,beside_lc,equal\n")
        for k in a:
            f.write("%s,%s,%s,%d\n" % (k, a[k], b.get(k, ""),
                                       int(a[k] == b.get(k))))
    with open(os.path.join(out, "green-digest.err"), "w") as f:
        f.write(beside.stderr)
    return all(a[k] == b.get(k) for k in a) and bool(a)


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: green-check.py OUT BUILD SASS_BUILD")
    out, build, sass = sys.argv[1:]
    os.makedirs(out, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="gsp-green.")	# short socket paths
    sock = os.path.join(tmp, "s")
    mps = dict(os.environ, CUDA_MPS_PIPE_DIRECTORY=os.path.join(tmp, "mp"),
               CUDA_MPS_LOG_DIRECTORY=os.path.join(tmp, "ml"))
    os.makedirs(mps["CUDA_MPS_PIPE_DIRECTORY"])
    os.makedirs(mps["CUDA_MPS_LOG_DIRECTORY"])
    os.environ.update(CUDA_MPS_PIPE_DIRECTORY=mps["CUDA_MPS_PIPE_DIRECTORY"])
    subprocess.run(["nvidia-cuda-mps-control", "-d"], env=mps, check=True)
    conf = os.path.join(out, "gspaced.conf")
    with open(conf, "w") as f:
        f.write("lease_devices = 1\nsim_devices = 0\nlc_uids = %d\n"
                "partition = 66,8\n" % os.getuid())
    gspd = subprocess.Popen([os.path.join(build, "gspaced"), "--foreground",
                             "--config", conf, "--socket", sock],
                            stdout=subprocess.DEVNULL,
                            stderr=open(os.path.join(out, "gspaced.log"), "w"))
    rc = 0
    try:
        for _ in range(100):
            if os.path.exists(sock):
                break
            time.sleep(0.1)
        with open(os.path.join(out, "green.csv"), "w") as f:
            f.write("be,lc,mode,lc_p50_us,lc_p99_us,be_units_per_s,"
                    "green_launches,status\n")
            for be in BES:
                for lc in LCS:
                    for mode in ["solo-lc", "solo-be", "gate", "green"]:
                        r = cell(build, sass, sock, tmp, be, lc, mode)
                        line = "%s,%s,%s,%s,%s,%s,%s,%d" % ((be, lc, mode) + r)
                        print(line, flush=True)
                        f.write(line + "\n")
                        rc |= r[-1] != 0
        if not digests(build, sass, sock, out):
            print("green-check: a digest differs (green-digest.csv)")
            rc = 1
    finally:
        gspd.terminate()
        gspd.wait()
        subprocess.run(["nvidia-cuda-mps-control"], input="quit\n",
                       env=mps, text=True)
        try:
            os.replace(os.path.join(tmp, "stderr.txt"),
                       os.path.join(out, "stderr.txt"))
        except OSError:
            pass
    sys.exit(rc)


if __name__ == "__main__":
    main()
