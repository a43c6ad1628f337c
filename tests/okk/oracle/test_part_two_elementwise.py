"""Differential: fp32 binary / select / bitwise / conversion ops, npusim vs Sophgo's C-model, bit for
bit and cycle for cycle (random shapes, start NPUs, strides incl. stride-0 broadcasting, edge values)."""
import itertools

import numpy as np
import pytest

from npusim.okk.oracle.fetch import available

if not available():
    pytest.skip("C-model libraries absent (run: python -m npusim.okk.oracle.fetch)", allow_module_level=True)

from npusim import okk  # noqa: E402
import os, sys  # noqa: E401,E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from part_two_cases import check, fill, ints, reads, values  # noqa: E402

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


def _run(oracle, name, args_of, seeds, kind="f", bcast=False):
    for seed in seeds:
        rng = np.random.default_rng(seed)
        q, sh, st = _case(rng)
        base = q * 0x80000
        st1 = st
        if bcast and st is not None:
            st1 = (st[0], st[1], 0, 0)      # per-channel broadcast of src1
        check(oracle, _setup(rng, kind), [(name, args_of(base, sh, st, st1, rng))], reads(DST, SPAN))


BINARY = ["add", "sub", "mul", "div", "max", "min", "mac"]
WITH_C = ["add_C", "sub_C", "C_sub", "mul_C", "div_C", "C_div", "max_C", "min_C", "mac_C"]
CONSTS = [1.5, -0.0, 0.0, 1e-40, float("inf"), float("nan"), -3.25e-3]


@pytest.mark.parametrize("op", BINARY)
def test_binary(oracle, op):
    _run(oracle, f"okk_bdc_{op}", lambda b, sh, st, st1, r: (b + DST, b + SRC0, b + SRC1, sh, st, st, st1),
         range(6), bcast=True)


@pytest.mark.parametrize("op", WITH_C)
def test_binary_with_constant(oracle, op):
    _run(oracle, f"okk_bdc_{op}", lambda b, sh, st, st1, r: (b + DST, b + SRC0, CONSTS[int(r.integers(0, 7))],
                                                             sh, st, st), range(5))


def test_relu(oracle):
    _run(oracle, "okk_bdc_relu", lambda b, sh, st, st1, r: (b + DST, b + SRC0, sh, st, st), range(5))


@pytest.mark.parametrize("op", ["greater_select_value", "equal_select_value"])
def test_select_value(oracle, op):
    _run(oracle, f"okk_bdc_{op}", lambda b, sh, st, st1, r: (b + DST, b + SRC0, b + SRC1, 0x7FC00001, sh, st, st, st1),
         range(5), bcast=True)


@pytest.mark.parametrize("op", ["greater_C_select_value", "C_greater_select_value", "equal_C_select_value"])
def test_c_select_value(oracle, op):
    _run(oracle, f"okk_bdc_{op}", lambda b, sh, st, st1, r: (b + DST, b + SRC0, CONSTS[int(r.integers(0, 7))],
                                                             int(r.integers(0, 2**32)), sh, st, st), range(5))


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


@pytest.mark.parametrize("op", ["and", "or", "xor", "arithmetic_shift", "logical_shift"])
def test_bitwise(oracle, op):
    _run(oracle, f"okk_bdc_32bit_{op}", lambda b, sh, st, st1, r: (b + DST, b + SRC0, b + SRC1, sh, st, st, st1),
         range(4), kind="i", bcast=True)


@pytest.mark.parametrize("op", ["and_C", "or_C", "xor_C", "arithmetic_shift_C", "logical_shift_C",
                                "C_arithmetic_shift", "C_logical_shift"])
def test_bitwise_with_constant(oracle, op):
    def args(b, sh, st, st1, r):
        k = int(r.integers(-2**31, 2**31)) if r.random() < 0.5 else int(r.integers(-70, 70))
        if op in ("and_C", "or_C", "xor_C", "C_logical_shift"):
            k &= 0xFFFFFFFF
        return (b + DST, b + SRC0, k, sh, st, st)
    _run(oracle, f"okk_bdc_32bit_{op}", args, range(4), kind="i")


def test_cpy_set_convert(oracle):
    _run(oracle, "okk_bdc_32bit_cpy", lambda b, sh, st, st1, r: (b + DST, b + SRC0, sh, st, st), range(3))
    _run(oracle, "okk_bdc_32bit_set_C", lambda b, sh, st, st1, r: (b + DST, int(r.integers(0, 2**32)), sh, st),
         range(3))
    _run(oracle, "okk_bdc_fp32_to_int32", lambda b, sh, st, st1, r: (b + DST, b + SRC0, sh), range(3))
    _run(oracle, "okk_bdc_lookup_int32_to_fp32", lambda b, sh, st, st1, r: (b + DST, b + SRC0, sh), range(3),
         kind="i")


