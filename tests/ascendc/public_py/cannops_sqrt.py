"""A line-by-line Python port of cann-ops' sqrt kernel (Hayden727/cann-ops, src/math/sqrt/op_kernel/sqrt.cpp @
eef0ff770ece1497e98bbf063028465a20417dfe, kept verbatim in tests/ascendc/public/sqrt/)."""
from npusim import ascendc as asc

BUFFER_NUM = 2


class KernelSqrt:
    def __init__(self, TYPE_X, TYPE_Y):
        self.TYPE_X, self.TYPE_Y = TYPE_X, TYPE_Y
        self.pipe = asc.TPipe()
        self.inQueueX = asc.TQue(asc.QuePosition.VECIN, BUFFER_NUM)
        self.outQueueY = asc.TQue(asc.QuePosition.VECOUT, BUFFER_NUM)
        self.tmp1 = asc.TBuf(asc.QuePosition.VECCALC)
        self.xGm, self.yGm = asc.GlobalTensor(TYPE_X), asc.GlobalTensor(TYPE_Y)

    def Init(self, x, y, smallCoreDataNum, bigCoreDataNum, finalBigTileNum, finalSmallTileNum, tileDataNum,
             smallTailDataNum, bigTailDataNum, tailBlockNum):
        asc.ASSERT(asc.GetBlockNum() != 0, "block dim can not be zero!")
        coreNum = asc.GetBlockIdx()
        globalBufferIndex = bigCoreDataNum * asc.GetBlockIdx()
        self.tileDataNum = tileDataNum
        if coreNum < tailBlockNum:
            self.coreDataNum, self.tileNum, self.tailDataNum = bigCoreDataNum, finalBigTileNum, bigTailDataNum
        else:
            self.coreDataNum, self.tileNum, self.tailDataNum = smallCoreDataNum, finalSmallTileNum, smallTailDataNum
            globalBufferIndex -= (bigCoreDataNum - smallCoreDataNum) * (asc.GetBlockIdx() - tailBlockNum)
        self.xGm.SetGlobalBuffer(x.cast(self.TYPE_X) + globalBufferIndex, self.coreDataNum)
        self.yGm.SetGlobalBuffer(y.cast(self.TYPE_Y) + globalBufferIndex, self.coreDataNum)
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, self.tileDataNum * self.TYPE_X.itemsize)
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, self.tileDataNum * self.TYPE_Y.itemsize)
        if self.TYPE_X != asc.float:
            self.pipe.InitBuffer(self.tmp1, self.tileDataNum * asc.float.itemsize)

    def Process(self):
        loopCount = self.tileNum
        self.processDataNum = self.tileDataNum
        for i in range(loopCount - 1):
            self.CopyIn(i)
            self.Compute(i)
            self.CopyOut(i)
        self.processDataNum = self.tailDataNum
        self.CopyIn(loopCount - 1)
        self.Compute(loopCount - 1)
        self.CopyOut(loopCount - 1)

    def CopyIn(self, progress):
        xLocal = self.inQueueX.AllocTensor(self.TYPE_X)
        asc.DataCopy(xLocal, self.xGm[progress * self.tileDataNum], self.processDataNum)
        self.inQueueX.EnQue(xLocal)

    def Compute(self, progress):
        xLocal = self.inQueueX.DeQue(self.TYPE_X)
        yLocal = self.outQueueY.AllocTensor(self.TYPE_Y)
        if self.TYPE_X != asc.float:
            p1 = self.tmp1.Get(asc.float)
            asc.Cast(p1, xLocal, asc.RoundMode.CAST_NONE, self.processDataNum)
            asc.Sqrt(p1, p1, self.processDataNum)
            asc.Cast(yLocal, p1, asc.RoundMode.CAST_RINT, self.processDataNum)
        else:
            asc.Sqrt(yLocal, xLocal, self.processDataNum)
        self.outQueueY.EnQue(yLocal)
        self.inQueueX.FreeTensor(xLocal)

    def CopyOut(self, progress):
        yLocal = self.outQueueY.DeQue(self.TYPE_Y)
        asc.DataCopy(self.yGm[progress * self.tileDataNum], yLocal, self.processDataNum)
        self.outQueueY.FreeTensor(yLocal)


def sqrt(x, y, workspace=None, tiling=None, DTYPE_X=asc.float, DTYPE_Y=asc.float):
    t = tiling
    op = KernelSqrt(DTYPE_X, DTYPE_Y)
    op.Init(x, y, t["smallCoreDataNum"], t["bigCoreDataNum"], t["finalBigTileNum"], t["finalSmallTileNum"],
            t["tileDataNum"], t["smallTailDataNum"], t["bigTailDataNum"], t["tailBlockNum"])
    op.Process()
