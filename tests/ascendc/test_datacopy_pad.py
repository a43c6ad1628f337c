"""DataCopyPad (GM <-> UB, unaligned lengths, padding), DataCopy's rounding, GlobalTensor[] addressing."""
import warnings

import numpy as np
import pytest

import npusim
from npusim import ascendc as asc
from npusim.core.errors import ConstraintError, OutOfBoundsError, UnsupportedError


def _flag(event):
    asc.SetFlag(event, 0)
    asc.WaitFlag(event, 0)


MTE2_MTE3, MTE2_V, V_MTE2, V_MTE3 = (asc.HardEvent.MTE2_MTE3, asc.HardEvent.MTE2_V, asc.HardEvent.V_MTE2,
                                     asc.HardEvent.V_MTE3)


def _run(body, *arrays, soc="Ascend910B1"):
    def k(*args):
        pipe = asc.TPipe()
        b = asc.TBuf(asc.TPosition.VECIN)
        pipe.InitBuffer(b, 8192)
        body(b, *args)
    return asc.launch(k, 1, *arrays, soc=soc)


def test_gm_to_ub_right_padding_with_pad_value_and_back():
    """The vendor's scene 2: 32 rows of 59 floats, rightPadding 5, isPad -> rows of 64 with zeros."""
    x = np.arange(32 * 59, dtype=np.float32).reshape(32, 59)
    z = np.zeros((32, 64), np.float32)
    y = np.zeros((32, 59), np.float32)

    def body(b, xa, za, ya):
        xg = asc.GlobalTensor(asc.float); xg.SetGlobalBuffer(xa)
        zg = asc.GlobalTensor(asc.float); zg.SetGlobalBuffer(za)
        yg = asc.GlobalTensor(asc.float); yg.SetGlobalBuffer(ya)
        t = b.Get(asc.float)
        asc.DataCopyPad(t, xg, asc.DataCopyExtParams(32, 59 * 4, 0, 0, 0),
                        asc.DataCopyPadExtParams[asc.float](True, 0, 5, 7.0))
        _flag(MTE2_MTE3)
        asc.DataCopy(zg, t, 32 * 64)
        asc.DataCopyPad(yg, t, asc.DataCopyExtParams(32, 59 * 4, 0, 0, 0))     # 59 of each 64 back
    _run(body, x, z, y)
    want = np.full((32, 64), 7.0, np.float32)
    want[:, :59] = x
    np.testing.assert_array_equal(z, want)
    np.testing.assert_array_equal(y, x)


def test_unaligned_block_without_padding_repeats_the_first_element():
    x = (np.arange(3 * 10, dtype=np.float16) + 1).reshape(3, 10)     # 20-byte rows
    z = np.zeros((3, 16), np.float16)

    def body(b, xa, za):
        xg = asc.GlobalTensor(asc.half); xg.SetGlobalBuffer(xa)
        zg = asc.GlobalTensor(asc.half); zg.SetGlobalBuffer(za)
        t = b.Get(asc.half)
        asc.DataCopyPad(t, xg, asc.DataCopyExtParams(3, 20, 0, 0, 0), asc.DataCopyPadExtParams(False, 0, 0, 0))
        _flag(MTE2_MTE3)
        asc.DataCopy(zg, t, 48)
    _run(body, x, z)
    want = np.concatenate([x, np.repeat(x[:, :1], 6, axis=1)], axis=1)
    np.testing.assert_array_equal(z, want)


def test_strides_left_padding_and_set_pad_value():
    """GM stride in bytes, UB stride in 32-byte blocks; leftPadding 2 halves, SetPadValue fills pads + dummy."""
    x = np.arange(4 * 12, dtype=np.float16).reshape(4, 12)
    z = np.full((4, 32), -1, np.float16)        # block 32 B (2 + 8 + 6 dummy halves) + 1 gap block

    def body(b, xa, za):
        xg = asc.GlobalTensor(asc.half); xg.SetGlobalBuffer(xa)
        zg = asc.GlobalTensor(asc.half); zg.SetGlobalBuffer(za)
        t = b.Get(asc.half)
        asc.Duplicate(t, -1.0, 128)
        _flag(V_MTE2)
        asc.SetPadValue(9.0)
        asc.DataCopyPad(t, xg, asc.DataCopyExtParams(4, 16, 8, 1, 0), asc.DataCopyPadExtParams(False, 2, 0, 0))
        _flag(MTE2_MTE3)
        asc.DataCopy(zg, t, 128)
    _run(body, x, z)
    want = np.full((4, 32), -1, np.float16)
    want[:, :16] = 9
    want[:, 2:10] = x[:, :8]
    np.testing.assert_array_equal(z, want)


