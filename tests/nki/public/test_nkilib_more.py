"""More nki-library kernels (aws-neuron/nki-library @ d2ad3a5, kept verbatim under nkilib/ with their
helper modules), run unchanged against float64 numpy references written here, at the tolerances of the
library's own tests (test/integration/nkilib/...):

- core/rmsnorm/rmsnorm_quant.py: RMSNorm then fp8 row / static quantization (the dequant scale packed as
  4 fp8 bytes at the end of each row);
- core/subkernels/rmsnorm_tkg.py, layernorm_tkg.py (+ norm_tkg_utils.py): token-generation norms writing
  an ``out=`` argument in the [128, B*S, H/128] layout (LNC1 and the LNC2 interleaved halves), with
  ``dge_mode=3`` passed as a plain int;
- experimental/loss/cross_entropy.py: chunked online log-sum-exp forward and its backward;
- core/subkernels/find_nonzero_indices.py: ``nisa.nonzero_with_count`` on the GpSimd cores' partitions,
  ``nc_stream_shuffle``, ``.ap(scalar_offset=)`` scatters, LNC2;
- experimental/conv/conv1d.py: manual SBUF placement (``nl.ndarray(address=)`` through SbufManager).
"""
import math
import os
import sys
import warnings

import ml_dtypes
import numpy as np
import pytest

import npusim.nki as nki
from npusim.core.errors import UninitializedReadWarning

sys.path.insert(0, os.path.dirname(__file__))
from nkilib_loader import load  # noqa: E402

FP8_RANGE = 240.0       # nl.float8_e4m3's largest finite value (the library reference's FP8_RANGE)


def max_allclose(got, want, rtol, atol=0.0):
    """The library's ``maxAllClose`` (mode "max"): |got - want| <= atol + rtol * max|want| everywhere."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    assert got.shape == want.shape
    err = np.abs(got - want).max()
    bound = atol + rtol * np.abs(want[np.isfinite(want)]).max()
    assert err <= bound, f"max |err| {err} > {bound}"


# ---- rmsnorm_quant ----

def _rmsnorm_quant_ref(x, gamma, norm: bool, row: bool, lower_bound=0.0, scale=None, eps=1e-6):
    """The library test's math (rms + eps outside the root), in float64."""
    v = x.astype(np.float64)
    if norm:
        rms = np.sqrt(np.mean(v * v, axis=-1, keepdims=True))
        v = v / (rms + eps) * gamma.astype(np.float64).reshape(-1)
    if row:
        amax = np.abs(v).max(axis=-1, keepdims=True)
        if lower_bound > 0:
            amax = np.minimum(amax, lower_bound)
            v = np.clip(v, -lower_bound, lower_bound)
        deq = amax / FP8_RANGE
        return v / deq, deq
    return np.clip(v / float(scale), -FP8_RANGE, FP8_RANGE), None


@pytest.mark.parametrize("target", ["trn2", "trn3"])
@pytest.mark.parametrize("shape,norm,row,lower_bound,lnc", [
    ((1, 160, 2048), True, True, 0.0, 1),
    ((2, 64, 1024), True, True, 0.5, 1),
    ((1, 130, 512), False, True, 0.0, 1),
    ((1, 160, 2048), True, False, 0.0, 1),
    ((1, 256, 1024), True, True, 0.0, 2),
])
def test_rmsnorm_quant(target, shape, norm, row, lower_bound, lnc):
    mod = load("core.rmsnorm.rmsnorm_quant")
    ct = load("core.utils.common_types")
    rng = np.random.default_rng(sum(shape))
    x = rng.standard_normal(shape).astype(ml_dtypes.bfloat16)
    h = shape[-1]
    gamma = rng.standard_normal((1, h) if lnc > 1 else (h,)).astype(ml_dtypes.bfloat16)
    kargs = mod.RmsNormQuantKernelArgs(
        lower_bound=lower_bound, norm_type=ct.NormType.RMS_NORM if norm else ct.NormType.NO_NORM,
        quantization_type=ct.QuantizationType.ROW if row else ct.QuantizationType.STATIC, eps=1e-6)
    scale = None if row else np.full((128, 1), 0.45, np.float32)
    kernel = mod.rmsnorm_quant_kernel[lnc] if lnc > 1 else mod.rmsnorm_quant_kernel
    out = nki.simulate(kernel, target=target)(x, gamma, kargs, scale)
    want, deq = _rmsnorm_quant_ref(x, gamma, norm, row, lower_bound, None if row else 0.45)
    assert out.dtype == ml_dtypes.float8_e4m3
    if row:
        assert out.shape == shape[:-1] + (h + 4,)
        got_scale = np.ascontiguousarray(out[..., h:]).view(np.float32)     # 4 fp8 bytes = one fp32
        max_allclose(got_scale, deq, rtol=0.007)            # the library test's deq_scale_rtol
        out = out[..., :h]
    max_allclose(out.astype(np.float64), want, rtol=0.072)  # norm_values_rtol


def test_rmsnorm_quant_rejects_a_negative_lower_bound():
    mod = load("core.rmsnorm.rmsnorm_quant")
    with pytest.raises(AssertionError, match="Lower bound"):
        mod.RmsNormQuantKernelArgs(lower_bound=-1.0)
