"""tensor_reduce, tensor_partition_reduce, tensor_scalar_reduce: values against float64 numpy, the axis
rules, register commands, costs."""
import os
import sys

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npusim.nki.isa as nisa
import npusim.nki.language as nl
from npusim.core.errors import ConstraintError
from npusim.nki import run_context

sys.path.insert(0, os.path.dirname(__file__))
from helpers_two import rand, tile  # noqa: E402


@settings(max_examples=20, deadline=None)
@given(p=st.integers(1, 128), d1=st.integers(1, 8), d2=st.integers(1, 64),
       opname=st.sampled_from(["add", "maximum", "minimum", "multiply"]), negate=st.booleans(),
       two_axes=st.booleans(), seed=st.integers(0, 50))
def test_tensor_reduce_matches_numpy(p, d1, d2, opname, negate, two_axes, seed):
    x = rand((p, d1, d2), seed, 0.5, 1.5)
    axis = (1, 2) if two_axes else 2
    ref = {"add": np.sum, "maximum": np.max, "minimum": np.min, "multiply": np.prod}[opname]
    want = ref(x.astype(np.float64), axis=axis)
    if negate:
        want = -want
    with run_context("trn2"):
        dst = nl.ndarray((p, 1) if two_axes else (p, d1), nl.float32)
        nisa.tensor_reduce(dst, getattr(nl, opname), tile(x), axis, negate=negate)
        got = dst.numpy().reshape(want.shape)
    np.testing.assert_allclose(got, want, rtol=3e-6 * (d1 * d2))


def test_tensor_reduce_keepdims_bitvec_and_logical(run):
    x = np.array([[0b0011, 0b0101, 0b1001], [1, 2, 4]], np.int32)
    d = nl.ndarray((2, 1), nl.int32)
    nisa.tensor_reduce(d, nl.bitwise_or, tile(x), axis=1, keepdims=True)
    np.testing.assert_array_equal(d.numpy()[:, 0], [0b1111, 7])
    nisa.tensor_reduce(d, nl.bitwise_and, tile(x), axis=(1,))
    np.testing.assert_array_equal(d.numpy()[:, 0], [1, 0])
    f = nl.ndarray((2, 1), nl.float32)
    nisa.tensor_reduce(f, nl.logical_or, tile(np.array([[0, 0, 2.0], [0, 0, 0]], np.float32)), axis=1)
    np.testing.assert_array_equal(f.numpy()[:, 0], [1.0, 0.0])


def test_tensor_reduce_accepts_nl_max_and_np_max_as_op(run):
    x = rand((4, 8), 3)
    d = nl.ndarray((4, 1), nl.float32)
    nisa.tensor_reduce(d, nl.max, tile(x), axis=1)
    np.testing.assert_array_equal(d.numpy()[:, 0], x.max(1))
    nisa.tensor_reduce(d, np.min, tile(x), axis=1)
    np.testing.assert_array_equal(d.numpy()[:, 0], x.min(1))


def test_tensor_reduce_cost(run):
    x = rand((128, 512))
    d = nl.ndarray((128, 1), nl.float32)
    assert nisa.tensor_reduce(d, nl.add, tile(x), 1).event.cycles == 512
    b = tile(x, ml_dtypes.bfloat16)
    db = nl.ndarray((128, 1), nl.bfloat16)
    assert nisa.tensor_reduce(db, nl.maximum, b, 1).event.cycles == 256        # bf16 add/max: N/2
    assert nisa.tensor_reduce(db, nl.minimum, b, 1).event.cycles == 512
    assert nisa.tensor_reduce(d, nl.add, tile(x[:, :10]), 1).event.cycles == 64


def test_tensor_reduce_rules(run):
    x = tile(rand((8, 4, 16)))
    with pytest.raises(ConstraintError, match="axis 0"):
        nisa.tensor_reduce(nl.ndarray((8, 64), nl.float32), nl.add, x, axis=0)
    with pytest.raises(ConstraintError, match="last contiguous free axes"):
        nisa.tensor_reduce(nl.ndarray((8, 16), nl.float32), nl.add, x, axis=1)
    with pytest.raises(ConstraintError, match="reduced shape"):
        nisa.tensor_reduce(nl.ndarray((8, 5), nl.float32), nl.add, x, axis=2)
    with pytest.raises(ConstraintError, match="legal reduction operator"):
        nisa.tensor_reduce(nl.ndarray((8, 4), nl.float32), nl.equal, x, axis=2)
    with pytest.raises(ConstraintError, match="integer dtypes"):
        nisa.tensor_reduce(nl.ndarray((8, 4), nl.float32), nl.bitwise_or, x, axis=2)
    with pytest.raises(ConstraintError, match="axes of a 3-d tile"):
        nisa.tensor_reduce(nl.ndarray((8, 4), nl.float32), nl.add, x, axis=3)


