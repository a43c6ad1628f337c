"""LeakyRelu over 8 blocks x 4096 floats, double-buffered; the FAQ's out-of-bounds call is shown too.

Run: PYTHONPATH=src python examples/ascendc/leaky_relu.py
"""
import numpy as np

from npusim import ConstraintError
from npusim import ascendc as asc

BLOCKS, PER_BLOCK, TILE, ALPHA = 8, 4096, 512, 0.01


def leaky_relu_kernel(x, y):
    idx = asc.GetBlockIdx()
    pipe = asc.TPipe()
    xGm = asc.GlobalTensor(asc.float); xGm.SetGlobalBuffer(x.cast(asc.float) + idx * PER_BLOCK, PER_BLOCK)
    yGm = asc.GlobalTensor(asc.float); yGm.SetGlobalBuffer(y.cast(asc.float) + idx * PER_BLOCK, PER_BLOCK)
    inQ = asc.TQue(asc.TPosition.VECIN, 2); pipe.InitBuffer(inQ, 2, TILE * 4)
    outQ = asc.TQue(asc.TPosition.VECOUT, 2); pipe.InitBuffer(outQ, 2, TILE * 4)
    for t in range(PER_BLOCK // TILE):
        xl = inQ.AllocTensor(asc.float)
        asc.DataCopy(xl, xGm[t * TILE], TILE)
        inQ.EnQue(xl)
        xl = inQ.DeQue(asc.float)
        yl = outQ.AllocTensor(asc.float)
        asc.LeakyRelu(yl, xl, ALPHA, TILE)
        outQ.EnQue(yl)
        inQ.FreeTensor(xl)
        yl = outQ.DeQue(asc.float)
        asc.DataCopy(yGm[t * TILE], yl, TILE)
        outQ.FreeTensor(yl)


def faq_out_of_bounds():
    """The vendor FAQ: LeakyRelu over 1024 halves on a 1024-byte tensor -> "check vlrelu instr failed"."""
    with asc.core_context():
        pipe = asc.TPipe(); buf = asc.TBuf(); pipe.InitBuffer(buf, 4096)
        t = buf.GetWithOffset(asc.half, 512, 0)
        try:
            asc.LeakyRelu(t, t, 0.1, 1024)
        except ConstraintError as e:
            return str(e)
    return None


def main(seed: int = 2):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(BLOCKS * PER_BLOCK) * 10).astype(np.float32)
    y = np.zeros_like(x)
    res = asc.launch(leaky_relu_kernel, BLOCKS, x, y)
    golden = np.where(x >= 0, x, (x.astype(np.float64) * np.float64(np.float32(ALPHA))).astype(np.float32))
    return np.array_equal(y, golden) and faq_out_of_bounds() is not None, res


if __name__ == "__main__":
    ok, res = main()
    print(f"LeakyRelu {BLOCKS} x {PER_BLOCK} float: exact: {ok}; simulated {res.us:.2f} us")
    print("FAQ case:", faq_out_of_bounds())
    if not ok:
        raise SystemExit(1)
