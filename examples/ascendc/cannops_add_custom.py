"""A line-by-line Python port of cann-ops' add_custom kernel (src/math/add_custom/op_kernel/add_custom.cpp,
kept verbatim in tests/ascendc/public/add_custom/), the float / half path without big cores (TILING_KEY 0).
The same file runs unchanged through ``asc.load_cpp``; tests/ascendc/cpp/test_ports.py checks that both
routes give the same bytes and the same timeline. Run it: ``python examples/ascendc/cannops_add_custom.py``."""
import numpy as np

from npusim import ascendc as asc

BUFFER_NUM = 2


class KernelAdd:
    def __init__(self, T):
        self.T = T
        self.pipe = asc.TPipe()
        self.inQueueX = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM)
        self.inQueueY = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM)
        self.outQueueZ = asc.TQue(asc.TPosition.VECOUT, BUFFER_NUM)
        self.xGm, self.yGm, self.zGm = asc.GlobalTensor(T), asc.GlobalTensor(T), asc.GlobalTensor(T)

    def Init(self, x, y, z, smallCoreDataNum, ubPartDataNum, smallCoreTailDataNum, smallCoreLoopNum):
        self.ubPartDataNum = ubPartDataNum
        self.coreDataNum = smallCoreDataNum
        self.tileNum = smallCoreLoopNum
        self.tailDataNum = smallCoreTailDataNum
        globalBufferIndex = smallCoreDataNum * asc.GetBlockIdx()
        self.xGm.SetGlobalBuffer(x.cast(self.T) + globalBufferIndex, self.coreDataNum)
        self.yGm.SetGlobalBuffer(y.cast(self.T) + globalBufferIndex, self.coreDataNum)
        self.zGm.SetGlobalBuffer(z.cast(self.T) + globalBufferIndex, self.coreDataNum)
        size = self.ubPartDataNum * self.T.itemsize
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, size)
        self.pipe.InitBuffer(self.inQueueY, BUFFER_NUM, size)
        self.pipe.InitBuffer(self.outQueueZ, BUFFER_NUM, size)

    def Process(self):
        loopCount = self.tileNum
        self.processDataNum = self.ubPartDataNum
        for i in range(loopCount - 1):
            self.CopyIn(i)
            self.Compute(i)
            self.CopyOut(i)
        self.processDataNum = self.tailDataNum
        self.CopyIn(loopCount - 1)
        self.Compute(loopCount - 1)
        self.CopyOut(loopCount - 1)

    def CopyIn(self, progress):
        xLocal = self.inQueueX.AllocTensor(self.T)
        yLocal = self.inQueueY.AllocTensor(self.T)
        asc.DataCopy(xLocal, self.xGm[progress * self.ubPartDataNum], self.processDataNum)
        asc.DataCopy(yLocal, self.yGm[progress * self.ubPartDataNum], self.processDataNum)
        self.inQueueX.EnQue(xLocal)
        self.inQueueY.EnQue(yLocal)

    def Compute(self, progress):
        xLocal = self.inQueueX.DeQue(self.T)
        yLocal = self.inQueueY.DeQue(self.T)
        zLocal = self.outQueueZ.AllocTensor(self.T)
        asc.Add(zLocal, xLocal, yLocal, self.processDataNum)
        self.outQueueZ.EnQue(zLocal)
        self.inQueueX.FreeTensor(xLocal)
        self.inQueueY.FreeTensor(yLocal)

    def CopyOut(self, progress):
        zLocal = self.outQueueZ.DeQue(self.T)
        asc.DataCopy(self.zGm[progress * self.ubPartDataNum], zLocal, self.processDataNum)
        self.outQueueZ.FreeTensor(zLocal)


def add_custom(x, y, z, workspace=None, tiling=None, T=asc.float):
    """The kernel entry: ``tiling`` is the dict the .cpp route packs into AddCustomTilingData."""
    op = KernelAdd(T)
    op.Init(x, y, z, tiling["smallCoreDataNum"], tiling["ubPartDataNum"], tiling["smallCoreTailDataNum"],
            tiling["smallCoreLoopNum"])
    op.Process()


TILING = dict(smallCoreDataNum=2048, bigCoreDataNum=2048, ubPartDataNum=512, smallCoreTailDataNum=512,
              bigCoreTailDataNum=512, smallCoreLoopNum=4, bigCoreLoopNum=4, tailBlockNum=0, TILING_KEY=0)



def main():
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((2, 8 * 2048)).astype(np.float32)
    z = np.zeros_like(x)
    res = asc.launch(add_custom, 8, x, y, z, tiling=TILING)
    return bool(np.array_equal(z, x + y)), res


if __name__ == "__main__":
    ok, res = main()
    print(f"cann-ops add_custom (Python port): 8 blocks, {res.cycles:,.0f} cycles, exact: {ok}")
    if not ok:
        raise SystemExit(1)
