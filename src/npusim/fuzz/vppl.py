"""Fuzz trials for npusim.vppl: every dot operator from Python, the public constructors and helpers,
and the VPPL text language (random programs, malformed ones, and the pathological shapes: deep
nesting, hundreds of unary minus signs, 10,000-term sums, huge vector declarations, bad tokens).

A Python-API trial builds a fresh ``Machine`` and the argument vectors (default names: the per-run
naming is part of what the determinism check sees) and makes one call. Watched: the memory of every
vector argument (only the target and work vectors may change) and the start of data memory (only
pointer operators may write it). A text trial runs one program on a fresh machine; its result values
and trace are compared between two runs.
"""
from __future__ import annotations

import numpy as np

from .. import vppl
from ..vppl.semantics import INT, OUT, VEC, WORK
from ..vppl.semantics_part_two import PART_TWO, PTR
from .harness import Trial, Watch

ROWS = {r.name: r for r in list(vppl.ROWS) + list(PART_TWO)}
ROW_NAMES = sorted(ROWS)
TYPES = ["i8", "u8", "i16", "u16", "i32", "u32", "F16Q8", "F32Q16"]
DM = 1 << 16
_BAD = [None, float("nan"), float("inf"), True, 1.5, -1, 0, 2**31, 2**32, 2**63, 2**70, -2**40, "3", (), [1, 2],
        np.int64(5), np.float32(2), 1j, b"x"]


def _bad(rng):
    return _BAD[int(rng.integers(len(_BAD)))]


def _int(rng, lo, hi, bad=0.05):
    return _bad(rng) if rng.random() < bad else int(rng.integers(lo, hi + 1))


# ---- Python API: one dot operator ----

_BY_BITS = {8: ["i8", "u8"], 16: ["i16", "u16", "F16Q8"], 32: ["i32", "u32", "F32Q16"]}


def _row_bits(row) -> int | None:
    """The target's element size a row's suffix names ($IW -> 16, $B -> 8, convert $IB2UW -> 16)."""
    sfx = row.suffix.split("2")[-1] if row.suffix else ""
    return {"B": 8, "W": 16, "L": 32}.get(sfx[-1:]) if sfx else None


def _type_bits(etype: str) -> int:
    return next(b for b, ts in _BY_BITS.items() if etype in ts)


def _vec_spec(rng, like=None, bits=None):
    """A vector: mostly matching ``like`` (length and type) or the row's element size."""
    if like is not None and rng.random() < 0.8:
        return ("vec", like[1], like[2], rng.random() < 0.05, int(rng.integers(2**31)), like[5])
    length = int(rng.choice([1, 2, 4, 8, 16, 32, 33, 64, 256]))
    etype = str(rng.choice(_BY_BITS[bits])) if bits and rng.random() < 0.85 else str(rng.choice(TYPES))
    return ("vec", etype, length, rng.random() < 0.05, int(rng.integers(2**31)), rng.random() < 0.3)


_SCALARS = {"kernel size": [2, 3, 5, 5, 7], "q": [8, 10, 12, 12, 12, 0, 15], "F16 q": [12, 8, 0, 15], "relu": [0, 1], "stride": [1, 2], "F32 q": [0, 8, 16, 31],
             "units": [1, 2, 4, 8], "elements": [1, 2, 8, 16], "record": [0, 1, 2], "element": [0, 1, 7],
             "index": [0, 1, 5, 31], "u": [1, 2, 4], "v": [1, 2, 4], "type": [0, 1, 2], "x": [0, 1, 8],
             "y": [0, 1, 2], "width": [1, 8, 32], "height": [1, 2, 4], "input width": [4, 8, 12],
             "input height": [4, 8, 12], "amount": [0, 1, 7, 8, 16, 255, 256]}


