"""Fuzzer for ``npusim.ascendc``: every exported function (and the tensor, pipe and params methods),
called with mostly valid-ish arguments and malformed ones mixed in.

A trial makes one fresh vector core (SoC drawn), lays out a few LocalTensors in UB with 64-byte guard
gaps between them and a small GM with two GlobalTensors, host-writes most of them, optionally sets the
mask register or counter mode, then makes one call. Watched: all of UB up to the last guard and all of
GM. Writable: exactly the destination tensor's elements (and a reduction's documented work tensor):
every API must check that its whole write footprint lies inside its destination.
"""
from __future__ import annotations

import contextlib
import io

import numpy as np

from .. import ascendc as asc
from ..ascendc import context as _context
from ..ascendc.context import CoreContext
from ..ascendc.tensor import GM_ADDR
from ..core.errors import NpuSimError
from ..core.memory import Memory
from ..core.options import options
from ..core.trace import Trace
from .harness import Trial, Watch

BINARY = ("Add", "Sub", "Mul", "Div", "Max", "Min", "AddRelu", "SubRelu", "And", "Or", "AddReluCast",
          "SubReluCast", "MulCast", "AddDeqRelu")
UNARY = ("Relu", "Exp", "Ln", "Abs", "Sqrt", "Rsqrt", "Reciprocal", "Not")
SCALAR = ("Adds", "Muls", "Maxs", "Mins", "LeakyRelu", "ShiftLeft", "ShiftRight")
REDUCE = ("ReduceSum", "ReduceMax", "ReduceMin")
OTHER = ("Duplicate", "Cast", "Compare", "Select", "GetCmpMask", "SetCmpMask", "DataCopy", "SetVectorMask",
         "SetMaskCount", "SetMaskNorm", "ResetMask", "SetFlag", "WaitFlag", "PipeBarrier", "SetDeqScale",
         "GetBlockIdx", "GetBlockNum", "GetSocSpec", "get_soc", "info", "core_context", "launch")
METHODS = ("LocalTensor.GetValue", "LocalTensor.SetValue", "LocalTensor.__getitem__", "LocalTensor.ReinterpretCast",
           "GlobalTensor.SetGlobalBuffer", "GlobalTensor.GetValue", "GlobalTensor.SetValue", "GlobalTensor.__getitem__",
           "GM_ADDR.__add__", "TPipe.InitBuffer", "TBuf.Get", "TBuf.GetWithOffset", "TQue.AllocTensor",
           "BinaryRepeatParams", "UnaryRepeatParams", "DataCopyParams", "TQue", "TBuf", "TQue.program")
KNOWN = BINARY + UNARY + SCALAR + REDUCE + OTHER


def _exports() -> list[str]:
    import inspect
    return sorted(n for n in dir(asc) if not n.startswith("_") and callable(getattr(asc, n))
                  and not inspect.isclass(getattr(asc, n)) and not inspect.ismodule(getattr(asc, n)))


def _tmp_size_args():
    return [(8, 16), 2, False]


