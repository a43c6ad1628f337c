"""Line-by-line Python ports of cann-ops kernels of the smallCoreDataNum / finalSmallTileNum / tileDataNum tiling
family (Hayden727/cann-ops @ eef0ff770ece1497e98bbf063028465a20417dfe, kept verbatim in
tests/ascendc/public/<op>/): src/math/rsqrt/op_kernel/rsqrt.cpp, src/math/swish/op_kernel/swish.cpp, src/math/addcmul/op_kernel/addcmul.cpp and src/math/addcdiv/op_kernel/addcdiv.cpp (TILING_KEY 0: a scalar
value).
Their block split and Process loop are the same lines in each .cpp (written once here, in KernelA); each
kernel's queues, CopyIn and Compute follow its file."""
import numpy as np

from npusim import ascendc as asc

BUFFER_NUM = 2
F32 = asc.float


class KernelA:
    def __init__(self, T):
        self.T = T
        self.pipe = asc.TPipe()

    def Split(self, smallCoreDataNum, bigCoreDataNum, finalBigTileNum, finalSmallTileNum, tileDataNum,
              smallTailDataNum, bigTailDataNum, tailBlockNum):
        """Init's common head: the block's share of the data; returns globalBufferIndex."""
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

    def CopyOut(self, progress):
        yLocal = self.outQueueY.DeQue(self.T)
        asc.DataCopy(self.yGm[progress * self.tileDataNum], yLocal, self.processDataNum)
        self.outQueueY.FreeTensor(yLocal)


class KernelUnaryA(KernelA):
    """rsqrt and swish: x in, y out, two float TBufs for the non-float path."""
    def Init(self, x, y, *split):
        globalBufferIndex = self.Split(*split)
        self.InitScalars()
        self.inQueueX = asc.TQue(asc.QuePosition.VECIN, BUFFER_NUM)
        self.outQueueY = asc.TQue(asc.QuePosition.VECOUT, BUFFER_NUM)
        self.tmp1, self.tmp2 = asc.TBuf(asc.QuePosition.VECCALC), asc.TBuf(asc.QuePosition.VECCALC)
        self.xGm, self.yGm = asc.GlobalTensor(self.T), asc.GlobalTensor(self.T)
        self.xGm.SetGlobalBuffer(x.cast(self.T) + globalBufferIndex, self.coreDataNum)
        self.yGm.SetGlobalBuffer(y.cast(self.T) + globalBufferIndex, self.coreDataNum)
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, self.tileDataNum * self.T.itemsize)
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, self.tileDataNum * self.T.itemsize)
        if self.T != F32:
            self.pipe.InitBuffer(self.tmp1, self.tileDataNum * F32.itemsize)
            self.pipe.InitBuffer(self.tmp2, self.tileDataNum * F32.itemsize)

    def InitScalars(self):
        pass

    def CopyIn(self, progress):
        xLocal = self.inQueueX.AllocTensor(self.T)
        asc.DataCopy(xLocal, self.xGm[progress * self.tileDataNum], self.processDataNum)
        self.inQueueX.EnQue(xLocal)


class KernelRsqrt(KernelUnaryA):
    def Compute(self, progress):
        n = self.processDataNum
        xLocal = self.inQueueX.DeQue(self.T)
        yLocal = self.outQueueY.AllocTensor(self.T)
        if self.T != F32:
            p1, p2 = self.tmp1.Get(F32), self.tmp2.Get(F32)
            asc.Cast(p1, xLocal, asc.RoundMode.CAST_NONE, n)
            asc.Duplicate(p2, 1.0, n)
            asc.Sqrt(p1, p1, n)
            asc.Div(p1, p2, p1, n)
            asc.Cast(yLocal, p1, asc.RoundMode.CAST_RINT, n)
        else:
            asc.Duplicate(yLocal, 1.0, n)
            asc.Sqrt(xLocal, xLocal, n)
            asc.Div(yLocal, yLocal, xLocal, n)
        self.outQueueY.EnQue(yLocal)
        self.inQueueX.FreeTensor(xLocal)


