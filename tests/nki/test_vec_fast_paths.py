"""The Vector/Scalar fast paths: no op sets its own np.errstate (the run's ``errstate(all="ignore")``,
runtime.activate / lnc.py, silences FP warnings), and the native tensor_tensor_scan loop (native/scan.c)
agrees with the numpy reference bit for bit, NaN payloads included (a NaN sends the scan back to numpy)."""
import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.nki import isa_vector, native_scan, run_context
from npusim.nki.actfuncs import ACT, ActivationRangeWarning
from npusim.nki.alu import OPS

F32 = np.float32
F32_MAX = float(np.finfo(F32).max)


def _tile(values, dtype=nl.float32):
    t = nl.ndarray(values.shape, dtype)
    t.write(values.astype(F32))
    return t


# --------------------------------------------------------------------------- FP warnings: the run's errstate

#: inputs that overflow, divide by zero or are invalid for some function of the table
_EDGE = np.array([0.0, -0.0, 1e30, -1e30, 100.0, -100.0, -1.0, np.inf, -np.inf, 3.0e38, -3.0e38, 1e-30],
                 F32)


@pytest.mark.parametrize("name", sorted(ACT))
def test_activation_edges_warn_only_about_the_documented_range(name):
    """Overflow (exp of 100), 1/0, log(0), sqrt(-1): results, never RuntimeWarnings; the only warning is
    the documented-range one of log/sin/rsqrt/reciprocal. Values equal numpy's float32 function."""
    act = ACT[name]
    x = np.tile(_EDGE, (4, 1))
    with run_context("trn2"), warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        src, dst = _tile(x), nl.ndarray(x.shape, nl.float32)
        nisa.activation(dst=dst, op=act, data=src)
        got = dst.numpy()
    kinds = {type(w.message) for w in seen}
    assert kinds <= {ActivationRangeWarning}, [str(w.message) for w in seen]
    assert (ActivationRangeWarning in kinds) == (act.lo is not None)
    with np.errstate(all="ignore"):
        want = np.asarray(act.fn(x.copy()), F32)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    if name == "exp":
        assert got[0, 4] == np.inf and got[0, 0] == 1.0 and got[0, 3] == 0.0 and 0 < got[0, 5] < 1e-38
    if name == "reciprocal":
        assert got[0, 0] == np.inf and got[0, 1] == -np.inf


def test_vector_ops_edges_raise_no_fp_warning():
    """scalar_tensor_tensor overflow, reciprocal of 0, bn_aggr of zero counts, a scan overflowing to inf and
    then inf - inf: no RuntimeWarning, IEEE results."""
    with run_context("trn2"), warnings.catch_warnings():
        warnings.simplefilter("error")
        big = _tile(np.full((8, 4), 3e38, F32))
        out = nl.ndarray((8, 4), nl.float32)
        nisa.scalar_tensor_tensor(dst=out, data=big, op0=nl.multiply, operand0=10.0, op1=nl.subtract,
                                  operand1=big)
        assert (out.numpy() == np.inf).all()
        zero = _tile(np.zeros((8, 4), F32))
        nisa.reciprocal(dst=out, data=zero)
        assert (out.numpy() == np.inf).all()
        stats = _tile(np.zeros((8, 3), F32))
        mv = nl.ndarray((8, 2), nl.float32)
        nisa.bn_aggr(dst=mv, data=stats)
        assert np.isnan(mv.numpy()).all()
        data0 = _tile(np.full((8, 4), 1e30, F32))
        data1 = _tile(np.array([[0.0, 0.0, -np.inf, 0.0]] * 8, F32))
        nisa.tensor_tensor_scan(dst=out, data0=data0, data1=data1, initial=1e30, op0=nl.multiply, op1=nl.add)
        v = out.numpy()
        assert (v[:, :2] == np.inf).all() and np.isnan(v[:, 2:]).all()
    assert np.geterr()["over"] == "warn"     # the run's errstate ended with it


@nki.jit
def _exp_on_each_core(a):
    """Both programs of an LNC2 grid (threads of their own) run exp on values that overflow."""
    out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray(a.shape, a.dtype)
    nisa.dma_copy(dst=t, src=a)
    e = nl.ndarray(a.shape, a.dtype)
    nisa.activation(dst=e, op=nl.exp, data=t)
    if nl.program_id(0) == 1:
        nisa.dma_copy(dst=out, src=e)
    return out


