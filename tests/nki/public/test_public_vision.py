"""Adaptive average pooling 2-D (aws-neuron/nki-samples reference `vision.py`, legacy API) unchanged on
trn1/trn2/trn3, against the published test's window rule written here in float64: published cases
(test/unit/test_adaptive_avg_pool2d.py), inputs randn, atol=rtol=1e-5 for fp32 and 1e-2 for fp16/bf16."""
import ml_dtypes
import numpy as np
import pytest


def _adaptive_avg_pool(x, output_size):
    n, c, h, w = x.shape
    oh, ow = (output_size, output_size) if isinstance(output_size, int) else output_size
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            hs, he = i * h // oh, ((i + 1) * h + oh - 1) // oh
            ws, we = j * w // ow, ((j + 1) * w + ow - 1) // ow
            out[:, :, i, j] = x[:, :, hs:he, ws:we].astype(np.float64).mean(axis=(2, 3))
    return out


@pytest.mark.parametrize("shape, output_size, dtype", [
    ((1, 64, 56, 56), 7, "float32"),
    ((2, 192, 16, 16), (4, 2), "float32"),      # non-square output
    ((1, 256, 13, 13), 6, "float32"),           # non-divisible windows (they overlap)
    ((1, 1, 1, 1), 1, "float32"),               # single element
    ((1, 512, 7, 7), 1, "float32"),             # global average pooling
    ((1, 256, 14, 14), 7, "float16"),
    ((3, 96, 24, 24), (6, 6), "bfloat16"),
])
def test_adaptive_avg_pool2d(target, kernels, shape, output_size, dtype):
    k = kernels("vision.py")
    nki = k.nki
    x = np.random.default_rng(14).standard_normal(shape).astype(np.float32)
    dt = {"float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16}[dtype]
    xd = x.astype(dt)
    out = nki.simulate_kernel(nki.baremetal(k.adaptive_avg_pool2d_kernel), xd, output_size)
    assert out.dtype == np.dtype(dt)
    tol = 1e-5 if dtype == "float32" else 1e-2
    np.testing.assert_allclose(out.astype(np.float64), _adaptive_avg_pool(x, output_size), atol=tol, rtol=tol)