class KernelSwish(KernelUnaryA):
    def InitScalars(self):
        self.scale = np.float32(-1.0) * np.float32(self.t["scale"])      # float scale = -1.0f * scale

    def Compute(self, progress):
        n = self.processDataNum
        xLocal = self.inQueueX.DeQue(self.T)
        yLocal = self.outQueueY.AllocTensor(self.T)
        if self.T == F32:
            asc.Muls(yLocal, xLocal, float(self.scale), n)
            asc.Exp(yLocal, yLocal, n)
            asc.Adds(yLocal, yLocal, 1.0, n)
            asc.Div(yLocal, xLocal, yLocal, n)
        else:
            xLocalFp32, yLocalFp32 = self.tmp1.Get(F32), self.tmp2.Get(F32)
            asc.Cast(xLocalFp32, xLocal, asc.RoundMode.CAST_NONE, n)
            asc.Muls(yLocalFp32, xLocalFp32, float(self.scale), n)
            asc.Exp(yLocalFp32, yLocalFp32, n)
            asc.Adds(yLocalFp32, yLocalFp32, 1.0, n)
            asc.Div(yLocalFp32, xLocalFp32, yLocalFp32, n)
            asc.Cast(yLocal, yLocalFp32, asc.RoundMode.CAST_ROUND, n)
        self.outQueueY.EnQue(yLocal)
        self.inQueueX.FreeTensor(xLocal)


class KernelAddcmul(KernelA):
    def Init(self, input_data, x1, x2, value, y, *split):
        T = self.T
        globalBufferIndex = self.Split(*split)
        self.inQueueX1, self.inQueueX2, self.inQueueINPUT_DATA = (asc.TQue(asc.QuePosition.VECIN, BUFFER_NUM)
                                                                  for _ in range(3))
        self.outQueueY = asc.TQue(asc.QuePosition.VECOUT, BUFFER_NUM)
        self.tmp1, self.tmp2 = asc.TBuf(asc.QuePosition.VECCALC), asc.TBuf(asc.QuePosition.VECCALC)
        self.input_dataGm, self.x1Gm, self.x2Gm, self.valueGm, self.yGm = (asc.GlobalTensor(T) for _ in range(5))
        self.input_dataGm.SetGlobalBuffer(input_data.cast(T) + globalBufferIndex, self.coreDataNum)
        self.x1Gm.SetGlobalBuffer(x1.cast(T) + globalBufferIndex, self.coreDataNum)
        self.x2Gm.SetGlobalBuffer(x2.cast(T) + globalBufferIndex, self.coreDataNum)
        self.valueGm.SetGlobalBuffer(value.cast(T))
        self.yGm.SetGlobalBuffer(y.cast(T) + globalBufferIndex, self.coreDataNum)
        self.pipe.InitBuffer(self.inQueueX1, BUFFER_NUM, self.tileDataNum * T.itemsize)
        self.pipe.InitBuffer(self.inQueueX2, BUFFER_NUM, self.tileDataNum * T.itemsize)
        self.pipe.InitBuffer(self.inQueueINPUT_DATA, BUFFER_NUM, self.tileDataNum * T.itemsize)
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, self.tileDataNum * T.itemsize)
        if T == asc.bfloat16_t:
            self.pipe.InitBuffer(self.tmp1, self.tileDataNum * F32.itemsize)
            self.pipe.InitBuffer(self.tmp2, self.tileDataNum * F32.itemsize)
        self.ReadValue()

    def ReadValue(self):
        if self.T == asc.bfloat16_t:
            self.f_value = float(self.valueGm.GetValue(0))
        else:
            self.m_value = self.valueGm.GetValue(0)

    def CopyIn(self, progress):
        T, n, off = self.T, self.processDataNum, progress * self.tileDataNum
        input_dataLocal = self.inQueueINPUT_DATA.AllocTensor(T)
        x1Local = self.inQueueX1.AllocTensor(T)
        x2Local = self.inQueueX2.AllocTensor(T)
        asc.DataCopy(x1Local, self.x1Gm[off], n)
        asc.DataCopy(x2Local, self.x2Gm[off], n)
        asc.DataCopy(input_dataLocal, self.input_dataGm[off], n)
        self.inQueueX1.EnQue(x1Local)
        self.inQueueX2.EnQue(x2Local)
        self.inQueueINPUT_DATA.EnQue(input_dataLocal)

    def Compute(self, progress):
        T, n = self.T, self.processDataNum
        x1Local = self.inQueueX1.DeQue(T)
        x2Local = self.inQueueX2.DeQue(T)
        input_dataLocal = self.inQueueINPUT_DATA.DeQue(T)
        yLocal = self.outQueueY.AllocTensor(T)
        if T == asc.bfloat16_t:
            p1, p2 = self.tmp1.Get(F32), self.tmp2.Get(F32)
            asc.Cast(p1, x1Local, asc.RoundMode.CAST_NONE, n)
            asc.Cast(p2, x2Local, asc.RoundMode.CAST_NONE, n)
            asc.Mul(p1, p1, p2, n)
            asc.Muls(p1, p1, self.f_value, n)
            asc.Cast(p2, input_dataLocal, asc.RoundMode.CAST_NONE, n)
            asc.Add(p2, p1, p2, n)
            asc.Cast(yLocal, p2, asc.RoundMode.CAST_RINT, n)
        else:
            asc.Mul(x1Local, x1Local, x2Local, n)
            asc.Muls(x1Local, x1Local, self.m_value, n)
            asc.Add(yLocal, x1Local, input_dataLocal, n)
        self.outQueueY.EnQue(yLocal)
        self.inQueueX1.FreeTensor(x1Local)
        self.inQueueX2.FreeTensor(x2Local)
        self.inQueueINPUT_DATA.FreeTensor(input_dataLocal)