def test_program_threads_raise_no_fp_warning():
    a = np.array([[100.0, 0.0]] * 4, F32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = nki.simulate(_exp_on_each_core[2], target="trn2")(a)
    np.testing.assert_array_equal(got, np.array([[np.inf, 1.0]] * 4, F32))


# ------------------------------------------------------------------------------- native tensor_tensor_scan

needs_native = pytest.mark.skipif(native_scan.kernel() is None, reason="no C compiler (native scan off)")


@pytest.fixture(autouse=True)
def _native_scan_decided_again():
    """A test that switches NPUSIM_NATIVE leaves the scan to decide again after it."""
    yield
    native_scan.reset()


def _set_native(monkeypatch, flag: str) -> None:
    monkeypatch.setenv("NPUSIM_NATIVE", flag)
    native_scan.reset()            # (read on first use: decide again)

#: float32 values every IEEE corner passes through: signed zeros, subnormals, the largest finite, inf, NaNs
#: with payloads (a quiet NaN with bits, a negative NaN)
_SPECIALS = np.array([0.0, -0.0, 1e-45, -1e-45, 1e-40, 1.1754942e-38, 1.0, -1.0, 0.5, 3.4028235e38,
                      -3.4028235e38, np.inf, -np.inf], F32)
_NANS = np.array([0x7FC00001, 0xFFC12345, 0x7FC00000], np.uint32).view(F32)


def _values(draw, shape, nan: bool):
    n = math.prod(shape)
    normal = draw(st.lists(st.floats(width=32, allow_nan=False, allow_infinity=False), min_size=n, max_size=n))
    pick = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    special = draw(st.lists(st.sampled_from(list(range(len(_SPECIALS)))), min_size=n, max_size=n))
    v = np.where(np.array(pick) == 0, _SPECIALS[special], np.array(normal, F32)).astype(F32)
    if nan:
        v.reshape(-1)[draw(st.integers(0, n - 1))] = _NANS[draw(st.integers(0, len(_NANS) - 1))]
    return v.reshape(shape)


@st.composite
def _scans(draw):
    p, n = draw(st.integers(1, 40)), draw(st.integers(1, 12))
    nan = draw(st.integers(0, 9)) == 0
    x0, x1 = _values(draw, (p, n), nan), _values(draw, (p, n), False)
    init = _values(draw, (p,), False)
    ops = draw(st.tuples(*[st.sampled_from(sorted(native_scan.OP_CODES))] * 2))
    return x0, x1, init, ops, draw(st.booleans()), draw(st.booleans())


@needs_native
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_scans())
def test_native_scan_equals_numpy_bit_for_bit(case):
    """The C loop, where it answers, equals the numpy loop bit for bit; it declines (None) exactly when
    the numpy result holds a NaN."""
    x0, x1, init, (o0, o1), r0, r1 = case
    plan = isa_vector._ScanPlan(OPS[o0], OPS[o1], None, 0)
    with np.errstate(all="ignore"):
        want = np.ascontiguousarray(isa_vector._numpy_scan(plan, x0, x1, init.copy(), r0, r1))
        got = native_scan.scan(native_scan.kernel(), x0, x1, init, *plan.native, r0, r1)
    if got is None:
        assert np.isnan(want).any()
    else:
        assert not np.isnan(want).any()
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


def _run_scan(x0, x1, initial, op0, op1, r0, r1, dst_dtype=nl.float32):
    with run_context("trn2"):
        a, b = _tile(x0), _tile(x1)
        dst = nl.ndarray(x0.shape, dst_dtype)
        nisa.tensor_tensor_scan(dst=dst, data0=a, data1=b, initial=initial, op0=op0, op1=op1, reverse0=r0,
                                reverse1=r1)
        return dst.numpy()


@needs_native
@pytest.mark.parametrize("ops", [("multiply", "add"), ("subtract", "multiply"), ("add", "subtract")])
@pytest.mark.parametrize("rev", [(False, False), (True, False), (False, True), (True, True)])
def test_scan_is_the_same_with_and_without_native(monkeypatch, ops, rev):
    rng = np.random.default_rng(7)
    x0 = (rng.standard_normal((128, 33)) * 4).astype(F32)
    x1 = rng.standard_normal((128, 33)).astype(F32)
    x0[3, 5], x1[4, 2] = _NANS[1], _NANS[0]        # two rows through NaN: the whole scan goes to numpy
    x0[7, :] = 1e-40                                # subnormal chains on another row
    for nan in (True, False):
        if not nan:
            x0[3, 5], x1[4, 2] = 1.0, 2.0
        results = []
        for native in ("1", "0"):
            _set_native(monkeypatch, native)
            results.append(_run_scan(x0, x1, -0.0, OPS[ops[0]], OPS[ops[1]], *rev))
        np.testing.assert_array_equal(results[0].view(np.uint32), results[1].view(np.uint32))