def test_partition_reduce(run):
    x = rand((128, 32), 4)
    d = nl.ndarray((1, 32), nl.float32)
    ins = nisa.tensor_partition_reduce(d, nl.add, tile(x))
    np.testing.assert_allclose(d.numpy()[0], x.astype(np.float64).sum(0), rtol=1e-5, atol=1e-5)
    assert ins.event.engine == "gpsimd" and ins.event.cycles == 150 + 32
    nisa.tensor_partition_reduce(d, nl.maximum, tile(x))
    np.testing.assert_array_equal(d.numpy()[0], x.max(0))
    bits = nl.ndarray((1, 2), nl.int32)
    nisa.tensor_partition_reduce(bits, nl.bitwise_or, tile(np.array([[1, 8], [2, 16], [4, 0]], np.int32)))
    np.testing.assert_array_equal(bits.numpy()[0], [7, 24])
    with pytest.raises(ConstraintError, match="one of nl.add"):
        nisa.tensor_partition_reduce(d, nl.subtract, tile(x))
    with pytest.raises(ConstraintError, match=r"\(1, 32\) tile"):
        nisa.tensor_partition_reduce(nl.ndarray((2, 32), nl.float32), nl.add, tile(x))
    with pytest.raises(ConstraintError, match="PSUM"):
        nisa.tensor_partition_reduce(d, nl.add, tile(x, buffer=nl.psum))


def test_tensor_scalar_reduce(run):
    x, v = rand((64, 3, 40), 5), rand((64, 1), 6)
    d, res = nl.ndarray(x.shape, nl.float32), nl.ndarray((64, 1), nl.float32)
    ins = nisa.tensor_scalar_reduce(d, tile(x), nl.multiply, tile(v), nl.add, reduce_res=res)
    y = (x * v[:, :, None]).astype(np.float32)
    np.testing.assert_array_equal(d.numpy(), y)
    np.testing.assert_allclose(res.numpy()[:, 0], y.reshape(64, -1).astype(np.float64).sum(1), rtol=1e-5, atol=1e-5)
    assert ins.event.engine == "vector" and ins.event.cycles == 120 + 64
    # registers: reduce on top, negated read-out, reduce_init
    nisa.tensor_scalar_reduce(d, tile(x), nl.subtract, 1.0, nl.maximum, reduce_res=res,
                              reduce_cmd=nisa.reduce_cmd.reset_reduce, reduce_res_negate=True)
    np.testing.assert_array_equal(res.numpy()[:, 0], -(x - 1).reshape(64, -1).max(1))
    nisa.tensor_scalar_reduce(d, tile(x), nl.add, 0.0, nl.maximum, reduce_res=res, reduce_init=100.0)
    np.testing.assert_array_equal(res.numpy()[:, 0], 100.0)


def test_tensor_scalar_reduce_rules(run):
    x = tile(rand((8, 16)))
    d = nl.ndarray((8, 16), nl.float32)
    with pytest.raises(ConstraintError, match="arithmetic operator"):
        nisa.tensor_scalar_reduce(tile(np.zeros((8, 16), np.int32)), tile(np.zeros((8, 16), np.int32)),
                                  nl.bitwise_and, 1, nl.add)
    with pytest.raises(ConstraintError, match="reduce_op"):
        nisa.tensor_scalar_reduce(d, x, nl.add, 1.0, nl.equal)
    with pytest.raises(ConstraintError, match=r"\(8, 1\) tile"):
        nisa.tensor_scalar_reduce(d, x, nl.add, 1.0, nl.add, reduce_res=nl.ndarray((8, 3), nl.float32))
    with pytest.raises(ConstraintError, match="at most three free dims"):
        nisa.tensor_scalar_reduce(nl.ndarray((8, 1, 2, 2, 4), nl.float32), tile(np.zeros((8, 1, 2, 2, 4), np.float32)),
                                  nl.add, 1.0, nl.add)
