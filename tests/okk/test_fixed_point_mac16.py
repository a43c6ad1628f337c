"""Fixed-point packed mac / mac_C with an op type naming 16-bit sources (C-model probes, docs/okk.md part
two): op_type's bit 0 is not read, so the sources are 8-bit 4N data as for the op type's 8-bit twin
(op_type | 1), the accumulator is the usual 16-bit 2N one, and the cycles are the 8-bit mac's."""
import os

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from npusim import okk
from npusim.core.errors import ConstraintError
from npusim.okk.bdc_fixed_point import VALID_OP_TYPES

FX = "okk_bdc_fixed_point_packed_"
SRC0, SRC1, DST = 0x0, 0x400, 0x800
SIXTEEN_BIT_SOURCE_TYPES = sorted(t for t in VALID_OP_TYPES if not t & 1)     # the ten op_type_t enumerators
ORACLE_CASES = int(os.environ.get("NPUSIM_ORACLE_CASES", 60))


def _mac(dev, with_c, shape, strides, op_type, lshift, rshift, C=0, origin_signed=False):
    if with_c:
        okk.okk_bdc_fixed_point_packed_mac_C(DST, SRC0, C, shape, strides, strides, origin_signed, op_type,
                                             lshift, rshift)
    else:
        okk.okk_bdc_fixed_point_packed_mac(DST, SRC0, SRC1, shape, strides, strides, strides, origin_signed,
                                           op_type, lshift, rshift)


@pytest.mark.parametrize("op_type", SIXTEEN_BIT_SOURCE_TYPES)
def test_probe_verbatim(op_type):
    """The C-model probe: one NPU, shape (3, 1, 1, 1), word strides (1, 1, 1, 1), src0 bytes 01 02 03 ...,
    src1 bytes 41 42 43 ..., dst bytes 81 82 83 ...; lshift 0, rshift 0. Expected bytes copied from the
    C-model's output (the same for all sixteen 16-bit-source op types): element n is dst16[n] +
    src0_byte[n] * src1_byte[n] (0x8281 + 0x01*0x41 = 0x82c2, 0x8483 + 0x02*0x42 = 0x8507, 0x8685 + 0x03*0x43 =
    0x874e), bytes 6.. untouched; one TENSARITH_FIX8B of 4 cycles."""
    st4 = okk.dim4(1, 1, 1, 1)
    with okk.Device() as dev:
        dev.write_local(0, SRC0, np.arange(1, 65, dtype=np.uint8))
        dev.write_local(0, SRC1, np.arange(0x41, 0x81, dtype=np.uint8))
        dev.write_local(0, DST, np.arange(0x81, 0xA1, dtype=np.uint8))
        _mac(dev, False, okk.dim4(3, 1, 1, 1), st4, op_type, 0, 0)
        want = bytes.fromhex("c2 82 07 85 4e 87 87 88 89 8a 8b 8c 8d 8e 8f 90")
        assert bytes(dev.read_local(0, DST, 16)) == want
        assert dev.events[-1].args["cycles"] == 4


