"""Random whole programs: serial stretches and okk_parallel_start/_end regions mixing GDMA and BDC.

Memory plan per NPU (disjoint, so no region has a GDMA/BDC race): BDC src at 0, dst at 0x10000,
work at 0x20000; GDMA S2L lands at 0x40000; GDMA L2S reads 0x60000 (set up by the host) into
system memory.  What the program leaves in dst, the S2L area and system memory is read back, and the
whole schedule (every instruction's start cycle and cost, the section total) is compared.
"""

from __future__ import annotations

import numpy as np

from .bdc_cases import FUNCTIONS
from .programs import G, Builder, NPU, aligned_strides, fp32_mix, local_span

SYS_SRC = G + 0x100000
SYS_DST = G + 0x2000000
SPAN = 0x8000          # bytes per NPU each area may use


def _shape(rng):
    return (int(rng.integers(1, 3)), int(rng.integers(1, 130)), int(rng.integers(1, 5)), int(rng.integers(1, 33)))


def _fits(q, shape):
    return local_span(q, shape, aligned_strides(q, shape)) <= SPAN


def _bdc(b: Builder, rng) -> None:
    func = str(rng.choice([f for f, v in FUNCTIONS.items() if v[0] in ("plain", "work", "strided")]))
    form, _, tunable = FUNCTIONS[func]
    while True:
        q, shape = int(rng.integers(0, NPU)), _shape(rng)
        if _fits(q, shape):
            break
    base = q * 0x80000
    args = [base + 0x10000, base]
    if form == "work":
        args.append(base + 0x20000)
    args.append(shape)
    if form == "strided":
        args += [None, None]
    if tunable:
        args.append(int(rng.integers(1, 65)))
    b.call(func, *args)


def _gdma(b: Builder, rng, sys_cursor: list) -> None:
    while True:
        q, shape = int(rng.integers(0, NPU)), _shape(rng)
        if _fits(q, shape):
            break
    n, c, h, w = shape
    if rng.random() < 0.5:
        b.call("okk_gdma_32bit_cpy_S2L", q * 0x80000 + 0x40000, SYS_SRC + 4 * int(rng.integers(0, 64)), shape,
               None, None)
    else:
        b.call("okk_gdma_32bit_cpy_L2S", SYS_DST + sys_cursor[0], q * 0x80000 + 0x60000, shape, None, None)
        sys_cursor[0] += 4 * n * c * h * w


def build(rng, segments: int = 12) -> Builder:
    b = Builder()
    npus = list(range(NPU))
    b.write_local_span(0, 0, SPAN, npus, fp32_mix(rng, NPU * SPAN // 4, -20.0, 20.0).view(np.uint8).reshape(NPU, SPAN))
    for r in (0x10000, 0x20000, 0x40000, 0x60000):
        b.write_local_span(0, r, SPAN, npus, rng.integers(0, 256, NPU * SPAN, dtype=np.uint8).reshape(NPU, SPAN))
    b.write_system(SYS_SRC, rng.integers(0, 256, 0x40000, dtype=np.uint8))
    b.write_system(SYS_DST, rng.integers(0, 256, 0x100000, dtype=np.uint8))
    cursor = [0]
    b.call("okk_initialize")
    for _ in range(segments):
        if rng.random() < 0.5:
            for _ in range(int(rng.integers(1, 3))):
                (_bdc if rng.random() < 0.5 else lambda b_, r_: _gdma(b_, r_, cursor))(b, rng)
        else:
            b.call("okk_parallel_start")
            ops = ["b"] * int(rng.integers(0, 4)) + ["g"] * int(rng.integers(0, 5))
            rng.shuffle(ops)
            for o in ops:
                _bdc(b, rng) if o == "b" else _gdma(b, rng, cursor)
            b.call("okk_parallel_end")
    b.call("okk_poll")
    b.read_local_span(0x10000, SPAN, npus, "program dst")
    b.read_local_span(0x40000, SPAN, npus, "program s2l")
    b.read_system(SYS_DST, max(cursor[0], 4), "program l2s NPUs 0..0 x 0 B")
    return b
