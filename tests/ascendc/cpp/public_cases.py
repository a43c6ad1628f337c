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
