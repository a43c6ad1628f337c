"""depthwise2d (NCHW, fp32) the OKKernel way (channel groups x output-row tiles with halo), checked at
the contest tolerance (1e-4) on the contest-1 depthwise cases (reference §5; all N = 4).

Run: ``PYTHONPATH=src python examples/okk/depthwise.py [--all]``.
"""
from __future__ import annotations

import sys

import numpy as np

from contest import Host, contest_ok
from spatial import Window, reference, run_window

CASES = [
    ((4, 96, 150, 150), Window(3, 3, (1, 1, 1, 1), (2, 2))),
    ((4, 144, 75, 75), Window(3, 3, (1, 1, 1, 1))),
    ((4, 192, 38, 38), Window(3, 3, (1, 1, 1, 1), (2, 2))),
    ((4, 336, 29, 29), Window(5, 5, (2, 2, 2, 2), (2, 2))),
    ((4, 512, 14, 14), Window(3, 3, (0, 1, 0, 1), (2, 2))),
    ((4, 960, 28, 28), Window(3, 3, (4, 4, 4, 4), (1, 1), (4, 4))),
    ((4, 3, 224, 224), Window(11, 11, (2, 2, 2, 2), (4, 4))),
    ((4, 3, 256, 256), Window(7, 7, (3, 3, 3, 3), (2, 2))),
    ((4, 3, 640, 640), Window(3, 3, (1, 1, 1, 1), (2, 2))),
    ((4, 2048, 33, 33), Window(3, 3, (6, 6, 6, 6), (1, 1), (6, 6))),
]
TOL = 1e-4


def run(shape, win, seed=0):
    r = np.random.default_rng(seed)
    x = r.uniform(-1, 1, shape).astype(np.float32)
    wt = r.uniform(-1, 1, (shape[1], win.kh, win.kw)).astype(np.float32)
    oh, ow = win.out_hw(shape[2], shape[3])
    host = Host(4 * (x.size + wt.size + shape[0] * shape[1] * oh * ow) + 4096)
    with host.dev:
        src, wsys = host.upload(x), host.upload(wt)
        dst = host.malloc(4 * shape[0] * shape[1] * oh * ow)
        run_window("depthwise2d", dst, src, shape, win, 64 * 16, wsys)
        y = host.download(dst, (shape[0], shape[1], oh, ow))
    return y, reference("depthwise2d", x, win, wt), host.dev


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ok = True
    for shape, win in CASES if "--all" in argv else CASES[:6]:
        y, ref, dev = run(shape, win)
        good, worst = contest_ok(y, ref, TOL)
        ok &= good
        print(f"depthwise {shape} k{win.kh}x{win.kw} pad {win.pad} stride {win.stride} dil {win.dilation}: "
              f"worst rel err {worst:.2e} ({'ok' if good else 'FAILED'} at {TOL}), {dev.total_cycles:,} cycles "
              f"({dev.total_ns / 1e3:,.1f} us modelled), {len(dev.events)} instructions")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
