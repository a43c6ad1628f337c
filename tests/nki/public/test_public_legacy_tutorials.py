"""Legacy-API (neuronxcc.nki) tutorials of aws-neuron/nki-samples, run unchanged on trn1/trn2/trn3 and
checked against numpy references written here, at each tutorial's published tolerance."""
import numpy as np
import pytest

import npusim.nki as current_nki


def test_tensor_add_spmd_grid(target, kernels):
    # published: fp16 256x1024, grid [2, 2], np.allclose(atol=1e-4, rtol=1e-2)
    k = kernels("tensor_addition_nki_kernels.py")
    rng = np.random.default_rng(0)
    a = rng.random((256, 1024)).astype(np.float16)
    b = rng.random((256, 1024)).astype(np.float16)
    out = k.nki_tensor_add(a, b)
    assert out.dtype == np.float16 and out.shape == a.shape
    np.testing.assert_allclose(out.astype(np.float32), (a + b).astype(np.float32), atol=1e-4, rtol=1e-2)
    np.testing.assert_array_equal(out, a + b)      # fp32 math rounded once to fp16 is numpy's fp16 add
    assert current_nki.last_run().chip.name == target


def test_transpose2d(target, kernels):
    # published: int8 (5, 3*4), compared with np.allclose
    k = kernels("transpose2d_nki_kernels.py")
    P, X, Y = 5, 3, 4
    a = np.arange(P * X * Y, dtype=np.int8).reshape((P, X * Y))
    out = k.tensor_transpose2D_kernel_(a, (X, Y))
    want = a.reshape(P, X, Y).transpose(0, 2, 1).reshape(P, X * Y)
    np.testing.assert_array_equal(out, want)


def test_transpose2d_float_wide(target, kernels):
    k = kernels("transpose2d_nki_kernels.py")
    a = np.random.default_rng(1).random((128, 8 * 16), np.float32)
    out = k.tensor_transpose2D_kernel_(a, (8, 16))
    np.testing.assert_array_equal(out, a.reshape(128, 8, 16).transpose(0, 2, 1).reshape(128, 128))


def test_average_pool2d(target, kernels):
    # published: fp16 (2, 6, 6), pool 2, exact equality with np.nanmean over the windows
    k = kernels("average_pool2d_nki_kernels.py")
    x = np.arange(2 * 6 * 6, dtype=np.float16).reshape(2, 6, 6)
    out = k.tensor_avgpool_kernel(x, 2)
    want = x.astype(np.float64).reshape(2, 3, 2, 3, 2).mean(axis=(2, 4)).astype(np.float16)
    np.testing.assert_array_equal(out, want)


def test_average_pool2d_random_pool3(target, kernels):
    k = kernels("average_pool2d_nki_kernels.py")
    x = np.random.default_rng(2).random((64, 9, 12)).astype(np.float32)
    out = k.tensor_avgpool_kernel(x, 3)
    want = x.astype(np.float64).reshape(64, 3, 3, 4, 3).mean(axis=(2, 4))
    np.testing.assert_allclose(out, want, rtol=1e-6)


def _rmsnorm_ref(a, g):
    a64 = a.astype(np.float64)
    return a64 / np.sqrt(np.mean(a64 * a64, axis=1, keepdims=True)) * g


def test_rmsnorm(target, kernels):
    # published: fp32 (a 128-row multiple), allclose(atol=1e-4, rtol=1e-2) against a/RMS(a)*g
    k = kernels("rmsnorm_nki_kernels.py")
    rng = np.random.default_rng(3)
    a = rng.random((256, 512)).astype(np.float32)
    g = rng.random(512).astype(np.float32)
    out = k.nki_rmsnorm_kernel(a, g)
    np.testing.assert_allclose(out, _rmsnorm_ref(a, g), atol=1e-4, rtol=1e-2)


def _layernorm_ref(x, eps, gamma, beta):
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1, keepdims=True)
    var = x64.var(axis=1, keepdims=True)
    return (x64 - mean) / np.sqrt(var + eps) * gamma + beta


def test_layernorm_v1_and_v2(target, kernels):
    # no published tolerance for layernorm: the tutorials' common allclose(atol=1e-4, rtol=1e-2)
    k = kernels("layernorm_nki_kernel.py")
    rng = np.random.default_rng(4)
    x = rng.standard_normal((256, 1024)).astype(np.float32)
    gamma = rng.random(1024).astype(np.float32)
    beta = rng.random(1024).astype(np.float32)
    want = _layernorm_ref(x, 1e-5, gamma, beta)
    for kernel in (k.nki_layernorm_kernel_v1, k.nki_layernorm_kernel_v2):
        out = kernel(x, 1e-5, gamma, beta)
        np.testing.assert_allclose(out, want, atol=1e-4, rtol=1e-2)


# The tutorials' tail handling: rows beyond a multiple of 128 are left out by `mask=(i * 128 + ix < num_rows)`
# on nl.load / nl.store, whose index steps outside the tensor in the last row tile. The unmasked ops in
# between read the never-loaded partitions (poison, UninitializedReadWarning), as the hardware reads
# whatever SBUF holds; only the masked rows are stored.
TAIL = pytest.mark.filterwarnings("ignore::npusim.core.errors.UninitializedReadWarning")


@TAIL
def test_rmsnorm_tail_rows(target, kernels):
    k = kernels("rmsnorm_nki_kernels.py")
    rng = np.random.default_rng(9)
    a = rng.random((200, 512)).astype(np.float32)
    g = rng.random(512).astype(np.float32)
    np.testing.assert_allclose(k.nki_rmsnorm_kernel(a, g), _rmsnorm_ref(a, g), atol=1e-4, rtol=1e-2)


@TAIL
def test_layernorm_tail_rows(target, kernels):
    k = kernels("layernorm_nki_kernel.py")
    rng = np.random.default_rng(10)
    x = rng.standard_normal((300, 1024)).astype(np.float32)
    gamma, beta = rng.random(1024).astype(np.float32), rng.random(1024).astype(np.float32)
    want = _layernorm_ref(x, 1e-5, gamma, beta)
    for kernel in (k.nki_layernorm_kernel_v1, k.nki_layernorm_kernel_v2):
        np.testing.assert_allclose(kernel(x, 1e-5, gamma, beta), want, atol=1e-4, rtol=1e-2)


def test_tensor_add_spmd_multiple_cores(target, kernels):
    # published: fp16 512x2048, grid [nl.spmd_dim(grid_x, nl.nc(2)), grid_y], allclose(atol=1e-4, rtol=1e-2)
    k = kernels("spmd_multiple_nc_tensor_addition_nki_kernels.py")
    rng = np.random.default_rng(16)
    a = rng.random((512, 2048)).astype(np.float16)
    b = rng.random((512, 2048)).astype(np.float16)
    out = k.nki_tensor_add_nc2(a, b)
    np.testing.assert_allclose(out.astype(np.float32), (a + b).astype(np.float32), atol=1e-4, rtol=1e-2)
    np.testing.assert_array_equal(out, a + b)
    assert current_nki.last_run().grid == (4, 4)
