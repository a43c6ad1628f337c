"""fastsum.daz_op (the elementwise add / sub / mul of bdc_binary) gives exactly the bits of the
step-by-step definition ftz(op(daz(a), daz(b))) whichever path its scan picks (hypothesis)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim.okk import fastsum, fp32

F = np.float32
OPS = [np.add, np.subtract, np.multiply]
EDGE = np.array([0, 0x80000000, 1, 0x807FFFFF, 0x00800000, 0x80800000, 0x7F800000, 0xFF800000, 0x7FC00001,
                 0x0C000000, 0x8C800000, 0x0D000000, 0x3F800000, 0x7F7FFFFF], np.uint32).view(F)   # 2^-103, 2^-102...


def step_by_step(op, a, b, first_nan=False):
    with np.errstate(all="ignore"):
        r = fp32.ftz_(np.asarray(op(fp32.daz(np.asarray(a, F)), fp32.daz(np.asarray(b, F)), dtype=F)))
    if first_nan:      # the x86 rule for a NaN pair, written out: quiet(a)
        both = np.isnan(a) & np.isnan(b)
        r = np.where(both, (np.asarray(a, F).view(np.uint32) | np.uint32(0x400000)).view(F), r)
    return r


SCALES = [1.0, 2.0 ** -60, 2.0 ** -100, 2.0 ** -115]


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), n=st.integers(1, 300), sa=st.sampled_from(SCALES), sb=st.sampled_from(SCALES),
       near=st.booleans(), edges=st.integers(0, 3), native=st.booleans(), scalar=st.booleans(), pair=st.booleans())
def test_daz_op_equals_the_step_by_step_definition(seed, n, sa, sb, near, edges, native, scalar, pair):
    r = np.random.default_rng(seed)
    a = (r.uniform(-1, 1, n) * sa).astype(F)
    b = (r.uniform(-4, 4, n) * sb).astype(F)
    if near:        # b close to -a: differences far below the operands (subnormal ones at small scales)
        b = (-a.astype(np.float64) * (1 + r.integers(-8, 8, n) * 2.0 ** -23)).astype(F)
    b = np.asarray(b[0]) if scalar else b
    for _ in range(edges):
        a[r.integers(0, n)] = r.choice(EDGE)
        if b.ndim:
            b[r.integers(0, n)] = r.choice(EDGE)
    if pair:        # a NaN pair with different payloads (one signalling)
        a[0] = np.array(0x7FC00001, np.uint32).view(F)
        b.reshape(-1)[0] = np.array(0xFFA00000, np.uint32).view(F)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NPUSIM_NATIVE", "1" if native else "0")
        for op in OPS:
            for first_nan in (False, True):
                with np.errstate(all="ignore"):
                    got = fastsum.daz_op(op, a, b, first_nan)
                    got_swapped = fastsum.daz_op(op, b, a, first_nan)
                    want, want_swapped = step_by_step(op, a, b, first_nan), step_by_step(op, b, a, first_nan)
                assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), op
                assert np.array_equal(got_swapped.view(np.uint32), want_swapped.view(np.uint32)), op


def test_daz_op_takes_the_plain_path_only_when_proven(monkeypatch):
    calls = []
    monkeypatch.setattr(fp32, "daz", lambda x: calls.append(1) or np.array(x, F))
    one = np.ones(4, F)
    fastsum.daz_op(np.add, one, one)
    fastsum.daz_op(np.multiply, one * F(2.0 ** -63), one * F(2.0 ** -63))    # products 2^-126: plain
    assert calls == []
    fastsum.daz_op(np.multiply, one * F(2.0 ** -64), one * F(2.0 ** -63))    # 2^-127 would be subnormal
    fastsum.daz_op(np.add, one, one * F(2.0 ** -104))                         # below the sum bound
    fastsum.daz_op(np.add, one, np.array([np.nan], F))
    assert len(calls) == 6


def test_broadcast_operands_are_scanned_once_per_element():
    """A kernel's stride-0 operand (a value broadcast along W) is scanned at its own size; the proof
    still sees its smallest element."""
    base = np.full((3, 4), 0.5, F)
    base[2, 3] = F(2.0 ** -64)
    a = np.lib.stride_tricks.as_strided(base, (3, 4, 1, 5), (16, 4, 0, 0))
    assert fastsum._distinct(a).size == 12
    b = np.full((3, 4, 1, 5), F(2.0 ** -63))
    for op in OPS:
        got = fastsum.daz_op(op, a, b, True)
        assert np.array_equal(got.view(np.uint32), step_by_step(op, a, b, True).view(np.uint32))
    assert fastsum.daz_op(np.multiply, a, b)[2, 3, 0, 0] == 0        # 2^-127 flushed
