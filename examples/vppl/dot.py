"""Dot product and sum of squares with prod$IW (a saturating 32-bit reduction).

Runs dot.vppl and the same through the Python API on i16[4096]; checked against numpy.
Run: `npusim run examples/vppl/dot.py`.
"""
import os

import numpy as np

from npusim import vppl

HERE = os.path.dirname(os.path.abspath(__file__))


def dot_and_sumsq(a: np.ndarray, b: np.ndarray):
    va, vb = vppl.Vector("i16", a.size, a, name="a"), vppl.Vector("i16", b.size, b, name="b")
    work = vppl.alloc_vector("vTEMP", "__I16V", 32)
    dot, sumsq = vppl.Integer(name="dot"), vppl.Integer(name="sumsq")
    work.prod_IW(va, vb, dot)
    work.prod_IW(va, va, sumsq)
    return int(dot), int(sumsq)


def reference(a, b):
    sat = lambda x: int(np.clip(x, -2**31, 2**31 - 1))
    return sat(np.dot(a.astype(np.int64), b.astype(np.int64))), sat(np.dot(a.astype(np.int64), a.astype(np.int64)))


def main():
    with open(os.path.join(HERE, "dot.vppl"), encoding="utf-8") as f:
        res = vppl.run(f.read(), filename="dot.vppl")
    assert (res["dot"], res["sumsq"]) == reference(res["a"], res["b"])
    print(f"dot.vppl: dot = {res['dot']}, sum of squares = {res['sumsq']} (numpy agrees)")

    rng = np.random.default_rng(5)
    a, b = rng.integers(-300, 300, 4096).astype(np.int16), rng.integers(-300, 300, 4096).astype(np.int16)
    got = dot_and_sumsq(a, b)
    assert got == reference(a, b)
    print(f"dot i16[4096] (Python API): dot = {got[0]}, sum of squares = {got[1]} (numpy agrees)")


if __name__ == "__main__":
    main()