# Host-side helpers and macros (tiling structs, printf, asserts, tmp-size queries, load_cpp): argument
# lists drawn whole, valid ones and malformed ones.
HOST = {
    "ASSERT": [(True,), (True, "ok"), (1,), (None,)],
    "ascendc_assert": [(True,), (True, "ok"), (0.0, "x")],
    "printf": [("",), ("%d", 3), ("%s %s", "a", "b"), ("%d",), ("%d", "x"), (None,), (3,)],
    "BEGIN_TILING_DATA_DEF": [("T", ("a", asc.uint32_t, None)), ("T",), (None,), ("T", "nope"), ("T", 3),
                              ("T", ("a", asc.uint32_t, None), ("a", asc.uint32_t, None))],
    "END_TILING_DATA_DEF": [(), (None,), (3,)],
    "TILING_DATA_FIELD_DEF": [(asc.uint32_t, "a"), ("uint32_t", "b"), (None, "a"), ("nope", "a"), (asc.half, None)],
    "TILING_DATA_FIELD_DEF_ARR": [(asc.uint32_t, 4, "a"), (asc.uint32_t, -1, "a"), (asc.uint32_t, None, "a"),
                                  (asc.uint32_t, 1.5, "a"), (asc.uint32_t, 2 ** 40, "a"), (None, 2, "a")],
    "TILING_DATA_FIELD_DEF_STRUCT": [(None, "a"), (3, "a"), (asc.SoftMaxTiling, "s")],
    "GET_TILING_DATA": [(None,), (b"\0" * 8,), (3,), (b"\0" * 8, None)],
    "REGISTER_TILING_DATA_CLASS": [("Op", None), (None, None), ("Op", 3)],
    "GetLayerNormMaxTmpSize": [((8, 16), 2), ((8, 16), 4, True), (None, 2), ((8, 16), None), ((0, 16), 2),
                               ((8, 16), 3), ((2 ** 40, 16), 2), ((1.5, 2), 2)],
    "GetLayerNormMinTmpSize": [((8, 16), 2), (None, 2), ((8, 16), -1), ((8, 16, 4), 4)],
    "GetSoftMaxMaxTmpSize": [((8, 16), 2), (None, 2), ((8, 16), 0), ((8,), 4), ((2 ** 40, 16), 2)],
    "GetSoftMaxMinTmpSize": [((8, 16), 2), ((8, 16), 4, True), ((8, 16), float("nan"))],
    "SoftMaxTilingFunc": [((8, 16), 2), ((8, 16), 4, 1024), (None, 2), ((8, 16), 2, -1), ((0, 16), 4),
                          ((8, 16), 2, 2 ** 40)],
    "GetSelectWithBytesMaskMinTmpSize": [(256, 1, False), (256, 2, True, False), (-1, 1, False),
                                         (None, 1, False), (256, 3, False), (2 ** 40, 1, True)],
    "GetReduceRepeatMaxMinSpr": [(asc.half,), (asc.float,), (None,), ("nope",), (asc.int8_t,)],
    "KERNEL_TASK_TYPE_DEFAULT": [("KERNEL_TYPE_AIV_ONLY",), ("KERNEL_TYPE_AIC_ONLY",), (None,), (3,)],
    "InitSocState": [()],
    "GetTPipePtr": [()],
    "SetPadValue": [(0,), (1.5,), (None,), (float("nan"),), ("x",)],
    "load_cpp": [("/nonexistent/kernel.cpp",), (None,), (3,), ("/nonexistent.cpp", {"N": 1}),
                 ("/nonexistent.cpp", "bad")],
}
HOST = {k: v for k, v in HOST.items() if hasattr(asc, k)}


# Exports added after this file was written are still drawn, with a generic argument list (a destination
# tensor first, then tensors, counts, masks, repeat times, params): a careless call is a careless call.
GENERIC = tuple(n for n in _exports() if n not in KNOWN)      # HOST below: drawn from fixed lists
APIS = KNOWN + METHODS + ("launch.vector",) + GENERIC

SOCS = ("Ascend910B1", "Ascend910B1", "Ascend910B1") + tuple(sorted(asc.SOCS))
DTYPES = ("half", "half", "float", "float", "int16_t", "int32_t", "uint8_t", "int8_t", "uint16_t", "bfloat16_t",
          "uint32_t")
GUARD = 64
GM_BYTES = 8192

BAD = [None, float("nan"), float("inf"), -float("inf"), True, 1.5, 2 ** 40, -2 ** 40, 2 ** 70, -1, 0, "x",
       (), [1], [1, 2, 3], [None, 0], [float("nan"), 0], [2 ** 64, 0], object(), 256, 1e300, np.float64("nan")]


def _choice(rng, seq):
    return seq[int(rng.integers(len(seq)))]


def _u64(rng) -> int:
    return int(rng.integers(0, 2 ** 63)) * 2 + int(rng.integers(0, 2))


def _bad(rng):
    return _choice(rng, BAD)


class State:
    def __init__(self, ctx, tiles, gts, ub_end):
        self.ctx, self.tiles, self.gts, self.ub_end = ctx, tiles, gts, ub_end
        self.result = None


def _values(rng, t):
    d = t.dtype
    if d.is_float:
        v = rng.normal(0, 8, t.size)
        if rng.random() < 0.2:                        # NaN, infinities, huge and tiny values mixed in
            m = rng.random(t.size) < 0.2
            v[m] = rng.choice(np.array([np.nan, np.inf, -np.inf, -0.0, 1e30, -1e30, 1e-40, 65504.0, 70000.0]),
                              int(m.sum()))
        return v
    return rng.integers(max(int(d.min), -100), min(int(d.max), 100) + 1, t.size)


