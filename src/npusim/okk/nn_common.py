"""Shared pieces of the NN BDC functions (conv2d, depthwise2d, avg/max pool): the documented limits
(reference §3, S1 fp32_nn docs), Padding / dim2 arguments (NULL means no padding, 1), output sizes,
and the padded input as numpy slices per kernel tap."""
from __future__ import annotations

import numpy as np

from ..core.errors import ConstraintError
from . import fp32, rules
from .fp32 import F32
from .types import Padding, dim2

MAX_HW = 2047        # H/W, padded H/W and output H/W are at most 2047
MAX_PAD = 15         # pads in [0, 15]
MAX_STRIDE = 15      # strides and dilations in [1, 15]


def padding_arg(api: str, p) -> tuple[int, int, int, int]:
    if p is None:
        return 0, 0, 0, 0
    if not isinstance(p, Padding):
        raise ConstraintError(api, "padding", "a Padding (top, bottom, left, right) or None", p)
    vals = (p.top, p.bottom, p.left, p.right)
    for name, v in zip(("top", "bottom", "left", "right"), vals):
        if not (isinstance(v, (int, np.integer)) and 0 <= v <= MAX_PAD):
            raise ConstraintError(api, f"padding->{name}", "pads are in [0, 15]", v)
    return tuple(int(v) for v in vals)


def dim2_arg(api: str, name: str, d) -> tuple[int, int]:
    if d is None:
        return 1, 1
    if not isinstance(d, dim2):
        raise ConstraintError(api, name, "a dim2 (h, w) or None", d)
    for f in ("h", "w"):
        v = getattr(d, f)
        if not (isinstance(v, (int, np.integer)) and 1 <= v <= MAX_STRIDE):
            raise ConstraintError(api, f"{name}->{f}", f"{name} values are in [1, 15]", v)
    return int(d.h), int(d.w)


def kernel_arg(api: str, name: str, k) -> int:
    if not (isinstance(k, (int, np.integer)) and 1 <= k <= MAX_HW):
        raise ConstraintError(api, name, f"{name} is in [1, 2047]", k)
    return int(k)


def out_size(api: str, h: int, w: int, kh: int, kw: int, pad, stride, dil) -> tuple[int, int]:
    pt, pb, pl, pr = pad
    for name, v in (("input_shape->h", h), ("input_shape->w", w)):
        if v > MAX_HW:
            raise ConstraintError(api, name, "H and W are at most 2047", v)
    if h + pt + pb > MAX_HW or w + pl + pr > MAX_HW:
        raise ConstraintError(api, "padding", "padded H and W are at most 2047", (h + pt + pb, w + pl + pr))
    ekh, ekw = (kh - 1) * dil[0] + 1, (kw - 1) * dil[1] + 1
    if ekh > h + pt + pb or ekw > w + pl + pr:
        raise ConstraintError(api, "kernel", "the dilated kernel fits in the padded input",
                              ((ekh, ekw), (h + pt + pb, w + pl + pr)))
    oh = (h + pt + pb - ekh) // stride[0] + 1
    ow = (w + pl + pr - ekw) // stride[1] + 1
    if oh > MAX_HW or ow > MAX_HW:
        raise ConstraintError(api, "output", "output H and W are at most 2047", (oh, ow))
    return oh, ow


def padded(x: np.ndarray, pad, value) -> np.ndarray:
    pt, pb, pl, pr = pad
    if not any(pad):
        return x
    n, c, h, w = x.shape
    out = np.full((n, c, h + pt + pb, w + pl + pr), value, F32)
    out[:, :, pt:pt + h, pl:pl + w] = x
    return out


def daz_padded(x: np.ndarray, pad) -> np.ndarray:
    """``padded(fp32.daz(x), pad, 0.0)`` with one copy instead of two: the zero border is its own DAZ,
    so the padded copy is flushed in place."""
    if not any(pad):
        return fp32.daz(x)
    return fp32.ftz_(padded(x, pad, 0.0))


def tap(xp: np.ndarray, i: int, j: int, oh: int, ow: int, stride, dil) -> np.ndarray:
    """The (N, C, OH, OW) input values kernel tap (i, j) multiplies."""
    sh, sw = stride
    r0, c0 = i * dil[0], j * dil[1]
    return xp[:, :, r0:r0 + sh * (oh - 1) + 1:sh, c0:c0 + sw * (ow - 1) + 1:sw]


def check_addrs(api: str, align: dict, same: dict) -> None:
    for name, (a, al) in align.items():
        rules.local_addr(api, name, a)
        rules.aligned(api, name, a, al, f"{name} is divisible by {al}")
    if len(same) > 1:
        rules.same_npu(api, **same)
