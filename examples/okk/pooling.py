"""avg_pool2d and max_pool2d (NCHW, fp32) the OKKernel way (channel groups x output-row tiles with
halo), checked at the contest tolerance (1e-4; max pool is exact) on contest-S1-like cases: a global
pool, ResNet's stem max pool, overlapping windows with padding (reference §5).

Run: ``PYTHONPATH=src python examples/okk/pooling.py``.
"""
from __future__ import annotations

import sys

import numpy as np

from contest import Host, contest_ok
from spatial import Window, reference, run_window

CASES = [
    ("avg_pool2d", (4, 2048, 7, 7), Window(7, 7)),                            # global average pool
    ("max_pool2d", (2, 64, 112, 112), Window(3, 3, (1, 1, 1, 1), (2, 2))),    # ResNet stem
    ("avg_pool2d", (2, 96, 55, 55), Window(3, 3, (1, 1, 1, 1), (2, 2))),      # padding counted
    ("max_pool2d", (1, 130, 33, 41), Window(2, 3, (0, 1, 1, 0), (2, 3))),
]
TOL = 1e-4


def run(kind, shape, win, seed=0):
    x = np.random.default_rng(seed).uniform(-1, 1, shape).astype(np.float32)
    oh, ow = win.out_hw(shape[2], shape[3])
    host = Host(4 * (x.size + shape[0] * shape[1] * oh * ow) + 4096)
    with host.dev:
        src = host.upload(x)
        dst = host.malloc(4 * shape[0] * shape[1] * oh * ow)
        run_window(kind, dst, src, shape, win, 64 * 16)
        y = host.download(dst, (shape[0], shape[1], oh, ow))
    return y, reference(kind, x, win), host.dev


def main() -> int:
    ok = True
    for kind, shape, win in CASES:
        y, ref, dev = run(kind, shape, win)
        good, worst = contest_ok(y, ref, TOL)
        if kind == "max_pool2d":
            good &= bool(np.array_equal(y, ref.astype(np.float32)))
        ok &= good
        print(f"{kind} {shape} k{win.kh}x{win.kw} pad {win.pad} stride {win.stride}: worst rel err {worst:.2e} "
              f"({'ok' if good else 'FAILED'}), {dev.total_cycles:,} cycles ({dev.total_ns / 1e3:,.1f} us modelled)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
