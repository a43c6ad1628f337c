"""Fuzzer for ``npusim.nki``: every public function of ``nki.isa`` and ``nki.language`` and the tensor
methods, called as a careless user would.

A trial opens a fresh kernel run (fresh SBUF/PSUM, so pooled bytes of earlier launches cannot make two
runs differ), allocates a few tiles (SBUF, PSUM, HBM; random shapes and dtypes, host-written values) and
a guard tile after them, then calls one API with arguments drawn per parameter name: mostly valid-ish,
sometimes malformed (None, NaN, inf, bools, floats, huge or negative ints, wrong dtypes and shapes).

Watched: every lane of SBUF and PSUM from the first operand to the end of the guard tile (new tiles an
``nl.*`` call allocates land after the guard: the allocator is next-fit), and every HBM tensor. Writable:
the footprints of the arguments the API documents as outputs (``dst``, ``reduce_res``, ``nl.store``'s dst).
"""
from __future__ import annotations

import contextlib
import inspect
import io
import itertools
import math

import numpy as np

import ml_dtypes

from .. import nki
from ..nki import isa as nisa
from ..nki import language as nl
from ..nki import runtime as _runtime
from ..nki import spec as _spec
from ..nki.legacy import isa as _lisa, language as _lnl
from ..nki.legacy.tensor import legacy as _legacy
from ..nki.tensor import NKI_DTYPES, MemoryRegion, NkiTensor
from ..core.errors import NpuSimError
from .harness import Trial, Watch

# Exported callables that are not kernel APIs (helpers re-exported by import), with why.
NOT_API = {
    "cast": "core casting helper", "choose_engine": "engine choice helper", "current": "the active run",
    "options": "core options", "store_result": "helper",
    "dma_issue": "the DMA timeline helper of dma_copy/dma_transpose", "dtype_of": "dtype normalisation helper",
}

OUTPUT_PARAMS = ("dst", "reduce_res")
DIRT = 0.2      # chance of a malformed value per argument in a dirty trial (4 in 10 trials are dirty)


def _public(mod) -> dict:
    out = {}
    for name in dir(mod):
        if name.startswith("_") or name in NOT_API:
            continue
        obj = getattr(mod, name)
        if inspect.isclass(obj) or inspect.ismodule(obj) or not callable(obj):
            continue
        out[name] = obj
    return out


ISA = _public(nisa)
LANG = _public(nl)
# The legacy API (npusim.nki.legacy, neuronxcc.nki): functional style, results are new tiles.
LEGACY_NOT_API = {"legacy": "wraps a tensor with the legacy operators", "dataclass": "re-exported stdlib",
                  "fields": "re-exported stdlib", "assign": "the machinery behind t[...] = v",
                  "update": "the machinery behind t += v"}
LEGACY_ISA = {k: v for k, v in _public(_lisa).items() if k not in LEGACY_NOT_API}
LEGACY_LANG = {k: v for k, v in _public(_lnl).items() if k not in LEGACY_NOT_API}
TENSOR_METHODS = ("__getitem__", "reshape", "view", "numpy", "strides", "start_partition")
APIS = [("nisa", n) for n in sorted(ISA)] + [("nl", n) for n in sorted(LANG)] + \
       [("tensor", n) for n in TENSOR_METHODS] + [("nki", "simulate")] + \
       [("lisa", n) for n in sorted(LEGACY_ISA)] + [("lnl", n) for n in sorted(LEGACY_LANG)]
FUNCTIONS = {"nisa": ISA, "nl": LANG, "lisa": LEGACY_ISA, "lnl": LEGACY_LANG}

ALU = list(nl.OPS.values())
ACTS = list(nl.ACT.values())
ENGINES = list(nisa.engine)
DTYPES = list(NKI_DTYPES)
COMMON = ("float32", "float32", "float32", "bfloat16", "float16", "int32", "uint8", "int8")