class KernelAddcdiv(KernelAddcmul):
    """addcdiv.cpp: KernelAddcmul's lines with Div for Mul, and value read from GM in every Compute."""
    def ReadValue(self):
        pass

    def Compute(self, progress):
        T, n = self.T, self.processDataNum
        x1Local = self.inQueueX1.DeQue(T)
        x2Local = self.inQueueX2.DeQue(T)
        input_dataLocal = self.inQueueINPUT_DATA.DeQue(T)
        yLocal = self.outQueueY.AllocTensor(T)
        if T == asc.bfloat16_t:
            p1, p2 = self.tmp1.Get(F32), self.tmp2.Get(F32)
            asc.Cast(p1, x1Local, asc.RoundMode.CAST_NONE, n)
            asc.Cast(p2, x2Local, asc.RoundMode.CAST_NONE, n)
            asc.Div(p1, p1, p2, n)
            asc.Muls(p1, p1, float(self.valueGm.GetValue(0)), n)
            asc.Cast(p2, input_dataLocal, asc.RoundMode.CAST_NONE, n)
            asc.Add(p2, p1, p2, n)
            asc.Cast(yLocal, p2, asc.RoundMode.CAST_RINT, n)
        else:
            asc.Div(x1Local, x1Local, x2Local, n)
            asc.Muls(x1Local, x1Local, self.valueGm.GetValue(0), n)
            asc.Add(yLocal, x1Local, input_dataLocal, n)
        self.outQueueY.EnQue(yLocal)
        self.inQueueX1.FreeTensor(x1Local)
        self.inQueueX2.FreeTensor(x2Local)
        self.inQueueINPUT_DATA.FreeTensor(input_dataLocal)


def _split(t):
    return (t["smallCoreDataNum"], t["bigCoreDataNum"], t["finalBigTileNum"], t["finalSmallTileNum"],
            t["tileDataNum"], t["smallTailDataNum"], t["bigTailDataNum"], t["tailBlockNum"])


def rsqrt(x, y, workspace=None, tiling=None, DTYPE_X=F32):
    op = KernelRsqrt(DTYPE_X)
    op.Init(x, y, *_split(tiling))
    op.Process()


def swish(x, y, workspace=None, tiling=None, DTYPE_X=F32):
    op = KernelSwish(DTYPE_X)
    op.t = tiling
    op.Init(x, y, *_split(tiling))
    op.Process()


def addcmul(input_data, x1, x2, value, y, workspace=None, tiling=None, DTYPE_X1=F32):
    if tiling.get("TILING_KEY", 0) != 0:
        raise NotImplementedError("KernelAddcmulTensor (TILING_KEY 1) is not ported")
    op = KernelAddcmul(DTYPE_X1)
    op.Init(input_data, x1, x2, value, y, *_split(tiling))
    op.Process()


def addcdiv(input_data, x1, x2, value, y, workspace=None, tiling=None, DTYPE_X1=F32):
    if tiling.get("TILING_KEY", 0) != 0:
        raise NotImplementedError("KernelAddcdivTensor (TILING_KEY 1) is not ported")
    op = KernelAddcdiv(DTYPE_X1)
    op.Init(input_data, x1, x2, value, y, *_split(tiling))
    op.Process()
