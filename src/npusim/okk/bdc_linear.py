"""okk_bdc_bias, okk_bdc_scale, okk_bdc_scale_bias: one MD_LINEAR instruction each (4 cycles per block).

The per-channel operand is a (1, C, 1, 1) tensor in the compact layout starting on the same NPU.
Numerics (differential probes): the linear unit computes ``fl(fl(x*s) + b)`` (unfused), so scale is
``fl(fl(x*s) + 0)`` (-0 becomes +0), bias ``fl(x + b)``; DAZ/FTZ like every BDC fp32 op. With any
stride pointer the call is a TENSOR_ARITH instruction (2 cycles per block) instead of MD_LINEAR (4):
scale becomes a plain ``fl(x*s)``, scale_bias two instructions (MUL, then ADD on dst).

``result_add``: the OKKernel docs give scale and scale_bias a trailing ``bool result_add``; okk.h has
none, and Sophgo's C-model (tpu-mlir 1.30.2) ignores a seventh/eighth argument (the destination is
overwritten either way). We follow the header and the C-model: there is no result_add parameter.
"""
from __future__ import annotations

import numpy as np

from . import cost, fp32
from .bdc_binary import elementwise, is_plain
from .fp32 import F32
from .nan_payload import keep_first_nan
from .layout import LANE, LocalTensor, compact_stride
from .rules import aligned, local_addr, same_npu, shape_bdc
from .types import as_dim4, dim4

_LIN = (cost.MD_LINEAR, cost.LINEAR)
_STRIDED = (cost.TENSOR_ARITH, cost.ARITH_SIMPLE)


def _per_channel(api, param, addr, dst_addr, shape):
    from .device import current
    local_addr(api, param, addr)
    aligned(api, param, addr, 4, f"{param} is divisible by 4")
    same_npu(api, dst_addr=dst_addr, **{param: addr})
    s = as_dim4(api, "shape", shape)
    shape_bdc(api, s)                        # before the per-channel operand is built and read
    q = int(addr) // LANE
    sh = dim4(1, s.c, 1, 1)
    return LocalTensor(current().local, api, param, addr, sh, compact_stride(None, q, sh), F32, 4)


# Finding 3: for a NaN pair the C-model keeps the tensor operand's NaN (x86 first-operand rule), whatever
# numpy's broadcast loop would pick.
def _mul(x, s):
    return keep_first_nan(fp32.mul(fp32.daz(x), s), x, s)


def _add(x, b):
    return keep_first_nan(fp32.add(fp32.daz(x), b), x, b)


def okk_bdc_bias(dst_addr, src_addr, bias_addr, shape, dst_stride=None, src_stride=None) -> None:
    """dst[n, c] = src[n, c] + bias[c]."""
    api = "okk_bdc_bias"
    b = _per_channel(api, "bias_addr", bias_addr, dst_addr, shape)
    bv = fp32.daz(b.read())
    elementwise(api, shape, dst_addr, {"src_addr": src_addr}, {"dst_addr": dst_stride, "src_addr": src_stride},
                lambda x: _add(x, bv), _LIN, _STRIDED)


def okk_bdc_scale(dst_addr, src_addr, scale_addr, shape, dst_stride=None, src_stride=None) -> None:
    """dst[n, c] = src[n, c] * scale[c]."""
    api = "okk_bdc_scale"
    s = _per_channel(api, "scale_addr", scale_addr, dst_addr, shape)
    sv = fp32.daz(s.read())
    strided = not is_plain({"d": dst_stride, "s": src_stride}, {"d": dst_addr, "s": src_addr})
    # MD_LINEAR adds a zero bias (so -0 becomes +0); the strided TENSOR_ARITH MUL does not
    elementwise(api, shape, dst_addr, {"src_addr": src_addr}, {"dst_addr": dst_stride, "src_addr": src_stride},
                (lambda x: _mul(x, sv)) if strided else (lambda x: fp32.add(_mul(x, sv), F32(0.0))), _LIN, _STRIDED)


def okk_bdc_scale_bias(dst_addr, src_addr, scale_addr, bias_addr, shape, dst_stride=None, src_stride=None) -> None:
    """dst[n, c] = src[n, c] * scale[c] + bias[c] (unfused)."""
    api = "okk_bdc_scale_bias"
    s = _per_channel(api, "scale_addr", scale_addr, dst_addr, shape)
    b = _per_channel(api, "bias_addr", bias_addr, dst_addr, shape)
    sv, bv = fp32.daz(s.read()), fp32.daz(b.read())
    if is_plain({"d": dst_stride, "s": src_stride}, {"d": dst_addr, "s": src_addr}):
        elementwise(api, shape, dst_addr, {"src_addr": src_addr}, {"dst_addr": None, "src_addr": None},
                    lambda x: _add(_mul(x, sv), bv), _LIN, _STRIDED)
        return
    # strided: two TENSOR_ARITH instructions, dst = src * scale, then dst = dst + bias
    elementwise(api, shape, dst_addr, {"src_addr": src_addr}, {"dst_addr": dst_stride, "src_addr": src_stride},
                lambda x: _mul(x, sv), _STRIDED, _STRIDED)
    elementwise(api, shape, dst_addr, {"src_addr": dst_addr}, {"dst_addr": dst_stride, "src_addr": dst_stride},
                lambda x: _add(x, bv), _STRIDED, _STRIDED)


__all__ = ["okk_bdc_bias", "okk_bdc_scale", "okk_bdc_scale_bias"]