BAD = [None, float("nan"), float("inf"), -float("inf"), True, False, 1.5, 2 ** 40, -2 ** 40, 2 ** 70, -1,
       0, "x", (), [1, 2], {"a": 1}, np.float64("nan"), 1e300, -0.0, 3, object()]


def _bad(rng):
    return BAD[int(rng.integers(len(BAD)))]


def _choice(rng, seq):
    return seq[int(rng.integers(len(seq)))]


class State:
    def __init__(self, run, tiles, guards):
        self.run, self.tiles, self.guards = run, tiles, guards
        self.result = None


_MEMORIES: dict = {}     # chip name -> [sbuf, psum, the previous trial's Run]


def _fresh_run(target: str) -> _runtime.Run:
    """A Run on this fuzzer's own SBUF/PSUM pair, wiped (data and init) up to what the previous trial
    allocated: every trial starts from the same bytes, so two runs of a trial compare equal. (A fresh
    24 MiB pair per trial would be zeroed by calloc from the heap each time, and keep RSS high.)"""
    chip = _spec.chip(target)
    slot = _MEMORIES.get(chip.name)
    if slot is None:
        sbuf, psum = _runtime._take_memories(chip)
        slot = _MEMORIES[chip.name] = [sbuf, psum, None]
    sbuf, psum, previous = slot
    for mem, region in ((sbuf, MemoryRegion.sbuf), (psum, MemoryRegion.psum)):
        used = mem.lane_bytes if previous is None else previous.peak[region]
        if used:
            mem.data.reshape(mem.lanes, mem.lane_bytes)[:, :used] = 0
            mem.forget_lanes(0, mem.lanes, 0, used)
    _runtime._POOL.setdefault(chip.name, []).append((sbuf, psum))
    run = _runtime.Run(chip)
    assert run.sbuf is sbuf
    slot[2] = run
    return run


SPECIAL = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 3.4e38, -3.4e38, 1e-45, 65504.0, 1e30], np.float32)


def _values(rng, t: NkiTensor):
    d = t.tv.dtype
    if d.is_float:
        v = rng.normal(0, 4, t.shape).astype(np.float32)
        if rng.random() < 0.2:                        # NaN, infinities, huge and tiny values mixed in
            m = rng.random(t.shape) < 0.2
            v[m] = rng.choice(SPECIAL, int(m.sum()))
    elif d.kind == "b":
        v = rng.integers(0, 2, t.shape)
    else:
        v = rng.integers(max(int(d.min), -100), min(int(d.max), 100) + 1, t.shape)
    return np.asarray(v).astype(np.float32 if d.name == "tfloat32" else d.np)


