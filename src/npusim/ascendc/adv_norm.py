"""Row-wise advanced APIs: SoftMax (ND) and LayerNorm ([B, S, H]), with their host-side tmp-size helpers.

    SoftMax(dst, sumTensor, maxTensor, src[, sharedTmpBuffer], tiling, softmaxShapeInfo)   <T, isReuseSource,
    SoftMax(dst, src[, sharedTmpBuffer], tiling, softmaxShapeInfo)                          isBasicBlock, ...>
    LayerNorm(output, outputMean, outputVariance, inputX, gamma, beta[, sharedTmpBuffer], epsilon, tiling)

Vendor pages SoftMax.md, LayerNorm.md (asc-devkit 高阶API); minimum temporary space from
impl/adv_api/tiling/activation/softmax_tiling.cpp (2201: (32/sizeof(T) + srcK + 64)·4 bytes) and
normalization/layernorm_tiling_impl.cpp (3·align32(4H) + 2·align32(4·B·S) bytes; 2·align32(4H) + … for
float with isReuseSource).

SoftMax (ND): the [srcM, srcK] rows (srcK a multiple of 32 bytes; the first oriSrcK columns are data) are
computed in float (half cast up exactly): row max, x - max, Exp, row sum, division, rounded once to T
[A: the float path and a pairwise row sum; the vendor's internal reduction order is not published].
maxTensor / sumTensor hold each row's value repeated over one 32-byte block ([srcM, 32/sizeof]), as the
page's broadcast step says; T of sum/max may be float with half data. Columns past oriSrcK are left as
they were [A].
LayerNorm: per (b, s) row of H = hLength elements (originalHLength of them data), in float: mean = Σ x·(1/H),
variance = Σ (x - mean)²·(1/H), the sums pairwise (the page's 二分累加), output = (x - mean)·rsqrt(variance +
ε)·γ + β, rounded to T; mean and variance are stored as T [B·S].
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.errors import ConstraintError, UnsupportedError
from . import cost
from . import dtypes as T
from . import args as A
from .adv_common import check_template_t, check_tensors, read, split_args, tmp_footprint, ub_view
from .context import current
from .dtypes import asc_name
from .template import template
from .tiling import BEGIN_TILING_DATA_DEF, TILING_DATA_FIELD_DEF

_F32 = np.float32


@dataclass
class SoftMaxShapeInfo:
    srcM: int = 0
    srcK: int = 0
    oriSrcM: int = 0
    oriSrcK: int = 0


_U32 = T.uint32_t
# optiling::SoftMaxTiling and LayerNormTiling as the vendor defines them (include/adv_api/activation/
# softmax_tilingdata.h, normalization/layernorm_tilingdata.h), so tiling structs pack to the same bytes.
SoftMaxTiling = BEGIN_TILING_DATA_DEF("SoftMaxTiling", *(TILING_DATA_FIELD_DEF(_U32, n) for n in (
    "srcM", "srcK", "srcSize", "outMaxM", "outMaxK", "outMaxSize", "splitM", "splitK", "splitSize", "reduceM",
    "reduceK", "reduceSize", "rangeM", "tailM", "tailSplitSize", "tailReduceSize")))
LayerNormTiling = BEGIN_TILING_DATA_DEF("LayerNormTiling", *(TILING_DATA_FIELD_DEF(_U32, n) for n in (
    "bLength", "sLength", "hLength", "originalHLength", "inputXSize", "meanVarSize", "numberOfTmpBuf",
    "meanTmpTensorPos", "meanTmpTensorSize", "varianceTmpTensorPos", "varianceTmpTensorSize", "tmpBufSize",
    "oneTmpSize", "firstTmpStartPos", "secondTmpStartPos", "thirdTmpStartPos", "loopRound", "inputRoundSize",
    "inputTailSize", "inputTailPos", "meanVarRoundSize", "meanVarTailSize", "meanVarTailPos", "bshCurLength",
    "bsCurLength")), TILING_DATA_FIELD_DEF(T.float, "lastDimValueBack"))
# The computation reads only srcM/srcK (SoftMax) and bLength/sLength/hLength/originalHLength (LayerNorm);
# the other fields are the device's loop plan.


def GetSoftMaxMinTmpSize(srcShape, dataTypeSize: int, isReuseSource: bool = False) -> int:
    k = A.shape("GetSoftMaxMinTmpSize", "srcShape", srcShape)[-1]
    return (32 // A.type_size("GetSoftMaxMinTmpSize", "dataTypeSize", dataTypeSize) + k + 64) * 4


def GetSoftMaxMaxTmpSize(srcShape, dataTypeSize: int, isReuseSource: bool = False) -> int:
    srcShape = A.shape("GetSoftMaxMaxTmpSize", "srcShape", srcShape)
    dataTypeSize = A.type_size("GetSoftMaxMaxTmpSize", "dataTypeSize", dataTypeSize)
    m = int(np.prod(srcShape[:-1])) if len(srcShape) > 1 else 1
    k = int(srcShape[-1])
    return (m * (32 // int(dataTypeSize) + k) + 64) * 4     # [A] room for every row at once


def SoftMaxTilingFunc(srcShape, dataTypeSize: int, localWorkSpaceSize: int = 0) -> SoftMaxTiling:
    srcShape = A.shape("SoftMaxTilingFunc", "srcShape", srcShape)
    A.type_size("SoftMaxTilingFunc", "dataTypeSize", dataTypeSize)
    A.as_int("SoftMaxTilingFunc", "localWorkSpaceSize", localWorkSpaceSize, 0, 2 ** 32 - 1)
    m = int(np.prod(srcShape[:-1])) if len(srcShape) > 1 else 1
    return SoftMaxTiling(srcM=m, srcK=int(srcShape[-1]), srcSize=m * int(srcShape[-1]))


def _align32(n: int) -> int:
    return -(-n // 32) * 32


def GetLayerNormMinTmpSize(srcShape, typeSize: int, isReuseSource: bool = False) -> int:
    b, s, h = A.shape("GetLayerNormMinTmpSize", "srcShape", srcShape, 3)[:3]
    typeSize = A.type_size("GetLayerNormMinTmpSize", "typeSize", typeSize)
    k = 2 if (isReuseSource and typeSize == 4) else 3
    return k * _align32(h * 4) + 2 * _align32(b * s * 4)


def GetLayerNormMaxTmpSize(srcShape, typeSize: int, isReuseSource: bool = False) -> int:
    b, s, h = A.shape("GetLayerNormMaxTmpSize", "srcShape", srcShape, 3)[:3]
    typeSize = A.type_size("GetLayerNormMaxTmpSize", "typeSize", typeSize)
    k = 2 if (isReuseSource and typeSize == 4) else 3
    return k * _align32(b * s * h * 4) + 2 * _align32(b * s * 4)


def _pairwise(x: np.ndarray) -> np.ndarray:
    """Row sums by folding halves in float32 (the tail of a non-power-of-two row added onto the head first)."""
    x = x.astype(_F32)
    n = x.shape[-1]
    p = 1 << max(n - 1, 0).bit_length() if n > 1 else 1
    if p > n:
        p //= 2
    if n > p:
        head = x[..., :p].copy()
        head[..., :n - p] += x[..., p:]
        x = head
    while x.shape[-1] > 1:
        h = x.shape[-1] // 2
        x = x[..., :h] + x[..., h:]
    return x[..., 0]


def _rows_view(t, m, k, api):
    return ub_view(t, (m, k), (k * t.dtype.itemsize, t.dtype.itemsize), api)


_SOFTMAX_ARCH = (2201, 2002)


@template("T", "isReuseSource", "isBasicBlock", "isDataFormatNZ")
def SoftMax(*args, T=None, isReuseSource=False, isBasicBlock=False, isDataFormatNZ=False, config=None) -> None:
    api = "SoftMax"
    ctx = current()
    if ctx.soc.arch not in _SOFTMAX_ARCH + (3002,):          # SoftMax.md: also Atlas 200I/500 A2
        raise UnsupportedError(api, f"{api} on {ctx.soc.name}", "A2/A3, 310B and Atlas inference AI Core only")
    if isDataFormatNZ:
        raise UnsupportedError(api, "isDataFormatNZ", "npusim models the ND format")
    args = list(args)
    shape = args.pop() if args and isinstance(args[-1], SoftMaxShapeInfo) else None
    tiling = args.pop() if args and isinstance(args[-1], SoftMaxTiling) else None
    tmp = args.pop() if len(args) in (3, 5) else None
    if len(args) == 4:
        dst, s_t, m_t, src = args
    elif len(args) == 2:
        (dst, src), s_t, m_t = args, None, None
    else:
        raise ConstraintError(api, "arguments", "(dst, sum, max, src[, tmp], tiling, shapeInfo) or (dst, src[, tmp], "
                              "tiling, shapeInfo)", len(args))
    check_tensors(api, ctx, (_half(), _float()), dstTensor=dst, srcTensor=src)
    check_template_t(api, T, src)
    if dst.dtype is not src.dtype:
        raise ConstraintError(api, "dstTensor", "dst and src have the same T", (asc_name(dst.dtype), asc_name(src.dtype)))
    if shape is None or not shape.srcK:
        if tiling is None or not tiling.srcK:
            raise ConstraintError(api, "softmaxShapeInfo", "the [srcM, srcK] shape (SoftMaxShapeInfo or the tiling)",
                                  shape)
        shape = SoftMaxShapeInfo(tiling.srcM, tiling.srcK, tiling.srcM, tiling.srcK)
    m, k = int(shape.srcM), int(shape.srcK)
    ok = int(shape.oriSrcK) or k
    s = src.dtype.itemsize
    if (k * s) % 32:
        raise ConstraintError(api, "srcK", "srcK * sizeof(T) is a multiple of 32 bytes (the last axis is aligned)", k)
    if not 0 < ok <= k:
        raise ConstraintError(api, "oriSrcK", f"0 < oriSrcK <= srcK = {k}", ok)
    for name, t in (("srcTensor", src), ("dstTensor", dst)):
        if m * k > t.size:
            raise ConstraintError(api, name, f"srcM * srcK = {m * k} elements fit in the tensor ({t.size})", t.size)
    fps = []
    for name, t in (("sumTensor", s_t), ("maxTensor", m_t)):
        if t is not None:
            check_tensors(api, ctx, (_half(), _float()), **{name: t})
            if t.dtype is not src.dtype and t.dtype is not _float():
                raise ConstraintError(api, name, "the dtype of src, or float", asc_name(t.dtype))
            if m * (32 // t.dtype.itemsize) > t.size:
                raise ConstraintError(api, name, f"[srcM, 32 / sizeof] = {m * 32 // t.dtype.itemsize} elements",
                                      t.size)
    tmp_fp = tmp_footprint(api, ctx, tmp, GetSoftMaxMinTmpSize((m, k), s), dst, src)
    xv = _rows_view(src, m, k, api)
    x = xv.read(api)[:, :ok].astype(_F32)
    mx = x.max(axis=1)
    e = _exp_f32(ctx, x - mx[:, None])
    sm = _pairwise(e)
    y = e / sm[:, None]
    dv = _rows_view(dst, m, k, api)
    out = dv.array().copy()
    out[:, :ok] = _to(ctx, y, dst.dtype)
    dv.write(out, where=_cols(m, k, ok))
    for t, v in ((s_t, sm), (m_t, mx)):
        if t is not None:
            per = 32 // t.dtype.itemsize
            bv = _rows_view(t, m, per, api)
            bv.write(np.repeat(_to(ctx, v, t.dtype)[:, None], per, axis=1))
            fps.append(bv.footprint)
    r = max(1, -(-m * k * 4 // 256))
    cycles = (2 * cost.vector_cycles("reduce_maxmin", r, "float32") + cost.vector_cycles("two", r)
              + cost.vector_cycles("exp_ln", r, "float32") + cost.vector_cycles("div", r, "float32")
              + (2 * cost.vector_cycles("one", r) if s == 2 else 0))
    ctx.place("PIPE_V", api, cycles, reads=[xv.footprint], writes=[dv.footprint, tmp_fp, *fps],
              nbytes=2 * m * k * s, elements=m * k, args={"srcM": m, "srcK": k})


def _half():
    return T.half


def _float():
    return T.float


def _cols(m, k, ok):
    w = np.zeros((m, k), bool)
    w[:, :ok] = True
    return w


def _exp_f32(ctx, x):
    from .vector_unary import SPECS
    return SPECS["Exp"].fn(ctx, T.float, None)(x.astype(_F32)).astype(_F32)


def _to(ctx, x, d):
    from .vector_binary import to
    return to(ctx, np.asarray(x, _F32), d)


@template("T", "isReuseSource")
def LayerNorm(output, outputMean, outputVariance, inputX, gamma, beta, *args, T=None, isReuseSource=False) -> None:
    api = "LayerNorm"
    ctx = current()
    if ctx.soc.arch not in _SOFTMAX_ARCH:
        raise UnsupportedError(api, f"{api} on {ctx.soc.name}", "A2/A3 and Atlas inference AI Core only")
    tmp, rest = split_args(args)
    if len(rest) != 2 or not isinstance(rest[1], LayerNormTiling):
        raise ConstraintError(api, "arguments", "(..., beta[, sharedTmpBuffer], epsilon, LayerNormTiling)", len(rest))
    epsilon, tiling = rest
    tensors = dict(output=output, outputMean=outputMean, outputVariance=outputVariance, inputX=inputX, gamma=gamma,
                   beta=beta)
    check_tensors(api, ctx, (_half(), _float()), **tensors)
    check_template_t(api, T, inputX)
    for name, t in tensors.items():
        if t.dtype is not inputX.dtype:
            raise ConstraintError(api, name, "every tensor has inputX's T", asc_name(t.dtype))
    b, sl, h = int(tiling.bLength), int(tiling.sLength), int(tiling.hLength)
    oh = int(tiling.originalHLength) or h
    s = inputX.dtype.itemsize
    if (h * s) % 32:
        raise ConstraintError(api, "hLength", "hLength * sizeof(T) is a multiple of 32 bytes", h)
    if not 0 < oh <= h or b <= 0 or sl <= 0:
        raise ConstraintError(api, "tiling", "bLength, sLength > 0 and 0 < originalHLength <= hLength", tiling)
    rows = b * sl
    for name, t, need in (("inputX", inputX, rows * h), ("output", output, rows * h), ("gamma", gamma, h),
                          ("beta", beta, h), ("outputMean", outputMean, rows), ("outputVariance", outputVariance, rows)):
        if need > t.size:
            raise ConstraintError(api, name, f"{need} elements fit in the tensor", t.size)
    tmp_fp = tmp_footprint(api, ctx, tmp, GetLayerNormMinTmpSize((b, sl, h), s, isReuseSource), output, inputX)
    xv = _rows_view(inputX, rows, h, api)
    x = xv.read(api)[:, :oh].astype(_F32)
    g, gv = read(api, gamma, h)
    bt, bv = read(api, beta, h)
    inv = _F32(1.0) / _F32(oh)
    mean = _pairwise(x * inv)
    d = x - mean[:, None]
    var = _pairwise(d * d * inv)
    rstd = _F32(1.0) / np.sqrt(var + _F32(epsilon), dtype=_F32)
    y = d * rstd[:, None] * g[:oh].astype(_F32) + bt[:oh].astype(_F32)
    ov = _rows_view(output, rows, h, api)
    full = ov.array().copy()
    full[:, :oh] = _to(ctx, y, output.dtype)
    ov.write(full, where=_cols(rows, h, oh))
    mv = ub_view(outputMean, (rows,), None, api)
    vv = ub_view(outputVariance, (rows,), None, api)
    mv.write(_to(ctx, mean, outputMean.dtype))
    vv.write(_to(ctx, var, outputVariance.dtype))
    r = max(1, -(-rows * h * 4 // 256))
    cycles = (2 * cost.vector_cycles("reduce_sum", r, "float32") + 6 * cost.vector_cycles("two", r)
              + cost.vector_cycles("one", r) + (2 * cost.vector_cycles("one", r) if s == 2 else 0))
    ctx.place("PIPE_V", api, cycles, reads=[xv.footprint, gv.footprint, bv.footprint],
              writes=[ov.footprint, mv.footprint, vv.footprint, tmp_fp], nbytes=2 * rows * h * s, elements=rows * h)


@template("T1", "T2", "isDataFormatNZ")
def AdjustSoftMaxRes(softMaxRes, maxTensor, frm, to, softmaxShapeInfo: SoftMaxShapeInfo, *, T1=None, T2=None,
                     isDataFormatNZ=False) -> bool:
    """``AdjustSoftMaxRes<T1, T2>(softMaxRes, maxTensor, from, to, shapeInfo) -> bool``: every row whose max
    (maxTensor[row · 32/sizeof(T2)], compared by its bits with ``from``, a uint32_t/uint16_t pattern) equals
    ``from`` gets ``to`` in all srcK columns; returns whether any row did (AdjustSoftMaxRes.md)."""
    api = "AdjustSoftMaxRes"
    ctx = current()
    if ctx.soc.arch not in _SOFTMAX_ARCH:
        raise UnsupportedError(api, f"{api} on {ctx.soc.name}", "A2/A3 and Atlas inference AI Core only")
    check_tensors(api, ctx, (_half(), _float()), softMaxRes=softMaxRes)
    check_tensors(api, ctx, (_half(), _float()), maxTensor=maxTensor)
    if not hasattr(softmaxShapeInfo, "srcM") or not hasattr(softmaxShapeInfo, "srcK"):
        raise ConstraintError(api, "softmaxShapeInfo", "a SoftMaxShapeInfo", softmaxShapeInfo)
    m = A.as_int(api, "softmaxShapeInfo.srcM", softmaxShapeInfo.srcM, 0, 2 ** 32 - 1)
    k = A.as_int(api, "softmaxShapeInfo.srcK", softmaxShapeInfo.srcK, 0, 2 ** 32 - 1)
    frm = A.as_int(api, "from", frm)
    per = 32 // maxTensor.dtype.itemsize
    if m * per > maxTensor.size or m * k > softMaxRes.size:
        raise ConstraintError(api, "softmaxShapeInfo", "[srcM, srcK] fits the tensors", (m, k))
    mv = _rows_view(maxTensor, m, per, api)
    bits = mv.read(api)[:, 0].view(np.uint32 if per == 8 else np.uint16)
    hit = bits == (int(frm) & (0xFFFFFFFF if per == 8 else 0xFFFF))
    rv = _rows_view(softMaxRes, m, k, api)
    if hit.any():
        vals = rv.array().copy()
        vals[hit] = _to(ctx, np.float32(to), softMaxRes.dtype)
        rv.write(vals, where=np.repeat(hit[:, None], k, 1))
    r = max(1, -(-m * k * softMaxRes.dtype.itemsize // 256))
    ctx.place("PIPE_V", api, 2 * cost.vector_cycles("one", r), reads=[mv.footprint, rv.footprint],
              writes=[rv.footprint], nbytes=m * k * softMaxRes.dtype.itemsize, elements=m * k)
    return bool(hit.any())
