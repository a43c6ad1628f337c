"""conv2d (NCHW, fp32) the OKKernel way: 2IC weights converted on the host, output-row tiles with halo,
checked at the contest tolerance (1e-4) on contest-1 conv cases that run in seconds (reference §5);
``--plan`` lists modelled cycles for the rest.

Run: ``PYTHONPATH=src python examples/okk/conv2d.py``.
"""
from __future__ import annotations

import sys

import numpy as np

from contest import Host, contest_ok
from spatial import Window, reference, run_window, to_2ic

# (N, IC, H, W, OC, Window)
CASES = [
    ((4, 3, 16, 16), 64, Window(3, 3, (1, 1, 1, 1), (2, 2), (2, 2))),     # the demo kernel's case
    ((4, 3, 224, 224), 16, Window(3, 3)),                                  # the benchmark case
    ((4, 16, 40, 40), 32, Window(3, 3, (2, 2, 2, 2), (1, 1), (2, 2))),
]
TOL = 1e-4


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


def main() -> int:
    ok = True
    for shape, oc, win in CASES:
        y, ref, dev = run(shape, oc, win)
        good, worst = contest_ok(y, ref, TOL)
        ok &= good
        print(f"conv2d {shape} -> OC {oc}, k{win.kh}x{win.kw} pad {win.pad} stride {win.stride} dil {win.dilation}: "
              f"worst rel err {worst:.2e} ({'ok' if good else 'FAILED'} at {TOL}), {dev.total_cycles:,} cycles "
              f"({dev.total_ns / 1e3:,.1f} us modelled), {len(dev.events)} instructions")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
