"""VPPL: a 64-operator program on i16[4096] vectors (Python API and VPPL text) against plain numpy
doing the same math (target: within 3x); parsing a 1,000-line VPPL text (target: under 0.5 s)."""
import numpy as np

from harness import Case
from npusim import vppl
from npusim.vppl.interpreter import Program

N = 4096
ROUNDS = 8          # 8 rounds x 8 operators = 64 operators

BODY = """a = a.add$UW(b);
c = c.sub$IW(a);
c = c.mul$IW(b);
a = a.min$IW(c);
b = b.max$IW(a);
a = a.e_add$UW(w, k);
c = c.e_mul$IW(w, k);
b = b.element_shift_right$W(1);
"""


def _inputs():
    rng = np.random.default_rng(0)
    return [rng.integers(-3000, 3000, N).astype(np.int16) for _ in range(3)]


def _numpy_program(a0, b0, c0):
    def run():
        a, b, c = a0.copy(), b0.copy(), c0.copy()
        k = np.int16(3)
        for _ in range(ROUNDS):
            np.add(a, b, out=a)
            c[...] = np.clip(c.astype(np.int32) - a, -32768, 32767)
            c[...] = np.clip(c.astype(np.int32) * b, -32768, 32767)
            np.minimum(a, c, out=a)
            np.maximum(b, a, out=b)
            np.add(a, k, out=a)
            c[...] = np.clip(c.astype(np.int32) * k, -32768, 32767)
            bu = b.view(np.uint16)
            np.right_shift(bu, 1, out=bu)
        return a, b, c
    return run


def _python_program(a0, b0, c0):
    m = vppl.reset()

    def run():
        m.timeline.reset()                 # keep the trace from growing across repeats
        a, b, c = (vppl.Vector("i16", N, x) for x in (a0, b0, c0))
        w = vppl.alloc_vector("w", "__I16V", 32)
        for _ in range(ROUNDS):
            a.add_UW(b)
            c.sub_IW(a)
            c.mul_IW(b)
            a.min_IW(c)
            b.max_IW(a)
            a.e_add_UW(w, 3)
            c.e_mul_IW(w, 3)
            b.element_shift_right_W(1)
        return a, b, c
    return run


def vppl_text(rounds: int = ROUNDS) -> str:
    head = (f"a : i16[{N}] = 1, b : i16[{N}] = 2, c : i16[{N}] = 3,\nk : integer = 3;\n"
            "alloc_vector(w, __I16V, 32)\n~\n")
    return head + BODY * rounds


def _text_program():
    prog = Program(vppl_text())
    m = vppl.Machine()

    def run():
        m.timeline.reset()
        return prog.run(m)
    return run


def check_same() -> bool:
    a0, b0, c0 = _inputs()
    want = _numpy_program(a0, b0, c0)()
    got = _python_program(a0, b0, c0)()
    return all(np.array_equal(np.asarray(g), w) for g, w in zip(got, want))


def _overhead():
    m = vppl.reset()
    a, b = vppl.Vector("i16", 32, 1), vppl.Vector("i16", 32, 2)

    def run():
        m.timeline.reset()
        for _ in range(1000):
            a.min_IW(b)
    return run


def _overhead_numpy():
    a, b = np.ones(32, np.int16), np.full(32, 2, np.int16)

    def run():
        for _ in range(1000):
            np.minimum(a, b, out=a)
    return run


def cases():
    assert check_same()
    a0, b0, c0 = _inputs()
    thousand = vppl_text(125)          # 4 declaration lines + 1,000 statements
    return [
        Case("64 dot operators on i16[4096], Python API", _python_program(a0, b0, c0),
             numpy=_numpy_program(a0, b0, c0), target="within 3x of numpy"),
        Case("64 dot operators on i16[4096], VPPL text (compiled once)", _text_program(),
             numpy=_numpy_program(a0, b0, c0), target="within 3x of numpy"),
        Case("parse + compile a 1,000-statement VPPL text", lambda: Program(thousand), target="< 0.5 s"),
        Case("min$IW on i16[32] (one register): per-instruction overhead", _overhead(),
             numpy=_overhead_numpy(), per=1000, target="tens of us"),
    ]