def _arg_spec(rng, kind, target_spec, pname="", row_src_bits=None):
    if rng.random() < 0.05:
        return ("value", _bad(rng))
    if kind == INT and pname in _SCALARS and rng.random() < 0.8:
        return ("value", int(rng.choice(_SCALARS[pname])))
    if kind == VEC:
        if row_src_bits and rng.random() < 0.8:          # convert: the source has its own element size
            return _vec_spec(rng, bits=row_src_bits)[:2] + (target_spec[2],) + _vec_spec(rng)[3:]
        return ("target",) if rng.random() < 0.1 else _vec_spec(rng, like=target_spec)
    if kind == WORK:
        s = list(_vec_spec(rng, like=target_spec))
        s[5] = rng.random() < 0.8            # allocated (alloc_vector) mostly
        return tuple(s)
    if kind == INT:
        r = rng.random()
        if r < 0.1:
            return ("integer", _int(rng, -5, 40))
        return ("value", int(rng.choice([0, 1, 2, 3, 7, 8, 15, 16, 31, 32, 33, 64, -1, -8, 255, 65535, 2**31 - 1,
                                          -2**31, 2**32 - 1])) if r < 0.6 else int(rng.integers(-100, 100)))
    if kind == OUT:
        return ("integer", None) if rng.random() < 0.9 else ("value", 3)
    if kind == PTR:
        if rng.random() < 0.7:
            return ("pointer", int(rng.choice([0, 32, 64, 1024, 4096, 8192, DM - 64, DM - 2, DM])),
                    int(rng.choice([0, 8, 16, 64])))
        return ("value", _int(rng, 0, DM))
    return ("value", 0)


class Later:
    """An argument the call builds itself (so the constructor's error is the call's outcome)."""
    def __init__(self, spec):
        self.spec = spec


def _build(spec, m, target):
    tag = spec[0]
    if tag == "value":
        return spec[1]
    if tag == "target":
        return target
    if tag == "integer":
        return vppl.Integer(spec[1])
    if tag == "pointer":
        return vppl.PointerVariable(spec[1], step=spec[2])
    _, etype, length, uninit, seed, allocated = spec
    r = np.random.default_rng(seed)
    v = vppl.Vector(etype, length, None if uninit else r.integers(-300, 300, length).tolist(), allocated=allocated)
    return v


def _op_trial(rng) -> Trial:
    name = ROW_NAMES[int(rng.integers(len(ROW_NAMES)))]
    row = ROWS[name]
    target_spec = list(_vec_spec(rng, bits=_row_bits(row)))
    target_spec[5] = rng.random() < (0.9 if row.group == "reduction" else 0.5)
    target_spec = tuple(target_spec)
    kinds = [k for _, k in row.params]
    src_bits = {"B": 8, "W": 16, "L": 32}.get(row.suffix.split("2")[0][-1:]) if "2" in (row.suffix or "") else None
    specs = [_arg_spec(rng, k, target_spec, p, src_bits) for p, k in row.params]
    if row.name == "filter_sub" and specs and specs[0][0] == "vec" and rng.random() < 0.6:
        t = list(target_spec)                       # the target is two 512-bit registers longer
        t[2] = specs[0][2] + 128 // {8: 1, 16: 2, 32: 4}[_type_bits(specs[0][1])]
        t[1] = specs[0][1]
        target_spec = tuple(t)
    if rng.random() < 0.03:
        specs = specs[:-1] if specs and rng.random() < 0.5 else specs + [("value", 1)]
    mode = "extended" if rng.random() < 0.7 else "gen2"
    dm_seed = int(rng.integers(2**31))
    writes_dm = PTR in kinds

    def setup():
        m = vppl.Machine(mode, dm_bytes=DM)
        m.dm.write_bytes(0, np.random.default_rng(dm_seed).integers(0, 256, DM, dtype=np.uint8))
        with vppl.using(m):
            target = _build(target_spec, m, None)
            args = [Later(s) if s[0] == "integer" and s[1] is not None and type(s[1]) is not int
                    else _build(s, m, target) for s in specs]
        return m, target, args

    def call(state):
        m, target, args = state
        with vppl.using(m):      # an Integer(bad value) is built here: its constructor is public API too
            getattr(target, row.pyname)(*[vppl.Integer(a.spec[1]) if isinstance(a, Later) else a for a in args])

    def regions(state):
        m, target, args = state
        writable = {id(target.memory)} | {id(a.memory) for a, k in zip(args, kinds) if k == WORK
                                          and isinstance(a, vppl.Vector)}
        ws, seen = [], set()
        for v in [target] + [a for a in args if isinstance(a, vppl.Vector)]:
            if id(v.memory) in seen:
                continue
            seen.add(id(v.memory))
            ws.append(Watch(v.memory, 0, v.memory.size,
                            ((0, v.memory.size),) if id(v.memory) in writable else ()))
        ws.append(Watch(m.dm, 0, DM, ((0, DM),) if writes_dm else ()))
        return ws

    def trace(state):
        m, target, args = state
        return (_events(m), tuple(int(a) for a in args if isinstance(a, vppl.Integer)))

    return Trial("vppl", name, setup, call, regions, trace, args=f"target={target_spec}, {specs}")


