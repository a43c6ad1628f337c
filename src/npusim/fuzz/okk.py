"""Fuzz trials for npusim.okk: every public function, called as a careless user would.

Each trial is one call on a fresh ``okk.Device``. Arguments are drawn by their C kind (the oracle's
signature tables, plus a table of the helpers below): mostly valid-ish values (local operands in a small
window of a few NPUs, system operands in a 64 KiB window of DDR, small shapes), with malformed ones
mixed in (None, NaN, inf, bools, floats, huge and negative ints, wrong tuple lengths, 4-tuple strides,
dim4 fields of the wrong type, huge shapes with zero strides).

Watched: the first ``LOCAL_WATCH`` bytes of every NPU's local memory and the DDR window with margins.
Writable: for every destination-like local operand (``dst``/``output``/``work``), each NPU's bytes
from its offset to the end of its strided box (its own shape and stride when it has them, else a
generous ``LOCAL_SLACK``), and for a system destination its strided box. Everything else must keep its
bytes: a read never changes memory.
"""
from __future__ import annotations

import contextlib
import inspect
import io
import os
import re

import numpy as np

from .. import okk
from ..okk import spec
from ..okk.oracle.signatures import SIGNATURES
from .harness import Trial, Watch

LANE = spec.LOCAL_MEM_SIZE
G = spec.GLOBAL_MEM_START
LOCAL_WATCH = 0x8000            # bytes watched at the start of every NPU
LOCAL_SLACK = 0x2000            # writable bytes past a destination whose box the fuzzer does not model
SYS_WINDOW = 0x10000            # system operands live in [G + 0x1000, G + 0x1000 + SYS_WINDOW)
SYS_WATCH = (G, G + SYS_WINDOW + 0x2000)
L2_WATCH = 0x4000               # L2 SRAM operands live in its first 4 KiB

HELPERS: dict[str, tuple[str, ...]] = {
    "okk_128_byte_aligned_stride_for_32bit": ("D4out", "i", "D4"),
    "okk_128_byte_aligned_stride_for_16bit": ("D4out", "i", "D4"),
    "okk_128_byte_aligned_stride_for_8bit": ("D4out", "i", "D4"),
    "okk_compact_stride": ("D4out", "i", "D4"),
    "okk_continuous_stride": ("D4out", "D4"),
    "okk_channle_num_per_npu": ("i", "i"),
    "okk_start_npu_index": ("L",),
    "okk_global_mem_addr": ("S",),
    "okk_l2_sram_addr": ("S2",),
    "okk_local_mem_addr": ("npu", "L"),
    "okk_dtcm_addr": ("i",),
    "okk_get_id_node": ("node",),
    "okk_set_id_node": ("node",),
    "okk_register_kernel_func": ("str", "fn"),
    "OKKERNEL_FUNC_REGISTER": ("fn",),
    "OKKERNEL_LOG": ("fmt", "i"),
    "OKKERNEL_ASSERT": ("i",),
    "MUL_TYPE": ("i", "i", "i"),
    "OP_TYPE": ("i", "i", "i", "i", "i"),
}


def public_functions() -> dict[str, tuple[str, ...]]:
    """Every callable okk export (not a class) -> its argument kinds."""
    out = {}
    for name in okk.__all__:
        f = getattr(okk, name)
        if not callable(f) or isinstance(f, type) or name in ("current", "info"):
            continue
        kinds = SIGNATURES.get(name) or HELPERS.get(name)
        if kinds is None:
            kinds = ("i",) * len(inspect.signature(f).parameters)
        out[name] = kinds
    return out


FUNCTIONS = public_functions()
NAMES = sorted(FUNCTIONS)

# ---- malformed values ----

_BAD = [None, float("nan"), float("inf"), -float("inf"), True, False, 1.5, 2.0, -1, 0, 2**31, 2**63, 2**70,
        -2**63, "3", b"x", (), (1,), [1, 2], object(), np.float32(1), np.int64(3), np.uint64(2**64 - 1),
        np.bool_(True), 1j]


def _bad(rng):
    return _BAD[int(rng.integers(len(_BAD)))]


def _int(rng, lo, hi, bad=0.05):
    return _bad(rng) if rng.random() < bad else int(rng.integers(lo, hi + 1))


