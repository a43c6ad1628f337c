"""A line-by-line Python port of two classes of cann-ops' cast kernel (Hayden727/cann-ops,
src/math/cast/op_kernel/cast.cpp @ eef0ff770ece1497e98bbf063028465a20417dfe, kept verbatim in
tests/ascendc/public/cast/): KernelCast0TBuf (TILING_KEY 1: one Cast, the round mode by the dtype pair) and
KernelCastTQueBind (TILING_KEY 8: 8-bit types copied through a TQueBind<VECIN, VECOUT>). The .cpp's dtypes
are the build's DTYPE_X / DTYPE_Y defines; here they are keyword arguments."""
from npusim import ascendc as asc

BUFFER_NUM = 2
HALF_ONE = 1.0
H, F, I8, U8, I16, I32 = asc.half, asc.float, asc.int8_t, asc.uint8_t, asc.int16_t, asc.int32_t
I64, BF16 = asc.int64_t, asc.bfloat16_t


class BaseKernelCast:
    def __init__(self, TYPE_X, TYPE_Y):
        self.TYPE_X, self.TYPE_Y = TYPE_X, TYPE_Y
        self.inQueueX = asc.TQue(asc.QuePosition.VECIN, BUFFER_NUM)
        self.outQueueY = asc.TQue(asc.QuePosition.VECOUT, BUFFER_NUM)
        self.xGm, self.yGm = asc.GlobalTensor(TYPE_X), asc.GlobalTensor(TYPE_Y)

    def CopyIn(self, progress):
        xLocal = self.inQueueX.AllocTensor(self.TYPE_X)
        asc.DataCopy(xLocal, self.xGm[progress * self.tileDataNum], self.processDataNum)
        self.inQueueX.EnQue(xLocal)

    def CopyOut(self, progress):
        yLocal = self.outQueueY.DeQue(self.TYPE_Y)
        asc.DataCopy(self.yGm[progress * self.tileDataNum], yLocal, self.processDataNum)
        self.outQueueY.FreeTensor(yLocal)


def _split(self, smallCoreDataNum, bigCoreDataNum, finalBigTileNum, finalSmallTileNum, tileDataNum,
           smallTailDataNum, bigTailDataNum, tailBlockNum):
    """The block split both classes' Init open with; returns globalBufferIndex."""
    asc.ASSERT(asc.GetBlockNum() != 0, "block dim can not be zero!")
    coreNum = asc.GetBlockIdx()
    globalBufferIndex = bigCoreDataNum * asc.GetBlockIdx()
    self.tileDataNum = tileDataNum
    if coreNum < tailBlockNum:
        self.coreDataNum, self.tileNum, self.tailDataNum = bigCoreDataNum, finalBigTileNum, bigTailDataNum
    else:
        self.coreDataNum, self.tileNum, self.tailDataNum = smallCoreDataNum, finalSmallTileNum, smallTailDataNum
        globalBufferIndex -= (bigCoreDataNum - smallCoreDataNum) * (asc.GetBlockIdx() - tailBlockNum)
    return globalBufferIndex


class KernelCast0TBuf(BaseKernelCast):
    TRUNC = {(H, I32), (H, I16), (F, I32), (F, I16), (F, I64), (BF16, I32)}
    NONE = {(H, F), (F, H), (I32, I16), (I32, I64), (I32, F), (I8, H), (U8, H), (I64, I32), (BF16, F), (I16, H),
            (I16, F)}

    def Init(self, x, y, *split, pipeIn):
        self.pipe = pipeIn
        globalBufferIndex = _split(self, *split)
        self.xGm.SetGlobalBuffer(x.cast(self.TYPE_X) + globalBufferIndex, self.coreDataNum)
        self.yGm.SetGlobalBuffer(y.cast(self.TYPE_Y) + globalBufferIndex, self.coreDataNum)
        self.BufferInit()

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

    def BufferInit(self):
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, self.tileDataNum * self.TYPE_X.itemsize)
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, self.tileDataNum * self.TYPE_Y.itemsize)

    def Compute(self, progress):
        n, pair = self.processDataNum, (self.TYPE_X, self.TYPE_Y)
        xLocal = self.inQueueX.DeQue(self.TYPE_X)
        yLocal = self.outQueueY.AllocTensor(self.TYPE_Y)
        if pair in self.TRUNC:
            asc.Cast(yLocal, xLocal, asc.RoundMode.CAST_TRUNC, n)
        elif pair == (I64, F):
            asc.Cast(yLocal, xLocal, asc.RoundMode.CAST_ROUND, n)
        elif pair in self.NONE:
            asc.Cast(yLocal, xLocal, asc.RoundMode.CAST_NONE, n)
        elif pair == (F, BF16):
            asc.Cast(yLocal, xLocal, asc.RoundMode.CAST_RINT, n)
        self.outQueueY.EnQue(yLocal)
        self.inQueueX.FreeTensor(xLocal)


class KernelCastTQueBind:
    def __init__(self):
        self.queBind = asc.TQueBind(asc.TPosition.VECIN, asc.TPosition.VECOUT, BUFFER_NUM)
        self.xGm, self.yGm = asc.GlobalTensor(U8), asc.GlobalTensor(U8)

    def Init(self, x, y, *split, pipeIn):
        self.pipe = pipeIn
        globalBufferIndex = _split(self, *split)
        self.xGm.SetGlobalBuffer(x.cast(U8) + globalBufferIndex, self.coreDataNum)
        self.yGm.SetGlobalBuffer(y.cast(U8) + globalBufferIndex, self.coreDataNum)
        self.pipe.InitBuffer(self.queBind, BUFFER_NUM, self.tileDataNum * U8.itemsize)

    def _tile(self, i):
        bindLocal = self.queBind.AllocTensor(U8)
        asc.DataCopy(bindLocal, self.xGm[i * self.tileDataNum], self.processDataNum)
        self.queBind.EnQue(bindLocal)
        bindLocal = self.queBind.DeQue(U8)
        asc.DataCopy(self.yGm[i * self.tileDataNum], bindLocal, self.processDataNum)
        self.queBind.FreeTensor(bindLocal)

    def Process(self):
        loopCount = self.tileNum
        self.processDataNum = self.tileDataNum
        for i in range(loopCount - 1):
            self._tile(i)
        self.processDataNum = self.tailDataNum
        self._tile(loopCount - 1)


def cast(x, y, workspace=None, tiling=None, DTYPE_X=F, DTYPE_Y=H):
    t = tiling
    pipe = asc.TPipe()
    split = (t["smallCoreDataNum"], t["bigCoreDataNum"], t["finalBigTileNum"], t["finalSmallTileNum"],
             t["tileDataNum"], t["smallTailDataNum"], t["bigTailDataNum"], t["tailBlockNum"])
    key = t.get("TILING_KEY", 0)
    if key == 1:
        op = KernelCast0TBuf(DTYPE_X, DTYPE_Y)
    elif key == 8:
        op = KernelCastTQueBind()
    else:
        raise NotImplementedError(f"cast TILING_KEY {key} is not ported (keys 1 and 8 are)")
    op.Init(x, y, *split, pipeIn=pipe)
    op.Process()