def _events(m):
    return tuple((e.core, e.engine, e.name, e.start_ns, e.end_ns, e.cycles, e.nbytes, e.elements,
                  repr(sorted((e.args or {}).items()))) for e in m.timeline.trace.events)


# ---- Python API: constructors and helpers ----

def _api_trial(rng) -> Trial:
    which = str(rng.choice(["Vector", "vList", "Integer", "alloc_vector", "Machine", "elem_type", "dm_alloc",
                            "dm_put", "dm_read", "dm_write", "PointerVariable", "Readings", "reset", "mode",
                            "execute", "info", "Integer.set"]))
    r = rng.random
    a = [_bad(rng) if r() < 0.3 else None for _ in range(4)]
    etype = a[0] if r() < 0.2 else str(rng.choice(TYPES + ["f32", "F16Q16", "__I16V", "x"]))
    length = a[1] if r() < 0.2 else int(rng.choice([1, 8, 32, 0, -1, 1 << 20, (1 << 20) + 1, 10**10]))
    init = a[2] if r() < 0.3 else (int(rng.integers(-2**40, 2**40)) if r() < 0.5 else list(range(4)))
    nbytes = a[3] if r() < 0.3 else int(rng.choice([0, 1, 32, 100, DM, DM * 2, -1]))
    mode_name = etype if r() < 0.1 else str(rng.choice(["gen2", "extended", "G2", "bogus"]))
    mul = str(rng.choice(["saturate", "q15", "bogus"])) if a[0] is None else a[0]
    row = ROWS[ROW_NAMES[int(rng.integers(len(ROW_NAMES)))]]

    def call(m):
        with vppl.using(m):
            if which == "Vector":
                vppl.Vector(etype, length, init)
            elif which == "vList":
                vppl.vList(init if not isinstance(init, int) else [init] * 3, etype)
            elif which == "Integer":
                vppl.Integer(init if not isinstance(init, list) else None)
            elif which == "Integer.set":
                vppl.Integer(0).set(a[2] if a[2] is not None else 5)
            elif which == "alloc_vector":
                vppl.alloc_vector("w", etype, length)
            elif which == "Machine":
                vppl.Machine(mode_name, reg_bits=a[0] if a[0] is not None else 512, dm_bytes=nbytes if nbytes else 64)
            elif which == "elem_type":
                vppl.elem_type(etype)
            elif which == "dm_alloc":
                vppl.dm_alloc(nbytes, align=a[1] if a[1] is not None else 32)
            elif which == "dm_put":
                vppl.dm_put(np.arange(4, dtype=np.int16) if a[2] is None else a[2])
            elif which == "dm_read":
                p = vppl.dm_alloc(64)
                vppl.dm_read(p if a[0] is None else a[0], np.int16 if a[1] is None else a[1], 8 if a[3] is None else a[3])
            elif which == "dm_write":
                p = vppl.dm_alloc(64)
                vppl.dm_write(p if a[0] is None else a[0], np.arange(8, dtype=np.int16) if a[2] is None else a[2])
            elif which == "PointerVariable":
                vppl.PointerVariable(a[0] if a[0] is not None else 0, step=a[1] if a[1] is not None else 0)
            elif which == "Readings":
                vppl.Readings(mul=mul)
            elif which == "reset":
                vppl.Machine(mode_name if a[0] is None else a[0])
            elif which == "mode":
                with vppl.mode(mode_name if a[0] is None else a[0]):
                    pass
            elif which == "execute":
                vppl.execute(row, vppl.Vector("i16", 8, 1) if a[0] is None else a[0], [] if a[1] is None else a[1])
            elif which == "info":
                vppl.info()

    return Trial("vppl", which, lambda: vppl.Machine(dm_bytes=DM), call,
                 lambda m: [Watch(m.dm, 0, DM, ((0, DM),))], lambda m: _events(m),
                 args=f"mode={mode_name!r}, etype={etype!r}, length={length!r}, init={str(init)[:60]}, nbytes={nbytes!r}, a={a!r}")


# ---- the text language ----

