"""Differential: the select functions with each of the 16 operand-kind combinations, and the TENSOR_ARITH
form of unaligned NULL-stride calls, npusim vs Sophgo's C-model, bit for bit and cycle for cycle. The
random sweep of every part-two element-wise function is test_part_two_sweep.py."""
import itertools

import numpy as np
import pytest

from npusim.okk.oracle.fetch import available

if not available():
    pytest.skip("C-model libraries absent (run: python -m npusim.okk.oracle.fetch)", allow_module_level=True)

from npusim import okk  # noqa: E402
import os, sys  # noqa: E401,E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from part_two_cases import check, fill, ints, reads, values  # noqa: E402,F401

SRC0, SRC1, SEL0, SEL1, DST = 0x0, 0x8000, 0x10000, 0x18000, 0x20000
SPAN = 0x8000


def _case(rng):
    """A random shape, start NPU and (sometimes) explicit strides, inside an 0x8000-byte slot."""
    q = int(rng.integers(0, 64))
    n, c, h, w = (int(rng.integers(1, 4)), int(rng.integers(1, 140)), int(rng.integers(1, 5)),
                  int(rng.integers(1, 20)))
    rows = -(-(q + c) // 64)
    if rng.random() < 0.5:
        st = None
        cs = -(-(h * w) // 32) * 32
    else:
        hs = w + int(rng.integers(0, 3))
        cs = h * hs + int(rng.integers(0, 3))
        st = (rows * cs, cs, hs, 1)
    if n * rows * cs * 4 > SPAN:
        n = 1
    return q, (n, c, h, w), st


def _setup(rng, kind="f"):
    gen = (lambda: values(SPAN // 4, rng)) if kind == "f" else (lambda: ints(SPAN // 4, rng))
    out = []
    for off in (SRC0, SRC1, SEL0, SEL1, DST):
        x = gen()
        if off == SRC1 and kind == "f":
            x[:300] = np.roll(x, 0)[:300]   # equal pairs for the equality selects
        out += fill(off, x)
    return out


@pytest.mark.parametrize("op", ["greater_select", "equal_select"])
def test_select(oracle, op):
    for k, (a0, a1, b0, b1) in enumerate(itertools.product([1, 0], repeat=4)):
        if op == "equal_select" and a0 != a1:
            continue   # the C-model reads a constant's bits as an address there (docs/okk.md, part two)
        rng = np.random.default_rng(100 + k)
        q, sh, _ = _case(rng)
        b = q * 0x80000
        c = float(values(1, rng)[0])
        A = okk.fp32_or_addr_t(True, b + SRC0) if a0 else okk.fp32_or_addr_t(False, c)
        B = okk.fp32_or_addr_t(True, b + SRC1) if a1 else okk.fp32_or_addr_t(False, c if k % 2 else 0.25)
        S0 = okk.x32_or_addr_t(True, b + SEL0) if b0 else okk.x32_or_addr_t(False, 55)
        S1 = okk.x32_or_addr_t(True, b + SEL1) if b1 else okk.x32_or_addr_t(False, 0xFFFFFFFF)
        check(oracle, _setup(rng), [(f"okk_bdc_{op}", (b + DST, A, B, S0, S1, sh))], reads(DST, SPAN))


@pytest.mark.parametrize("op", ["add", "max", "relu", "mac_C", "scale", "scale_bias"])
def test_unaligned_addresses_take_the_tensor_arith_form(oracle, op):
    """NULL strides but addresses only 4-byte aligned: the C-model emits TENSOR_ARITH (and, for scale,
    its numerics), not the MD_* form."""
    rng = np.random.default_rng(800 + len(op))
    sh = (2, 70, 3, 7)
    d, a, b = DST + 4, SRC0 + 8, SRC1
    args = {"add": (d, a, b, sh, None, None, None), "max": (d, a, b, sh, None, None, None),
            "relu": (d, a, sh, None, None), "mac_C": (d, a, -0.75, sh, None, None),
            "scale": (d, a, SEL0, sh, None, None), "scale_bias": (d, a, SEL0, SEL1 + 64, sh, None, None)}[op]
    check(oracle, _setup(rng), [(f"okk_bdc_{op}", args)], reads(DST, SPAN))