def _setup_fn(soc, specs, prelude, seed):
    def setup():
        rng = np.random.default_rng(seed)
        spec = asc.get_soc(soc)
        ctx = CoreContext(spec, 0, 1, Memory("GM", GM_BYTES), Trace(), core_name="aiv0",
                          float_overflow=options().float_overflow)
        tiles, addr = [], 0
        for dt, n in specs:
            t = asc.LocalTensor(ctx, addr, getattr(asc, dt), n, asc.TPosition.VECCALC)
            if rng.random() < 0.9:
                t.load(_values(rng, t))
            tiles.append(t)
            addr += -(-n * t.dtype.itemsize // 32) * 32 + GUARD
        gts = []
        for i, dt in enumerate(("half", "float")):
            g = asc.GlobalTensor(getattr(asc, dt))
            lo = i * GM_BYTES // 2 + 256
            g.SetGlobalBuffer(GM_ADDR(ctx.gm, lo, lo, lo + 2048, None, f"gm{i}"))
            ctx.gm.write_bytes(lo, rng.integers(0, 255, 2048).astype(np.uint8))
            gts.append(g)
        _context.push(ctx)
        try:
            for name, args in prelude:
                try:
                    getattr(asc, name)(*args)
                except NpuSimError:          # e.g. SetMaskCount on a SoC without counter mode
                    pass
        finally:
            _context.pop()
        return State(ctx, tiles, gts, addr)
    return setup


def _regions_fn(outs):
    def regions(state):
        w_ub, w_gm = [], []
        for o in outs:
            try:
                t = o(state)
            except NpuSimError:                  # an out-of-range view: the call itself will refuse it
                continue
            if isinstance(t, asc.LocalTensor):
                w_ub.append((t.addr, t.addr + t.size * t.dtype.itemsize))
            elif isinstance(t, asc.GlobalTensor) and t.addr is not None:
                w_gm.append((t.addr.offset, t.addr.offset + t.size * t.dtype.itemsize))
        return [Watch(state.ctx.ub, 0, state.ub_end + 1024, tuple(w_ub)),
                Watch(state.ctx.gm, 0, GM_BYTES, tuple(w_gm))]
    return regions


def _trace(state):
    evs = state.ctx.timeline.trace.events
    return tuple((e.core, e.engine, e.name, e.start_ns, e.end_ns, e.cycles, e.nbytes, e.elements, repr(e.args))
                 for e in evs)


class Ref:
    """A tensor argument resolved at call time: UB tile i (optionally offset by k elements) or GM tensor."""

    def __init__(self, kind, i, k=None):
        self.kind, self.i, self.k = kind, i, k

    def __call__(self, state):
        t = (state.tiles if self.kind == "ub" else state.gts)[self.i]
        return t if self.k is None else t[self.k]

    def __repr__(self):
        return f"{self.kind}{self.i}" + ("" if self.k is None else f"[{self.k}]")


def _resolve(v, state):
    if isinstance(v, Ref):
        return v(state)
    if isinstance(v, list):
        return [_resolve(x, state) for x in v]
    return v


_CLEAN = [False]     # this trial draws only well-formed values (set per trial in draw)


def _dirty(rng, p: float) -> bool:
    """True (draw a malformed value) with chance p, never in a clean trial."""
    return not _CLEAN[0] and rng.random() < p


def _count(rng, n):
    if not _dirty(rng, 0.3):
        return _choice(rng, (n, n, n // 2, 64, 128, 256, 0, 1, 32))
    return _choice(rng, (n + 1, -1, 2 ** 32, 2 ** 40, 1.0, 64.5, None, float("nan"), True, float("inf"),
                         np.int64(64), "8"))


def _mask(rng, E):
    r = rng.random()
    if r < 0.5:
        return E
    if r < 0.65:
        return int(rng.integers(0, E + 1))
    if r < 0.8:
        return [_u64(rng), _u64(rng) if E > 64 else 0]
    if r < 0.85 or not _dirty(rng, 1.0):
        return [0, 0] if rng.random() < 0.3 else E
    return _choice(rng, (None, float("nan"), float("inf"), True, 1.5, -1, E + 1, 2 ** 70, [None, 0],
                         [float("nan"), 0], [1.5, 0], [2 ** 64, 0], [1], "m", [True, 0], [float("inf"), 0]))


def _repeat(rng):
    if not _dirty(rng, 0.2):
        return _choice(rng, (1, 1, 2, 4, 8, 0, 255))
    return _choice(rng, (None, float("nan"), 256, -1, 1.5, True, float("inf"), 2 ** 40))


def _stride(rng, blk=True):
    if not _dirty(rng, 0.05):
        return _choice(rng, (1, 1, 1, 0, 2, 3) if blk else (8, 8, 8, 0, 1, 4, 16))
    return _choice(rng, (None, float("nan"), float("inf"), 1.5, -1, 256, 65536, True, 2 ** 40))


def _bparams(rng):
    if _dirty(rng, 0.1):
        return _choice(rng, (None, (1, 1, 1, 8, 8, 8), (1, 1), "p", 3))
    return ("B", tuple(_stride(rng, i < 3) for i in range(6)))


def _uparams(rng):
    if _dirty(rng, 0.1):
        return _choice(rng, (None, (1, 1, 8, 8), (1,), "p"))
    return ("U", tuple(_stride(rng, i < 2) for i in range(4)))


def _scalar(rng):
    if not _dirty(rng, 0.2):
        return _choice(rng, (2, 0.5, -3, 1.0, 0, 7, -0.0, 65504.0))
    return _choice(rng, (None, float("nan"), float("inf"), True, 2 ** 70, "s", 1e300, [1], np.float64("nan")))


def _build(v):
    """Params tuples drawn as ("B"/"U", fields) are constructed at call time (their constructors are fuzzed
    too: a bad field must raise there)."""
    if isinstance(v, tuple) and len(v) == 2 and v[0] in ("B", "U"):
        return (asc.BinaryRepeatParams if v[0] == "B" else asc.UnaryRepeatParams)(*v[1])
    return v


def _tile(rng, tiles, dtype=None, offset=True):
    cands = [i for i, (dt, n) in enumerate(tiles) if dtype is None or dt == dtype]
    if not cands or _dirty(rng, 0.1):
        cands = list(range(len(tiles)))
    i = _choice(rng, cands)
    k = None
    if offset and _dirty(rng, 0.1):
        k = _choice(rng, (1, 16, 32, 0, tiles[i][1], tiles[i][1] + 1, -1, 1.5, None))
    return Ref("ub", i, k)


# (source, destination) types of the converting APIs, so clean trials can reach their compute
PAIRS = {"AddReluCast": (("half", "int8_t"), ("float", "half"), ("int16_t", "int8_t")),
         "SubReluCast": (("half", "int8_t"), ("float", "half"), ("int16_t", "int8_t")),
         "MulCast": (("half", "int8_t"), ("half", "uint8_t")), "AddDeqRelu": (("int32_t", "half"),),
         "Cast": (("half", "float"), ("float", "half"), ("half", "int32_t"), ("int32_t", "float"),
                  ("float", "int32_t"), ("half", "int8_t"), ("uint8_t", "half"), ("bfloat16_t", "float"))}


def _specs(rng, api):
    base = _choice(rng, ("half", "float", "half", "float", "int16_t", "int32_t") if _CLEAN[0] else DTYPES)
    other = None
    if api in PAIRS:
        base, other = _choice(rng, PAIRS[api])
    n = _choice(rng, (16, 64, 128, 256, 512, 1024, 2048))
    specs = []
    for i in range(int(rng.integers(3, 6))):
        dt = base if rng.random() < 0.6 or _CLEAN[0] else _choice(rng, DTYPES)
        if i == 0 and other is not None:
            dt = other
        specs.append((dt, n if rng.random() < 0.7 or _CLEAN[0] else _choice(rng, (0, 8, 32, 64, 256, 4096))))
    specs.append(("uint8_t", max(32, n // 8)))      # a bit-mask tensor (Compare / Select)
    return specs


def _prelude(rng, soc):
    r = rng.random()
    if r < 0.15:
        return [("SetMaskCount", ())]
    if r < 0.25:
        return [("SetVectorMask", ("half", _u64(rng), _u64(rng)))]
    if r < 0.3:
        return [("SetVectorMask", ("half", 0, 0))]
    if r < 0.33:
        return [("SetMaskCount", ()), ("SetVectorMask", ("half", 0, int(rng.integers(0, 600))))]
    return []


def _launch_trial(rng) -> Trial:
    """The demo's double-buffered Add kernel on a drawn SoC and block count (blocks past the data are
    refused by SetGlobalBuffer): values and trace must repeat exactly."""
    from ..ascendc.demo import _add_kernel
    soc = _choice(rng, SOCS)
    blocks = _choice(rng, (1, 2, 4, 3, 8))
    seed = int(rng.integers(2 ** 31))

    def setup():
        r = np.random.default_rng(seed)
        x, y = (r.normal(0, 4, 2048 * 4).astype(np.float16) for _ in range(2))
        return {"x": x, "y": y, "z": np.zeros_like(x), "res": None}

    def call(state):
        state["res"] = asc.launch(_add_kernel, blocks, state["x"], state["y"], state["z"], soc=soc)

    def trace(state):
        res = state["res"]
        evs = () if res is None else tuple((e.core, e.engine, e.name, e.start_ns, e.end_ns, e.cycles, e.nbytes,
                                            e.elements, repr(e.args)) for e in res.trace.events)
        return evs, state["z"].tobytes()

    return Trial("ascendc", "launch.vector", setup, call, lambda state: [], trace,
                 args=f"soc {soc}, block_num {blocks}")


def draw(rng: np.random.Generator) -> Trial:
    """One call, or (one trial in five) a short program of 2-4 vector calls on the same tensors: a later
    call must not be served a stale plan or cache entry of an earlier one."""
    api = _choice(rng, APIS)
    if api == "launch.vector":
        return _launch_trial(rng)
    soc = _choice(rng, SOCS)
    _CLEAN[0] = rng.random() < 0.5
    specs = _specs(rng, api)
    prelude = _prelude(rng, soc) if api not in METHODS else []
    seed = int(rng.integers(2 ** 31))
    calls = [_draw_call(rng, api, specs)]
    if api not in METHODS and api not in ("launch", "core_context") and rng.random() < 0.2:
        vector = [a for a in BINARY + UNARY + SCALAR + REDUCE + ("Duplicate", "Compare", "Select", "DataCopy")
                  if (a in PAIRS) == (api in PAIRS)]
        for _ in range(int(rng.integers(1, 4))):
            if rng.random() < 0.6:          # else a read-after-write in PIPE_V is (rightly) a RaceError
                calls.append(("PipeBarrier", [asc.PIPE_V], {}, []))
            calls.append(_draw_call(rng, api if rng.random() < 0.5 else _choice(rng, vector), specs))
    outs = [o for c in calls for o in c[3]]
    rendered = "; ".join(f"{c[0]}(" + ", ".join(repr(a) for a in c[1]) +
                         "".join(f", {k}={v!r}" for k, v in c[2].items()) + ")" for c in calls)
    return Trial("ascendc", api if len(calls) == 1 else f"{api}+{len(calls) - 1}",
                 _setup_fn(soc, specs, prelude, seed), _call_fn(calls), _regions_fn(outs), _trace,
                 args=f"[{soc}; {specs}; prelude {prelude}] {rendered}")


def _draw_call(rng, api, specs):
    """(api, args, keywords, outputs) of one call on the drawn tensors."""
    base = specs[1][0] if api in PAIRS else specs[0][0]
    n = specs[0][1]
    width = max(getattr(asc, specs[0][0]).itemsize, getattr(asc, base).itemsize)
    E = 256 // width
    args, kw, outs = [], {}, []
    dst = _tile(rng, specs, specs[0][0]) if api in PAIRS else _tile(rng, specs, base)
    if api in BINARY:
        args = [dst, _tile(rng, specs, base), _tile(rng, specs, base)]
        outs = [dst]
        args += [_count(rng, n)] if rng.random() < 0.5 else [_mask(rng, E), _repeat(rng), _bparams(rng)]
    elif api in UNARY or api in SCALAR or api == "Cast":
        args = [dst, _tile(rng, specs, base)]
        outs = [dst]
        if api in SCALAR:
            args.append(_scalar(rng) if api not in ("ShiftLeft", "ShiftRight") else _choice(rng, (1, 3, 0, 15, -1, 1.5, None)))
        if api == "Cast":
            args.append(_choice(rng, list(asc.RoundMode) + [None, "CAST_NONE"]))
        args += [_count(rng, n)] if rng.random() < 0.5 else [_mask(rng, E), _repeat(rng), _uparams(rng)]
    elif api == "Duplicate":
        args = [dst, _scalar(rng)]
        outs = [dst]
        args += [_count(rng, n)] if rng.random() < 0.5 else [_mask(rng, E), _repeat(rng), _stride(rng), _stride(rng, False)]
    elif api in REDUCE:
        work = _tile(rng, specs, base)
        args = [dst, _tile(rng, specs, base), work]
        outs = [dst, work]
        if rng.random() < 0.5:
            args.append(_count(rng, n))
        else:
            args += [_mask(rng, E), _repeat(rng), _stride(rng, False)]
        if api != "ReduceSum" and rng.random() < 0.3:
            kw["calIndex"] = _choice(rng, (True, False, None, 2))
    elif api == "Compare":
        mode = _choice(rng, list(asc.CMPMODE) + ([None] if _dirty(rng, 0.5) else []))
        bits = Ref("ub", len(specs) - 1)
        r = rng.random()
        if r < 0.4:
            args, outs = [bits, _tile(rng, specs, base), _tile(rng, specs, base), mode, _count(rng, n)], [bits]
        elif r < 0.8:
            args = [bits, _tile(rng, specs, base), _tile(rng, specs, base), mode, _mask(rng, E), _repeat(rng),
                    _bparams(rng)]
            outs = [bits]
        else:
            args = [_tile(rng, specs, base), _tile(rng, specs, base), mode, _mask(rng, E), _bparams(rng)]
    elif api == "Select":
        bits = Ref("ub", len(specs) - 1)
        mode = _choice(rng, list(asc.SELMODE) + ([None] if _dirty(rng, 0.5) else []))
        src1 = _tile(rng, specs, base) if rng.random() < 0.6 else _scalar(rng)
        args = [dst, bits, _tile(rng, specs, base), src1, mode]
        outs = [dst]
        args += [_count(rng, n)] if rng.random() < 0.5 else [_mask(rng, E), _repeat(rng), _bparams(rng)]
    elif api == "GetCmpMask":
        args, outs = [dst], [dst]
    elif api == "SetCmpMask":
        args = [dst]
    elif api == "DataCopy":
        g = Ref("gm", int(rng.integers(2)))
        to_gm = rng.random() < 0.4
        args = [g, dst] if to_gm else [dst, g]
        outs = [args[0]]
        if rng.random() < 0.6:
            args.append(_count(rng, n))
        else:
            args.append(("D", tuple(_choice(rng, (1, 2, 0, 4)) if rng.random() < 0.85 else _bad(rng)
                                    for _ in range(4))))
    elif api == "SetVectorMask":
        args = [_choice(rng, ("half", "float", "half", None, 3))]
        args += [_mask(rng, E)] if rng.random() < 0.4 else [_scalar(rng) if rng.random() < 0.2 else
                                                            _u64(rng), _u64(rng)]
        if rng.random() < 0.3:
            kw["mode"] = _choice(rng, (asc.MaskMode.COUNTER, asc.MaskMode.NORMAL, None, 1))
    elif api in ("SetFlag", "WaitFlag"):
        args = [_choice(rng, list(asc.HardEvent) + [None, 3]), _choice(rng, (0, 1, 7, 8, -1, 1.5, None, True, 2 ** 70))]
    elif api == "PipeBarrier":
        args = [_choice(rng, list(asc.pipe_t) + [None, "PIPE_V", 1])]
    elif api == "SetDeqScale":
        args = [_scalar(rng)]
    elif api == "get_soc":
        args = [_choice(rng, ("Ascend910B1", "nope", None, 3, ""))]
    elif api == "core_context":
        args = [_choice(rng, ("Ascend910B1", None, "bad", 1))]
        kw["gm_bytes"] = _choice(rng, (1024, 0, -1, 2 ** 40, 1.5, None, float("nan")))
    elif api == "launch":
        args = [_choice(rng, ("kernel", None, 3)), _choice(rng, (1, 2, 0, -1, 1.5, None, 2 ** 40, True)),
                _choice(rng, (np.ones(32, np.float16), np.ones((2, 16), np.float32), "x", None,
                              np.array([None, 1]), np.ones(0, np.float16), np.array(["a"])))]
    elif api.startswith("LocalTensor."):
        m = api.split(".")[1]
        t = _tile(rng, specs, offset=False)
        idx = _choice(rng, (0, 1, n - 1, n, -1, 1.5, None, True, 2 ** 70, float("nan"), np.int64(2)))
        args = [t, idx]
        if m == "SetValue":
            args.append(_scalar(rng))
            outs = [t]
        if m == "ReinterpretCast":
            args = [t, _choice(rng, DTYPES + (None, "nope", 5))]
    elif api.startswith("GlobalTensor."):
        m = api.split(".")[1]
        g = Ref("gm", int(rng.integers(2)))
        idx = _choice(rng, (0, 1, 100, 1023, 1024, 5000, -1, 1.5, None, True, 2 ** 70, float("nan")))
        args = [g, idx]
        if m == "SetValue":
            args.append(_scalar(rng))
            outs = [g]
        if m == "SetGlobalBuffer":
            args = [g, _choice(rng, (0, 16, 1024, 2 ** 40, -1, 1.5, None, float("nan")))]
    elif api == "GM_ADDR.__add__":
        args = [_choice(rng, (1, 0, -5, 1.5, None, 2 ** 70, float("nan"), True))]
    elif api in ("TPipe.InitBuffer", "TBuf.Get", "TBuf.GetWithOffset", "TQue.AllocTensor"):
        args = [_choice(rng, (1, 2, 0, -1, 1.5, None, 2 ** 40, float("nan"), True)),
                _choice(rng, (256, 1024, 0, -1, 1.5, None, 2 ** 40, float("inf"), 100)),
                _choice(rng, (0, 32, 64, 1.5, None, -32, 2 ** 40)), _choice(rng, DTYPES + (None, "nope"))]
    elif api == "TQue.program":
        # a queue's life with misuse mixed in: double free, DeQue of an empty queue, EnQue past depth ...
        args = [_choice(rng, (asc.TPosition.VECIN, asc.TPosition.VECOUT, asc.TPosition.VECCALC)),
                _choice(rng, (1, 2, 4)), _choice(rng, (1, 2, 3)), _choice(rng, (256, 1024, 64))]
        args.append([(_choice(rng, ("alloc", "alloc", "enque", "enque", "deque", "free", "free", "vacant",
                                    "has", "reset")), int(rng.integers(0, 4)),
                      _choice(rng, ("half", "float", None, "int16_t") if _CLEAN[0] else DTYPES + (None, "nope")))
                     for _ in range(int(rng.integers(2, 10)))])
    elif api in ("TQue", "TBuf"):
        args = [_choice(rng, list(asc.TPosition) + [None, 99, 1.5, "VECIN", True])]
        if api == "TQue":
            args.append(_choice(rng, (1, 2, 0, -1, 1.5, None, float("nan"), 2 ** 40, True)))
    elif api in HOST:
        args = [v() if callable(v) else v for v in _choice(rng, HOST[api])]
    elif api in GENERIC:
        args, outs = _generic(rng, api, specs, dst, base, n, E)
    elif api in ("BinaryRepeatParams", "UnaryRepeatParams", "DataCopyParams"):
        k = 6 if api == "BinaryRepeatParams" else 4
        args = [_stride(rng) for _ in range(k)]
    # other zero-argument APIs: no args
    return api, args, kw, outs


# Parameters a generic call reads (every other tensor parameter, and every tensor in *args except the
# ones listed in READ_ARGS, is writable: a second destination such as LayerNorm's outputMean or SoftMax's
# sumTensor/maxTensor, or a sharedTmpBuffer the API may use as scratch).
READS = {"src", "src0", "src1", "srcLocal", "srcTensor", "inputX", "gamma", "beta", "mask", "maxTensor"}
READ_ARGS = {"SoftMax": {3}, "LayerNorm": set(), "Sigmoid": set(), "Tanh": set(), "Gelu": set(),
             "FasterGelu": set(), "CompareScalar": set(), "Compares": set()}


def _value_for(rng, name, specs, base, n, E):
    """A valid-ish value for a parameter of a newer API, chosen by its name."""
    low = name.lower()
    if low.startswith(("dst", "src", "output", "input", "gamma", "beta", "shared", "softmaxres", "max",
                       "sum", "mask")) and low not in ("mask",):
        return _tile(rng, specs, base)
    if low == "mask":
        return _mask(rng, E)
    if "repeat" in low:
        return _repeat(rng)
    if "stride" in low:
        return _stride(rng, "blk" in low)
    if "shape" in low:
        return _choice(rng, ((8, 16), (1, n), (16, 8), (2, 3, 4), (0, 8), None, (1.5, 8), (-1, 8), 3))
    if low in ("cmpmode",):
        return _choice(rng, list(asc.CMPMODE) + ([None] if _dirty(rng, 0.5) else []))
    if "scalar" in low:
        return _scalar(rng)
    if low == "order":
        return _choice(rng, list(asc.ReduceOrder) + ([None, 7] if _dirty(rng, 0.5) else []))
    if low in ("datacopyparams",):
        return ("D", tuple(_choice(rng, (1, 2, 0, 4)) if rng.random() < 0.85 else _bad(rng) for _ in range(4)))
    return _choice(rng, (lambda: _count(rng, n), lambda: _scalar(rng), lambda: _bparams(rng),
                         lambda: _uparams(rng), lambda: _tile(rng, specs, base)))()


def _generic(rng, api, specs, dst, base, n, E):
    """A call of a newer vector API with the real arity of its signature (a wrong positional count to a
    fixed-signature function is a Python TypeError, like a C++ compile error; tests/fuzz checks that);
    the values are valid-ish with malformed ones mixed in. -> (args, writable outputs)."""
    import inspect
    params = [p for p in inspect.signature(getattr(asc, api)).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    star = any(p.kind is p.VAR_POSITIONAL for p in inspect.signature(getattr(asc, api)).parameters.values())
    required = sum(1 for p in params if p.default is p.empty)
    k = int(rng.integers(required, len(params) + 1)) + (int(rng.integers(0, 5)) if star else 0)
    args, outs = [], []
    for i in range(k):
        name = params[i].name if i < len(params) else f"arg{i}"
        v = dst if i == 0 and name.startswith(("dst", "output", "softMaxRes")) else \
            _value_for(rng, name, specs, base, n, E)
        args.append(v)
        if isinstance(v, Ref):
            reads = name in READS if i < len(params) else (i - len(params)) in READ_ARGS.get(api, set())
            if api == "SoftMax":
                reads = i == 3
            if not reads:
                outs.append(v)
    return args, outs


def _queue_program(position, depth, num, length, steps, state):
    """Run a queue's steps; every step runs, the first refusal is raised at the end."""
    pipe = asc.TPipe()
    que = asc.TQue(position, depth)
    pipe.InitBuffer(que, num, length)
    held, log, first = [], [], None
    for op, k, dt in steps:
        try:
            dtype = None if dt is None else getattr(asc, dt, dt)      # "nope" stays a bad type name
            if op == "alloc":
                held.append(que.AllocTensor(dtype))
            elif op == "enque":
                que.EnQue(held[k % len(held)] if held else state.tiles[0])
            elif op == "deque":
                held.append(que.DeQue(dtype))
            elif op == "free":
                que.FreeTensor(held.pop(k % len(held)) if held else state.tiles[0])
            elif op == "vacant":
                que.VacantInQue()
            elif op == "has":
                que.HasTensorInQue()
            else:
                pipe.Reset()
            log.append(op)
        except NpuSimError as e:
            first = first or e
            log.append(type(e).__name__)
    if first is not None:
        raise first
    return log


def _kernel(x):
    g = asc.GlobalTensor(asc.half)
    g.SetGlobalBuffer(x)


def _call_fn(calls):
    """Every call runs (a refused one does not stop the program); the first refusal is raised at the end."""
    def call(state):
        first = None
        results = []
        for api, args, kw, _ in calls:
            try:
                a = [_build(_resolve(v, state)) for v in args]
                a = [asc.DataCopyParams(*v[1]) if isinstance(v, tuple) and len(v) == 2 and v[0] == "D" else v
                     for v in a]
                k = {key: _resolve(v, state) for key, v in kw.items()}
                _context.push(state.ctx)
                try:
                    with contextlib.redirect_stdout(io.StringIO()):        # printf / DumpTensor
                        results.append(_invoke(api, a, k, state))
                finally:
                    _context.pop()
            except NpuSimError as e:
                first = first or e
                results.append(type(e).__name__)
        state.result = results
        if first is not None:
            raise first
    return call


def _invoke(api, a, k, state):
    if api in ("get_soc", "info", "GetBlockIdx", "GetBlockNum", "GetSocSpec", "SetMaskCount", "SetMaskNorm",
               "ResetMask", "SetFlag", "WaitFlag", "PipeBarrier", "SetDeqScale", "SetVectorMask", "GetCmpMask",
               "SetCmpMask", "Duplicate", "Cast", "Compare", "Select", "DataCopy") \
            or api in BINARY or api in UNARY or api in SCALAR or api in REDUCE or api in GENERIC or api in HOST:
        r = getattr(asc, api)(*a, **k)
        return None if api == "info" else r
    if api == "core_context":
        with asc.core_context(*a, **k) as ctx:
            return ctx.soc.name
    if api == "launch":
        kern = _kernel if a[0] == "kernel" else a[0]
        res = asc.launch(kern, a[1], *a[2:])
        return None if res is None else type(res).__name__
    if api in ("BinaryRepeatParams", "UnaryRepeatParams", "DataCopyParams"):
        return getattr(asc, api)(*a).__class__.__name__
    if api in ("TQue", "TBuf"):
        return repr(getattr(asc, api)(*a).position)
    if api == "TQue.program":
        return _queue_program(*a, state=state)
    if api == "GM_ADDR.__add__":
        return repr(state.gts[0].GetPhyAddr() + a[0])
    if "." in api:
        cls, m = api.split(".")
        if cls in ("LocalTensor", "GlobalTensor"):
            t, rest = a[0], a[1:]
            if m == "__getitem__":
                return repr(t[rest[0]])
            if m == "SetGlobalBuffer":
                g = asc.GlobalTensor(t.dtype)
                g.SetGlobalBuffer(t.addr, rest[0])
                return g.size
            r = getattr(t, m)(*rest)
            return repr(r)
        num, length, off, dt = a
        pipe = asc.TPipe()
        if cls == "TBuf":
            buf = asc.TBuf()
            pipe.InitBuffer(buf, 1024)
            t = buf.Get(dt, length) if m == "Get" else buf.GetWithOffset(dt, length, off)
            return repr(t)
        que = asc.TQue(asc.TPosition.VECIN, 2)
        pipe.InitBuffer(que, num, length)
        if m == "AllocTensor":
            return repr(que.AllocTensor(dt))
        return None
    raise AssertionError(api)
