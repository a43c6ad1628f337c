"""activation's ``data * scale + bias`` step in C (native_elementwise.affine) against numpy bit for bit:
scale / bias as absent, a float32 value or a (P, 1) column, strided inputs laid out like SBUF rows,
subnormals, signed zeros, infinities and invalid operations (the x86 default NaN in both); a NaN input is
numpy's business (None back). And nisa.activation gives the same bytes with the native path and without."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.nki import native_elementwise as ne, run_context

F32 = np.float32
needs_native = pytest.mark.skipif(not ne.enabled(), reason="no C compiler (native elementwise off)")

#: signed zeros, subnormals, smallest normal, infinities, NaNs with payloads, huge, one
SPECIAL = np.array([0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x00800000, 0x7F800000, 0xFF800000,
                    0x7FC00000, 0xFFC12345, 0x7F800001, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000, 0x0DA24260],
                   np.uint32)


@pytest.fixture(autouse=True)
def _decide_again():
    ne.reset()
    with np.errstate(all="ignore"):
        yield
    ne.reset()


def _bits(draw, n, nan_ok):
    raw = np.array(draw(st.lists(st.integers(0, 2**32 - 1), min_size=n, max_size=n)), np.uint32)
    pick = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    spec = SPECIAL[np.array(draw(st.lists(st.integers(0, len(SPECIAL) - 1), min_size=n, max_size=n)))]
    v = np.where(pick == 0, spec, raw).view(F32)
    if not nan_ok and draw(st.integers(0, 5)):
        v = np.where(np.isnan(v), F32(-2.5), v)
    return v.astype(F32)


@st.composite
def _cases(draw):
    p, n = draw(st.integers(1, 24)), draw(st.integers(1, 20))
    pitch = n + draw(st.integers(0, 5))
    buf = _bits(draw, p * pitch, False).reshape(p, pitch)
    c = draw(st.integers(0, pitch - n))
    x = buf[:, c:c + n]

    def operand():
        kind = draw(st.sampled_from(["none", "value", "column", "strided column"]))
        if kind == "none":
            return None
        if kind == "value":
            return _bits(draw, 1, False)[0]
        col = _bits(draw, p * 3, False).reshape(p, 3)
        return col[:, :1].copy() if kind == "column" else col[:, 1:2]
    return x, operand(), operand()


def _numpy(x, scale, bias):
    if scale is not None:
        x = x * scale
    if bias is not None:
        x = x + bias
    return np.ascontiguousarray(x, F32)


@needs_native
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_cases())
def test_affine_equals_numpy_bit_for_bit(case):
    x, scale, bias = case
    got = ne.affine(x, scale, bias)
    nan_in = any(np.isnan(v).any() for v in (x, scale, bias) if v is not None)
    if nan_in:
        assert got is None
        return
    assert got is not None and got.flags.c_contiguous and got.dtype == F32 and got.shape == x.shape
    np.testing.assert_array_equal(got.view(np.uint32), _numpy(x, scale, bias).view(np.uint32))


@needs_native
def test_affine_declines_what_numpy_must_do():
    x = np.ones((4, 3), F32)
    col = np.ones((4, 1), F32)
    assert ne.affine(x.astype(np.float64), col, None) is None            # not float32
    assert ne.affine(x.reshape(4, 3, 1), col.reshape(4, 1, 1), None) is None   # 3-D
    assert ne.affine(x, np.ones((3, 1), F32), None) is None               # a column of another length
    assert ne.affine(x, col.astype(np.float64), None) is None
    assert ne.affine(x, 2.0, None) is None                                 # a Python float: not float32
    assert ne.affine(x[0], col, None) is None                              # 1-D x against a column
    assert ne.affine(x, None, np.array([[np.nan]] * 4, F32)) is None       # a NaN bias
    inf = ne.affine(np.array([[np.inf, 0.0]], F32), np.array([[0.0]], F32), np.array([[1.0]], F32))
    np.testing.assert_array_equal(inf.view(np.uint32), (np.array([[np.inf, 0.0]], F32) * F32(0) + F32(1)).view(np.uint32))
    np.testing.assert_array_equal(ne.affine(x, F32(3), F32(-1)), np.full((4, 3), 2.0, F32))


def _activation(x, scale, bias, op=nl.exp):
    with run_context("trn2"):
        d = nl.ndarray(x.shape, nl.float32)
        d.write(x)
        s = scale
        if isinstance(scale, np.ndarray):
            s = nl.ndarray(scale.shape, nl.float32)
            s.write(scale)
        b = bias
        if isinstance(bias, np.ndarray):
            b = nl.ndarray(bias.shape, nl.float32)
            b.write(bias)
        out = nl.ndarray(x.shape, nl.float32)
        for _ in range(2):          # the plan's first call and a repeat
            nisa.activation(dst=out, op=op, data=d, scale=s, bias=b)
        return out.numpy()


@pytest.mark.parametrize("scale, bias", [("column", None), ("column", "column"), (2.0, "column"), (1.0, None),
                                         (-0.0, 0.5)])
def test_activation_same_bytes_with_and_without_native(monkeypatch, scale, bias):
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((32, 16)) * 3).astype(F32)
    x.reshape(-1)[:len(SPECIAL)] = SPECIAL.view(F32)           # NaN payloads send the call to numpy
    col = (rng.standard_normal((32, 1))).astype(F32)
    col[3, 0] = -0.0
    s = col if scale == "column" else scale
    b = col[::-1].copy() if bias == "column" else bias
    results = []
    for flag in ("1", "0"):
        monkeypatch.setenv("NPUSIM_NATIVE_ELEMENTWISE", flag)
        ne.reset()
        for nan in (True, False):
            xi = x if nan else np.where(np.isnan(x), F32(1.25), x)
            results.append(_activation(xi, s, b))
    for a, b2 in zip(results[:2], results[2:]):
        np.testing.assert_array_equal(a.view(np.uint32), b2.view(np.uint32))
    # the reference written here: float32 multiply, then add, then numpy's float32 exp
    xi = np.where(np.isnan(x), F32(1.25), x)
    ref = xi * (col if scale == "column" else F32(scale))
    if bias is not None:
        ref = ref + (col[::-1] if bias == "column" else F32(bias))
    np.testing.assert_array_equal(results[1].view(np.uint32), np.exp(ref.astype(F32)).view(np.uint32))
