"""Quantise a bias-add + ReLU to int8 with AddReluCast (half -> int8, RNE, saturating), level-0 form.

Each block takes 4096 halves in tiles of 1024: AddReluCast with mask 128, 8 repeats, dst repeat stride
4 (int8 output is half as wide), exactly as the vendor's example. Checks itself against a float64 golden.
Run: PYTHONPATH=src python examples/ascendc/add_relu_cast_quantise.py
"""
import numpy as np

from npusim import ascendc as asc

BLOCKS, PER_BLOCK, TILE = 4, 4096, 1024


def quantise_kernel(x, bias, q):
    idx = asc.GetBlockIdx()
    pipe = asc.TPipe()
    xGm = asc.GlobalTensor(asc.half); xGm.SetGlobalBuffer(x.cast(asc.half) + idx * PER_BLOCK, PER_BLOCK)
    bGm = asc.GlobalTensor(asc.half); bGm.SetGlobalBuffer(bias, TILE)
    qGm = asc.GlobalTensor(asc.int8_t); qGm.SetGlobalBuffer(q.cast(asc.int8_t) + idx * PER_BLOCK, PER_BLOCK)
    inQ = asc.TQue(asc.TPosition.VECIN, 2); pipe.InitBuffer(inQ, 2, TILE * 2)
    outQ = asc.TQue(asc.TPosition.VECOUT, 2); pipe.InitBuffer(outQ, 2, TILE)
    biasBuf = asc.TBuf(asc.TPosition.VECCALC); pipe.InitBuffer(biasBuf, TILE * 2)
    b = biasBuf.Get(asc.half)
    asc.DataCopy(b, bGm, TILE)
    asc.SetFlag(asc.HardEvent.MTE2_V, 0)
    asc.WaitFlag(asc.HardEvent.MTE2_V, 0)
    for t in range(PER_BLOCK // TILE):
        xl = inQ.AllocTensor(asc.half)
        asc.DataCopy(xl, xGm[t * TILE], TILE)
        inQ.EnQue(xl)
        xl = inQ.DeQue(asc.half)
        ql = outQ.AllocTensor(asc.int8_t)
        asc.AddReluCast(ql, xl, b, 128, TILE // 128, asc.BinaryRepeatParams(1, 1, 1, 4, 8, 8))
        outQ.EnQue(ql)
        inQ.FreeTensor(xl)
        ql = outQ.DeQue(asc.int8_t)
        asc.DataCopy(qGm[t * TILE], ql, TILE)
        outQ.FreeTensor(ql)


def main(seed: int = 1):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(BLOCKS * PER_BLOCK) * 80).astype(np.float16)
    bias = (rng.standard_normal(TILE) * 20).astype(np.float16)
    q = np.zeros(BLOCKS * PER_BLOCK, np.int8)
    res = asc.launch(quantise_kernel, BLOCKS, x, bias, q)
    s = (x.reshape(-1, TILE).astype(np.float64) + bias.astype(np.float64)).astype(np.float16).astype(np.float64)
    golden = np.clip(np.rint(np.maximum(s, 0)), -128, 127).astype(np.int8).reshape(-1)
    return np.array_equal(q, golden), res


if __name__ == "__main__":
    ok, res = main()
    print(f"AddReluCast quantise {BLOCKS} x {PER_BLOCK}: exact vs float64 golden: {ok}; simulated {res.us:.2f} us")
    if not ok:
        raise SystemExit(1)