class _Places:
    """Per trial: one start NPU for the local operands (the BDC rule) and distinct 2 KiB slots."""
    def __init__(self, rng):
        self.q = int(rng.choice([0, 0, 0, 1, 31, 62, 63]))
        self.slots = list(rng.permutation(LOCAL_WATCH // 0x800 - 2))


_places: list = []


def _local(rng):
    r = rng.random()
    if r < 0.04:
        return _bad(rng)
    if r < 0.07:
        return int(rng.choice([0x7FFFF, LANE * 64, LANE * 64 - 4, -128, 2**32, 0x100000 + 64]))
    p = _places[-1]
    q = p.q if rng.random() < 0.9 else int(rng.choice([0, 1, 31, 62, 63]))
    off = int(p.slots.pop() if p.slots else rng.integers(0, LOCAL_WATCH // 0x800 - 2)) * 0x800
    if rng.random() < 0.1:
        off += int(rng.choice([4, 8, 64, 2, 1]))
    return q * LANE + off


def _system(rng):
    r = rng.random()
    if r < 0.06:
        return _bad(rng)
    if r < 0.1:
        return int(rng.choice([0, G - 4, G + spec.GLOBAL_MEM_SIZE - 4, 2**64, spec.L2_SRAM_START,
                               spec.L2_SRAM_START + 0x800, spec.L2_SRAM_START + spec.L2_SRAM_SIZE - 64]))
    return G + 0x1000 + int(rng.integers(0, SYS_WINDOW // 0x400 - 2)) * 0x400 + int(rng.choice([0, 0, 0, 4, 1]))


def _field(rng, lo, hi):
    r = rng.random()
    if r < 0.04:
        return _bad(rng)
    if r < 0.06:
        return int(rng.choice([0, -1, 65535, 65536, 4095, 4096, 2**31, 2**40]))
    return int(rng.integers(lo, hi + 1))


def _shape(rng):
    r = rng.random()
    if r < 0.04:
        return _bad(rng)
    if r < 0.08:      # huge shapes (with or without zero strides elsewhere)
        return okk.dim4(int(rng.choice([1, 4096, 65535])), int(rng.choice([1, 4095, 64])),
                        int(rng.choice([1, 1000, 65535])), int(rng.choice([1, 65535])))
    fields = (_field(rng, 1, 2), _field(rng, 1, 70), _field(rng, 1, 4), _field(rng, 1, 8))
    if rng.random() < 0.15:
        return tuple(fields) if rng.random() < 0.8 else tuple(fields[:int(rng.integers(0, 6))])
    return okk.dim4(*fields)


def _stride(rng):
    r = rng.random()
    if r < 0.55:
        return None
    if r < 0.6:
        return _bad(rng)
    if r < 0.65:
        return okk.dim4(0, 0, 0, 1) if r < 0.625 else okk.dim4(0, 0, 0, 0)
    fields = [_field(rng, 0, 300), _field(rng, 0, 64), _field(rng, 0, 16), 1 if rng.random() < 0.9 else _field(rng, 0, 3)]
    if rng.random() < 0.05:
        fields[int(rng.integers(4))] = float(rng.choice([1.5, 2.0, 0.5]))
    if rng.random() < 0.25:
        return tuple(fields)
    return okk.dim4(*fields)


def _union(rng, bits):
    r = rng.random()
    if r < 0.1:
        return _bad(rng)
    if r < 0.4:
        return float(rng.normal())
    if r < 0.7:
        return int(rng.integers(-2**31, 2**32))
    cls = {32: okk.x32, 16: okk.x16, 8: okk.x8}[bits]
    member = {32: "fp32", 16: "s16", 8: "u8"}[bits]
    return cls(**{member: float(rng.normal()) if member.startswith("fp") else int(rng.integers(0, 100))})


def _struct(rng, name):
    """A Padding / dim2 / fp32_or_addr_t / x32_or_addr_t pointer argument."""
    r = rng.random()
    operand = name.startswith(("src", "select"))
    if r < (0.03 if operand else 0.2):
        return None
    if r < (0.06 if operand else 0.27):
        return _bad(rng)
    if name in ("padding",):
        return okk.Padding(*(_field(rng, 0, 2) for _ in range(4)))
    if name in ("stride", "dilation"):
        return okk.dim2(_field(rng, 1, 3), _field(rng, 1, 3))
    cls = okk.fp32_or_addr_t if name.startswith("src") else okk.x32_or_addr_t
    if rng.random() < 0.5:     # built at call time: the constructor is public API too
        return Make(cls, (True, _local(rng) if rng.random() < 0.9 else _bad(rng)))
    return Make(cls, (bool(rng.integers(2)) if rng.random() < 0.1 else False,
                      float(rng.normal()) if rng.random() < 0.9 else _bad(rng)))


class Make:
    """An argument the trial constructs when it runs (so a constructor's error is the call's outcome)."""
    def __init__(self, cls, args):
        self.cls, self.args = cls, args

    def build(self):
        return self.cls(*self.args)

    def __repr__(self) -> str:
        return f"{self.cls.__name__}{self.args!r}"


def _built(a):
    return a.build() if isinstance(a, Make) else a


_OP_TYPES = [getattr(okk, n) for n in okk.__all__ if "_OP_" in n or "_MUL_" in n]


def _int_param(rng, name):
    if name in ("num_series",):
        return _int(rng, 0, 70)
    if name.startswith(("using_", "is_", "result_add")):
        return bool(rng.integers(2)) if rng.random() < 0.7 else _int(rng, -1, 2)
    if name in ("output_c",):
        return _int(rng, 1, 70)
    if name.startswith("kernel_"):
        return _int(rng, 1, 3)
    if name in ("rows", "left_rows"):
        return _int(rng, 1, 8)
    if name in ("cols", "left_cols", "right_cols", "row_stride"):
        return _int(rng, 1, 80)
    if "cols_per_channel" in name:
        return _int(rng, 1, 40)
    if "shift" in name or name in ("C",):
        return _int(rng, -40, 40)
    if name == "op_type":
        return _OP_TYPES[int(rng.integers(len(_OP_TYPES)))] if rng.random() < 0.85 else _int(rng, 0, 32)
    if name == "mul_type":
        return int(rng.choice([7, 6, 0, 5])) if rng.random() < 0.85 else _int(rng, 0, 8)
    if name.endswith("sign") or name.endswith("bit"):
        return _int(rng, 0, 2)
    return _int(rng, -3, 70)


def _arg(rng, kind, name):
    if kind == "L":
        return _local(rng)
    if kind == "S":
        return _system(rng)
    if kind == "S2":
        return spec.L2_SRAM_START + int(rng.integers(0, 0x1000)) if rng.random() < 0.9 else _bad(rng)
    if kind == "D4":
        return _stride(rng) if "stride" in name else _shape(rng)
    if kind == "D4out":
        return None if rng.random() < 0.5 else (okk.dim4() if rng.random() < 0.8 else _bad(rng))
    if kind in ("x32", "x16", "x8"):
        return _union(rng, int(kind[1:]))
    if kind == "f":
        return float(rng.normal() * 10) if rng.random() < 0.85 else _bad(rng)
    if kind == "P":
        return _struct(rng, name)
    if kind == "npu":
        return _int(rng, 0, 63)
    if kind == "node":
        return {} if rng.random() < 0.5 else _bad(rng)
    if kind == "str":
        return "kernel" if rng.random() < 0.8 else _bad(rng)
    if kind == "fn":
        return (lambda: None) if rng.random() < 0.8 else _bad(rng)
    if kind == "fmt":
        return str(rng.choice(["x=%d\n", "%s %s\n", "plain\n", "%q\n"])) if rng.random() < 0.9 else _bad(rng)
    return _int_param(rng, name)


# ---- what the call may write ----

def _fields(d):
    """A dim4 or 4-tuple of plain ints -> the tuple, else None (the fuzzer cannot model it)."""
    t = d.tuple() if isinstance(d, okk.dim4) else d
    if not (isinstance(t, (tuple, list)) and len(t) == 4):
        return None
    if not all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in t):
        return None
    return tuple(int(v) for v in t)


def _box_bytes(shape, stride, esize=4, system=False) -> tuple[int, int] | None:
    """Lowest and highest byte (exclusive) of a strided box relative to its start, or None."""
    sh = _fields(shape)
    if sh is None or min(sh) < 1:
        return None
    n, c, h, w = sh
    rows = c if system else -(-(63 + c) // 64)
    if system and stride is None:
        st = (c * h * w, h * w, w, 1)
    elif stride is None:
        cs = -(-(h * w) // 32) * 32
        st = (rows * cs, cs, w, 1)
    else:
        st = _fields(stride)
        if st is None:
            return None
    lo = sum(min(s, 0) * (k - 1) for s, k in zip(st, (n, rows, h, w))) * esize
    hi = sum(max(s, 0) * (k - 1) for s, k in zip(st, (n, rows, h, w))) * esize + esize
    return lo, hi


NN_OUTPUTS = ("okk_bdc_conv2d", "okk_bdc_depthwise2d", "okk_bdc_avg_pool2d", "okk_bdc_max_pool2d", "okk_bdc_matmul")


def _bits_of(api: str) -> int:
    m = re.search(r"_(\d+)bit_", api)
    return int(m.group(1)) if m else 32


def _writable_ranges(api, kinds, names, args):
    """(local writable per-lane byte ranges, DDR writable flat ranges, L2 SRAM writable flat ranges)."""
    local, system, l2 = [], [], []
    by_name = dict(zip(names, args))
    shape = next((a for k, n, a in zip(kinds, names, args) if k == "D4" and "stride" not in n), None)
    for kind, name, a in zip(kinds, names, args):
        dest = name.startswith(("dst", "output", "work")) or api.startswith("okk_local_mem_addr")
        if not dest or not isinstance(a, (int, np.integer)) or isinstance(a, bool):
            continue
        stride = by_name.get(name.replace("_addr", "_stride"))
        if kind == "L":
            # packed fixed-point tensors have ceil(n/4) or ceil(n/2) words of 4 bytes: the fp32 box of n
            # is a superset; NN outputs have their own shapes: the generous slack
            box = None if api in NN_OUTPUTS else _box_bytes(shape, stride)
            r = int(a) % LANE
            local.append((r, r + LOCAL_SLACK) if box is None else (r + box[0], r + box[1]))
        elif kind == "S":
            box = _box_bytes(shape, stride, esize=_bits_of(api) // 8, system=True)
            in_l2 = spec.L2_SRAM_START <= int(a) < spec.L2_SRAM_START + spec.L2_SRAM_SIZE
            off = int(a) - (spec.L2_SRAM_START if in_l2 else G)
            (l2 if in_l2 else system).append((off, off + SYS_WINDOW * 4) if box is None else (off + box[0], off + box[1]))
    return local, system, l2


def _regions(dev, local_ranges, system_ranges, l2_ranges, everything=False):
    watches = []
    for lane in range(spec.NPU_NUM):
        base = lane * LANE
        writ = tuple((base + lo, base + hi) for lo, hi in local_ranges)
        if everything:
            writ = ((base, base + LOCAL_WATCH),)
        watches.append(Watch(dev.local, base, base + LOCAL_WATCH, writ))
    lo, hi = SYS_WATCH[0] - G, SYS_WATCH[1] - G
    writ = ((lo, hi),) if everything else tuple(system_ranges)
    watches.append(Watch(dev.system, lo, hi, writ))
    watches.append(Watch(dev.l2sram, 0, L2_WATCH, ((0, L2_WATCH),) if everything else tuple(l2_ranges)))
    return watches


def _seed_memory(dev, rng_seed: int) -> None:
    """Known bytes in every watched window (so reads are of written data and changes show)."""
    r = np.random.default_rng(rng_seed)
    vals = r.normal(size=LOCAL_WATCH // 4).astype(np.float32).view(np.uint8)
    for lane in (0, 1, 2, 30, 31, 32, 61, 62, 63):
        dev.write_local(lane, 0, vals)
    dev.write_system(G, r.integers(0, 256, SYS_WATCH[1] - SYS_WATCH[0], dtype=np.uint8))
    dev.write_system(spec.L2_SRAM_START, r.integers(0, 256, L2_WATCH, dtype=np.uint8))


def _events(dev):
    return tuple((e.core, e.engine, e.name, e.start_ns, e.end_ns, e.cycles, e.nbytes, e.elements,
                  repr(sorted((e.args or {}).items()))) for e in dev.events)


# ---- the C route: okk.load_c and CKernel.run with malformed inputs (one tiny kernel, compiled once) ----

TINY_C = r"""/* npusim fuzz kernel: copy N*C*H*W fp32 through local memory. */
#include "okk.h"
typedef struct {
    int N, C, H, W;
    unsigned long long output_addr;
    unsigned long long input_addr;
} __attribute__((packed)) param_t;

void copy_fuzz(const void *args) {
    param_t *param = (param_t *)args;
    okk_initialize();
    dim4 shape = {.n = param->N, .c = param->C, .h = param->H, .w = param->W};
    okk_gdma_32bit_cpy_S2L(0, param->input_addr, &shape, 0, 0);
    okk_gdma_32bit_cpy_L2S(param->output_addr, 0, &shape, 0, 0);
    okk_poll();
}
OKKERNEL_FUNC_REGISTER(copy_fuzz);
"""
_HAVE_CC: dict = {}
_TINY: list = []          # [path of the written source, CKernel or the error loading it]


def have_cc() -> bool:
    from ..okk.c import CompileError, find_compiler
    try:
        find_compiler()
        return True
    except CompileError:
        return False


def _tiny_path() -> str:
    if not _TINY:
        import tempfile
        d = tempfile.mkdtemp(prefix="npusim-fuzz-c-")
        path = os.path.join(d, "copy_fuzz.c")
        with open(path, "w") as f:
            f.write(TINY_C)
        _TINY.append(path)
    return _TINY[0]


def _tiny_kernel():
    if len(_TINY) < 2:
        _TINY.append(okk.load_c(_tiny_path()))
    return _TINY[1]


def _choice(rng, seq):
    return seq[int(rng.integers(len(seq)))]


def _c_param(rng):
    good = {"N": 1, "C": int(rng.integers(1, 4)), "H": 1, "W": int(rng.integers(1, 16)),
            "output_addr": G + 0x1000 + 0x4000, "input_addr": G + 0x1000}
    r = rng.random()
    if r < 0.4:
        return good
    if r < 0.7:
        k = str(rng.choice(sorted(good)))
        return {**good, k: _bad(rng)}
    return _choice(rng, ({**good, "nope": 1}, {"N": 1}, {}, b"\0" * 4, b"\0" * 24, None, "param", 3,
                         {**good, "W": 2 ** 40}, {**good, "input_addr": 0}, {**good, "output_addr": -1}))


def _c_trial(rng) -> Trial:
    """load_c with a malformed path/defines/include_dirs, or the tiny kernel run with a malformed entry
    or param (the kernel writes only DDR's output window and local memory: both are left writable)."""
    if rng.random() < 0.4:
        args = _choice(rng, (("/nonexistent/kernel.c",), (None,), (3,), (os.sep,), ("TINY", "bad"),
                             ("TINY", {1: 2}), ("TINY", {"X": object()}), ("TINY", None, None),
                             ("TINY", None, "dir"), ("TINY", None, [3]), ("TINY",)))
        label = "load_c"

        def call(dev):
            a = [_tiny_path() if v == "TINY" else v for v in args]
            okk.load_c(*a)
    else:
        entry = _choice(rng, ("copy_fuzz", "copy_fuzz", "copy_fuzz", "nope", None, 3, ""))
        param = _c_param(rng)
        args, label = (entry, param), "CKernel.run"

        def call(dev):
            k = _tiny_kernel()
            with dev:
                k.run(entry, param, log=lambda *a, **kw: None)
    seed = int(rng.integers(2**31))

    def setup():
        dev = okk.Device()
        _seed_memory(dev, seed)
        return dev

    return Trial("okk", label, setup, call, lambda dev: _regions(dev, [], [], [], everything=True),
                 trace=lambda dev: _events(dev), args=", ".join(_short(a) for a in args))


def draw(rng: np.random.Generator) -> Trial:
    name = NAMES[int(rng.integers(len(NAMES)))]
    if name == "load_c":
        if _HAVE_CC.setdefault("cc", have_cc()):
            return _c_trial(rng)
        name = "okk_poll"
    kinds = FUNCTIONS[name]
    fn = getattr(okk, name)
    try:
        names = [p for p in inspect.signature(fn).parameters]
    except (TypeError, ValueError):
        names = []
    names = (names + [f"arg{i}" for i in range(len(kinds))])[:len(kinds)]
    _places[:] = [_Places(rng)]
    args = [_arg(rng, k, n) for k, n in zip(kinds, names)]
    seed = int(rng.integers(2**31))
    prelude = rng.random() < 0.1               # sometimes inside a parallel region
    local_ranges, system_ranges, l2_ranges = _writable_ranges(name, kinds, names, args)
    host_pointer = name in ("okk_global_mem_addr", "okk_local_mem_addr", "okk_l2_sram_addr")

    def setup():
        dev = okk.Device()
        _seed_memory(dev, seed)
        return dev

    def call(dev):
        with dev, contextlib.redirect_stdout(io.StringIO()):
            if prelude:
                okk.okk_parallel_start()
            out = fn(*[_built(a) for a in args])
            if host_pointer and out is not None:     # a documented writable window: store through it
                out[:4] = 7

    def regions(dev):
        return _regions(dev, local_ranges, system_ranges, l2_ranges, everything=host_pointer)

    return Trial("okk", name, setup, call, regions, trace=lambda dev: _events(dev),
                 args=", ".join(_short(a) for a in args))


def _short(a) -> str:
    s = repr(a)
    return s if len(s) < 80 else s[:77] + "..."
