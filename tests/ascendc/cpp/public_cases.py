"""Drivers for the public cann-ops kernels kept verbatim in tests/ascendc/public/: for each, the defines the
op's build would set, the inputs, the tiling its host code would compute for our sizes (every block a
"small core", no tail: tailBlockNum = 0, TILING_KEY 0 where the kernel switches on a big core), and an
independent numpy reference."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

PUBLIC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "public")
BLOCKS, N, TILE = 4, 2048, 512          # elements per block, elements per tile


def kernel_path(op: str) -> str:
    return os.path.join(PUBLIC, op, "op_kernel", f"{op}.cpp")


def tiling_a(**extra):
    """The smallCoreDataNum / finalSmallTileNum / tileDataNum family."""
    t = dict(smallCoreDataNum=N, bigCoreDataNum=N, finalBigTileNum=N // TILE, finalSmallTileNum=N // TILE,
             tileDataNum=TILE, smallTailDataNum=TILE, bigTailDataNum=TILE, tailBlockNum=0)
    t.update(extra)
    return t


def tiling_b(**extra):
    """The ubPartDataNum / smallCoreLoopNum family."""
    t = dict(smallCoreDataNum=N, bigCoreDataNum=N, ubPartDataNum=TILE, smallCoreTailDataNum=TILE,
             bigCoreTailDataNum=TILE, smallCoreLoopNum=N // TILE, bigCoreLoopNum=N // TILE, tailBlockNum=0,
             TILING_KEY=0)
    t.update(extra)
    return t


@dataclass
class Case:
    op: str
    inputs: Callable[[np.random.Generator], list]        # rng -> input arrays
    out_dtype: object
    tiling: dict
    reference: Callable                                   # *inputs -> expected output
    defines: dict = field(default_factory=lambda: {"DTYPE_X": "float", "DTYPE_Y": "float"})
    rtol: float = 0.0
    atol: float = 0.0
    n_out: int = BLOCKS * N
    name: str = ""                   # the case's name when one op has several (dtype) cases
    blocks: int = BLOCKS
    workspace: int = 0               # bytes of a GM workspace passed after the output (0: a null pointer)
    inplace: bool = False            # the kernel overwrites its one input (the output is inputs[0])


def _f32(rng, lo=-4.0, hi=4.0):
    return rng.uniform(lo, hi, BLOCKS * N).astype(np.float32)


F = np.float32
CASES = {c.name or c.op: c for c in [
    Case("add_custom", lambda r: [r.integers(-128, 128, BLOCKS * N).astype(np.int8),
                                  r.integers(-128, 128, BLOCKS * N).astype(np.int8)], np.int8, tiling_b(),
         lambda x, y: (x.astype(np.int16) + y).astype(np.int8),          # wraps, as the int16 shift pair does
         {"DTYPE_X": "int8_t", "DTYPE_Y": "int8_t", "DTYPE_Z": "int8_t"}, name="add_custom[int8]"),
    Case("add_custom", lambda r: [_f32(r), _f32(r)], F, tiling_b(),
         lambda x, y: x + y, {"DTYPE_X": "float", "DTYPE_Y": "float", "DTYPE_Z": "float"}),
    Case("sqrt", lambda r: [_f32(r, 0, 100)], F, tiling_a(), np.sqrt),
    Case("rsqrt", lambda r: [_f32(r, 0.01, 100)], F, tiling_a(), lambda x: F(1) / np.sqrt(x)),
    Case("reciprocal", lambda r: [_f32(r, 0.5, 9)], F, tiling_b(), lambda x: F(1) / x),
    Case("exp", lambda r: [_f32(r, -3, 3)], F, tiling_b(base=1.0, scale=0.5, shift=0.25),
         lambda x: np.exp((x.astype(np.float64) * 0.5 + 0.25)).astype(F), rtol=1e-6),
    Case("swish", lambda r: [_f32(r)], F, tiling_a(scale=1.5),
         lambda x: (x / (1 + np.exp(-1.5 * x.astype(np.float64)))).astype(F), rtol=1e-6),
    Case("neg", lambda r: [_f32(r)], F, tiling_b(), lambda x: -x),
    Case("lerp", lambda r: [_f32(r), _f32(r), _f32(r, 0, 1)], F, tiling_b(),
         lambda s, e, w: w * (e - s) + s,
         defines={"DTYPE_START": "float", "DTYPE_END": "float", "DTYPE_WEIGHT": "float", "DTYPE_Y": "float"}),
    Case("fill", lambda r: [np.array([BLOCKS * N], np.int64), np.array([2.5], F)], F, tiling_b(),
         lambda dims, v: np.full(BLOCKS * N, 2.5, F), {"DTYPE_VALUE": "float", "DTYPE_Y": "float"}),
    Case("addcmul", lambda r: [_f32(r), _f32(r), _f32(r), np.array([0.75], F)], F, tiling_a(TILING_KEY=0),
         lambda i, a, b, v: a * b * F(0.75) + i, {"DTYPE_X1": "float"}),
    Case("addcdiv", lambda r: [_f32(r), _f32(r), _f32(r, 0.5, 4), np.array([0.75], F)], F, tiling_a(TILING_KEY=0),
         lambda i, a, b, v: a / b * F(0.75) + i, {"DTYPE_X1": "float"}),
]}

ROWS = 2            # rows per block of pre_layer_norm (its lastDim == 2048 path: one row per tile)


def _layer_norm(x, y, gamma, beta, eps=1e-5):
    s = x.astype(np.float64) + y
    mean = s.mean(axis=-1, keepdims=True)
    var = ((s - mean) ** 2).mean(axis=-1, keepdims=True)
    return ((s - mean) / np.sqrt(var + eps) * gamma + beta).reshape(-1)


CASES["pre_layer_norm"] = Case(
    "pre_layer_norm",
    lambda r: [r.standard_normal((BLOCKS * ROWS, 2048)).astype(F), r.standard_normal((BLOCKS * ROWS, 2048)).astype(F),
               r.uniform(0.5, 1.5, 2048).astype(F), r.uniform(-1, 1, 2048).astype(F)],
    F, dict(lastDim=2048, tileNum=ROWS, epsilon=1e-5, TILING_KEY=1), _layer_norm, {}, rtol=1e-5, atol=1e-5,
    n_out=BLOCKS * ROWS * 2048)

CASES["equal"] = Case(
    "equal", lambda r: [np.round(_f32(r, -2, 2)), np.round(_f32(r, -2, 2))], np.int8,
    tiling_a(bigprocessDataNum_computes=TILE, smallprocessDataNum_computes=TILE,
             tailbigprocessDataNum_computes=TILE, tailsmallprocessDataNum_computes=TILE),
    lambda a, b: (a == b).astype(np.int8), {"DTYPE_X1": "float"})


def tiling_c():
    """The totalLength / block_size / core_size family (ALIGN_NUM: elements per 32 bytes of float)."""
    return dict(totalLength=BLOCKS * N, tileNum=N // TILE, ALIGN_NUM=8, tiling_size=TILE, block_size=TILE,
                aivNum=BLOCKS, core_size=N, core_remain=0)


def _gelu(x):
    """The kernel's own float32 sequence: x / (1 + exp(p2 * (x + p1 * x^3))), exp rounded once."""
    p1, p2 = F(0.0455399241), F(-1.595769122)
    t = (x * x * x * p1 + x) * p2
    return x / (np.exp(t.astype(np.float64)).astype(F) + F(1))


