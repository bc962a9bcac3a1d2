#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ResNet-50 inference with random weights, for the interposer's
correctness test: run it with and without gsp-run and diff stdout.

Weights and inputs come from fixed seeds; nothing is downloaded. The model
is torchvision's resnet50(weights=None) when torchvision is installed,
else the same architecture built below from torch.nn (stdout says which).
cuDNN runs in deterministic mode without autotuning, so two runs on the
same GPU and software give the same bits.

stdout: the model source, the output shape, the SHA-256 of the output
tensor's bytes and the top-5 classes of sample 0. Diagnostics on stderr.

With --serve it is an LC service for bench/run-search.sh: after
--warmup passes, one forward pass of --batch images every --period-ms
ms (the next at once when one runs late) for --duration s; --trace-out
gets "lc START_NS LAT_NS" per request (CLOCK_MONOTONIC, gsp-wl's
format) and stdout one line "RESULT role=lc ... p50_us=X p99_us=Y".
"""
import argparse
import hashlib
import os
import sys
import time

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
import torch  # noqa: E402
from torch import nn  # noqa: E402


class Bottleneck(nn.Module):
    """1x1 reduce, 3x3 (stride here), 1x1 expand x4, plus the shortcut."""

    def __init__(self, cin, width, stride):
        super().__init__()
        cout = width * 4
        self.conv1 = nn.Conv2d(cin, width, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, cout, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                      nn.BatchNorm2d(cout))

    def forward(self, x):
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.relu(self.bn2(self.conv2(y)))
        y = self.bn3(self.conv3(y))
        return self.relu(y + (self.down(x) if self.down is not None else x))


def resnet50_nn(classes=1000):
    """ResNet-50: stem, stages of 3, 4, 6, 3 bottlenecks, pool, linear."""
    layers = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64),
              nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, 1)]
    cin = 64
    for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for b in range(blocks):
            layers.append(Bottleneck(cin, width, stride if b == 0 else 1))
            cin = width * 4
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, classes)]
    return nn.Sequential(*layers)


def tensor_sha256(t):
    t = t.detach().cpu().contiguous()
    try:
        return hashlib.sha256(t.numpy().tobytes()).hexdigest()
    except (RuntimeError, TypeError, ImportError):  # torch without numpy
        return hashlib.sha256(bytes(t.view(torch.uint8).flatten().tolist())).hexdigest()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batch", type=int, default=16, help="images per batch (default 16)")
    ap.add_argument("--iters", type=int, default=3,
                    help="forward passes; all must agree (default 3)")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--builtin", action="store_true",
                    help="use the torch.nn ResNet-50 even if torchvision is present")
    ap.add_argument("--serve", action="store_true",
                    help="an LC service: timed periodic requests (see above)")
    ap.add_argument("--period-ms", type=float, default=10.0)
    ap.add_argument("--duration", type=float, default=5.0, help="seconds (--serve)")
    ap.add_argument("--warmup", type=int, default=3, help="untimed passes (--serve)")
    ap.add_argument("--trace-out", help="per-request trace (--serve)")
    a = ap.parse_args()
    if a.batch < 1 or a.iters < 1:
        ap.error("--batch and --iters must be at least 1")
    if a.serve and (a.period_ms <= 0 or a.duration <= 0 or a.warmup < 0):
        ap.error("--serve needs --period-ms > 0, --duration > 0, --warmup >= 0")
    if not torch.cuda.is_available():
        print("torch_resnet: CUDA is not available to torch", file=sys.stderr)
        return 1

    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.manual_seed(a.seed)
    src = "torch.nn"
    model = None
    if not a.builtin:
        try:
            import torchvision
            model = torchvision.models.resnet50(weights=None)
            src = "torchvision " + torchvision.__version__.split("+")[0]
        except ImportError:
            pass
    if model is None:
        model = resnet50_nn()
    model = model.cuda().eval()
    g = torch.Generator().manual_seed(a.seed + 1)
    x = torch.randn(a.batch, 3, 224, 224, generator=g).cuda()
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name(0)}", file=sys.stderr)
    if a.serve:
        return serve(a, model, x)

    outs = []
    with torch.no_grad():
        for _ in range(a.iters):
            outs.append(model(x))
    torch.cuda.synchronize()
    digests = [tensor_sha256(o) for o in outs]
    print(f"model resnet50 ({src}), random weights, seed {a.seed}")
    print(f"output shape {tuple(outs[0].shape)}")
    print(f"output sha256 {digests[0]}")
    print("top5 sample0 " + " ".join(str(int(i)) for i in outs[0][0].topk(5).indices.cpu()))
    if len(set(digests)) != 1:
        print("torch_resnet: the forward passes disagree within one run", file=sys.stderr)
        return 1
    return 0


def pct(sorted_vals, p):
    return sorted_vals[min(len(sorted_vals) - 1, int(p * len(sorted_vals)))]


def serve(a, model, x):
    """Periodic requests, as gsp-wl's LC: each a forward pass and a sync."""
    with torch.no_grad():
        for _ in range(a.warmup):
            model(x)
        torch.cuda.synchronize()
        period = int(a.period_ms * 1e6)
        t_next = time.monotonic_ns()
        t_end = t_next + int(a.duration * 1e9)
        trace = []
        while True:
            now = time.monotonic_ns()
            if t_next > now:
                time.sleep((t_next - now) / 1e9)
            t0 = time.monotonic_ns()
            if t0 >= t_end:
                break
            model(x)
            torch.cuda.synchronize()
            t1 = time.monotonic_ns()
            trace.append((t0, t1 - t0))
            t_next = max(t_next + period, t1)
    if not trace:
        print("torch_resnet: no request ran (--duration too short)", file=sys.stderr)
        return 1
    if a.trace_out:
        with open(a.trace_out, "w") as f:
            f.writelines(f"lc {t} {d}\n" for t, d in trace)
    lat = sorted(d / 1e3 for _, d in trace)
    print(f"RESULT role=lc wl=resnet50 n={len(lat)} mean_us={sum(lat) / len(lat):.1f} "
          f"p50_us={pct(lat, 0.5):.1f} p99_us={pct(lat, 0.99):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