@pytest.mark.parametrize("fn", ["okk_bdc_int8_to_fp32", "okk_bdc_4N_int8_to_fp32"])
@pytest.mark.parametrize("seed", range(6))
def test_int8_to_fp32(oracle, fn, seed):
    rng = np.random.default_rng(400 + seed)
    sg, al = seed % 2, (seed // 2) % 2
    q = int(rng.integers(0, 64))
    sh = (int(rng.integers(1, 10)), int(rng.integers(1, 100)), int(rng.integers(1, 5)), int(rng.integers(1, 30)))
    b = q * 0x80000
    setup = [("wl", p * 0x80000, rng.integers(0, 256, 0x10000).astype(np.uint8).tobytes()) for p in range(64)]
    setup += [("wl", p * 0x80000 + 0x10000, bytes(0x10000)) for p in range(64)]
    check(oracle, setup, [(fn, (b + 0x10000, b, b + 0x20000, sh, sg, al))], reads(0x10000, 0x10000))


FX_OPS = ["add", "sub", "mul", "max", "min", "add_C", "sub_C", "C_sub", "mul_C", "max_C", "min_C"]
DOC_OPS = [31, 23, 27, 19, 29, 21, 9, 1, 30, 22, 26, 18, 28, 20, 8, 0]


@pytest.mark.parametrize("name", FX_OPS)
def test_fixed_point_packed(oracle, name):
    from npusim.core.errors import ConstraintError, UnsupportedError
    from npusim.okk.oracle import npusim_runner
    rng = np.random.default_rng(500 + FX_OPS.index(name))
    ran = 0
    for ot in DOC_OPS:
        q = int(rng.integers(0, 64))
        sh = (int(rng.integers(1, 10)), int(rng.integers(1, 100)), int(rng.integers(1, 4)), int(rng.integers(1, 20)))
        b, r, C = q * 0x80000, int(rng.integers(0, 9)), int(rng.integers(-300, 300))
        if name in ("add", "sub", "mul"):
            args = (b + 0x10000, b, b + 0x8000, sh, None, None, None, ot, r)
        elif name in ("max", "min"):
            args = (b + 0x10000, b, b + 0x8000, sh, None, None, None, ot)
        elif name in ("max_C", "min_C"):
            args = (b + 0x10000, b, C, sh, None, None, ot)
        else:
            args = (b + 0x10000, b, C, sh, None, None, ot, r)
        fn = "okk_bdc_fixed_point_packed_" + name
        setup = [("wl", p * 0x80000, rng.integers(0, 256, 0x18000).astype(np.uint8).tobytes()) for p in range(64)]
        try:   # combinations npusim rejects (documented rules, C-model asserts, unmodelled) are skipped
            npusim_runner.run([("call", "okk_initialize", ()), ("call", fn, args)])
        except (ConstraintError, UnsupportedError):
            continue
        check(oracle, setup, [(fn, args)], reads(0x10000, 0x8000))
        ran += 1
    assert ran >= 4


@pytest.mark.parametrize("name", ["arithmetic_shift", "logical_shift", "arithmetic_shift_C", "logical_shift_C"])
def test_fixed_point_16bit_shifts(oracle, name):
    rng = np.random.default_rng(600 + len(name))
    for k in range(3):
        q = int(rng.integers(0, 64))
        sh = (int(rng.integers(1, 10)), int(rng.integers(1, 100)), int(rng.integers(1, 4)), int(rng.integers(1, 20)))
        b = q * 0x80000
        setup = [("wl", p * 0x80000, rng.integers(0, 256, 0x8000).astype(np.uint8).tobytes()) for p in range(64)]
        setup += [("wl", p * 0x80000 + 0x8000, rng.integers(-300, 300, 0x4000).astype(np.int16).tobytes())
                  for p in range(64)]
        setup += [("wl", p * 0x80000 + 0x10000, bytes(0x8000)) for p in range(64)]
        fn = "okk_bdc_fixed_point_packed_16bit_" + name
        if name.endswith("_C"):
            args = (b + 0x10000, b, int(rng.integers(-300, 300)), sh, None, None)
        else:
            args = (b + 0x10000, b, b + 0x8000, sh, None, None, None)
        check(oracle, setup, [(fn, args)], reads(0x10000, 0x8000))


@pytest.mark.parametrize("name", ["mac", "mac_C"])
def test_fixed_point_mac(oracle, name):
    rng = np.random.default_rng(700 + len(name))
    for ot in [31, 23, 27, 19, 29, 21, 9, 1]:
        q = int(rng.integers(0, 64))
        sh = (int(rng.integers(1, 10)), int(rng.integers(1, 100)), int(rng.integers(1, 4)), int(rng.integers(1, 20)))
        b, r, lsh, sg = q * 0x80000, int(rng.integers(0, 9)), int(rng.integers(0, 5)), int(rng.integers(0, 2))
        setup = [("wl", p * 0x80000, rng.integers(0, 256, 0x18000).astype(np.uint8).tobytes()) for p in range(64)]
        fn = "okk_bdc_fixed_point_packed_" + name
        if name == "mac":
            args = (b + 0x10000, b, b + 0x8000, sh, None, None, None, sg, ot, lsh, r)
        else:
            args = (b + 0x10000, b, int(rng.integers(-300, 300)), sh, None, None, sg, ot, lsh, r)
        check(oracle, setup, [(fn, args)], reads(0x10000, 0x8000))


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