def test_scan_native_pairs_and_reference_values(monkeypatch):
    """max/min pairs stay on numpy (plan.native None); a multiply-add scan equals the float32 recurrence
    written here, with the native loop and without."""
    assert isa_vector._ScanPlan(OPS["maximum"], OPS["add"], None, 0).native is None
    assert isa_vector._ScanPlan(OPS["multiply"], OPS["minimum"], None, 0).native is None
    assert isa_vector._ScanPlan(OPS["multiply"], OPS["add"], None, 0).native == (2, 0)
    rng = np.random.default_rng(3)
    x0, x1 = rng.random((16, 9)).astype(F32), rng.standard_normal((16, 9)).astype(F32)
    want = np.empty_like(x0)
    prev = np.full(16, F32(0.5))
    for i in range(9):
        prev = (x0[:, i] * prev).astype(F32) + x1[:, i]
        want[:, i] = prev
    for native in ("1", "0"):
        _set_native(monkeypatch, native)
        np.testing.assert_array_equal(_run_scan(x0, x1, 0.5, nl.multiply, nl.add, False, False), want)
        got16 = _run_scan(x0, x1, 0.5, nl.multiply, nl.add, False, False, nl.bfloat16)
        np.testing.assert_array_equal(got16, want.astype(got16.dtype))


@needs_native
def test_native_is_decided_on_reset_not_per_plan(monkeypatch):
    """The plan of a geometry is shared by calls with NPUSIM_NATIVE on and off: the variable is read when
    the scan decides (first use, or after reset()), a plan never pins the native loop; a NaN in the inputs
    makes the C loop decline and numpy computes the call."""
    calls = []
    real = native_scan._load()
    monkeypatch.setattr(native_scan, "_load", lambda: lambda *a: calls.append(real(*a)) or calls[-1])
    x = np.ones((8, 4), F32)
    for native, nan, want in (("1", False, [True]), ("0", False, []), ("1", True, [False]), ("0", True, [])):
        _set_native(monkeypatch, native)
        calls.clear()
        x1 = x.copy()
        if nan:
            x1[2, 1] = np.nan
        got = _run_scan(x, x1, 0.0, nl.multiply, nl.add, False, False)
        assert calls == want
        assert np.isnan(got[2, 1:]).all() == nan and got[0, 3] == 4.0


@needs_native
def test_scan_native_off_and_on_agree_for_bf16_3d_and_tile_initial(monkeypatch):
    """bf16 inputs (read as fp32), (P, 2, 3) tiles (free dims flattened), a (P, 1) initial tile, a bf16 dst
    (RNE cast of the fp32 result): the same bits with the native loop and without."""
    import ml_dtypes
    rng = np.random.default_rng(11)
    x0 = rng.standard_normal((32, 2, 3)).astype(ml_dtypes.bfloat16)
    x1 = rng.standard_normal((32, 2, 3)).astype(F32)
    init = rng.standard_normal((32, 1)).astype(F32)
    results = []
    for native in ("1", "0"):
        _set_native(monkeypatch, native)
        with run_context("trn2"):
            a = nl.ndarray(x0.shape, nl.bfloat16)
            a.write(x0)
            b, i0 = _tile(x1), _tile(init)
            dst = nl.ndarray(x0.shape, nl.bfloat16)
            nisa.tensor_tensor_scan(dst=dst, data0=a, data1=b, initial=i0, op0=nl.subtract, op1=nl.multiply,
                                    reverse0=True)
            results.append(dst.numpy())
    np.testing.assert_array_equal(results[0].view(np.uint16), results[1].view(np.uint16))
    want = np.empty((32, 6), F32)
    prev = init[:, 0]
    for i in range(6):
        prev = (prev - x0.reshape(32, 6)[:, i].astype(F32)).astype(F32) * x1.reshape(32, 6)[:, i]
        want[:, i] = prev
    np.testing.assert_array_equal(results[0].reshape(32, 6), want.astype(ml_dtypes.bfloat16))
