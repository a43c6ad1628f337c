"""``npusim demo`` for Ascend C: the seed's AddReluCast example in its three prototypes, a double-buffered
Add kernel on 4 cores, and a missing flag reported as a race."""
from __future__ import annotations

import numpy as np

from ..core.errors import RaceError
from ..demo import Check
from . import (BinaryRepeatParams, DataCopy, GetBlockIdx, GlobalTensor, HardEvent, TPipe, TPosition, TQue,
               TBuf, Add, AddReluCast, Adds, SetFlag, WaitFlag, half, int8_t, launch)

FULL = 2 ** 64 - 1


def _arc_kernel(x, y, z, form):
    pipe = TPipe()
    xg = GlobalTensor(half); xg.SetGlobalBuffer(x, 512)
    yg = GlobalTensor(half); yg.SetGlobalBuffer(y, 512)
    zg = GlobalTensor(int8_t); zg.SetGlobalBuffer(z, 512)
    qx = TQue(TPosition.VECIN, 1); pipe.InitBuffer(qx, 1, 1024)
    qy = TQue(TPosition.VECIN, 1); pipe.InitBuffer(qy, 1, 1024)
    qz = TQue(TPosition.VECOUT, 1); pipe.InitBuffer(qz, 1, 512)
    a = qx.AllocTensor(half); DataCopy(a, xg, 512); qx.EnQue(a)
    b = qy.AllocTensor(half); DataCopy(b, yg, 512); qy.EnQue(b)
    a, b, c = qx.DeQue(half), qy.DeQue(half), qz.AllocTensor(int8_t)
    if form == 0:
        AddReluCast(c, a, b, 512)
    elif form == 1:
        AddReluCast(c, a, b, 128, 4, BinaryRepeatParams(1, 1, 1, 4, 8, 8))
    else:
        AddReluCast(c, a, b, [FULL, FULL], 4, BinaryRepeatParams(1, 1, 1, 4, 8, 8))
    qz.EnQue(c); qx.FreeTensor(a); qy.FreeTensor(b)
    c = qz.DeQue(int8_t); DataCopy(zg, c, 512); qz.FreeTensor(c)


def _add_kernel(x, y, z):
    n, tile = 2048, 128
    i = GetBlockIdx()
    pipe = TPipe()
    xg, yg, zg = GlobalTensor(half), GlobalTensor(half), GlobalTensor(half)
    xg.SetGlobalBuffer(x.cast(half) + i * n, n); yg.SetGlobalBuffer(y.cast(half) + i * n, n)
    zg.SetGlobalBuffer(z.cast(half) + i * n, n)
    qx, qy, qz = TQue(TPosition.VECIN, 2), TQue(TPosition.VECIN, 2), TQue(TPosition.VECOUT, 2)
    for q in (qx, qy, qz):
        pipe.InitBuffer(q, 2, tile * 2)
    for t in range(n // tile):
        a, b = qx.AllocTensor(half), qy.AllocTensor(half)
        DataCopy(a, xg[t * tile], tile); DataCopy(b, yg[t * tile], tile)
        qx.EnQue(a); qy.EnQue(b)
        a, b, c = qx.DeQue(half), qy.DeQue(half), qz.AllocTensor(half)
        Add(c, a, b, tile)
        qz.EnQue(c); qx.FreeTensor(a); qy.FreeTensor(b)
        c = qz.DeQue(half); DataCopy(zg[t * tile], c, tile); qz.FreeTensor(c)


def _racy_kernel(x, sync):
    g = GlobalTensor(half); g.SetGlobalBuffer(x, 128)
    pipe = TPipe(); buf = TBuf(); pipe.InitBuffer(buf, 256)
    t = buf.Get(half)
    DataCopy(t, g, 128)
    if sync:
        SetFlag(HardEvent.MTE2_V, 0); WaitFlag(HardEvent.MTE2_V, 0)
    Adds(t, t, 1.0, 128)


def run() -> list[Check]:
    checks = []
    x = np.arange(1, 513).astype(np.float16); x[1] = 1
    y = (-np.arange(2, 514)).astype(np.float16); y[:3] = [0, 0.5, -4]
    outs = []
    for form in range(3):
        z = np.zeros(512, np.int8)
        launch(_arc_kernel, 1, x, y, z, form, soc="Ascend910B1")
        outs.append(z)
    ok = all(np.array_equal(o, outs[0]) for o in outs) and outs[0][:3].tolist() == [1, 2, 0] and not outs[0][3:].any()
    checks.append(Check("ascendc", "AddReluCast seed example, count / continuous / bit-mask forms", ok,
                        f"dst = {outs[0][:4].tolist()} ... (all three identical: {ok})"))
    rng = np.random.default_rng(0)
    a = rng.uniform(-100, 100, 4 * 2048).astype(np.float16)
    b = rng.uniform(-100, 100, 4 * 2048).astype(np.float16)
    c = np.zeros_like(a)
    res = launch(_add_kernel, 4, a, b, c)
    ok = np.array_equal(c, a + b)
    checks.append(Check("ascendc", "double-buffered Add, 4 cores x 2048 half", ok,
                        f"bit-exact vs numpy: {ok}; {res.cycles:.0f} cycles ({res.us:.2f} us) on Ascend910B1"))
    try:
        launch(_racy_kernel, 1, np.zeros(128, np.float16), False, sync="manual")
        found = "no race reported"
        ok = False
    except RaceError as e:
        found, ok = str(e).split(":")[0], True
    launch(_racy_kernel, 1, np.zeros(128, np.float16), True)
    checks.append(Check("ascendc", "DataCopy -> Adds without SetFlag/WaitFlag is a race", ok, found))
    return checks
