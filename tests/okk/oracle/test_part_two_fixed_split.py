"""Differential: 16bit_split_high_8bit / split_low_8bit / 16bit_mul_8bit, npusim vs Sophgo's C-model,
bit for bit (destination, sources, work, padding of every touched NPU) and cycle for cycle, on random
shapes, start NPUs, strides, mul types and shifts."""
import numpy as np
import pytest

from npusim.okk.oracle.fetch import available

if not available():
    pytest.skip("C-model libraries absent (run: python -m npusim.okk.oracle.fetch)", allow_module_level=True)

import os, sys  # noqa: E401,E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from part_two_cases import check, fill, ints, reads  # noqa: E402

SRC0, SRC1, W0, DST = 0x0, 0x8000, 0x10000, 0x18000
SPAN = 0x8000


def _case(rng):
    q = int(rng.integers(0, 64))
    n, c, h, w = int(rng.integers(1, 9)), int(rng.integers(1, 140)), int(rng.integers(1, 4)), int(rng.integers(1, 12))
    rows = -(-(q + c) // 64)

    def stride():
        if rng.random() < 0.5:
            return None
        hs = w + int(rng.integers(0, 3))
        cs = h * hs + int(rng.integers(0, 3))
        return (rows * cs, cs, hs, 1)
    return q, (n, c, h, w), stride


def _run(oracle, make_call, seeds):
    for seed in seeds:
        rng = np.random.default_rng(seed)
        q, sh, stride = _case(rng)
        b = q * 0x80000
        setup = []
        for off in (SRC0, SRC1, W0, DST):
            setup += fill(off, ints(SPAN // 4, rng))
        check(oracle, setup, [make_call(b, sh, stride, rng)], reads(0, DST + SPAN, range(q, 64)))


def test_split_high(oracle):
    _run(oracle, lambda b, sh, st, r: ("okk_bdc_fixed_point_packed_16bit_split_high_8bit",
                                       (b + DST, b + SRC0, sh, st(), st())), range(8))


def test_split_low(oracle):
    _run(oracle, lambda b, sh, st, r: ("okk_bdc_fixed_point_packed_16bit_split_low_8bit",
                                       (b + DST, b + SRC0, b + W0, sh, st(), st(), st())), range(8))


@pytest.mark.parametrize("mul_type", [7, 6, 0, 5])
def test_16bit_mul_8bit(oracle, mul_type):
    _run(oracle, lambda b, sh, st, r: ("okk_bdc_fixed_point_packed_16bit_mul_8bit",
                                       (b + DST, b + SRC0, b + SRC1, b + W0, sh, st(), st(), st(), st(), mul_type,
                                        int(r.integers(0, 20)))), range(100 + mul_type * 10, 106 + mul_type * 10))


def test_s16_mul_u8_to_s16(oracle):
    W1, W2 = 0x8000 * 5, 0x8000 * 6       # after DST's span: work_high, work_low

    def call(b, sh, st, r):
        return ("okk_bdc_fixed_point_packed_s16_mul_u8_to_s16",
                (b + DST, b + SRC0, b + SRC1, b + W0, b + W1, b + W2, sh) + tuple(st() for _ in range(6))
                + (int(r.integers(0, 20)),))
    for seed in range(200, 212):
        rng = np.random.default_rng(seed)
        q, sh, stride = _case(rng)
        b = q * 0x80000
        setup = []
        for off in (SRC0, SRC1, W0, DST, DST + SPAN, W1, W2):   # every byte read back is initialised
            setup += fill(off, ints(SPAN // 4, rng))
        check(oracle, setup, [call(b, sh, stride, rng)], reads(0, W2 + SPAN, range(q, 64)))