OPS_TEXT = ["add$IW", "sub$IW", "min$IW", "max$IW", "e_set$W", "abs$IW", "r_max$IW", "sum$IW", "shift_up$W",
            "bogus$IW", "add$XX", "mul$IW", "and$W"]


def _expr_text(rng, depth=0) -> str:
    r = rng.random()
    if depth > 4 or r < 0.3:
        return str(rng.choice(["1", "0", "7", "x", "n", "0x10", "2147483647", "99999999999", "y", "09"]))
    if r < 0.5:
        return "-" + _expr_text(rng, depth + 1)
    if r < 0.7:
        return "(" + _expr_text(rng, depth + 1) + ")"
    return _expr_text(rng, depth + 1) + str(rng.choice(["+", "-", "*", "/"])) + _expr_text(rng, depth + 1)


def _text_type(rng) -> str:
    return "i16" if rng.random() < 0.8 else str(rng.choice(TYPES))


def _text_len(rng) -> int:
    return 32 if rng.random() < 0.8 else int(rng.choice([8, 16, 3]))


def _program(rng) -> str:
    r = rng.random()
    if r < 0.04:
        return "x : integer = " + "-" * int(rng.choice([300, 500, 2000])) + "1;"
    if r < 0.08:
        n = int(rng.choice([1000, 10_000]))
        return "x : integer = " + " + ".join(["1"] * n) + ";"
    if r < 0.11:
        d = int(rng.choice([100, 500, 2000]))
        return "x : integer = " + "(1+" * d + "1" + ")" * d + ";"
    if r < 0.14:
        return f"v : {rng.choice(TYPES)}[{rng.choice(['10000000000', '1048577', '0', '99999999999999999999', '4096'])}] = 0;"
    if r < 0.17:
        return "x : integer = " + "9" * int(rng.choice([50, 5000])) + ";"
    lines = ["x : integer = 3,", "n : integer = 2;", "y : integer;",
             f"v : {_text_type(rng)}[{_text_len(rng)}] = {int(rng.integers(-5, 5))},",
             f"w : {_text_type(rng)}[{_text_len(rng)}] = vList[{', '.join(str(i) for i in range(_text_len(rng)))}];",
             "alloc_vector(t, __I16V, 16)"]
    for _ in range(int(rng.integers(1, 6))):
        k = rng.random()
        if k < 0.4:
            op = str(rng.choice(OPS_TEXT))
            args = str(rng.choice(["w", "", "w, x", "t, 3", "w, y", "v", "x", "t, x", "w, w, x"]))
            lines.append(f"v = v.{op}({args});")
        elif k < 0.7:
            lines.append(f"{rng.choice(['x', 'y', 'n', 'v', 'q'])} = {_expr_text(rng)};")
        elif k < 0.8:
            lines.append(str(rng.choice(["alloc_vector(u, __I16V, 0)", "alloc_vector(u, __X, 4)",
                                         "use_image(p, A)", "foo(1, 2);", "alloc_vector(u, __I8V, 10000000000)"])))
        elif k < 0.9:
            lines.append("procedure f(byName a : integer) begin a = a + 1; end; f(x);")
        else:
            lines.append(str(rng.choice(["@", "v = ;", "x : i16[", "(* unterminated", "x = 1 / 0;", "end;",
                                         "x : integer = 1", "\x00", "v : i99[4];", "z : F16Q99[4];"])))
    text = "\n".join(lines)
    if rng.random() < 0.1 and text:       # a random byte flipped
        i = int(rng.integers(len(text)))
        text = text[:i] + chr(int(rng.integers(32, 127))) + text[i + 1:]
    return text


def _text_trial(rng) -> Trial:
    text = _program(rng)
    mode = "extended" if rng.random() < 0.5 else "gen2"
    box: dict = {}

    def setup():
        return vppl.Machine(mode, dm_bytes=DM)

    def call(m):
        out = vppl.run_with(text, machine=m)
        box["out"] = {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in out.items()}

    def trace(m):
        return (_events(m), repr(sorted(box.pop("out", {}).items())))

    return Trial("vppl", "text", setup, call, lambda m: [], trace, args=repr(text[:200]))


def draw(rng: np.random.Generator) -> Trial:
    r = rng.random()
    if r < 0.55:
        return _op_trial(rng)
    if r < 0.7:
        return _api_trial(rng)
    return _text_trial(rng)
