"""The current-API (``import nki``) tutorial kernels of aws-neuron/aws-neuron-sdk ``nki/examples`` (commit
81ce03ae), kept verbatim in kernels/sdk_*.py, run unchanged on trn1/trn2/trn3 against numpy written here:
getting started (nl.load / nl.add / nl.store), index case 1 (strided column split), index case 3 and
average pool 2d (5-D ``.ap()`` pooling views reduced with nl.max / nl.sum), layout pass (nl.exp), transpose2d
(element copies through nl.ds) and the fused Mamba v1/v2/v3 (current API, unlike the nki-samples legacy one).
"""
import os
import sys

import ml_dtypes
import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from test_public_mamba_attention import _mamba_ref  # noqa: E402  (the recurrence in float64)


def test_getting_started(target, kernels):
    k = kernels("sdk_getting_started_baremetal.py")
    a = np.arange(12, dtype=np.float16).reshape(4, 3)
    b = np.full((4, 3), 0.5, np.float16)
    np.testing.assert_array_equal(k.nki_tensor_add_kernel(a, b), a + b)          # the example: ones + ones = 2


def test_index_case_1_splits_even_and_odd_columns(target, kernels):
    k = kernels("sdk_index_case_1.py")
    x = np.arange(4 * 5, dtype=ml_dtypes.bfloat16).reshape(4, 5)                  # the example's X, Y = 4, 5
    even, odd = k.tensor_split_kernel_(x)
    np.testing.assert_array_equal(even, x[:, 0::2])
    np.testing.assert_array_equal(odd, x[:, 1::2])


@pytest.mark.parametrize("c,h,w,pool", [(2, 6, 6, 2), (128, 12, 9, 3)])
def test_index_case_3_maxpool(target, kernels, c, h, w, pool):
    k = kernels("sdk_index_case_3.py")
    x = np.random.default_rng(c + h).standard_normal((c, h, w)).astype(np.float32)
    want = x.reshape(c, h // pool, pool, w // pool, pool).max(axis=(2, 4))
    np.testing.assert_array_equal(k.tensor_maxpool_kernel_(x, pool), want)


@pytest.mark.parametrize("c,h,w,pool,dtype", [(2, 6, 6, 2, np.float16), (64, 12, 12, 3, np.float32)])
def test_average_pool2d(target, kernels, c, h, w, pool, dtype):
    k = kernels("sdk_average_pool2d_nki_kernels.py")
    x = np.arange(c * h * w, dtype=dtype).reshape(c, h, w) if dtype == np.float16 else \
        np.random.default_rng(3).standard_normal((c, h, w)).astype(dtype)
    out = k.tensor_avgpool_kernel(x, pool)
    want = x.astype(np.float64).reshape(c, h // pool, pool, w // pool, pool).mean(axis=(2, 4))
    if dtype == np.float16:
        np.testing.assert_array_equal(out, want.astype(np.float16))               # the example's exact match
    else:
        np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-6)


def test_layout_pass_exp(target, kernels):
    k = kernels("sdk_layout_pass.py")
    x = np.random.default_rng(4).uniform(-3, 3, (128, 512)).astype(np.float32)
    np.testing.assert_allclose(k.tensor_exp_kernel_(x), np.exp(x.astype(np.float64)), rtol=1e-6)


@pytest.mark.parametrize("p,f1,f2,dtype", [(5, 3, 4, np.int8), (128, 8, 16, np.float32)])
def test_transpose2d(target, kernels, p, f1, f2, dtype):
    k = kernels("sdk_transpose2d_nki_kernels.py")
    a = np.arange(p * f1 * f2).reshape(p, f1 * f2).astype(dtype)
    want = a.reshape(p, f1, f2).transpose(0, 2, 1).reshape(p, f1 * f2)
    np.testing.assert_array_equal(k.tensor_transpose2D_kernel_(a, (f1, f2)), want)


@pytest.mark.parametrize("version", ["mamba_v1", "mamba_v2", "mamba_v3"])
def test_mamba_current_api(target, kernels, version):
    k = kernels("sdk_mamba_nki_kernels.py")
    rng = np.random.default_rng(6)
    batch, channels, seq, state = 1, 256, 512, 4
    delta = rng.random((batch, channels, seq), dtype=np.float32) * 0.1
    u = rng.standard_normal((batch, channels, seq)).astype(np.float32)
    A = -rng.random((channels, state), dtype=np.float32)
    B = rng.standard_normal((batch, state, seq)).astype(np.float32)
    C = rng.standard_normal((batch, state, seq)).astype(np.float32)
    out = getattr(k, version)(delta, u, A, B, C)
    # no published tolerance (the example compares v2/v3 with v1): the tutorials' common one
    np.testing.assert_allclose(out, _mamba_ref(delta, u, A, B, C), atol=1e-4, rtol=1e-2)