def _fast_gelu(x):
    """x / (1 + exp(-1.702 |x|)) + min(x, 0) (cann-ops fast_gelu's formulation, float32 steps)."""
    a = np.abs(x)
    return a / (np.exp((a * F(-1.702)).astype(np.float64)).astype(F) + F(1)) + np.minimum(x, F(0))


FORMER, TAIL = 2, 2        # sub_frameworklaunch: 2 blocks of 2048 halves, 2 of 1024
CASES.update({c.name or c.op: c for c in [
    Case("sub_frameworklaunch", lambda r: [r.uniform(-8, 8, FORMER * N + TAIL * N // 2).astype(np.float16),
                                           r.uniform(-8, 8, FORMER * N + TAIL * N // 2).astype(np.float16)],
         np.float16, dict(formerNum=FORMER, tailNum=TAIL, formerLength=N, tailLength=N // 2, alignNum=16, TILING_KEY=1),
         lambda x, y: x - y, {}, n_out=FORMER * N + TAIL * N // 2),
    Case("unalign_add", lambda r: [_f32(r), _f32(r)], F, dict(totalLength=BLOCKS * N, tileNum=4),
         lambda x, y: x + y, {"DTYPE_X": "float", "DTYPE_Y": "float", "DTYPE_Z": "float"}),
    Case("gelu", lambda r: [_f32(r)], F, tiling_c(), _gelu, {"DTYPE_X": "float"}),
    Case("fast_gelu", lambda r: [_f32(r)], F, tiling_c(), _fast_gelu),
    Case("clip_by_value", lambda r: [_f32(r), np.array([-1.25], F), np.array([2.5], F)], F, tiling_c(),
         lambda x, lo, hi: np.maximum(np.minimum(x, hi[0]), lo[0]),
         {"DTYPE_X": "float", "DTYPE_Y": "float", "DTYPE_CLIP_VALUE_MIN": "float", "DTYPE_CLIP_VALUE_MAX": "float"}),
]})


def _half_pairs(r):
    """Half inputs where a quarter of the pairs are equal (the comparison's edge)."""
    a = r.uniform(-4, 4, BLOCKS * N).astype(np.float16)
    b = r.uniform(-4, 4, BLOCKS * N).astype(np.float16)
    same = r.random(BLOCKS * N) < 0.25
    b[same] = a[same]
    return [a, b]


CASES["greater"] = Case(                      # cann-ops src/contrib/math/greater (its folder is contrib)
    "greater", _half_pairs, np.int8, tiling_b(), lambda a, b: (a > b).astype(np.int8),
    {"DTYPE_X1": "half", "DTYPE_X2": "half", "DTYPE_Y": "int8_t"})


def _muls_case(key: int, dtype, make, reference):
    """cann-ops muls picks the element type by TILING_KEY (0 bf16, 1 half, 2 float, 3 int16, 4 int32, ...):
    one compiled library, several dtypes; the scalar is a float in GM."""
    name = f"muls[{np.dtype(dtype).name}]"
    return Case("muls", lambda r: [make(r), np.array([-1.25], F)], dtype, tiling_b(IsExistBigCore=0, TILING_KEY=key),
                reference, {}, name=name)


for _c in [
    _muls_case(2, F, _f32, lambda x, v: x * F(-1.25)),
    _muls_case(1, np.float16, lambda r: _f32(r).astype(np.float16), lambda x, v: x * np.float16(-1.25)),
    _muls_case(4, np.int32, lambda r: r.integers(-10**6, 10**6, BLOCKS * N).astype(np.int32),
               lambda x, v: np.rint(x.astype(F) * F(-1.25)).astype(np.int32)),
    _muls_case(3, np.int16, lambda r: r.integers(-20000, 20000, BLOCKS * N).astype(np.int16),
               lambda x, v: np.clip(np.rint(x.astype(F) * F(-1.25)), -32768, 32767).astype(np.int16)),
]:
    CASES[_c.name] = _c

CASES["logical_not"] = Case(                  # bool tensors as int8 0/1 (and other non-zero values)
    "logical_not", lambda r: [(r.integers(0, 2, BLOCKS * N) * r.integers(1, 100, BLOCKS * N)).astype(np.int8)],
    np.int8, tiling_b(), lambda x: (x == 0).astype(np.int8), {})

CASES["logical_or"] = Case(                   # bool tensors as int8 0/1
    "logical_or", lambda r: [r.integers(0, 2, BLOCKS * N).astype(np.int8), r.integers(0, 2, BLOCKS * N).astype(np.int8)],
    np.int8, tiling_b(), lambda a, b: a | b, {})


# ---- kernels that needed the issue-16 APIs or auto-sync (same cann-ops commit) ----

def _ge_tiling():
    """greater_equal / less_equal: totalLength, tiles per block and their lengths (mean = end: no tail)."""
    return dict(totalLength=BLOCKS * N, tileNumMean=N // TILE, tileNumEnd=N // TILE, tileLengthMean=TILE,
                tileLengthEnd=TILE, blockLengthMean=N, blockLengthEnd=N)


def _less_tiling(key):
    return tiling_b(isTailBlock=0, bigprocessDataNumComputes=TILE, smallprocessDataNumComputes=TILE,
                    tailbigprocessDataNumComputes=TILE, tailsmallprocessDataNumComputes=TILE, TILING_KEY=key)


def _cmp(name, op, dtype, tiling, ref):
    d = {np.float32: "float", np.float16: "half", np.int32: "int32_t"}[dtype]
    def make(r):
        if dtype is np.int32:
            a = r.integers(-50, 50, BLOCKS * N).astype(np.int32)
            b = r.integers(-50, 50, BLOCKS * N).astype(np.int32)
            return [a, b]
        a, b = _half_pairs(r)
        return [a.astype(dtype), b.astype(dtype)]
    return Case(op, make, np.int8, tiling, lambda a, b: ref(a, b).astype(np.int8),
                {"DTYPE_X1": d, "DTYPE_X2": d, "DTYPE_Y": "int8_t"}, name=f"{op}[{np.dtype(dtype).name}]")


for _c in [
    _cmp("ge", "greater_equal", np.float32, _ge_tiling(), np.greater_equal),
    _cmp("ge", "greater_equal", np.float16, _ge_tiling(), np.greater_equal),
    _cmp("ge", "greater_equal", np.int32, _ge_tiling(), np.greater_equal),
    _cmp("le", "less_equal", np.float32, _ge_tiling(), np.less_equal),
    _cmp("le", "less_equal", np.float16, _ge_tiling(), np.less_equal),
    _cmp("lt", "less", np.float32, _less_tiling(1), np.less),
    _cmp("lt", "less", np.float16, _less_tiling(1), np.less),
]:
    CASES[_c.name] = _c


def _xlogy_tiling(total):
    """xlogy runs on one core over the whole array; same shapes (no broadcast)."""
    shape = [0] * 128
    shape[0] = shape[64] = total
    full = [0] * 64
    full[0] = total
    return dict(CoreDataNum=total, finalTileNum=total // TILE, tileDataNum=TILE, TailDataNum=TILE,
                x1_length=total, x2_length=total, numshapes=1, shape=shape, shapefull=full)


def _xlogy(x, y):
    """x * log(y), 0 where x == 0 (float32 steps: Ln, then the two multiplications)."""
    ln = np.log(y.astype(np.float64)).astype(F)
    return np.where(x == 0, F(0), ln * x)


def _xlogy_inputs(r):
    x = _f32(r, -3, 3)
    x[r.random(x.size) < 0.2] = 0
    return [x, _f32(r, 0.01, 10)]


CASES["xlogy"] = Case("xlogy", _xlogy_inputs, F, _xlogy_tiling(BLOCKS * N), _xlogy,
                      {"DTYPE_X1": "float", "DTYPE_X2": "float", "DTYPE_Y": "float"}, rtol=2e-6, atol=1e-6, blocks=1)


def _tanh(x):
    """The vendor's float sequence: clip to +-8.8, e = exp(2x), (e - 1) / (e + 1), each step in float32."""
    c = np.clip(x.astype(F), F(-8.8), F(8.8)) * F(2)
    e = np.exp(c.astype(np.float64)).astype(F)
    return ((e - F(1)) / (e + F(1))).astype(x.dtype)


CASES.update({c.name or c.op: c for c in [
    Case("tanh", lambda r: [_f32(r, -6, 6)], F, tiling_a(), _tanh, {"DTYPE_X": "float", "DTYPE_Y": "float"},
         rtol=1e-6, atol=1e-7, name="tanh[float32]"),
]})


def _msma_tiling():
    """mul_sigmoid_mul_add_custom: TILE-element tiles, the same number per block (no front/latter split)."""
    tiles = BLOCKS * N // TILE
    return dict(totalLen=BLOCKS * N, blockDim=BLOCKS, completeTileNum=tiles, partTileNum=0, completeTileLen=TILE,
                partTileLen=TILE, totalTileNum=tiles, frontBlockNum=BLOCKS, latterBlockNum=0,
                tileNumInFrontBlock=tiles // BLOCKS, tileNumInLatterBlock=tiles // BLOCKS)


H = np.float16


def _msma(x, s1, s2, s3):
    """sigmoid(x * s1) * s2 + s3 in half steps (Sigmoid: Muls(-1), Exp, Adds(1), 1 / y, each rounded to half)."""
    y = (x * s1[0]).astype(H)
    e = np.exp(-y.astype(np.float64)).astype(H)
    sg = (H(1) / (e + H(1)).astype(H)).astype(H)
    return ((sg * s2[0]).astype(H) + s3[0]).astype(H)


# Not in CASES: npusim reports a documented rule this kernel breaks (test_public_kernels.py).
MUL_SIGMOID_MUL_ADD = Case(
    "mul_sigmoid_mul_add_custom",
    lambda r: [r.uniform(-4, 4, BLOCKS * N).astype(H), np.array([1.5], H), np.array([0.75], H), np.array([-0.25], H)],
    H, _msma_tiling(), _msma, {}, rtol=2e-3, atol=2e-3)


def _isfinite_tiling():
    return dict(usableUbSize=4096, needCoreNum=BLOCKS, totalDataCount=BLOCKS * N, perCoreDataCount=N,
                tailDataCoreNum=0, lastCoreDataCount=N, TILING_KEY=1)


def _isfinite_inputs(r):
    x = r.uniform(-60000, 60000, BLOCKS * N).astype(H)
    x[r.random(x.size) < 0.1] = np.inf
    x[r.random(x.size) < 0.1] = -np.inf
    x[r.random(x.size) < 0.1] = np.nan
    return [x]


CASES["is_finite"] = Case("is_finite", _isfinite_inputs, np.uint8, _isfinite_tiling(),
                          lambda x: np.isfinite(x).astype(np.uint8), {"__CCE_AICORE__": "220"}, workspace=32)


SM_ROW = 60                         # select_reduce_max...: rows of 60 halves (its WholeReduceSum mask)
SM_TILES = 2                        # tileNum; each block takes tileNum * 2 rows


def _select_softmax(cond, a, b):
    """softmax over rows of 60 of where(cond, a, b), in float64 (the kernel computes in half)."""
    c = np.where(cond.astype(bool), a, b).astype(np.float64).reshape(-1, SM_ROW)
    e = np.exp(c - c.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).reshape(-1)


_SM_TOTAL = BLOCKS * SM_TILES * 2 * SM_ROW
# Not in CASES: npusim reports a documented rule this kernel breaks (test_public_kernels.py).
SELECT_SOFTMAX = Case(
    "select_reduce_max_d_sub_exp_reduce_sum_d_real_div",
    lambda r: [r.integers(0, 2, _SM_TOTAL).astype(np.bool_), r.uniform(-3, 3, _SM_TOTAL).astype(H),
               r.uniform(-3, 3, _SM_TOTAL).astype(H)],
    H, dict(totalLength=_SM_TOTAL, tileNum=SM_TILES, tmpSize=0), _select_softmax, {}, rtol=1e-2, atol=2e-3,
    n_out=_SM_TOTAL)


def _mse_tiling(mode, total, blocks, tile):
    n = total // blocks
    return dict(mode=mode, totalLength=total, blockLength=n, tileNum=n // tile, tileLength=tile, lastTileLength=tile)


def _mse_reduced(mean):
    """mse_loss modes 1 (mean) / 2 (sum): one float at y[0]; the rest of the 32-float output untouched."""
    def ref(x, y):
        d = (x.astype(np.float64) - y) ** 2
        out = np.full(32, np.nan)
        out[0] = d.mean() if mean else d.sum()
        return out
    return ref


_MSE_D = {"DTYPE_Y": "float"}
CASES.update({c.name: c for c in [
    Case("mse_loss", lambda r: [_f32(r), _f32(r)], F, _mse_tiling(3, BLOCKS * N, BLOCKS, TILE),
         lambda x, y: (x - y) * (x - y), _MSE_D, name="mse_loss[none]"),
    Case("mse_loss", lambda r: [_f32(r), _f32(r)], F, _mse_tiling(1, BLOCKS * N, 1, TILE), _mse_reduced(True),
         _MSE_D, rtol=1e-5, n_out=32, blocks=1, name="mse_loss[mean]"),
    Case("mse_loss", lambda r: [_f32(r), _f32(r)], F, _mse_tiling(2, BLOCKS * N, 1, TILE), _mse_reduced(False),
         _MSE_D, rtol=1e-5, n_out=32, blocks=1, name="mse_loss[sum]"),
]})



SMX_ROWS, SMX_COLS, SMX_BASIC = 16, 64, 8   # inplace_attn_softmax: rows per block, row length, rows per UB tile


def _softmax_tiling(key, rows, cols, basic_rows, basic_cols, dtype_size):
    """InplaceAttnSoftmaxTilingData as its host tiling fills it for BLOCKS equal blocks, with the SoftMaxTiling
    the host's SoftMaxTilingFunc would embed for one [basic_rows, cols] tile (npusim reads srcM/srcK/srcSize)."""
    smx = dict.fromkeys(("srcM", "srcK", "srcSize", "outMaxM", "outMaxK", "outMaxSize", "splitM", "splitK",
                         "splitSize", "reduceM", "reduceK", "reduceSize", "rangeM", "tailM", "tailSplitSize",
                         "tailReduceSize"), 0)
    smx.update(srcM=basic_rows, srcK=cols, srcSize=basic_rows * cols, splitM=basic_rows, splitK=cols,
               splitSize=basic_rows * cols, reduceM=basic_rows, reduceK=32 // dtype_size,
               reduceSize=basic_rows * 32 // dtype_size, rangeM=1)
    return dict(rowLen=BLOCKS * rows, colLen=cols, rowLenPerHeadCore=rows, rowLenPerTailCore=rows,
                basicRowLenHeadCore=basic_rows, basicRowLenTailCore=basic_rows, basicColLen=basic_cols,
                headCoreNum=BLOCKS, realCoreNum=BLOCKS, tilingKey=key, softmaxTilingData=smx, TILING_KEY=key)


def _softmax_rows(cols):
    def ref(x):
        r = x.astype(np.float64).reshape(-1, cols)
        e = np.exp(r - r.max(axis=1, keepdims=True))
        return (e / e.sum(axis=1, keepdims=True)).astype(x.dtype).reshape(-1)
    return ref


CASES["inplace_attn_softmax[float32]"] = Case(
    "inplace_attn_softmax", lambda r: [r.uniform(-5, 5, BLOCKS * SMX_ROWS * SMX_COLS).astype(F)], F,
    _softmax_tiling(301, SMX_ROWS, SMX_COLS, SMX_BASIC, SMX_COLS, 4), _softmax_rows(SMX_COLS), {}, rtol=2e-6,
    atol=1e-7, n_out=BLOCKS * SMX_ROWS * SMX_COLS, workspace=32, inplace=True, name="inplace_attn_softmax[float32]")

CASES["inplace_attn_softmax[float16]"] = Case(
    "inplace_attn_softmax", lambda r: [r.uniform(-5, 5, BLOCKS * SMX_ROWS * SMX_COLS).astype(H)], H,
    _softmax_tiling(101, SMX_ROWS, SMX_COLS, SMX_BASIC, SMX_COLS, 4), _softmax_rows(SMX_COLS), {}, rtol=1e-3,
    atol=1e-4, n_out=BLOCKS * SMX_ROWS * SMX_COLS, workspace=32, inplace=True, name="inplace_attn_softmax[float16]")
# The big-shape keys (111/211/311) are not run: InplaceAttnSoftmaxBigShape sizes a queue by tileLength, which
# only the small-shape path sets (an uninitialised member; npusim rejects the garbage length at InitBuffer).


def _isinf_inputs(dt):
    def make(r):
        x = r.uniform(-60000, 60000, BLOCKS * N).astype(dt)
        x[r.random(x.size) < 0.1] = np.inf
        x[r.random(x.size) < 0.1] = -np.inf
        x[r.random(x.size) < 0.1] = np.nan
        return [x]
    return make


# half only: the float path (TILING_KEY 2) casts float -> half in place, a partial overlap of one repeat's
# source and destination, which npusim's general overlap rule rejects (is_inf.h:161).
for _key, _dt in ((1, H),):
    _n = f"is_inf[{np.dtype(_dt).name}]"
    CASES[_n] = Case("is_inf", _isinf_inputs(_dt), np.uint8,
                     dict(totalDataCount=BLOCKS * N, usableUbSize=4096, needCoreNum=BLOCKS, perCoreDataCount=N,
                          tailDataCoreNum=0, lastCoreDataCount=N, TILING_KEY=_key),
                     lambda x: np.isinf(x).astype(np.uint8), {}, workspace=32, name=_n)


# sin / cos: the kernels' own range reduction and polynomials in float32 (high-precision strategy), against
# float64 libm; TILING_KEY 0 (no big cores).
for _op, _f in (("sin", np.sin), ("cos", np.cos)):
    CASES[f"{_op}[float32]"] = Case(_op, lambda r: [_f32(r, -100, 100)], F, tiling_b(),
                                    (lambda f: lambda x: f(x.astype(np.float64)))(_f),
                                    {"DTYPE_X": "float", "DTYPE_Y": "float"}, atol=2e-6, rtol=0,
                                    name=f"{_op}[float32]")


def _fast_gelu_grad(dy, x):
    """d/dx of x * sigmoid(1.702 x) times dy, in float64."""
    x64 = x.astype(np.float64)
    e = np.exp(-1.702 * np.abs(x64))
    num = e + 1.702 * x64 * e + np.exp(1.702 * (x64 - np.abs(x64)))
    return dy * num / (e + 1) ** 2


CASES["fast_gelu_grad"] = Case("fast_gelu_grad", lambda r: [_f32(r), _f32(r)], F, tiling_c(), _fast_gelu_grad,
                               {"DTYPE_DY": "float", "DTYPE_X": "float", "DTYPE_Z": "float"}, rtol=1e-5,
                               atol=1e-6)


GLU_ROWS, GLU_COLS = 64, 256          # swi_glu: x is [rows, 2 * cols] (a | b), y = silu(a) * b is [rows, cols]


def _swiglu(x):
    """a / (1 + exp(-a)) * b in float32 steps (Muls(-1), Exp, Adds(1), Div, Mul, Mul), exp rounded once."""
    a, b = x.reshape(GLU_ROWS, 2, GLU_COLS)[:, 0], x.reshape(GLU_ROWS, 2, GLU_COLS)[:, 1]
    e = np.exp((a * F(-1)).astype(np.float64)).astype(F)
    return ((F(1) / (e + F(1))) * a * b).reshape(-1)


# float path (TILING_KEY 0), 32-byte aligned rows, double buffer; tiles of 8 rows x 128 columns shared out
# to the blocks round-robin (SWIGLU_SINGLE_PROCESS).
CASES["swi_glu"] = Case(
    "swi_glu", lambda r: [r.uniform(-6, 6, GLU_ROWS * 2 * GLU_COLS).astype(F)], F,
    dict(is32BAligned=1, isDoubleBuffer=1, rowLen=GLU_ROWS, colLen=GLU_COLS, baseRowLen=8, baseColLen=128,
         activateLeft=1, biasIsEmpty=1, quantScaleIsEmpty=1, activateScaleIsEmpty=1, swiColLen=GLU_COLS,
         perRowLen=GLU_ROWS // BLOCKS, modRowLen=0, usedCoreNum=BLOCKS, TILING_KEY=0),
    _swiglu, {}, rtol=1e-6, atol=1e-6, n_out=GLU_ROWS * GLU_COLS)

CASES["swi_glu[float16]"] = Case(
    "swi_glu", lambda r: [r.uniform(-6, 6, GLU_ROWS * 2 * GLU_COLS).astype(H)], H,
    dict(CASES["swi_glu"].tiling, TILING_KEY=1),
    lambda x: _swiglu(x.astype(F)).astype(H), {}, rtol=2e-3, atol=1e-3, n_out=GLU_ROWS * GLU_COLS,
    name="swi_glu[float16]")


_CTYPE = {np.float32: "float", np.float16: "half", np.int32: "int32_t", np.int8: "int8_t", np.uint8: "uint8_t"}


def _cast_case(key, src, dst, make, reference):
    """cann-ops cast: one library per (DTYPE_X, DTYPE_Y) pair, the kernel class chosen by the host's
    tilingKeyMap (op_host/cast.cpp) for that pair; tiling_a with no big cores."""
    name = f"cast[{np.dtype(src).name}->{np.dtype(dst).name}]"
    return Case("cast", make, dst, tiling_a(TILING_KEY=key), reference,
                {"DTYPE_X": _CTYPE[src], "DTYPE_Y": _CTYPE[dst]}, name=name)


for _c in [
    _cast_case(1, np.float32, np.float16, lambda r: [_f32(r, -70000, 70000)], lambda x: x.astype(np.float16)),
    _cast_case(1, np.float16, np.float32, lambda r: [_f32(r, -60000, 60000).astype(np.float16)],
               lambda x: x.astype(np.float32)),
    _cast_case(1, np.float32, np.int32, lambda r: [_f32(r, -1e6, 1e6)], lambda x: np.trunc(x).astype(np.int32)),
    _cast_case(1, np.int32, np.float32, lambda r: [r.integers(-2**24, 2**24, BLOCKS * N).astype(np.int32)],
               lambda x: x.astype(np.float32)),
    # float -> int8 wraps: trunc to int16, keep the low byte (And 255, +128, And 255, -128), through half
    _cast_case(4, np.float32, np.int8, lambda r: [_f32(r, -300, 300)],
               lambda x: np.trunc(x).astype(np.int64).astype(np.int8)),
    # int8 -> uint8 is a byte copy through a TQueBind<VECIN, VECOUT> (MTE2 in, MTE3 out)
    _cast_case(8, np.int8, np.uint8, lambda r: [r.integers(-128, 128, BLOCKS * N).astype(np.int8)],
               lambda x: x.view(np.uint8)),
]:
    CASES[_c.name] = _c


def _heaviside_inputs(scalar_values):
    def make(r):
        x = np.round(_f32(r, -3, 3))                  # a seventh of the inputs are exactly 0
        v = np.array([0.5], F) if scalar_values else _f32(r, -2, 2)
        return [x, v]
    return make


_HS = {"DTYPE_INPUT": "float", "DTYPE_VALUES": "float", "DTYPE_OUT": "float"}
CASES["heaviside"] = Case("heaviside", _heaviside_inputs(False), F,
                          dict(smallSize=N, incSize=0, formerNum=0, TILING_KEY=1),
                          lambda x, v: np.heaviside(x, v).astype(F), _HS)
CASES["heaviside[scalar values]"] = Case("heaviside", _heaviside_inputs(True), F,
                                         dict(smallSize=N, incSize=0, formerNum=0, TILING_KEY=4),
                                         lambda x, v: np.heaviside(x, v[0]).astype(F), _HS,
                                         name="heaviside[scalar values]")
