"""Shared helpers of the part-two differential tests: random values with edge values, programs that
fill every touched NPU, and a check that runs one program on both sides and compares bit for bit,
instruction by instruction."""
import numpy as np

from npusim.okk.oracle import compare, npusim_runner

EDGE = np.array([0, -0.0, 1e-40, -1e-40, 1.17549435e-38, -1.17549435e-38, np.inf, -np.inf, np.nan, 1, -1, 2,
                 3.4e38, -3.4e38, 0.5, 1e-30], np.float32)
LANE = 0x80000


def values(n, rng, edge=True, scale=4.0):
    x = (rng.standard_normal(n) * scale).astype(np.float32)
    if edge:
        k = min(n, 64)
        x[rng.integers(0, n, k)] = EDGE[rng.integers(0, len(EDGE), k)]
    return x


def ints(n, rng, lo=-2**31, hi=2**31):
    return rng.integers(lo, hi, n, dtype=np.int64).astype(np.int32).view(np.float32)


def fill(off, x, npus=range(64)):
    """``x`` (rolled per NPU) at byte ``off`` of each NPU: every touched byte is initialised."""
    return [("wl", q * LANE + off, np.roll(x, q * 7).tobytes()) for q in npus]


def reads(off, nbytes, npus=range(64)):
    return [("rl", q * LANE + off, nbytes) for q in npus]


def check(oracle, setup, calls, tail):
    prog = list(setup) + [("call", "okk_initialize", ())] + [("call", n, a) for n, a in calls] \
        + [("call", "okk_poll", ())] + list(tail)
    ref = oracle.run(prog)
    got = npusim_runner.run(prog)
    problems = compare.diff(ref, got)
    assert not problems, f"{calls[0][0]} {calls[0][1]}: {problems[:2]}"