def test_random_padding_is_left_untouched():
    x = np.arange(8, dtype=np.float32)
    z = np.zeros(16, np.float32)

    def body(b, xa, za):
        xg = asc.GlobalTensor(asc.float); xg.SetGlobalBuffer(xa)
        zg = asc.GlobalTensor(asc.float); zg.SetGlobalBuffer(za)
        t = b.Get(asc.float)
        asc.Duplicate(t, 5.0, 64)
        _flag(V_MTE2)
        asc.DataCopyPad(t, xg, asc.DataCopyExtParams(1, 20, 0, 0, 0), asc.DataCopyPadExtParams(False, 0, 2, 0))
        _flag(MTE2_MTE3)
        asc.DataCopy(zg, t, 16)
    _run(body, x, z)
    np.testing.assert_array_equal(z[:5], x[:5])
    np.testing.assert_array_equal(z[5:8], 5.0)     # "random": what was there


def test_old_datacopy_params_form():
    x = np.arange(10, dtype=np.int32)
    z = np.zeros(16, np.int32)

    def body(b, xa, za):
        xg = asc.GlobalTensor(asc.int32_t); xg.SetGlobalBuffer(xa)
        zg = asc.GlobalTensor(asc.int32_t); zg.SetGlobalBuffer(za)
        t = b.Get(asc.int32_t)
        asc.DataCopyPad(t, xg, asc.DataCopyParams(1, 40, 0, 0), asc.DataCopyPadParams(True, 0, 6, 3))
        _flag(MTE2_MTE3)
        asc.DataCopyPad(zg, t, asc.DataCopyParams(1, 64, 0, 0))
    _run(body, x, z)
    np.testing.assert_array_equal(z, np.r_[x, [3] * 6])


def test_datacopy_pad_rules():
    x = np.zeros(64, np.float16)
    bad = [
        (lambda t, g: asc.DataCopyPad(t, g, asc.DataCopyExtParams(1, 3, 0, 0, 0)), "multiple of sizeof"),
        (lambda t, g: asc.DataCopyPad(t, g, asc.DataCopyExtParams(1, 4, 0, 0, 0),
                                      asc.DataCopyPadExtParams(True, 17, 0, 0)), "32 bytes"),
        (lambda t, g: asc.DataCopyPad(t[8], g, asc.DataCopyExtParams(1, 4, 0, 0, 0)), "32-byte aligned"),
        (lambda t, g: asc.DataCopyPad(g, t, asc.DataCopyExtParams(1, 4, 0, 0, 0),
                                      asc.DataCopyPadExtParams()), "no padding"),
        (lambda t, g: asc.DataCopyPad(t, g, asc.DataCopyExtParams(300, 64, 0, 0, 0)), "inside the dst"),
    ]
    for call, msg in bad:
        def body(b, xa, call=call):
            g = asc.GlobalTensor(asc.half); g.SetGlobalBuffer(xa)
            call(b.Get(asc.half, 1024), g)
        with pytest.raises(ConstraintError, match=msg):
            _run(body, x)
    with pytest.raises(ConstraintError, match="blockCount"):
        asc.DataCopyExtParams(4096, 1)

    def body(b, xa):
        g = asc.GlobalTensor(asc.half); g.SetGlobalBuffer(xa)
        asc.DataCopyPad(b.Get(asc.half), g, asc.DataCopyExtParams(2, 512, 0, 0, 0))   # 1 KiB of a 512 B arg
    with pytest.raises(OutOfBoundsError, match="allocation"):
        _run(body, x)
    with pytest.raises(UnsupportedError, match="DataCopyPad"):
        _run(lambda b, xa: asc.DataCopyPad(b.Get(asc.half), _g(xa), asc.DataCopyExtParams(1, 2)), x,
             soc="Ascend310P3")


def _g(xa):
    g = asc.GlobalTensor(asc.half); g.SetGlobalBuffer(xa)
    return g


