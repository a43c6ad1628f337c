"""npusim.okk against Sophgo's C-model running the same calls, timed in the same run.

(8, 64, 64, 64) fp32 (8 MiB per tensor, 128 KiB per NPU): okk_bdc_exp, okk_bdc_sigmoid and GDMA
copies S2L / L2S, each as npusim (with a plain-numpy baseline doing the same math or copy) and as the
C-model (libbackend_bm1684.so in its worker process; the time includes one pipe round trip, about
0.1 ms). A tiny (1,1,1,1) exp, 100 calls per sample, measures per-call overhead on both sides.
The C-model cases are left out when its libraries are absent (python -m npusim.okk.oracle.fetch).
"""
import numpy as np

from harness import Case
from npusim import okk
from npusim.okk.oracle.fetch import available

SHAPE = (8, 64, 64, 64)
G = 0x1_0000_0000
SRC, DST, WORK, COPY = 0x00000, 0x20000, 0x40000, 0x60000     # per-NPU offsets (128 KiB each)
TINY_CALLS = 100


def _npusim_device(x):
    dev = okk.Device(global_mem_bytes=1 << 26)
    with dev:
        okk.okk_initialize()
        dev.write_system(G, x)
        okk.okk_gdma_32bit_cpy_S2L(SRC, G, okk.dim4(*SHAPE), None, None)
        okk.okk_gdma_32bit_cpy_S2L(COPY, G, okk.dim4(*SHAPE), None, None)
    return dev


def _on(dev, fn):
    def run():
        with dev:
            fn()
    return run


def _npusim_cases(x):
    dev = _npusim_device(x)
    d4 = okk.dim4(*SHAPE)
    tiny = okk.dim4(1, 1, 1, 1)
    x64 = x.astype(np.float32)
    buf = np.empty_like(x64)

    def tiny_calls():
        for _ in range(TINY_CALLS):
            okk.okk_bdc_exp(DST, SRC, WORK, tiny)
    return [
        Case("okk_bdc_exp (8,64,64,64) fp32, npusim", _on(dev, lambda: okk.okk_bdc_exp(DST, SRC, WORK, d4)),
             numpy=lambda: np.exp(x64), target="at least as fast as the C-model"),
        Case("okk_bdc_sigmoid (8,64,64,64) fp32, npusim",
             _on(dev, lambda: okk.okk_bdc_sigmoid(DST, SRC, WORK, d4)),
             numpy=lambda: 1.0 / (1.0 + np.exp(-x64)), target="at least as fast as the C-model"),
        Case("okk_gdma_32bit_cpy_S2L 8 MiB, npusim",
             _on(dev, lambda: okk.okk_gdma_32bit_cpy_S2L(COPY, G, d4, None, None)),
             numpy=lambda: np.copyto(buf, x64), target="within 2x of a numpy copy"),
        Case("okk_gdma_32bit_cpy_L2S 8 MiB, npusim",
             _on(dev, lambda: okk.okk_gdma_32bit_cpy_L2S(G + 0x1000000, COPY, d4, None, None)),
             numpy=lambda: np.copyto(buf, x64), target="within 2x of a numpy copy"),
        # exp is 7 instructions and a 32-term Taylor series of sequential fp32 steps (the C-model's
        # numerics), so its tiny call is mostly math; the per-call overhead target (< 50 us) is measured
        # on a one-instruction call (okk_bdc_neg, bench_okk.py)
        Case("okk_bdc_exp (1,1,1,1), npusim, per call (7 instructions, 32 sequential Taylor steps)",
             _on(dev, tiny_calls), per=TINY_CALLS, target="(overhead target: okk_bdc_neg row)"),
    ]


def _cmodel_cases(x):
    from npusim.okk.oracle.cmodel import Oracle
    oracle = Oracle("backend")
    setup = [("ws", G, x.tobytes()), ("call", "okk_initialize", ()),
             ("call", "okk_gdma_32bit_cpy_S2L", (SRC, G, SHAPE, None, None)),
             ("call", "okk_gdma_32bit_cpy_S2L", (COPY, G, SHAPE, None, None))]
    oracle.run(setup)

    def prog(*calls):
        steps = [("call", name, args) for name, args in calls]
        return lambda: oracle.run(steps)
    tiny = [("okk_bdc_exp", (DST, SRC, WORK, (1, 1, 1, 1)))] * TINY_CALLS
    return [
        Case("okk_bdc_exp (8,64,64,64) fp32, C-model", prog(("okk_bdc_exp", (DST, SRC, WORK, SHAPE)))),
        Case("okk_bdc_sigmoid (8,64,64,64) fp32, C-model", prog(("okk_bdc_sigmoid", (DST, SRC, WORK, SHAPE)))),
        Case("okk_gdma_32bit_cpy_S2L 8 MiB, C-model",
             prog(("okk_gdma_32bit_cpy_S2L", (COPY, G, SHAPE, None, None)))),
        Case("okk_gdma_32bit_cpy_L2S 8 MiB, C-model",
             prog(("okk_gdma_32bit_cpy_L2S", (G + 0x1000000, COPY, SHAPE, None, None)))),
        Case("okk_bdc_exp (1,1,1,1), C-model, per call", prog(*tiny), per=TINY_CALLS),
    ]


def cases():
    x = np.random.default_rng(0).uniform(-10, 10, SHAPE).astype(np.float32)
    out = _npusim_cases(x)
    if available():
        out += _cmodel_cases(x)
    return out
