"""avg_pool2d and max_pool2d (NCHW, fp32) the OKKernel way (channel groups x output-row tiles with
halo), checked at the contest tolerance (1e-4; max pool is exact) on contest-S1-like cases: a global
pool, ResNet's stem max pool, overlapping windows with padding (reference §5).

``--s1`` runs the contest-S1 avg_pool cases (sophon-ai-algo/tpu_op_contest_s1 host/avg_pool.cpp) that
okk_bdc_avg_pool2d computes directly (no padding, or padding counted), and lists the others with why.

Run: ``PYTHONPATH=src python examples/okk/pooling.py [--s1]``.
"""
from __future__ import annotations

import argparse
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
# Contest S1 avg_pool cases: (index, shape, Window, None) or (index, shape, Window, why it is not run).
# avg_pool2d divides by kh*kw with padding counted, so count_include_pad = 0 with padding and ceil_mode
# need an edge correction this example does not do.
S1 = [
    (0, (1, 40, 40, 40), Window(40, 40), None),
    (1, (1, 1024, 32, 32), Window(16, 16, (0, 0, 0, 0), (16, 16)), "stride 16 > 15 (BDC limit)"),
    (2, (1, 2048, 28, 28), Window(28, 28), None),
    (3, (1, 64, 22, 92), Window(5, 5, (0, 0, 0, 0), (5, 5)), None),
    (4, (1, 42, 111, 111), Window(3, 3, (1, 1, 1, 1), (2, 2)), "count_include_pad = 0 with padding"),
    (5, (1, 2048, 5, 5), Window(3, 3, (1, 1, 1, 1)), "count_include_pad = 0 with padding"),
    (6, (1, 1008, 28, 28), Window(1, 1, (0, 0, 0, 0), (2, 2)), None),
    (7, (300, 2048, 7, 7), Window(7, 7), None),
    (8, (300, 1024, 4, 4), Window(3, 3, (1, 1, 1, 1)), "count_include_pad = 0 with padding"),
    (9, (1, 320, 25, 32), Window(25, 32), None),
    (10, (1, 192, 100, 75), Window(3, 3, (1, 1, 1, 1)), "ceil_mode, count_include_pad = 0 with padding"),
    (11, (1, 288, 63, 63), Window(3, 3), None),
    (12, (1, 1024, 4, 4), Window(3, 3, (1, 1, 1, 1)), "ceil_mode"),
    (13, (1, 1546, 5, 5), Window(7, 7, (1, 1, 1, 1)), None),
    (14, (1, 32, 1, 156), Window(1, 4, (0, 0, 1, 1), (1, 2)), None),
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


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--s1", action="store_true", help="the contest-S1 avg_pool cases")
    args = p.parse_args(argv)
    ok = True
    cases = CASES if not args.s1 else [("avg_pool2d", shape, win) for _, shape, win, why in S1 if why is None]
    if args.s1:
        for i, shape, win, why in S1:
            if why is not None:
                print(f"avg_pool2d S1 case {i} {shape} k{win.kh}x{win.kw}: not run ({why})")
    for kind, shape, win in cases:
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
