"""Line-by-line Python ports of two cann-ops compare kernels (Hayden727/cann-ops @
eef0ff770ece1497e98bbf063028465a20417dfe, kept verbatim in tests/ascendc/public/<op>/):
src/math/equal/op_kernel/equal.cpp (float and half paths) and src/contrib/math/greater/op_kernel/greater.cpp
(half and float paths, TILING_KEY 1 / 0 = IsExistBigCore). Outputs are int8 0/1."""
from npusim import ascendc as asc

BUFFER_NUM = 2
POSITIVE_ONE_FP32 = 1.0
MIN_ACCURACY_FP16 = 0.00000005960464477539063
MAX_MUL_FP16 = 4096.0
MIN_ACCURACY_FP32 = 1.1754943508222875e-38
MAX_MUL_1_FP32 = 1125899906842624.0
F32, I8 = asc.float, asc.int8_t


class KernelEqual:
    def __init__(self, TYPE_X):
        self.T = TYPE_X
        self.pipe = asc.TPipe()
        self.inQueueX1 = asc.TQue(asc.QuePosition.VECIN, BUFFER_NUM)
        self.inQueueX2 = asc.TQue(asc.QuePosition.VECIN, BUFFER_NUM)
        self.outQueueY = asc.TQue(asc.QuePosition.VECOUT, BUFFER_NUM)
        self.tmp1, self.tmp2 = asc.TBuf(asc.QuePosition.VECCALC), asc.TBuf(asc.QuePosition.VECCALC)
        self.x1Gm, self.x2Gm, self.yGm = asc.GlobalTensor(TYPE_X), asc.GlobalTensor(TYPE_X), asc.GlobalTensor(I8)

    def Init(self, x1, x2, y, smallCoreDataNum, bigCoreDataNum, finalBigTileNum, finalSmallTileNum, tileDataNum,
             smallTailDataNum, bigTailDataNum, tailBlockNum, bigprocessDataNum_computes,
             smallprocessDataNum_computes, tailbigprocessDataNum_computes, tailsmallprocessDataNum_computes):
        T = self.T
        asc.ASSERT(asc.GetBlockNum() != 0, "block dim can not be zero!")
        coreNum = asc.GetBlockIdx()
        globalBufferIndex = bigCoreDataNum * asc.GetBlockIdx()
        increment = 0
        self.tileDataNum = tileDataNum
        if coreNum < tailBlockNum:
            self.coreDataNum, self.tileNum, self.tailDataNum = bigCoreDataNum, finalBigTileNum, bigTailDataNum
            self.processDataNum_computes = bigprocessDataNum_computes
            self.tailprocessDataNum_computes = tailbigprocessDataNum_computes
        else:
            self.coreDataNum, self.tileNum, self.tailDataNum = smallCoreDataNum, finalSmallTileNum, smallTailDataNum
            self.processDataNum_computes = smallprocessDataNum_computes
            self.tailprocessDataNum_computes = tailsmallprocessDataNum_computes
            globalBufferIndex -= (bigCoreDataNum - smallCoreDataNum) * (asc.GetBlockIdx() - tailBlockNum)
        self.x1Gm.SetGlobalBuffer(x1.cast(T) + globalBufferIndex, self.coreDataNum)
        self.x2Gm.SetGlobalBuffer(x2.cast(T) + globalBufferIndex, self.coreDataNum)
        self.yGm.SetGlobalBuffer(y.cast(I8) + globalBufferIndex, self.coreDataNum)
        if T == F32:
            increment = 256
        self.pipe.InitBuffer(self.inQueueX1, BUFFER_NUM, self.tileDataNum * T.itemsize + increment)
        self.pipe.InitBuffer(self.inQueueX2, BUFFER_NUM, self.tileDataNum * T.itemsize + increment)
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, self.tileDataNum * I8.itemsize + increment)
        if T == asc.half:
            self.pipe.InitBuffer(self.tmp1, self.tileDataNum * asc.half.itemsize)
        elif T == F32:
            self.pipe.InitBuffer(self.tmp2, self.tileDataNum * asc.half.itemsize + increment)
        else:
            raise NotImplementedError("equal: the int8 / int32 paths are not ported")

    def Process(self):
        loopCount = self.tileNum
        self.processDataNum = self.tileDataNum
        for i in range(loopCount - 1):
            self.CopyIn(i)
            self.Compute(i)
            self.CopyOut(i)
        self.processDataNum = self.tailDataNum
        self.processDataNum_computes = self.tailprocessDataNum_computes
        self.CopyIn(loopCount - 1)
        self.Compute(loopCount - 1)
        self.CopyOut(loopCount - 1)

    def CopyIn(self, progress):
        x1Local = self.inQueueX1.AllocTensor(self.T)
        x2Local = self.inQueueX2.AllocTensor(self.T)
        asc.DataCopy(x1Local, self.x1Gm[progress * self.tileDataNum], self.processDataNum)
        asc.DataCopy(x2Local, self.x2Gm[progress * self.tileDataNum], self.processDataNum)
        self.inQueueX1.EnQue(x1Local)
        self.inQueueX2.EnQue(x2Local)

    def Compute(self, progress):
        n = self.processDataNum
        if self.T == asc.half:
            x1_local = self.inQueueX1.DeQue(asc.half)
            x2_local = self.inQueueX2.DeQue(asc.half)
            y_local = self.outQueueY.AllocTensor(I8)
            y_compute = self.tmp1.Get(asc.half)
            asc.Sub(y_compute, x1_local, x2_local, n)                  # diff = x1 - x2
            asc.Abs(y_compute, y_compute, n)
            asc.Mins(y_compute, y_compute, MIN_ACCURACY_FP16, n)      # min(|diff|, the smallest half)
            asc.Muls(y_compute, y_compute, MAX_MUL_FP16, n)           # ... scaled up to 1
            asc.Muls(y_compute, y_compute, MAX_MUL_FP16, n)
            asc.Duplicate(x1_local, POSITIVE_ONE_FP32, n)
            asc.Sub(y_compute, x1_local, y_compute, n)                # 1 - that
            asc.Cast(y_local, y_compute, asc.RoundMode.CAST_NONE, n)
            self.outQueueY.EnQue(y_local)
            self.inQueueX1.FreeTensor(x1_local)
            self.inQueueX2.FreeTensor(x2_local)
        else:
            nc = self.processDataNum_computes
            x1_local = self.inQueueX1.DeQue(F32)
            x2_local = self.inQueueX2.DeQue(F32)
            y_local = self.outQueueY.AllocTensor(I8)
            p1 = self.tmp2.Get(asc.half)
            asc.Compare(y_local, x1_local, x2_local, asc.CMPMODE.EQ, nc)
            asc.Duplicate(x1_local, 1.0, nc)
            asc.Select(x1_local, y_local, x1_local, 0.0, asc.SELMODE.VSEL_TENSOR_SCALAR_MODE, nc)
            asc.Cast(p1, x1_local, asc.RoundMode.CAST_NONE, nc)
            asc.Cast(y_local, p1, asc.RoundMode.CAST_NONE, nc)
            self.outQueueY.EnQue(y_local)
            self.inQueueX1.FreeTensor(x1_local)
            self.inQueueX2.FreeTensor(x2_local)

    def CopyOut(self, progress):
        yLocal = self.outQueueY.DeQue(I8)
        asc.DataCopy(self.yGm[progress * self.tileDataNum], yLocal, self.processDataNum)
        self.outQueueY.FreeTensor(yLocal)


