"""The MXFP matmul tutorial of aws-neuron/nki-samples (``src/nki_samples/tutorials/mxfp-matmul``: mx_kernels.py
and its helper mx_kernel_utils.py, current ``nki`` API, ``@nki.jit(platform_target="trn3")``), run unchanged
on trn3 against float64 numpy at the tutorial's tolerance (mx_toplevel.py's ``np.allclose(rtol=5e-2,
atol=5e-2)``). The three kernels are run as mx_toplevel.py runs them; the drivers and references are ours.

Inputs are "stabilized" as the tutorial's generator makes them: values m * 2^e with a 2-bit mantissa, so
MX quantization to fp8 e5m2 is exact and the reference is the float64 product of the dequantized values.
Offline-quantized data is packed 4 per word (fp8 in uint32, fp4 nibbles in uint16) with e8m0 scales per
8 rows (contiguous [K/8, F] in HBM); the pairing of the packed values is the same for both operands, so
the reference does not depend on npusim's byte order.
"""
import ml_dtypes
import numpy as np
import pytest

import npusim.nki as nki
import npusim.nki.language as nl

RTOL = ATOL = 5e-2       # mx_toplevel.py compare_and_print_results


def _stable(rng, shape):
    v = rng.choice([1.0, 1.25, 1.5, 1.75], size=shape) * rng.choice([-1.0, 1.0], size=shape)
    v = v * 2.0 ** rng.integers(-3, 2, size=shape)
    v[rng.random(shape) < 0.1] = 0.0
    return v.astype(np.float32)


def _fp8_words(rng, shape):
    vals = _stable(rng, shape + (4,)).astype(ml_dtypes.float8_e5m2)
    words = np.ascontiguousarray(vals).view(np.uint8).reshape(shape + (4,)).copy().view(np.uint32)[..., 0]
    return words, vals.astype(np.float64)


def _fp4_words(rng, shape):
    vals = np.clip(_stable(rng, shape + (4,)), -6, 6).astype(ml_dtypes.float4_e2m1fn)
    nib = vals.view(np.uint8).astype(np.uint16) & 0xF
    words = nib[..., 0] | (nib[..., 1] << 4) | (nib[..., 2] << 8) | (nib[..., 3] << 12)
    return words.astype(np.uint16), vals.astype(np.float64)


_PACK = {"fp8": (_fp8_words, nl.float8_e5m2_x4), "fp4": (_fp4_words, nl.float4_e2m1fn_x4)}


def _dequant(vals, scales):
    """[K, F, 4] values times 2^(scale - 127) of their 8-row group: scale row k // 8."""
    return vals * (2.0 ** (np.repeat(scales, 8, axis=0).astype(np.float64) - 127))[..., None]


def _check(got, want):
    assert got.shape == want.shape and got.dtype == ml_dtypes.bfloat16
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("kind", ["fp8", "fp4"])
def test_offline_quantized_mx_matmul(kernels, kind):
    k = kernels("mx_kernels.py")
    rng = np.random.default_rng(1)
    make, x4 = _PACK[kind]
    sw, sv = make(rng, (128, 128))
    mw, mv = make(rng, (128, 512))
    ss = rng.integers(124, 130, size=(16, 128)).astype(np.uint8)
    ms = rng.integers(124, 130, size=(16, 512)).astype(np.uint8)
    got = nki.simulate(k.kernel_offline_quantized_mx_matmul)(sw, ss, mw, ms, x4)
    _check(got, np.einsum("kmq,knq->mn", _dequant(sv, ss), _dequant(mv, ms)))
    assert nki.last_run().chip.name == "trn3"          # platform_target="trn3"


@pytest.mark.parametrize("stationary", ["fp4", "fp8"])
def test_on_device_quantize_matmul_mx(kernels, stationary):
    k = kernels("mx_kernels.py")
    rng = np.random.default_rng(2)
    make, x4 = _PACK[stationary]
    sw, sv = make(rng, (128, 128))
    ss = rng.integers(124, 130, size=(16, 128)).astype(np.uint8)
    moving = _stable(rng, (128, 2048))                  # quantized on the device (exactly, being stable)
    got = nki.simulate(k.kernel_on_device_quantize_matmul_mx)(sw, ss, moving.astype(ml_dtypes.bfloat16), x4,
                                                              nl.float8_e5m2_x4)
    _check(got, np.einsum("kmq,knq->mn", _dequant(sv, ss), moving.astype(np.float64).reshape(128, 512, 4)))


@pytest.mark.parametrize("use_tensor_copy", [True, False])
def test_copy_strided_quantize_matmul_mx(kernels, use_tensor_copy):
    k = kernels("mx_kernels.py")
    rng = np.random.default_rng(3)
    st, mv = _stable(rng, (512, 128)), _stable(rng, (512, 512))
    got = nki.simulate(k.kernel_copy_strided_quantize_matmul_mx)(
        st.astype(ml_dtypes.bfloat16), mv.astype(ml_dtypes.bfloat16), nl.float8_e5m2_x4, use_tensor_copy)
    _check(got, st.astype(np.float64).T @ mv.astype(np.float64))     # the tutorial's golden: st.T @ mv
    names = [e.name for e in nki.last_run().trace.events]
    assert names.count("nisa.quantize_mx") == 2 and names.count("nisa.nc_matmul_mx") == 1