def test_datacopy_unaligned_count_rounds_down_with_a_warning_and_strict_raises():
    x = np.arange(40, dtype=np.float16)
    z = np.zeros(40, np.float16)

    def body(b, xa, za):
        t = b.Get(asc.half)
        asc.Duplicate(t, 0.0, 64)
        _flag(V_MTE2)
        asc.DataCopy(t, _g(xa), 20)            # 40 B -> 32 B
        zg = asc.GlobalTensor(asc.half); zg.SetGlobalBuffer(za)
        _flag(MTE2_MTE3)
        _flag(V_MTE3)
        asc.DataCopy(zg, t, 32)
    with pytest.warns(asc.DataCopyAlignmentWarning, match="copies 32 B"):
        _run(body, x, z)
    np.testing.assert_array_equal(z[:16], x[:16])
    np.testing.assert_array_equal(z[16:32], 0)
    with npusim.configure(strict=True), pytest.raises(ConstraintError, match="rounds the copy down"):
        _run(body, x, z)


def test_global_tensor_index_moves_the_address_within_the_allocation():
    x = np.arange(100, dtype=np.float16)          # 200 B; the allocation is 512 B
    z = np.zeros(16, np.float16)

    def body(b, xa, za):
        xg = asc.GlobalTensor(asc.half); xg.SetGlobalBuffer(xa, 16)     # size 16, but [] may go further
        zg = asc.GlobalTensor(asc.half); zg.SetGlobalBuffer(za)
        t = b.Get(asc.half)
        asc.DataCopy(t, xg[80], 16)
        _flag(MTE2_MTE3)
        asc.DataCopy(zg, t, 16)
    _run(body, x, z)
    np.testing.assert_array_equal(z, x[80:96])

    def past(b, xa, za):
        xg = asc.GlobalTensor(asc.half); xg.SetGlobalBuffer(xa)
        xg[257]                                                          # past the 512-byte allocation
    with pytest.raises(OutOfBoundsError, match="allocation"):
        _run(past, x, z)

    def padding(b, xa, za):                       # the padding bytes exist but were never written
        xg = asc.GlobalTensor(asc.half); xg.SetGlobalBuffer(xa)
        asc.DataCopy(b.Get(asc.half), xg[96], 16)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        _run(padding, x, z)
    assert any("never-written" in str(m.message) for m in w)


from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=30, deadline=None)
@given(nb=st.integers(1, 5), elems=st.integers(1, 40), src_gap=st.integers(0, 9), dst_gap=st.integers(0, 2),
       left=st.integers(0, 16), right=st.integers(0, 16), is_pad=st.booleans(), seed=st.integers(0, 99))
def test_gm_to_ub_to_gm_round_trip_against_a_per_block_reference(nb, elems, src_gap, dst_gap, left, right, is_pad,
                                                                  seed):
    """Random geometry: every UB block is [left pads][data][right pads][dummy] rounded to 32 B, blocks
    32·dstStride apart; the pads hold paddingValue (isPad), the first element (no pads), or the old bytes."""
    s = 2
    blen = elems * s
    rng = np.random.default_rng(seed)
    src = rng.integers(-100, 100, nb * (elems + src_gap) + 16).astype(np.float16)
    width = -(-(left + elems + right) * s // 32) * 32 // s           # elements per UB block
    ub_stride = width + dst_gap * 16
    z = np.zeros(nb * ub_stride + 64, np.float16)

    def body(b, xa, za):
        xg = asc.GlobalTensor(asc.half); xg.SetGlobalBuffer(xa)
        zg = asc.GlobalTensor(asc.half); zg.SetGlobalBuffer(za)
        t = b.Get(asc.half, 4096 // 2)
        asc.Duplicate(t, -7.0, 2048)
        _flag(V_MTE2)
        asc.DataCopyPad(t, xg, asc.DataCopyExtParams(nb, blen, src_gap * s, dst_gap, 0),
                        asc.DataCopyPadExtParams(is_pad, left, right, 5.0))
        _flag(MTE2_MTE3)
        asc.DataCopy(zg, t, -(-(nb * ub_stride) // 16) * 16)
    _run(body, src, z)
    for r in range(nb):
        data = src[r * (elems + src_gap): r * (elems + src_gap) + elems]
        blk = z[r * ub_stride: r * ub_stride + width]
        np.testing.assert_array_equal(blk[left:left + elems], data)
        rest = np.r_[blk[:left], blk[left + elems:]]
        if left == 0 and right == 0:
            want = data[0]
        else:
            want = 5.0 if is_pad else -7.0                           # "random": what the UB held
        assert (rest == np.float16(want)).all()
        gap = z[r * ub_stride + width: (r + 1) * ub_stride]
        assert (gap == -7.0).all()                                   # dstStride gaps are not written