def equal(x1, x2, y, workspace=None, tiling=None, DTYPE_X1=F32):
    t = tiling
    op = KernelEqual(DTYPE_X1)
    op.Init(x1, x2, y, t["smallCoreDataNum"], t["bigCoreDataNum"], t["finalBigTileNum"], t["finalSmallTileNum"],
            t["tileDataNum"], t["smallTailDataNum"], t["bigTailDataNum"], t["tailBlockNum"],
            t["bigprocessDataNum_computes"], t["smallprocessDataNum_computes"],
            t["tailbigprocessDataNum_computes"], t["tailsmallprocessDataNum_computes"])
    op.Process()


class KernelGreater:
    def __init__(self, TYPE_X1, IsExistBigCore):
        self.T, self.IsExistBigCore = TYPE_X1, IsExistBigCore
        self.pipe = asc.TPipe()
        self.inQueueX1 = asc.TQue(asc.QuePosition.VECIN, BUFFER_NUM)
        self.inQueueX2 = asc.TQue(asc.QuePosition.VECIN, BUFFER_NUM)
        self.outQueueY = asc.TQue(asc.QuePosition.VECOUT, BUFFER_NUM)
        self.calc_buf_1 = asc.TBuf(asc.QuePosition.VECCALC)
        self.x1Gm, self.x2Gm, self.yGm = asc.GlobalTensor(TYPE_X1), asc.GlobalTensor(TYPE_X1), asc.GlobalTensor(I8)

    def Init(self, x1, x2, y, smallCoreDataNum, bigCoreDataNum, bigCoreLoopNum, smallCoreLoopNum, ubPartDataNum,
             smallCoreTailDataNum, bigCoreTailDataNum, tailBlockNum):
        T = self.T
        asc.ASSERT(asc.GetBlockNum() != 0, "block dim can not be zero!")
        coreNum = asc.GetBlockIdx()
        globalBufferIndex = bigCoreDataNum * asc.GetBlockIdx()
        self.ubPartDataNum = ubPartDataNum
        if self.IsExistBigCore:
            if coreNum < tailBlockNum:
                self.coreDataNum, self.tileNum, self.tailDataNum = bigCoreDataNum, bigCoreLoopNum, bigCoreTailDataNum
            else:
                self.coreDataNum, self.tileNum = smallCoreDataNum, smallCoreLoopNum
                self.tailDataNum = smallCoreTailDataNum
                globalBufferIndex -= (bigCoreDataNum - smallCoreDataNum) * (asc.GetBlockIdx() - tailBlockNum)
        else:
            self.coreDataNum, self.tileNum, self.tailDataNum = smallCoreDataNum, smallCoreLoopNum, smallCoreTailDataNum
            globalBufferIndex = smallCoreDataNum * asc.GetBlockIdx()
        self.x1Gm.SetGlobalBuffer(x1.cast(T) + globalBufferIndex, self.coreDataNum)
        self.x2Gm.SetGlobalBuffer(x2.cast(T) + globalBufferIndex, self.coreDataNum)
        self.yGm.SetGlobalBuffer(y.cast(I8) + globalBufferIndex, self.coreDataNum)
        self.pipe.InitBuffer(self.inQueueX1, BUFFER_NUM, self.ubPartDataNum * T.itemsize)
        self.pipe.InitBuffer(self.inQueueX2, BUFFER_NUM, self.ubPartDataNum * T.itemsize)
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, self.ubPartDataNum * I8.itemsize)
        if T == F32:
            self.pipe.InitBuffer(self.calc_buf_1, self.ubPartDataNum * asc.half.itemsize)
        elif T != asc.half:
            raise NotImplementedError("greater: the integer paths are not ported")

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
        x1Local = self.inQueueX1.AllocTensor(self.T)
        x2Local = self.inQueueX2.AllocTensor(self.T)
        asc.DataCopy(x1Local, self.x1Gm[progress * self.ubPartDataNum], self.processDataNum)
        asc.DataCopy(x2Local, self.x2Gm[progress * self.ubPartDataNum], self.processDataNum)
        self.inQueueX1.EnQue(x1Local)
        self.inQueueX2.EnQue(x2Local)

    def Compute(self, progress):
        n = self.processDataNum
        x1Local = self.inQueueX1.DeQue(self.T)
        x2Local = self.inQueueX2.DeQue(self.T)
        yLocal = self.outQueueY.AllocTensor(I8)
        if self.T == asc.half:
            asc.Sub(x1Local, x1Local, x2Local, n)
            asc.Maxs(x1Local, x1Local, 0.0, n)
            asc.Maxs(x1Local, x1Local, 0.0, n)
            asc.Muls(x1Local, x1Local, MAX_MUL_FP16, n)
            asc.Muls(x1Local, x1Local, MAX_MUL_FP16, n)
            asc.Mins(x1Local, x1Local, 1.0, n)
            asc.Cast(yLocal, x1Local, asc.RoundMode.CAST_NONE, n)
        else:
            y_compute = self.calc_buf_1.Get(asc.half)
            asc.Sub(x1Local, x1Local, x2Local, n)
            asc.Maxs(x1Local, x1Local, MIN_ACCURACY_FP32, n)
            asc.Muls(x1Local, x1Local, MAX_MUL_1_FP32, n)
            asc.Mins(x1Local, x1Local, 1.0, n)
            asc.Cast(y_compute, x1Local, asc.RoundMode.CAST_NONE, n)
            asc.Cast(yLocal, y_compute, asc.RoundMode.CAST_NONE, n)
        self.outQueueY.EnQue(yLocal)
        self.inQueueX1.FreeTensor(x1Local)
        self.inQueueX2.FreeTensor(x2Local)

    def CopyOut(self, progress):
        yLocal = self.outQueueY.DeQue(I8)
        asc.DataCopy(self.yGm[progress * self.ubPartDataNum], yLocal, self.processDataNum)
        self.outQueueY.FreeTensor(yLocal)


def greater(x1, x2, y, workspace=None, tiling=None, DTYPE_X1=asc.half):
    t = tiling
    key = t.get("TILING_KEY", 0)
    if key not in (0, 1):
        return
    op = KernelGreater(DTYPE_X1, key == 1)
    op.Init(x1, x2, y, t["smallCoreDataNum"], t["bigCoreDataNum"], t["bigCoreLoopNum"], t["smallCoreLoopNum"],
            t["ubPartDataNum"], t["smallCoreTailDataNum"], t["bigCoreTailDataNum"], t["tailBlockNum"])
    op.Process()