def _tile_specs(rng):
    p = _choice(rng, (128, 128, 64, 32, 1, 8))
    f = _choice(rng, (1, 4, 16, 64, 128))
    specs = []
    n = int(rng.integers(3, 6))
    for i in range(n):
        buf = _choice(rng, ("sbuf",) * 5 + ("psum", "psum", "hbm"))
        shape = (p, f) if rng.random() < 0.8 else (p, 1) if rng.random() < 0.5 else \
            (_choice(rng, (p, 32, 128)), _choice(rng, (1, 2, 8, 512)))
        if rng.random() < 0.1:
            shape = (shape[0], 2, max(1, shape[1] // 2))
        dt = _choice(rng, COMMON) if rng.random() < 0.85 else _choice(rng, DTYPES)
        if buf == "psum" and rng.random() < 0.7:
            dt = "float32"
        specs.append((buf, shape, dt))
    specs.append(("sbuf", (p, 1), "float32"))          # a (P, 1) fp32 operand tile
    extra = [("sbuf", (p, f), "uint8"), ("sbuf", (p, 6), "float32"), ("sbuf", (p, 3), "float32"),
             ("sbuf", (1, 1), "float32"), ("psum", (p, f), "float32"), ("sbuf", (f, p), "float32")]
    specs.append(_choice(rng, extra))
    return specs


def _setup_fn(target, specs, seed):
    def setup():
        rng = np.random.default_rng(seed)
        run = _fresh_run(target)
        tiles = []
        for i, (buf, shape, dt) in enumerate(specs):
            region = {"sbuf": MemoryRegion.sbuf, "psum": MemoryRegion.psum, "hbm": MemoryRegion.private_hbm}[buf]
            t = run.allocate(shape, dt, region, f"t{i}", "fuzz")
            if rng.random() < 0.9:
                t.write(_values(rng, t))
            tiles.append(t)
        guards = [run.allocate((128, 64), "float32", MemoryRegion.sbuf, "guard_sbuf", "fuzz"),
                  run.allocate((128, 512), "float32", MemoryRegion.psum, "guard_psum", "fuzz")]
        for g in guards:
            g.write(np.full(g.shape, 7.0, np.float32))
        return State(run, tiles, guards)
    return setup


def _lane_watches(mem, lo: int, hi: int, outs) -> list[Watch]:
    watches = []
    for lane in range(mem.lanes):
        base = lane * mem.lane_bytes
        writable = tuple((base + fp.lo, base + fp.hi) for fp in outs
                         if fp.memory is mem and fp.lane_lo <= lane < fp.lane_hi and fp.hi > fp.lo)
        watches.append(Watch(mem, base + lo, base + hi, writable))
    return watches


def _regions_fn(get_outs):
    def regions(state: State):
        outs = [t.tv.footprint for t in get_outs(state) if isinstance(t, NkiTensor)]
        watches = []
        run = state.run
        for mem, region, guard in ((run.sbuf, MemoryRegion.sbuf, state.guards[0]),
                                   (run.psum, MemoryRegion.psum, state.guards[1])):
            on = [t for t in state.tiles if t.buffer is region and t.tv.memory is mem]
            lo = min([t.tv.footprint.lo for t in on] + [guard.tv.footprint.lo])
            watches += _lane_watches(mem, lo, guard.tv.footprint.hi, outs)
        for t in state.tiles:
            if not t.on_chip:
                m = t.tv.memory
                writable = tuple((fp.lo, fp.hi) for fp in outs if fp.memory is m)
                watches.append(Watch(m, 0, m.size, writable))
        return watches
    return regions


def _trace(state: State):
    evs = state.run.trace.events
    res = state.result
    names = tuple(res) if isinstance(res, list) else _result_label(res)
    return (tuple((e.core, e.engine, e.name, e.start_ns, e.end_ns, e.cycles, e.nbytes, e.elements,
                   repr(e.args)) for e in evs), names)


# ---- argument drawing, by parameter name ----

def _tile_arg(rng, tiles, like=None):
    if like is not None and rng.random() < 0.6:
        same = [t for t in tiles if t.shape == like.shape]
        if same:
            return _choice(rng, same)
    t = _choice(rng, tiles)
    if rng.random() < 0.2 and t.shape[0] > 1:           # a view: partitions, free range, strided
        p, f = t.shape[0], t.shape[-1]
        return _choice(rng, (t[0:max(1, p // 2), :], t[:, 0:1], t[p // 2:p, :], t[32:64, :], t[:, ::2],
                             t[:, f // 2:f], t[1:p, :]))
    return t


def _scalar(rng):
    return _choice(rng, (0.0, 1.0, -2.5, 3, 0, 7, 1e-6, 255, 0.5))


def _axis(rng, t):
    nd = len(t.shape) if isinstance(t, NkiTensor) else 2
    r = rng.random()
    if r < 0.5:
        return nd - 1
    if r < 0.7:
        return tuple(range(1, nd))
    if r < 0.8:
        return -1
    return _choice(rng, (5, -7, 0, 1.0, None, (1, 1), (), "a", 2 ** 40, np.nan, True))


def _shape(rng):
    r = rng.random()
    if r < 0.7:
        return (_choice(rng, (1, 32, 64, 128)), _choice(rng, (1, 8, 64)))
    return _choice(rng, ((2 ** 40, 4), (128, 2 ** 40), (0, 4), (-1, 4), (128,), (128.0, 4), (np.nan, 2),
                         (None, 4), (True, 4), (128, 4, 4, 4, 4, 4), "ab", None, 5, (float("inf"), 1),
                         (129, 8), (256, 4), (128, 70000)))


def _dtype(rng):
    r = rng.random()
    if r < 0.8:
        return _choice(rng, COMMON + tuple(DTYPES))
    return _choice(rng, (None, "float64", np.int64, "nope", 3, np.complex64, object))


def _pattern(rng, t):
    f = t.free_size if isinstance(t, NkiTensor) else 8
    r = rng.random()
    if r < 0.7:
        return [[1, f]]
    return _choice(rng, ([[1.5, f]], [[1, 0]], [[None, 4]], [[1, 2 ** 40]], [], [[1, f]] * 5, None, [[1]],
                         [[np.nan, 2]], [[1, -3]], [[2 ** 70, 1]], 3))


def _arg(rng, pname, tiles, data, dirt=0.0):
    """A value for parameter ``pname``; ``data`` is the main input tile (for shape-matched choices);
    ``dirt`` is the chance of a malformed value."""
    malformed = rng.random() < dirt
    if malformed:
        if pname in ("dst", "data", "src", "x", "y", "data1", "data2", "data0", "stationary", "moving",
                     "predicate", "on_true", "on_false", "on_true_tile", "condition", "w", "a", "value", "tensor"):
            return _choice(rng, (_bad(rng), np.zeros((4, 4), np.float32), 1.0))
        return _bad(rng)
    if pname in ("dst", "reduce_res"):
        if pname == "reduce_res" and rng.random() < 0.5:
            return _choice(rng, [t for t in tiles if t.shape[1:] == (1,)] or tiles)
        return _tile_arg(rng, tiles, data)
    if pname in ("data", "src", "x", "y", "data1", "data2", "data0", "stationary", "moving", "predicate",
                 "on_true", "on_false", "on_true_tile", "condition", "w", "a", "tensor"):
        if pname in ("y", "on_false") and rng.random() < 0.2:
            return _scalar(rng)
        return _tile_arg(rng, tiles, data)
    if pname == "act":
        return _choice(rng, ACTS) if rng.random() < 0.9 else _choice(rng, ALU)
    if pname in ("op", "op0", "op1", "reduce_op", "comp_op0", "comp_op1"):
        if pname == "op" and rng.random() < 0.3:
            return _choice(rng, ACTS)
        if rng.random() < 0.5:
            return _choice(rng, (nl.add, nl.maximum, nl.multiply, nl.subtract, nl.minimum))
        return _choice(rng, ALU) if rng.random() < 0.95 else None
    if pname in ("operand0", "operand1", "bound0", "bound1", "initial", "scale", "bias"):
        if pname == "bias" and rng.random() < 0.5:
            return None
        if rng.random() < 0.3:
            return _choice(rng, [t for t in tiles if t.shape[1:] == (1,)] or tiles)
        return _scalar(rng)
    if pname in ("value", "fill_value", "epsilon", "on_false_value", "reduce_init", "offset", "channel_multiplier",
                 "range_start"):
        return _scalar(rng)
    if pname == "axis" or pname == "axes":
        return _axis(rng, data)
    if pname == "engine":
        return _choice(rng, ENGINES)
    if pname in ("dtype", "compute_dtype", "to"):
        return None if rng.random() < 0.5 else _dtype(rng)
    if pname == "shape":
        return data.shape if isinstance(data, NkiTensor) and rng.random() < 0.3 else _shape(rng)
    if pname == "buffer":
        return _choice(rng, (nl.sbuf, nl.sbuf, nl.psum, nl.hbm, nl.shared_hbm))
    if pname == "reduce_cmd":
        return _choice(rng, list(nisa.reduce_cmd))
    if pname == "pattern":
        return _pattern(rng, data)
    if pname in ("negate", "keepdims", "reverse0", "reverse1", "reverse_pred", "transpose_x", "is_transpose",
                 "is_stationary_onezero", "is_moving_onezero", "reduce_res_negate"):
        return bool(rng.random() < 0.3)
    if pname == "accumulate":
        return _choice(rng, (None, True, False))
    if pname == "n":
        return _choice(rng, (data.free_size if isinstance(data, NkiTensor) else 8, 1, 64))
    if pname in ("start", "size"):
        return int(rng.integers(0, 8))
    if pname == "prefix":
        return "p"
    if pname == "perf_mode":
        return _choice(rng, list(nisa.matmul_perf_mode))
    if pname in ("tile_position", "tile_size"):
        return ()
    if pname in ("oob_mode", "dge_mode", "priority"):
        return None
    if pname == "name":
        return None
    return _scalar(rng)


# Functions whose documented keywords the Python signature hides (**kwargs).
SIGNATURES = {"affine_select": [("dst", True), ("pattern", True), ("channel_multiplier", True),
                                ("on_true_tile", True), ("on_false_value", True), ("cmp_op", False),
                                ("offset", False)]}


def _recipe(rng, name, drawn, proxies):
    """Shape-consistent arguments for ops whose valid calls a per-parameter draw rarely hits."""
    dst = drawn.get("dst")
    if name in ("iota", "affine_select") and isinstance(dst, _Proxy):
        drawn["pattern"] = [[int(rng.integers(-2, 3)), dst.free_size]]
        if name == "affine_select":
            drawn["channel_multiplier"] = int(rng.integers(-1, 2))
            drawn["on_true_tile"] = _choice(rng, [t for t in proxies if t.shape == dst.shape] or [dst])
            drawn["cmp_op"] = _choice(rng, (nl.greater_equal, nl.equal, nl.less))
    if name in ("bn_stats", "bn_aggr"):
        six = [t for t in proxies if t.shape[1:] == (6,)]
        if six:
            drawn["dst" if name == "bn_stats" else "data"] = six[0]
            if name == "bn_aggr":
                two = [t for t in proxies if t.shape[1:] in ((2,), (3,))]
                if two:
                    drawn["dst"] = two[0]
    if name == "store":
        hbm = [t for t in proxies if t.buffer == "hbm"]
        sb = [t for t in proxies if t.buffer == "sbuf" and hbm and t.shape == hbm[0].shape]
        if hbm and sb:
            drawn["dst"], drawn["value"] = hbm[0], sb[0]
    if name.startswith("activation"):
        drawn["op"] = _choice(rng, ACTS)
        if name == "activation_reduce" or drawn.get("reduce_op") is not None:
            drawn["reduce_op"] = nl.add
            col = [t for t in proxies if t.shape[1:] == (1,) and t.spec[2] == "float32"]
            if col and "reduce_res" in drawn:
                drawn["reduce_res"] = col[0]


def _params(fn):
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return []
    return [(p.name, p.default is inspect.Parameter.empty) for p in sig.parameters.values()
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY, p.POSITIONAL_ONLY)
            and not p.name.startswith("_")]


def _draw_key(rng, t: NkiTensor):
    def one(n):
        r = rng.random()
        if r < 0.4:
            return slice(None)
        if r < 0.55:
            return int(rng.integers(-n, n))
        if r < 0.75:
            a = int(rng.integers(0, n))
            return slice(a, int(rng.integers(a, n + 1)))
        if r < 0.85:
            return nl.ds(int(rng.integers(0, n)), int(rng.integers(0, n + 1)))
        return _choice(rng, (1.0, 2.5, np.float32(1), None, "a", n, -n - 1, 2 ** 40, slice(0, 2 ** 70),
                             slice(0.5, 2), slice(0, n, 0), slice(0, n, 2), slice(None, None, -1), True,
                             Ellipsis, np.nan, nl.ds(0, 2 ** 40)))
    key = tuple(one(n) for n in t.shape)
    if rng.random() < 0.1:
        key = key + (slice(None),)
    return key if rng.random() < 0.8 else key[0]


def _call_fn(calls):
    """Every call runs (a refused one does not stop the program); the first refusal is raised at the end."""
    def call(state: State):
        first, results = None, []
        for kind, name, argv, kwargs, _ in calls:
            try:
                _one(state, kind, name, argv, kwargs)
                results.append(_result_label(state.result))
            except NpuSimError as e:
                first = first or e
                results.append(type(e).__name__)
        state.result = results if len(calls) > 1 else state.result
        if first is not None:
            raise first
    return call


def _result_label(res):
    return res.name if isinstance(res, NkiTensor) else type(res).__name__


def _one(state, kind, name, argv, kwargs):
    """Make one call in the trial's run; its return value goes to ``state.result``."""
    with _runtime.activate(state.run):
        args = [a(state) if callable(a) and getattr(a, "_late", False) else a for a in argv]
        kw = {k: (v(state) if callable(v) and getattr(v, "_late", False) else v) for k, v in kwargs.items()}
        if kind == "tensor":
            t, rest = args[0], args[1:]
            if name == "__getitem__":
                state.result = t[rest[0]]
            elif name in ("strides", "start_partition"):
                state.result = getattr(t, name)
            elif name == "numpy":
                state.result = t.numpy()
            else:
                state.result = getattr(t, name)(*rest)
            return
        fn = FUNCTIONS[kind][name]
        if kind in ("lisa", "lnl"):               # a legacy kernel sees legacy tensors
            args = [_legacy(a) for a in args]
            kw = {k: _legacy(v) for k, v in kw.items()}
        if name in ("affine_range", "sequential_range", "static_range"):
            state.result = sum(1 for _ in itertools.islice(fn(*args), 3))     # the user's loop: 3 trips
            return
        if name == "device_print":
            with contextlib.redirect_stdout(io.StringIO()):
                state.result = fn(*args, **kw)
            return
        state.result = fn(*args, **kw)


def _late(f):
    f._late = True
    return f


def _tile_ref(i):
    return _late(lambda state: state.tiles[i] if i >= 0 else state.tiles[-1])


def _view_ref(i, key):
    return _late(lambda state: state.tiles[i][key])


def _describe(v):
    if getattr(v, "_late", False):
        return getattr(v, "desc", "tile")
    r = repr(v)
    return r if len(r) < 40 else r[:37] + "..."


ISA_CALLS = [api for api in APIS if api[0] == "nisa" and api[1] != "get_nc_version"]


# ---- whole launches: nki.jit / nki.simulate / kernel[grid] with odd inputs, grids and targets ----

def _copy_kernel(a):
    out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
    nl.store(out, nl.load(a))
    return out


def _add_kernel(a, b):
    out = nl.ndarray(a.shape, nl.float32, buffer=nl.shared_hbm)
    nl.store(out, nl.add(nl.load(a), nl.load(b)))
    return out


def _spmd_kernel(a):
    out = nl.ndarray(a.shape, nl.float32, buffer=nl.shared_hbm)
    i = nl.program_id(0)
    rows = a.shape[0] // nl.num_programs(0)
    t = nl.load(a[i * rows:(i + 1) * rows])
    nl.store(out[i * rows:(i + 1) * rows], nl.multiply(t, 2.0))
    return out


KERNELS = {"copy": (_copy_kernel, 1), "add": (_add_kernel, 2), "spmd": (_spmd_kernel, 1)}


def _launch_trial(rng) -> Trial:
    kname = _choice(rng, sorted(KERNELS))
    fn, nargs = KERNELS[kname]
    shape = _choice(rng, ((128, 64), (128, 64), (64, 8), (4, 4, 4), (0, 4), (128,), (256, 8)))
    dtype = _choice(rng, ("float32", "float32", "float16", "bfloat16", "int32", "float64", "object", "bool"))
    grid = _choice(rng, (None, None, 1, 2, (2,), 4, 0, 1.5, float("nan"), True, 2 ** 40, (1, 2)))
    target = _choice(rng, ("trn2", "trn1", "trn3", None, "trn9", 3))
    seed = int(rng.integers(2 ** 31))

    def setup():
        r = np.random.default_rng(seed)
        arrays = []
        for _ in range(nargs):
            if dtype == "object":
                arrays.append(np.array([None] * max(1, int(np.prod(shape)))))
            elif dtype == "bfloat16":
                arrays.append(r.normal(0, 3, shape).astype(ml_dtypes.bfloat16))
            else:
                arrays.append(r.normal(0, 3, shape).astype(dtype))
        return {"arrays": arrays, "out": None}

    def call(state):
        k = nki.jit(fn)
        if grid is not None:
            k = k[grid]
        state["out"] = nki.simulate(k, target=target)(*state["arrays"])

    def trace(state):
        run = nki.last_run()
        out = state["out"]
        evs = () if run is None or out is None else tuple(
            (e.core, e.engine, e.name, e.start_ns, e.end_ns, e.cycles, e.nbytes, e.elements, repr(e.args))
            for e in run.trace.events)
        return evs, None if out is None else np.asarray(out).tobytes()

    return Trial("nki", "nki.simulate", setup, call, lambda state: [], trace,
                 args=f"kernel {kname}, shape {shape}, dtype {dtype}, grid {grid!r}, target {target!r}")


def draw(rng: np.random.Generator) -> Trial:
    """One call, or (one trial in five) a short program of 2-4 ISA calls on the same tiles: a later call
    must not be served a stale plan, init flag or cached check of an earlier one."""
    kind, name = APIS[int(rng.integers(len(APIS)))]
    if kind == "nki":
        return _launch_trial(rng)
    target = _choice(rng, ("trn2", "trn2", "trn1", "trn3"))
    specs = _tile_specs(rng)
    seed = int(rng.integers(2 ** 31))
    # Placeholder tiles with the drawn shapes, to choose shape-matched arguments before the run exists.
    proxies = [_Proxy(i, spec) for i, spec in enumerate(specs)]
    calls = [_draw_call(rng, kind, name, proxies)]
    if kind == "nisa" and rng.random() < 0.2:
        for _ in range(int(rng.integers(1, 4))):
            calls.append(_draw_call(rng, *(calls[0][:2] if rng.random() < 0.5 else _choice(rng, ISA_CALLS)),
                                    proxies))
    out_refs = [o.ref() for c in calls for o in c[4]]
    desc = "; ".join(f"{c[0]}.{c[1]}(" + ", ".join([_describe(a) for a in c[2]] +
                                                    [f"{k}={_describe(v)}" for k, v in c[3].items()]) + ")"
                     for c in calls)
    return Trial("nki", f"{kind}.{name}" + (f"+{len(calls) - 1}" if len(calls) > 1 else ""),
                 _setup_fn(target, specs, seed), _call_fn(calls),
                 _regions_fn(lambda state: _resolve_outputs(state, out_refs)), _trace,
                 args=f"[{target}; tiles {specs}] {desc}")


def _resolve_outputs(state, refs) -> list:
    """The output tiles the calls may write; a view the calls will refuse (out of range) writes nothing."""
    out = []
    for r in refs:
        try:
            out.append(r(state))
        except NpuSimError:
            pass
    return out


def _draw_call(rng, kind, name, proxies):
    """(kind, name, positional args, keywords, output proxies) of one call."""
    argv, kwargs, outs = [], {}, []

    if kind == "tensor":
        t = _choice(rng, proxies)
        argv.append(t.ref())
        if name == "__getitem__":
            argv.append(_draw_key(rng, t))
        elif name == "reshape":
            n = math.prod(t.shape)
            argv += list(_choice(rng, ((t.shape[0], n // t.shape[0]), (t.shape[0], -1), (n,), (t.shape[0], 1.5),
                                       (t.shape[0], None), (-1, -1), (t.shape[0], 2 ** 40), (np.nan,))))
        elif name == "view":
            argv.append(_dtype(rng))
    else:
        fn = FUNCTIONS[kind][name]
        params = (SIGNATURES.get(name) if kind == "nisa" else None) or _params(fn)
        if isinstance(fn, (type(nl.add), type(nl.exp))):
            params = [("x", True), ("y", False), ("dtype", False)] if isinstance(fn, type(nl.add)) \
                else [("x", True), ("dtype", False)]
        data = None
        # inputs first, so dst can match their shape
        order = sorted(params, key=lambda p: p[0] in OUTPUT_PARAMS)
        drawn = {}
        dirt = 0.0 if rng.random() < 0.6 else DIRT
        for pname, required in order:
            if not required and rng.random() < 0.5 and pname not in ("reduce_res",):
                continue
            if name in ("affine_range", "sequential_range", "static_range"):
                continue
            v = _arg(rng, "src" if (name, pname) == ("store", "value") else pname, proxies, data, dirt)
            if pname == "op" and name.startswith("activation") and rng.random() < 0.9:
                v = _choice(rng, ACTS)
            if pname == "dst" and name in ("nc_matmul", "nc_transpose") and rng.random() < 0.7:
                v = _choice(rng, [t for t in proxies if t.buffer == "psum"] or proxies)
            if isinstance(v, _Proxy):
                data = data or v
            drawn[pname] = v
        if dirt == 0 and rng.random() < 0.8:
            _recipe(rng, name, drawn, proxies)
        if name in ("affine_range", "sequential_range", "static_range"):
            argv = list(_choice(rng, ((4,), (0, 4, 2), (1.5,), (None,), (2 ** 70,), (0, 4, 0), (np.nan,))))
        if name == "ds":
            drawn = {"start": _choice(rng, (0, 3, 1.5, None, np.nan, -1, 2 ** 40)),
                     "size": _choice(rng, (4, 0, 2.5, None, -4, 2 ** 70))}
        for pname, _ in params:
            if pname in drawn:
                v = drawn[pname]
                kwargs[pname] = v.ref() if isinstance(v, _Proxy) else v
                if pname in OUTPUT_PARAMS and isinstance(v, _Proxy):
                    outs.append(v)
        if name == "store" and isinstance(drawn.get("dst"), _Proxy):
            outs.append(drawn["dst"])
    return kind, name, argv, kwargs, outs


class _Proxy:
    """A tile that setup() will allocate (index i of the drawn specs), or a view of it."""

    def __init__(self, i, spec, key=None):
        self.i, self.spec, self.key = i, spec, key
        buf, shape, dt = spec
        self.shape = shape
        self.free_size = math.prod(shape[1:])
        self.buffer = buf

    def __getitem__(self, key):
        """A view by a tuple of slices (what _tile_arg draws); its shape as NkiTensor would give it."""
        p = _Proxy(self.i, self.spec, key)
        key = key + (slice(None),) * (len(self.shape) - len(key))
        p.shape = tuple(len(range(*k.indices(n))) for k, n in zip(key, self.shape))
        p.free_size = math.prod(p.shape[1:])
        return p

    def ref(self):
        i, key = self.i, self.key
        f = (lambda state: state.tiles[i]) if key is None else (lambda state: state.tiles[i][key])
        f._late = True
        f.desc = f"t{i}" + ("" if key is None else repr(key))
        return f
