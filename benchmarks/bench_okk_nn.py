"""okk part two: the matmul example at 256x768x3072 and conv2d at N=4, 3->16, 224x224, k3 (issue 4).

Each runs the example kernel (examples/okk/) on npusim, with plain numpy doing the same math as the
baseline; and, when Sophgo's C-model library is present, the very same okk_* calls on
libcmodel_bm1684.so loaded in this process through ctypes (a shim module forwards the kernel's
okk_* calls to the library). Target: npusim no slower than the C-model.

The library starts four worker threads when it loads that spin on the CPU from then on (measured: one
CPU second per idle second). So it is loaded only when its first case runs, and every npusim case runs
before every C-model case: otherwise the npusim timings measure the C-model's spinning threads too
(on two cores, conv2d went from 0.17 s to 0.99 s). The npusim cases time the simulated kernel only,
not the example's float64 reference check.
"""
from __future__ import annotations

import os
import sys

import numpy as np

from harness import Case

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples", "okk"))


class CModelOkk:
    """Stands in for ``npusim.okk`` inside an example kernel: okk_* calls go to the C-model, every
    other name (dim4, Padding, stride helpers) to npusim.okk."""

    def __init__(self, cm):
        from npusim import okk
        from npusim.okk.oracle.signatures import SIGNATURES
        self._cm, self._okk, self._sig = cm, okk, SIGNATURES

    def __getattr__(self, name):
        if name not in self._sig:
            return getattr(self._okk, name)
        kinds = self._sig[name]
        cm = self._cm

        def call(*args):
            conv = []
            for k, a in zip(kinds, args):
                if k == "D4" and a is not None:
                    a = (a.n, a.c, a.h, a.w)
                elif isinstance(a, bool):
                    a = int(a)
                conv.append(a)
            cm.call(name, conv)
        return call


_CM = []


def _cmodel_available() -> bool:
    from npusim.okk.oracle.fetch import available
    return available()


def _cmodel():
    """The loaded library (loaded on first use: see the module docstring)."""
    if not _CM:
        from npusim.okk.oracle.cmodel import CModel
        _CM.append(CModel("cmodel"))          # libcmodel: no profile dump, no chdir
    return _CM[0]


def _matmul_cases():
    import matmul
    M, K, N = 256, 768, 3072
    r = np.random.default_rng(0)
    a = r.uniform(-1, 1, (M, K)).astype(np.float32)
    b = r.uniform(-1, 1, (K, N)).astype(np.float32)
    out = [Case(f"matmul example {M}x{K}x{N} (npusim, whole kernel incl. GDMA)", lambda: matmul.run(M, K, N),
                numpy=lambda: a @ b, target="no slower than the C-model", repeats=1, warmup=0)]
    if _cmodel_available():
        G = 0x1_0000_0000

        def on_cmodel():
            cm = _cmodel()
            cm.write(G, a.tobytes(), False)
            cm.write(G + a.nbytes, b.tobytes(), False)
            saved = matmul.okk
            matmul.okk = CModelOkk(cm)
            try:
                matmul.matmul(G + a.nbytes + b.nbytes, G, G + a.nbytes, M, K, N)
            finally:
                matmul.okk = saved
        out.append(Case(f"matmul example {M}x{K}x{N} (Sophgo C-model, same okk calls, in-process)", on_cmodel,
                        repeats=1, warmup=0))
    return out


def _conv_cases():
    import conv2d
    import spatial
    shape, oc, win = conv2d.CASES[1]
    r = np.random.default_rng(0)
    x = r.uniform(-1, 1, shape).astype(np.float32)
    wt = r.uniform(-1, 1, (oc, shape[1], win.kh, win.kw)).astype(np.float32)

    def numpy_conv():
        acc = np.zeros((shape[0], oc, shape[2] - 2, shape[3] - 2), np.float32)
        for i in range(3):
            for j in range(3):
                acc += np.einsum("nchw,oc->nohw", x[:, :, i:i + shape[2] - 2, j:j + shape[3] - 2], wt[:, :, i, j])
        return acc
    out = [Case("conv2d example N=4 3->16 224x224 k3 (npusim, whole kernel incl. GDMA)",
                lambda: conv2d.simulate(shape, oc, win), numpy=numpy_conv, target="no slower than the C-model",
                repeats=1, warmup=0)]
    if _cmodel_available():
        G = 0x1_0000_0000
        w2 = spatial.to_2ic(wt)
        oh, ow = win.out_hw(shape[2], shape[3])

        def on_cmodel():
            cm = _cmodel()
            cm.write(G, x.tobytes(), False)
            cm.write(G + x.nbytes, w2.tobytes(), False)
            saved = spatial.okk
            spatial.okk = CModelOkk(cm)
            try:
                spatial.run_window("conv2d", G + x.nbytes + w2.nbytes + 4096, G, shape, win, 0, G + x.nbytes, oc,
                                   min(oc, 64))
            finally:
                spatial.okk = saved
        out.append(Case("conv2d example N=4 3->16 224x224 k3 (Sophgo C-model, same okk calls, in-process)",
                        on_cmodel, repeats=1, warmup=0))
    return out


def cases():
    all_ = _matmul_cases() + _conv_cases()
    # npusim first, C-model last (its threads spin once loaded); stable within each group
    return sorted(all_, key=lambda c: "C-model" in c.name)
