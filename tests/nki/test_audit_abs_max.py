"""nl.abs_max / nl.abs_min (trn3): the signed value of the input with the larger / smaller magnitude,
y on a tie (nki.language.abs_max / abs_min docstrings); (P, 1) tiles broadcast in nl.* ops."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npusim.nki as nki
import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import ConstraintError
from npusim.nki import run_context


def ref_abs_max(x, y):
    x, y = np.float64(x), np.float64(y)
    return np.where(np.abs(x) > np.abs(y), x, y)


def ref_abs_min(x, y):
    x, y = np.float64(x), np.float64(y)
    return np.where(np.abs(x) < np.abs(y), x, y)


def _tile(a):
    t = nl.ndarray(a.shape, nl.float32)
    t.write(a)
    return t


@pytest.mark.parametrize("op, x, y, want", [
    ("abs_max", -5.0, 3.0, -5.0),     # the docstring's example
    ("abs_max", 1.0, -1.0, -1.0),     # tie: y
    ("abs_min", 5.0, -3.0, -3.0),
    ("abs_min", -2.0, 2.0, 2.0),      # tie: y
])
def test_tensor_scalar_signed_result(op, x, y, want):
    with run_context("trn3"):
        out = nl.ndarray((128, 4), nl.float32)
        nisa.tensor_scalar(out, _tile(np.full((128, 4), x, np.float32)), getattr(nl, op), y)
        np.testing.assert_array_equal(out.numpy(), np.full((128, 4), want, np.float32))


def test_reverse_operand_order_is_kept():
    with run_context("trn3"):
        out = nl.ndarray((128, 4), nl.float32)
        # reverse0: abs_max(operand0, data) = abs_max(1, -1) -> tie -> y = data = -1
        nisa.tensor_scalar(out, _tile(np.full((128, 4), -1.0, np.float32)), nl.abs_max, 1.0, reverse0=True)
        np.testing.assert_array_equal(out.numpy(), -1.0)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(["abs_max", "abs_min"]), st.integers(1, 128), st.integers(1, 64), st.integers(0, 2**31))
def test_tensor_tensor_matches_reference(op, p, n, seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(-4, 5, (p, n)).astype(np.float32)    # small ints: many ties
    b = rng.integers(-4, 5, (p, n)).astype(np.float32)
    ref = ref_abs_max if op == "abs_max" else ref_abs_min
    with run_context("trn3"):
        out = nl.ndarray((p, n), nl.float32)
        nisa.tensor_tensor(out, _tile(a), _tile(b), getattr(nl, op))
        np.testing.assert_array_equal(out.numpy(), ref(a, b))


def test_nl_abs_max_doc_example_broadcasts_p1_tile():
    @nki.jit
    def k(x):
        out = nl.ndarray((128, 512), nl.float32, buffer=nl.shared_hbm)
        a = nl.full((128, 512), -5.0, dtype=nl.float32, buffer=nl.sbuf)
        b = nl.full((128, 1), 3.0, dtype=nl.float32, buffer=nl.sbuf)
        nl.store(out, nl.abs_max(a, b))
        return out
    y = nki.simulate(k, target="trn3")(np.ones((1, 1), np.float32))
    np.testing.assert_array_equal(y, np.full((128, 512), -5.0, np.float32))


def test_nl_op_with_p1_tile_first_keeps_operand_order():
    with run_context("trn3"):
        a = _tile(np.full((128, 1), 1.0, np.float32))
        b = _tile(np.full((128, 8), -1.0, np.float32))
        c = nl.abs_max(a, b)                     # tie -> y (b)
        assert c.shape == (128, 8)
        np.testing.assert_array_equal(c.numpy(), -1.0)
        d = nl.subtract(a, b)                    # 1 - (-1)
        np.testing.assert_array_equal(d.numpy(), 2.0)


def test_nl_ops_do_not_broadcast_other_shapes():
    with run_context("trn3"):
        with pytest.raises(ConstraintError, match="no broadcasting"):
            nl.add(_tile(np.ones((128, 8), np.float32)), _tile(np.ones((128, 2), np.float32)))


def test_abs_max_is_trn3_only():
    with run_context("trn2"):
        with pytest.raises(ConstraintError, match="trn3"):
            nl.abs_max(_tile(np.ones((128, 8), np.float32)), 1.0)
