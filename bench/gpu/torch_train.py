#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A small deterministic CNN training loop, for the interposer's
correctness test: run it with and without gsp-run and diff stdout.

Synthetic data (fixed seed), SGD with momentum, torch's deterministic
algorithms and CUBLAS_WORKSPACE_CONFIG=:4096:8, so two runs on the same GPU
and software print the same bits. stdout: every step's loss as its exact
repr and the SHA-256 of the final weights (state_dict in key order).
"""
import argparse
import hashlib
import os
import sys

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
    a = ap.parse_args()
    if a.steps < 1 or a.batch < 1:
        ap.error("--steps and --batch must be at least 1")
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


if __name__ == "__main__":
    sys.exit(main())
