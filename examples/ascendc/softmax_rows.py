"""Softmax over rows: per row ReduceMax -> Adds(-max) -> Exp -> ReduceSum -> Muls(1/sum).

The scalar reads of the reductions go through PIPE_S, so the kernel sets V_S and S_V flags exactly
where the chip needs them (drop one and npusim reports the race). Rows are split over 4 blocks.
Run: PYTHONPATH=src python examples/ascendc/softmax_rows.py
"""
import numpy as np

from npusim import ascendc as asc

ROWS, COLS, BLOCKS = 32, 1024, 4


def softmax_kernel(x, y):
    idx = asc.GetBlockIdx()
    rows = ROWS // BLOCKS
    pipe = asc.TPipe()
    xGm = asc.GlobalTensor(asc.float); xGm.SetGlobalBuffer(x.cast(asc.float) + idx * rows * COLS, rows * COLS)
    yGm = asc.GlobalTensor(asc.float); yGm.SetGlobalBuffer(y.cast(asc.float) + idx * rows * COLS, rows * COLS)
    inQ = asc.TQue(asc.TPosition.VECIN, 1); pipe.InitBuffer(inQ, 2, COLS * 4)
    outQ = asc.TQue(asc.TPosition.VECOUT, 1); pipe.InitBuffer(outQ, 2, COLS * 4)
    work = asc.TBuf(); pipe.InitBuffer(work, COLS * 4)
    red = asc.TBuf(); pipe.InitBuffer(red, 32)
    w, r = work.Get(asc.float), red.Get(asc.float)
    for row in range(rows):
        xl = inQ.AllocTensor(asc.float)
        asc.DataCopy(xl, xGm[row * COLS], COLS)
        inQ.EnQue(xl)
        xl = inQ.DeQue(asc.float)
        yl = outQ.AllocTensor(asc.float)
        asc.ReduceMax(r, xl, w, COLS)
        asc.SetFlag(asc.HardEvent.V_S, 0); asc.WaitFlag(asc.HardEvent.V_S, 0)
        m = float(r.GetValue(0))
        asc.SetFlag(asc.HardEvent.S_V, 0); asc.WaitFlag(asc.HardEvent.S_V, 0)
        asc.Adds(yl, xl, -m, COLS)
        asc.PipeBarrier(asc.PIPE_V)
        asc.Exp(yl, yl, COLS)
        asc.PipeBarrier(asc.PIPE_V)
        asc.ReduceSum(r, yl, w, COLS)
        asc.SetFlag(asc.HardEvent.V_S, 0); asc.WaitFlag(asc.HardEvent.V_S, 0)
        s = float(r.GetValue(0))
        asc.SetFlag(asc.HardEvent.S_V, 0); asc.WaitFlag(asc.HardEvent.S_V, 0)
        asc.Muls(yl, yl, 1.0 / s, COLS)
        outQ.EnQue(yl)
        inQ.FreeTensor(xl)
        yl = outQ.DeQue(asc.float)
        asc.DataCopy(yGm[row * COLS], yl, COLS)
        outQ.FreeTensor(yl)


def main(seed: int = 3):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((ROWS, COLS)) * 4).astype(np.float32)
    y = np.zeros_like(x)
    res = asc.launch(softmax_kernel, BLOCKS, x, y)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    golden = e / e.sum(axis=1, keepdims=True)
    err = float(np.max(np.abs(y - golden) / golden.max(axis=1, keepdims=True)))
    return err < 1e-6, res, err


if __name__ == "__main__":
    ok, res, err = main()
    print(f"softmax {ROWS} x {COLS} float: max error / row max = {err:.2e} (ok: {ok}); simulated {res.us:.2f} us")
    if not ok:
        raise SystemExit(1)