def _reference(s0_bytes, s1_bytes, d_bytes, n, w, op_type, lshift, rshift, C, with_c):
    """Independent float-free reference in Python ints: 8-bit lanes of the sources (4 per word along N),
    16-bit lanes of the accumulator (2 per word along N); contiguous word strides (W, W, W, 1), C = H = 1.
    Signed sources per op_type bits 1 / 2; the accumulator signed iff a source is; saturate to 16 bits."""
    sg0, sg1 = bool(op_type & 2), bool(op_type & 4)
    signed = sg0 or sg1
    out = bytearray(d_bytes)
    for i in range(n):
        for j in range(w):
            x = s0_bytes[4 * (w * (i // 4) + j) + i % 4]
            x = x - 256 if sg0 and x >= 128 else x
            if with_c:
                y = C & 0xFF                     # C narrowed to src1's 8-bit type
                y = y - 256 if sg1 and y >= 128 else y
            else:
                y = s1_bytes[4 * (w * (i // 4) + j) + i % 4]
                y = y - 256 if sg1 and y >= 128 else y
            at = 4 * (w * (i // 2) + j) + 2 * (i % 2)
            acc = out[at] | (out[at + 1] << 8)
            acc = acc - 65536 if signed and acc >= 32768 else acc
            v = (acc << lshift) + x * y
            if rshift:
                v = (v + (1 << (rshift - 1))) >> rshift
            lo, hi = (-32768, 32767) if signed else (0, 65535)
            v = min(max(v, lo), hi) & 0xFFFF
            out[at], out[at + 1] = v & 0xFF, v >> 8
    return bytes(out)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 9), w=st.integers(1, 4), op_type=st.sampled_from(SIXTEEN_BIT_SOURCE_TYPES),
       lshift=st.integers(0, 8), rshift=st.integers(0, 12), with_c=st.booleans(), seed=st.integers(0, 2**31),
       C=st.integers(-2**31, 2**31 - 1), origin_signed=st.booleans())
def test_sixteen_bit_op_types_read_8bit_sources(n, w, op_type, lshift, rshift, with_c, seed, C, origin_signed):
    rng = np.random.default_rng(seed)
    s0, s1, d = (rng.integers(0, 256, 256, dtype=np.uint8) for _ in range(3))
    st_ = okk.dim4(w, w, w, 1)
    with okk.Device() as dev:
        dev.write_local(0, SRC0, s0)
        dev.write_local(0, SRC1, s1)
        dev.write_local(0, DST, d)
        _mac(dev, with_c, okk.dim4(n, 1, 1, w), st_, op_type, lshift, rshift, C, origin_signed)
        got = bytes(dev.read_local(0, DST, 256))
        assert dev.events[-1].args["cycles"] == 4 * -(-n // 4)
    assert got == _reference(bytes(s0), bytes(s1), bytes(d), n, w, op_type, lshift, rshift, C, with_c)


@pytest.mark.parametrize("with_c", [False, True])
@pytest.mark.parametrize("param,value", [("lshift", 32), ("lshift", -1), ("rshift", 32), ("rshift", -1),
                                         ("op_type", 32), ("op_type", 3)])
def test_rules_still_apply_to_sixteen_bit_op_types(with_c, param, value):
    kw = {"op_type": 0, "lshift": 0, "rshift": 0, param: value}
    with okk.Device():
        with pytest.raises(ConstraintError) as e:
            _mac(None, with_c, okk.dim4(2, 1, 1, 1), okk.dim4(1, 1, 1, 1), kw["op_type"], kw["lshift"], kw["rshift"])
        assert e.value.param == param


# ---- the C-model: random shapes, start NPUs, strides, N-stride-0 broadcasts (skipped without the libraries) ----

def _spec(with_c):
    from npusim.okk.oracle.part_two_sweep import _int_c

    def make(c):
        sd, s0 = c.strides(False), c.strides(True)
        d = c.tensor("dst", "b", sd)
        a = c.tensor("src", "b", s0)
        tail = (int(c.rng.integers(0, 2)), int(c.rng.choice(SIXTEEN_BIT_SOURCE_TYPES)), int(c.rng.integers(0, 9)),
                int(c.rng.integers(0, 12)))
        if with_c:
            return (d, a, _int_c(c.rng), c.shape, sd, s0, *tail)
        s1 = c.strides(True)
        return (d, a, c.tensor("src", "b", s1), c.shape, sd, s0, s1, *tail)
    return make


@pytest.mark.parametrize("func", ["mac", "mac_C"])
def test_sixteen_bit_op_types_match_cmodel(func):
    from npusim.okk.oracle.fetch import available
    if not available():
        pytest.skip("C-model libraries absent (run: python -m npusim.okk.oracle.fetch)")
    from npusim.okk.oracle.differential import check, run_batches, seeded
    from npusim.okk.oracle.part_two_sweep import build_batch
    f = FX + func
    specs = {f: (_spec(func == "mac_C"), 2)}
    sizes = [250] * (ORACLE_CASES // 250) + ([ORACLE_CASES % 250] if ORACLE_CASES % 250 else [])
    out = run_batches(lambda k: build_batch(seeded("mac16", f, k), f, sizes[k], f"batch {k}", specs), len(sizes))
    assert out.cases == ORACLE_CASES
    check(out, "dst", "cycles")
