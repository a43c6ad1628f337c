"""A line-by-line Python port of cann-ops' tanh kernel (Hayden727/cann-ops, src/math/tanh/op_kernel/tanh.cpp @
eef0ff770ece1497e98bbf063028465a20417dfe, kept verbatim in tests/ascendc/public/tanh/): the advanced Tanh API;
TILING_KEY 1 / 0 is the template's IsExistBigCore."""
from npusim import ascendc as asc

BUFFER_NUM = 2
F32 = asc.float


class KernelTanh:
    def __init__(self, TYPE_X, TYPE_Y, IsExistBigCore):
        self.TYPE_X, self.TYPE_Y, self.IsExistBigCore = TYPE_X, TYPE_Y, IsExistBigCore
        self.pipe = asc.TPipe()
        self.inQueueX = asc.TQue(asc.QuePosition.VECIN, BUFFER_NUM)
        self.outQueueY = asc.TQue(asc.QuePosition.VECOUT, BUFFER_NUM)
        self.tmpBuf = asc.TBuf(asc.QuePosition.VECCALC)
        self.xGm, self.yGm = asc.GlobalTensor(TYPE_X), asc.GlobalTensor(TYPE_Y)

    def Init(self, x, y, smallCoreDataNum, bigCoreDataNum, finalBigTileNum, finalSmallTileNum, tileDataNum,
             smallTailDataNum, bigTailDataNum, tailBlockNum):
        asc.ASSERT(asc.GetBlockNum() != 0, "block dim can not be zero!")
        coreNum = asc.GetBlockIdx()
        globalBufferIndex = bigCoreDataNum * asc.GetBlockIdx()
        self.tileDataNum = tileDataNum
        if self.IsExistBigCore:
            if coreNum < tailBlockNum:
                self.coreDataNum, self.tileNum, self.tailDataNum = bigCoreDataNum, finalBigTileNum, bigTailDataNum
            else:
                self.coreDataNum, self.tileNum = smallCoreDataNum, finalSmallTileNum
                self.tailDataNum = smallTailDataNum
                globalBufferIndex -= (bigCoreDataNum - smallCoreDataNum) * (asc.GetBlockIdx() - tailBlockNum)
        else:
            self.coreDataNum, self.tileNum, self.tailDataNum = smallCoreDataNum, finalSmallTileNum, smallTailDataNum
            globalBufferIndex = smallCoreDataNum * asc.GetBlockIdx()
        self.xGm.SetGlobalBuffer(x.cast(self.TYPE_X) + globalBufferIndex, self.coreDataNum)
        self.yGm.SetGlobalBuffer(y.cast(self.TYPE_Y) + globalBufferIndex, self.coreDataNum)
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, self.tileDataNum * self.TYPE_X.itemsize)
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, self.tileDataNum * self.TYPE_Y.itemsize)
        if self.TYPE_X != F32:
            self.pipe.InitBuffer(self.tmpBuf, self.tileDataNum * F32.itemsize)

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
        n = self.processDataNum
        xLocal = self.inQueueX.DeQue(self.TYPE_X)
        yLocal = self.outQueueY.AllocTensor(self.TYPE_Y)
        tmp = self.tmpBuf.Get(F32)             # taken for float too, from a TBuf never initialised on that path
        if self.TYPE_X != F32:
            asc.Cast(tmp, xLocal, asc.RoundMode.CAST_NONE, n)
            asc.Tanh(tmp, tmp, n)
            asc.Cast(yLocal, tmp, asc.RoundMode.CAST_RINT, n)
        else:
            asc.Tanh(yLocal, xLocal, n)
        self.outQueueY.EnQue(yLocal)
        self.inQueueX.FreeTensor(xLocal)

    def CopyOut(self, progress):
        yLocal = self.outQueueY.DeQue(self.TYPE_Y)
        asc.DataCopy(self.yGm[progress * self.tileDataNum], yLocal, self.processDataNum)
        self.outQueueY.FreeTensor(yLocal)


def tanh(x, y, workspace=None, tiling=None, DTYPE_X=F32, DTYPE_Y=F32):
    t = tiling
    key = t.get("TILING_KEY", 0)
    if key not in (0, 1):
        return
    op = KernelTanh(DTYPE_X, DTYPE_Y, key == 1)
    op.Init(x, y, t["smallCoreDataNum"], t["bigCoreDataNum"], t["finalBigTileNum"], t["finalSmallTileNum"],
            t["tileDataNum"], t["smallTailDataNum"], t["bigTailDataNum"], t["tailBlockNum"])
    op.Process()
