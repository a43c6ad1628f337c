"""Moving pixels across three 8x8 frames with a VPPL procedure (byName count, frames by value).

Runs motion_proc.vppl with the frames bound as External globals and checks both counts against numpy.
Run: `npusim run examples/vppl/motion_proc.py`.
"""
import os

import numpy as np

from npusim import vppl

HERE = os.path.dirname(os.path.abspath(__file__))


def frames(seed: int = 2):
    """Three noisy 8x8 frames with a bright 3x3 square moving right by 2 pixels each frame."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(3):
        f = rng.integers(40, 60, (8, 8)).astype(np.uint8)
        f[2:5, 1 + 2 * k:4 + 2 * k] = 200
        out.append(f)
    return out


def reference(a, b, threshold):
    return int(np.count_nonzero(np.abs(b.astype(np.int64) - a.astype(np.int64)) > threshold))


def main():
    f = frames()
    with open(os.path.join(HERE, "motion_proc.vppl"), encoding="utf-8") as fh:
        res = vppl.run_with(fh.read(), filename="motion_proc.vppl",
                            externals={f"frame{k}": f[k].ravel() for k in range(3)})
    want = reference(f[0], f[1], 30), reference(f[1], f[2], 30)
    got = res["moved01"], res["moved12"]
    assert got == want, (got, want)
    assert "diff" not in res                  # the procedure's locals are gone after each call
    print(f"motion_proc.vppl: {got[0]} then {got[1]} moving pixels of 64 (numpy agrees)")
    return got


if __name__ == "__main__":
    main()
