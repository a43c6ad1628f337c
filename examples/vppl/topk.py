"""Top-k smallest keys with their indices by insertion sort (init_ins_sort / ins_sort).

Runs topk.vppl (4 of 16) and the same kernel through the Python API (16 of 1,000); both are checked
against numpy's stable argsort. Run: `npusim run examples/vppl/topk.py`.
"""
import os

import numpy as np

from npusim import vppl

HERE = os.path.dirname(os.path.abspath(__file__))


def topk(keys: np.ndarray, k: int):
    """k smallest (key, index) pairs, ascending, ties by index (ins_sort is stable)."""
    best = vppl.alloc_vector("best", "__I32V", k).init_ins_sort()     # fixed in the registers
    end = vppl.Integer(name="ends")
    for i, key in enumerate(keys.tolist()):
        best.ins_sort((i << 16) | key, 0, end)
    w = np.asarray(best).view(np.uint32)
    return (w & 0xFFFF).astype(np.int64), (w >> 16).astype(np.int64)


def reference(keys, k):
    order = np.argsort(keys, kind="stable")[:k]
    return keys[order], order


def main():
    with open(os.path.join(HERE, "topk.vppl"), encoding="utf-8") as f:
        res = vppl.run(f.read(), filename="topk.vppl")
    w = res["best"].view(np.uint32)
    want_k, want_i = reference(res["keys"], 4)
    assert (w & 0xFFFF).tolist() == want_k.tolist() and (w >> 16).tolist() == want_i.tolist()
    print(f"topk.vppl: keys {want_k.tolist()} at indices {want_i.tolist()} (numpy agrees)")

    keys = np.random.default_rng(3).integers(0, 5000, 1000)
    got_k, got_i = topk(keys, 16)
    want_k, want_i = reference(keys, 16)
    assert got_k.tolist() == want_k.tolist() and got_i.tolist() == want_i.tolist()
    print(f"topk 16 of 1000 (Python API): smallest {got_k[:4].tolist()}... (numpy agrees)")


if __name__ == "__main__":
    main()
