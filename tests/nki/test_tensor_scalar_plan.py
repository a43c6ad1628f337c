"""tensor_scalar's cached plans: a repeat of a geometry takes the cached path, and every path (scratch,
direct, cast, bitvec) gives on the repeat exactly what it gave the first time, whatever the per-call
arguments the plan key leaves out (reverse0/reverse1, which tensors)."""
import numpy as np
import pytest

import npusim.nki.isa as nisa
import npusim.nki.isa_tensor_scalar as ts
import npusim.nki.plan as plan
import npusim.nki.language as nl
from npusim.nki import run_context


def _f64_ref(x, s0, reverse0, s1, reverse1):
    t = (np.float64(s0) - x.astype(np.float64)) if reverse0 else (x.astype(np.float64) - np.float64(s0))
    t = t.astype(np.float32).astype(np.float64)
    t = (np.float64(s1) * t) if reverse1 else (t * np.float64(s1))
    return t.astype(np.float32)


@pytest.mark.parametrize("shape, dtype, path", [((128, 8), nl.float32, ts.SCRATCH),
                                                ((128, 8192), nl.float32, ts.DIRECT),
                                                ((64, 16), nl.bfloat16, ts.CAST)])
def test_repeats_hit_the_plan_and_reverse_flags_still_apply(shape, dtype, path):
    # Only this test's plans: an earlier test's plan for the same data geometry but another dst (found
    # first by the lookup below), or the cache's wholesale clear at its bound, made this order-dependent.
    ts._PLANS.clear()
    rng = np.random.default_rng(3)
    x = rng.standard_normal(shape).astype(np.float32)
    with run_context("trn2"):
        a = nl.ndarray(shape, nl.float32)
        a.write(x)
        for reverse0, reverse1 in [(False, False), (True, False), (False, True), (True, True), (False, False)]:
            out = nl.ndarray(shape, dtype)         # a new tensor each time: the plan is per geometry
            before = len(ts._PLANS)
            nisa.tensor_scalar(out, a, nl.subtract, 1.5, reverse0=reverse0, op1=nl.multiply, operand1=-2.0,
                               reverse1=reverse1)
            if (reverse0, reverse1) != (False, False):
                assert len(ts._PLANS) == before      # a repeat: no new plan
            want = _f64_ref(x, 1.5, reverse0, -2.0, reverse1)
            if dtype is nl.bfloat16:
                import ml_dtypes
                want = want.astype(ml_dtypes.bfloat16)
            np.testing.assert_array_equal(out.numpy(), want)
    plan = next(p for k, p in ts._PLANS.items() if k[-1] == a.sig)
    assert plan.path is path


def test_bitvec_plan_repeats():
    with run_context("trn2"):
        a = nl.ndarray((32, 8), nl.int32)
        x = np.arange(256, dtype=np.int32).reshape(32, 8) - 100
        a.write(x)
        for _ in range(2):
            out = nl.ndarray((32, 8), nl.int32)
            nisa.tensor_scalar(out, a, nl.bitwise_and, 0xF0, op1=nl.bitwise_or, operand1=1)
            np.testing.assert_array_equal(out.numpy(), (x & 0xF0) | 1)


def test_tile_operands_are_read_per_call_and_keyed_by_geometry():
    """A (P, 1) operand is read per call: its values are not part of any key, its geometry is (another
    operand tile of the same geometry hits; another dtype or buffer misses)."""
    ts._PLANS.clear()
    with run_context("trn2"):
        a, f, out = nl.ndarray((4, 8), nl.float32), nl.ndarray((4, 1), nl.float32), nl.ndarray((4, 8), nl.float32)
        a.write(np.ones((4, 8), np.float32))
        for k in range(3):
            f = nl.ndarray((4, 1), nl.float32)
            f.write(np.full((4, 1), float(k), np.float32))
            nisa.tensor_scalar(out, a, nl.multiply, f)
            assert (out.numpy() == k).all()
            assert len(ts._PLANS) == 1
        p = nl.ndarray((4, 1), nl.float32, buffer=nl.psum)
        p.write(np.full((4, 1), 5.0, np.float32))
        nisa.tensor_scalar(out, a, nl.multiply, p)
        assert (out.numpy() == 5).all() and len(ts._PLANS) == 2
        nisa.tensor_scalar(out, a, nl.multiply, f, op1=nl.add, operand1=f)
        assert (out.numpy() == 4).all() and len(ts._PLANS) == 3


def test_signature_ids_are_never_reused():
    """Clearing the signature table cannot make an old view's id name a new geometry."""
    with run_context("trn2"):
        a, b = nl.ndarray((8, 8), nl.float32), nl.ndarray((8, 4), nl.float32)
        old = ts._sig(a)
        plan._SIG_IDS.clear()
        assert ts._sig(b) != old and ts._sig(a) != old
