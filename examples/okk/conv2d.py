"""conv2d (NCHW, fp32) the OKKernel way: 2IC weights converted on the host, output-row tiles with halo,
checked at the contest tolerance (1e-4) on the demo shapes and the contest-1 conv cases that run in a
few seconds (3, 6, 9; S2 host/conv2d.cpp); ``--plan`` prints the modelled cycles of all 15 contest cases
(the same tiling plan, costed without computing: spatial.plan_cycles).

Run: ``PYTHONPATH=src python examples/okk/conv2d.py [--plan]``.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from contest import Host, contest_ok
from spatial import Window, plan_cycles, reference, run_window, to_2ic

# (N, IC, H, W, OC, Window)
CASES = [
    ((4, 3, 16, 16), 64, Window(3, 3, (1, 1, 1, 1), (2, 2), (2, 2))),     # the demo kernel's case
    ((4, 3, 224, 224), 16, Window(3, 3)),                                  # the benchmark case
    ((4, 16, 40, 40), 32, Window(3, 3, (2, 2, 2, 2), (1, 1), (2, 2))),
]
# The 15 contest-1 cases, (N, IC, H, W), OC, Window(kh, kw, (top, bottom, left, right), stride, dilation)
CONTEST = [
    ((4, 3, 640, 640), 16, Window(3, 3, (1, 1, 1, 1), (2, 2))),
    ((4, 3, 512, 960), 16, Window(7, 7, (3, 3, 3, 3))),
    ((4, 3, 1080, 1920), 16, Window(3, 3, (1, 1, 1, 1))),
    ((4, 3, 384, 384), 24, Window(7, 7, (1, 2, 1, 2), (4, 4))),
    ((4, 3, 227, 227), 96, Window(11, 11, (0, 0, 0, 0), (4, 4))),
    ((4, 3, 127, 127), 192, Window(11, 11, (0, 0, 0, 0), (2, 2))),
    ((4, 18, 192, 256), 36, Window(3, 3, (1, 1, 1, 1), (2, 2))),
    ((4, 72, 160, 160), 72, Window(3, 3, (1, 1, 1, 1), (2, 2))),
    ((4, 128, 50, 50), 256, Window(3, 3, (2, 2, 2, 2), (1, 1), (2, 2))),
    ((4, 160, 30, 30), 192, Window(7, 1, (3, 3, 0, 0))),
    ((4, 256, 128, 128), 512, Window(1, 1, (0, 0, 0, 0), (2, 2))),
    ((4, 512, 28, 28), 512, Window(3, 3, (4, 4, 4, 4), (1, 1), (4, 4))),
    ((4, 1024, 10, 10), 546, Window(3, 3, (1, 1, 1, 1))),
    ((4, 2048, 28, 28), 256, Window(3, 3, (12, 12, 12, 12), (1, 1), (12, 12))),
    ((4, 4032, 11, 11), 672, Window(1, 1)),
]
QUICK = (3, 6, 9)       # the contest cases that simulate in about 2 s each
TOL = 1e-4


def estimate(shape, oc, win) -> int:
    """Modelled cycles of this kernel's plan, without computing."""
    return plan_cycles("conv2d", shape, win, 0, oc, min(oc, 64))


def run(shape, oc, win, seed=0):
    """The kernel's output, the float64 reference and the device."""
    y, x, wt, dev = simulate(shape, oc, win, seed)
    return y, reference("conv2d", x, win, wt), dev


def simulate(shape, oc, win, seed=0):
    """Only the simulated kernel (host upload, okk calls, download): what the benchmark times against
    the C-model running the same calls. Returns (output, input, weights, device)."""
    r = np.random.default_rng(seed)
    x = r.uniform(-1, 1, shape).astype(np.float32)
    wt = r.uniform(-1, 1, (oc, shape[1], win.kh, win.kw)).astype(np.float32)
    oh, ow = win.out_hw(shape[2], shape[3])
    host = Host(4 * (x.size + wt.size + shape[0] * oc * oh * ow) + 4096)
    with host.dev:
        src, wsys = host.upload(x), host.upload(to_2ic(wt))
        dst = host.malloc(4 * shape[0] * oc * oh * ow)
        run_window("conv2d", dst, src, shape, win, 0, wsys, oc, min(oc, 64))
        y = host.download(dst, (shape[0], oc, oh, ow))
    return y, x, wt, host.dev


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--plan", action="store_true", help="print the modelled cycles of every contest case")
    args = p.parse_args(argv)
    if args.plan:
        for i, (shape, oc, win) in enumerate(CONTEST):
            c = estimate(shape, oc, win)
            print(f"conv2d case {i} {shape} -> OC {oc}, k{win.kh}x{win.kw} pad {win.pad} stride {win.stride} "
                  f"dil {win.dilation}: ~{c:,} cycles (~{c / 550e3:,.1f} ms modelled)")
        return 0
    ok = True
    runs = [(f"demo {i}", *c) for i, c in enumerate(CASES)] + [(f"contest case {i}", *CONTEST[i]) for i in QUICK]
    for name, shape, oc, win in runs:
        y, ref, dev = run(shape, oc, win)
        good, worst = contest_ok(y, ref, TOL)
        ok &= good
        print(f"conv2d {name} {shape} -> OC {oc}, k{win.kh}x{win.kw} pad {win.pad} stride {win.stride} "
              f"dil {win.dilation}: worst rel err {worst:.2e} ({'ok' if good else 'FAILED'} at {TOL}), "
              f"{dev.total_cycles:,} cycles ({dev.total_ns / 1e3:,.1f} us modelled), {len(dev.events)} instructions")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
