"""AddCustom, the canonical Ascend C sample: 8 blocks x 2048 halves, TILE_NUM 8, double-buffered TQue.

Line for line the 2023 sample (Ascend/samples .../kernel_invocation/Add/add_custom.cpp); checks itself
bit for bit against numpy float16 (the sample verifies with md5sum).
Run: PYTHONPATH=src python examples/ascendc/add_custom.py
"""
import numpy as np

from npusim import ascendc as asc

TOTAL_LENGTH = 8 * 2048
USE_CORE_NUM = 8
BLOCK_LENGTH = TOTAL_LENGTH // USE_CORE_NUM
TILE_NUM = 8
BUFFER_NUM = 2
TILE_LENGTH = BLOCK_LENGTH // TILE_NUM // BUFFER_NUM


class KernelAdd:
    def Init(self, x, y, z):
        idx = asc.GetBlockIdx()
        self.pipe = asc.TPipe()
        self.xGm = asc.GlobalTensor(asc.half)
        self.yGm = asc.GlobalTensor(asc.half)
        self.zGm = asc.GlobalTensor(asc.half)
        self.xGm.SetGlobalBuffer(x.cast(asc.half) + BLOCK_LENGTH * idx, BLOCK_LENGTH)
        self.yGm.SetGlobalBuffer(y.cast(asc.half) + BLOCK_LENGTH * idx, BLOCK_LENGTH)
        self.zGm.SetGlobalBuffer(z.cast(asc.half) + BLOCK_LENGTH * idx, BLOCK_LENGTH)
        self.inQueueX = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM)
        self.inQueueY = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM)
        self.outQueueZ = asc.TQue(asc.TPosition.VECOUT, BUFFER_NUM)
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, TILE_LENGTH * 2)
        self.pipe.InitBuffer(self.inQueueY, BUFFER_NUM, TILE_LENGTH * 2)
        self.pipe.InitBuffer(self.outQueueZ, BUFFER_NUM, TILE_LENGTH * 2)

    def Process(self):
        for i in range(TILE_NUM * BUFFER_NUM):
            self.CopyIn(i)
            self.Compute(i)
            self.CopyOut(i)

    def CopyIn(self, progress):
        xLocal = self.inQueueX.AllocTensor(asc.half)
        yLocal = self.inQueueY.AllocTensor(asc.half)
        asc.DataCopy(xLocal, self.xGm[progress * TILE_LENGTH], TILE_LENGTH)
        asc.DataCopy(yLocal, self.yGm[progress * TILE_LENGTH], TILE_LENGTH)
        self.inQueueX.EnQue(xLocal)
        self.inQueueY.EnQue(yLocal)

    def Compute(self, progress):
        xLocal = self.inQueueX.DeQue(asc.half)
        yLocal = self.inQueueY.DeQue(asc.half)
        zLocal = self.outQueueZ.AllocTensor(asc.half)
        asc.Add(zLocal, xLocal, yLocal, TILE_LENGTH)
        self.outQueueZ.EnQue(zLocal)
        self.inQueueX.FreeTensor(xLocal)
        self.inQueueY.FreeTensor(yLocal)

    def CopyOut(self, progress):
        zLocal = self.outQueueZ.DeQue(asc.half)
        asc.DataCopy(self.zGm[progress * TILE_LENGTH], zLocal, TILE_LENGTH)
        self.outQueueZ.FreeTensor(zLocal)


def add_custom(x, y, z):
    op = KernelAdd()
    op.Init(x, y, z)
    op.Process()


def main(seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-100, 100, [8, 2048]).astype(np.float16)
    y = rng.uniform(-100, 100, [8, 2048]).astype(np.float16)
    z = np.zeros_like(x)
    res = asc.launch(add_custom, USE_CORE_NUM, x, y, z, soc="Ascend910B1")
    ok = np.array_equal(z.view(np.uint16), (x + y).view(np.uint16))
    return ok, res


if __name__ == "__main__":
    ok, res = main()
    print(f"AddCustom 8 x 2048 half: bit-exact vs numpy float16: {ok}; simulated {res.us:.2f} us "
          f"({res.cycles:.0f} cycles at {res.soc.freq_mhz} MHz)")
    from rich.console import Console
    Console().print(res.trace.summary(top=5))
    if not ok:
        raise SystemExit(1)
