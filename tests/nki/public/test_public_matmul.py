"""The matrix-multiplication tutorial of aws-neuron/nki-samples (current `nki` API, five kernels), run
unchanged on trn1/trn2/trn3 against numpy at the tutorial's tolerance (allclose atol=1e-4, rtol=1e-2).
Shapes are the smallest each kernel's blocking accepts (the tutorial's own: 64x128x512 for basic)."""
import ml_dtypes
import numpy as np
import pytest

bf16 = ml_dtypes.bfloat16


def _inputs(k, m, n, dtype, seed=0):
    rng = np.random.default_rng(seed)
    # uniform [0, 1) as the tutorial's driver (torch.rand): fully_optimized accumulates K blocks in bf16
    # SBUF tiles, so inputs of both signs would cancel into bf16 rounding noise on hardware as well
    lhs_t = rng.random((k, m)).astype(dtype)
    rhs = rng.random((k, n)).astype(dtype)
    want = lhs_t.astype(np.float64).T @ rhs.astype(np.float64)
    return lhs_t, rhs, want


def _check(out, want, dtype):
    assert out.shape == want.shape and out.dtype == np.dtype(dtype)
    # the tutorial's tolerance (torch.allclose atol=1e-4, rtol=1e-2), here against float64 math
    np.testing.assert_allclose(out.astype(np.float64), want, atol=1e-4, rtol=1e-2)


def test_basic(target, kernels):
    k = kernels("matrix_multiplication_nki_kernels.py")
    lhs_t, rhs, want = _inputs(128, 64, 512, np.float32)
    _check(k.nki_matmul_basic_(lhs_t, rhs), want, np.float32)


@pytest.mark.parametrize("name", ["nki_matmul_tiled_", "nki_matmul_hoist_load_"])
def test_tiled_and_hoist_load(target, kernels, name):
    k = kernels("matrix_multiplication_nki_kernels.py")
    lhs_t, rhs, want = _inputs(256, 256, 1024, bf16)
    _check(getattr(k, name)(lhs_t, rhs), want, bf16)


def test_block_free_dimension(target, kernels):
    k = kernels("matrix_multiplication_nki_kernels.py")
    lhs_t, rhs, want = _inputs(256, 256, 1024, bf16, seed=1)      # BLOCK_M = 256, BLOCK_N = 1024
    _check(k.nki_matmul_block_free_dimension_(lhs_t, rhs), want, bf16)


def test_fully_optimized(target, kernels):
    k = kernels("matrix_multiplication_nki_kernels.py")
    # small blocking through the kernel's own meta-parameters: BLOCK_M = 256, BLOCK_N = 1024, BLOCK_K = 256
    lhs_t, rhs, want = _inputs(512, 512, 1024, bf16, seed=2)
    out = k.nki_matmul_fully_optimized_(lhs_t, rhs, TILES_IN_BLOCK_M=2, TILES_IN_BLOCK_N=2, TILES_IN_BLOCK_K=2)
    _check(out, want, bf16)


# The same tutorial in its legacy-API form (nki-samples before "Update matrix multiply for beta 2"):
# nl.mgrid indices, par_dim block tiles, `res_psum += nl.matmul(...)` PSUM accumulation.

def test_legacy_basic(target, kernels):
    k = kernels("legacy_matrix_multiplication_nki_kernels.py")
    lhs_t, rhs, want = _inputs(128, 64, 512, bf16, seed=3)
    _check(k.nki_matmul_basic_(lhs_t, rhs), want, bf16)


@pytest.mark.parametrize("name", ["nki_matmul_tiled_", "nki_matmul_hoist_load_",
                                  "nki_matmul_block_free_dimension_"])
def test_legacy_variants(target, kernels, name):
    k = kernels("legacy_matrix_multiplication_nki_kernels.py")
    lhs_t, rhs, want = _inputs(256, 256, 1024, bf16, seed=4)
    _check(getattr(k, name)(lhs_t, rhs), want, bf16)


def test_legacy_fully_optimized(target, kernels):
    k = kernels("legacy_matrix_multiplication_nki_kernels.py")
    lhs_t, rhs, want = _inputs(512, 512, 1024, bf16, seed=5)
    out = k.nki_matmul_fully_optimized_(lhs_t, rhs, TILES_IN_BLOCK_M=2, TILES_IN_BLOCK_N=2, TILES_IN_BLOCK_K=2)
    _check(out, want, bf16)


def test_contributed_blocked_matmul_with_loop_reduce(target, kernels):
    # aws-neuron/nki-samples contributed/matmul.py (legacy): par_dim block tiles, `Z_PSUM += nc_matmul`,
    # `nl.loop_reduce` over the K blocks. Published check: fp16 random_sample inputs,
    # isclose(atol=1e-4, rtol=1e-2); K=512 (two K blocks of 2 tiles), M=512, N=2048 via its meta-parameters
    k = kernels("contributed_matmul.py")
    rng = np.random.default_rng(15)
    a = rng.random((512, 512)).astype(np.float16)
    b = rng.random((512, 2048)).astype(np.float16)
    z = k.nki.baremetal()(k.matmul)(a, b, TILES_IN_BLOCK_K=2, TILES_IN_BLOCK_M=2, TILES_IN_BLOCK_N=2)
    assert z.dtype == np.float16
    np.testing.assert_allclose(z.astype(np.float64), a.astype(np.float64).T @ b.astype(np.float64),
                               atol=1e-4, rtol=1e-2)
