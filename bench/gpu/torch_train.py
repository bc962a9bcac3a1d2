#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A small deterministic CNN training loop, for the interposer's
correctness test: run it with and without gsp-run and diff stdout; and,
with --start-ms, a BE of the LC-protection benchmark.

Synthetic data (fixed seed), SGD with momentum, torch's deterministic
algorithms and CUBLAS_WORKSPACE_CONFIG=:4096:8, so two runs on the same GPU
and software print the same bits. stdout: every step's loss as its exact
repr and the SHA-256 of the final weights (state_dict in key order).

With --start-ms T --warmup-s W --measure-s M (bench/run-lcprotect.sh) it
trains without printing until T + W + M (CLOCK_REALTIME, ms) and prints
"be steps_per_s X steps N": the steps that ended in [T + W, T + W + M]
over the time from the first to the last of those ends, as lcprotect's
BE counts its kernels.

With --duration S --trace-out F (bench/run-search.sh) it trains for S
seconds and writes "be END_NS" per step (CLOCK_MONOTONIC, gsp-wl's
format), each step synchronised.
"""
import argparse
import hashlib
import os
import sys
import time

os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"
import torch  # noqa: E402
from torch import nn  # noqa: E402


def net():
    return nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(64 * 8 * 8, 256), nn.ReLU(), nn.Linear(256, 10))


def weights_sha256(model):
    h = hashlib.sha256()
    for k, v in sorted(model.state_dict().items()):
        t = v.detach().cpu().contiguous()
        h.update(k.encode())
        try:
            h.update(t.numpy().tobytes())
        except (RuntimeError, TypeError, ImportError):  # torch without numpy
            h.update(bytes(t.view(torch.uint8).flatten().tolist()))
    return h.hexdigest()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=50, help="training steps (default 50)")
    ap.add_argument("--batch", type=int, default=128, help="batch size (default 128)")
    ap.add_argument("--seed", type=int, default=4321)
    ap.add_argument("--start-ms", type=int, help="a timed BE run (see above)")
    ap.add_argument("--warmup-s", type=int, default=1)
    ap.add_argument("--measure-s", type=int, default=2)
    ap.add_argument("--duration", type=float, help="a traced BE run of S seconds")
    ap.add_argument("--trace-out", help="per-step trace (with --duration)")
    a = ap.parse_args()
    if a.duration is not None and (a.duration <= 0 or not a.trace_out):
        ap.error("--duration needs a time > 0 and --trace-out")
    if a.steps < 1 or a.batch < 1:
        ap.error("--steps and --batch must be at least 1")
    if a.start_ms is not None and (a.start_ms < 1 or a.warmup_s < 0 or
                                   a.measure_s < 1):
        ap.error("--start-ms needs a time, --warmup-s >= 0, --measure-s >= 1")
    if not torch.cuda.is_available():
        print("torch_train: CUDA is not available to torch", file=sys.stderr)
        return 1

    torch.use_deterministic_algorithms(True)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False
    torch.manual_seed(a.seed)
    model = net().cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    g = torch.Generator().manual_seed(a.seed + 1)
    data = torch.randn(8 * a.batch, 3, 32, 32, generator=g).cuda()
    labels = torch.randint(0, 10, (8 * a.batch,), generator=g).cuda()
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name(0)}", file=sys.stderr)

    model.train()
    if a.start_ms is not None:
        return timed(a, model, opt, loss_fn, data, labels)
    if a.duration is not None:
        return traced(a, model, opt, loss_fn, data, labels)
    for step in range(a.steps):
        i = (step % 8) * a.batch
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(data[i:i + a.batch]), labels[i:i + a.batch])
        loss.backward()
        opt.step()
        print(f"step {step} loss {loss.item()!r}")
    torch.cuda.synchronize()
    print(f"weights sha256 {weights_sha256(model)}")
    return 0


def train_step(a, step, model, opt, loss_fn, data, labels):
    """One synchronised step on the step-th batch of the eight."""
    i = (step % 8) * a.batch
    opt.zero_grad(set_to_none=True)
    loss = loss_fn(model(data[i:i + a.batch]), labels[i:i + a.batch])
    loss.backward()
    opt.step()
    torch.cuda.synchronize()


def timed(a, model, opt, loss_fn, data, labels):
    t_meas = (a.start_ms + a.warmup_s * 1000) / 1000.0
    t_end = t_meas + a.measure_s
    first = last = None
    steps = step = 0
    while True:
        train_step(a, step, model, opt, loss_fn, data, labels)
        step += 1
        t = time.time()
        if t_meas <= t <= t_end:
            if first is None:
                first = t
            else:
                steps += 1
            last = t
        if t > t_end:
            break
    per_s = steps / (last - first) if first is not None and last > first else 0
    print(f"be steps_per_s {per_s:.3f} steps {steps}")
    return 0


def traced(a, model, opt, loss_fn, data, labels):
    t_end = time.monotonic_ns() + int(a.duration * 1e9)
    ends = []
    step = 0
    while time.monotonic_ns() < t_end:
        train_step(a, step, model, opt, loss_fn, data, labels)
        ends.append(time.monotonic_ns())
        step += 1
    with open(a.trace_out, "w") as f:
        f.writelines(f"be {t}\n" for t in ends)
    print(f"be steps {len(ends)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
