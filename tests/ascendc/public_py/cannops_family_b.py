"""Line-by-line Python ports of the cann-ops kernels of the ubPartDataNum / smallCoreLoopNum tiling family
(Hayden727/cann-ops @ eef0ff770ece1497e98bbf063028465a20417dfe, kept verbatim in tests/ascendc/public/<op>/):
src/math/reciprocal/op_kernel/reciprocal.cpp, src/math/neg/op_kernel/neg.cpp, src/contrib/math/exp/op_kernel/exp.cpp,
src/math/logical_not/op_kernel/logical_not.cpp, src/math/lerp/op_kernel/lerp.cpp, src/math/muls/op_kernel/muls.cpp
(TILING_KEY 0-4: bfloat16, half, float, int16, int32; its runtime IsExistBigCore field for the template's),
src/math/logical_or/op_kernel/logical_or.cpp, src/math/add_custom/op_kernel/add_custom.cpp (float / half / int8; examples/ascendc/cannops_add_custom.py is a
shorter float-only port of the same file).
Their Init / Process / CopyIn / CopyOut are the same lines in each .cpp (written once here, in KernelB); each
kernel's own Init extras and Compute follow its file. TILING_KEY 1 / 0 is the template's IsExistBigCore."""
import numpy as np

from npusim import ascendc as asc

BUFFER_NUM = 2


class KernelB:
    def __init__(self, TYPE_X, TYPE_Y, IsExistBigCore):
        self.TYPE_X, self.TYPE_Y, self.IsExistBigCore = TYPE_X, TYPE_Y, IsExistBigCore
        self.pipe = asc.TPipe()
        self.inQueueX = asc.TQue(asc.QuePosition.VECIN, BUFFER_NUM)
        self.outQueueY = asc.TQue(asc.QuePosition.VECOUT, BUFFER_NUM)
        self.xGm, self.yGm = asc.GlobalTensor(TYPE_X), asc.GlobalTensor(TYPE_Y)

    def Init(self, x, y, *split):
        globalBufferIndex = self.Split(*split)
        self.InitExtra()
        self.xGm.SetGlobalBuffer(x.cast(self.TYPE_X) + globalBufferIndex, self.coreDataNum)
        self.yGm.SetGlobalBuffer(y.cast(self.TYPE_Y) + globalBufferIndex, self.coreDataNum)
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, self.ubPartDataNum * self.TYPE_X.itemsize)
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, self.ubPartDataNum * self.TYPE_Y.itemsize)
        self.InitBuffers()

    def Split(self, smallCoreDataNum, bigCoreDataNum, bigCoreLoopNum, smallCoreLoopNum, ubPartDataNum,
              smallCoreTailDataNum, bigCoreTailDataNum, tailBlockNum):
        """Init's common head: the block's share of the data; returns globalBufferIndex."""
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
        return globalBufferIndex

    def InitExtra(self):
        pass

    def InitBuffers(self):
        pass

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
        xLocal = self.inQueueX.AllocTensor(self.TYPE_X)
        asc.DataCopy(xLocal, self.xGm[progress * self.ubPartDataNum], self.processDataNum)
        self.inQueueX.EnQue(xLocal)

    def CopyOut(self, progress):
        yLocal = self.outQueueY.DeQue(self.TYPE_Y)
        asc.DataCopy(self.yGm[progress * self.ubPartDataNum], yLocal, self.processDataNum)
        self.outQueueY.FreeTensor(yLocal)


class KernelReciprocal(KernelB):
    def InitBuffers(self):
        self.tmp1, self.tmp2 = asc.TBuf(asc.QuePosition.VECCALC), asc.TBuf(asc.QuePosition.VECCALC)
        if self.TYPE_X == asc.bfloat16_t:
            self.pipe.InitBuffer(self.tmp1, self.ubPartDataNum * asc.float.itemsize)
            self.pipe.InitBuffer(self.tmp2, self.ubPartDataNum * asc.float.itemsize)

    def Compute(self, progress):
        xLocal = self.inQueueX.DeQue(self.TYPE_X)
        yLocal = self.outQueueY.AllocTensor(self.TYPE_Y)
        if self.TYPE_X in (asc.float, asc.half):
            asc.Duplicate(yLocal, 1.0, self.processDataNum)
            asc.Div(yLocal, yLocal, xLocal, self.processDataNum)
        else:
            p1, p2 = self.tmp1.Get(asc.float), self.tmp2.Get(asc.float)
            asc.Cast(p1, xLocal, asc.RoundMode.CAST_NONE, self.processDataNum)
            asc.Duplicate(p2, 1.0, self.processDataNum)
            asc.Div(p1, p2, p1, self.processDataNum)
            asc.Cast(yLocal, p1, asc.RoundMode.CAST_RINT, self.processDataNum)
        self.outQueueY.EnQue(yLocal)
        self.inQueueX.FreeTensor(xLocal)


class KernelNeg(KernelB):
    def InitBuffers(self):
        self.QueueTmp, self.QueueTmp2, self.QueueTmp1 = (asc.TBuf(asc.QuePosition.VECCALC) for _ in range(3))
        self.pipe.InitBuffer(self.QueueTmp, self.ubPartDataNum * asc.half.itemsize)
        self.pipe.InitBuffer(self.QueueTmp2, self.ubPartDataNum * asc.half.itemsize)
        self.pipe.InitBuffer(self.QueueTmp1, self.ubPartDataNum * asc.float.itemsize)

    def Compute(self, progress):
        T, n = self.TYPE_X, self.processDataNum
        dstLocal = self.outQueueY.AllocTensor(T)
        srcLocal = self.inQueueX.DeQue(T)
        if T == asc.int32_t:
            asc.Duplicate(dstLocal, -1, n)
            asc.Mul(dstLocal, srcLocal, dstLocal, n)
        elif T == asc.int8_t:
            tmp = self.QueueTmp.Get(asc.half)
            asc.Cast(tmp, srcLocal, asc.RoundMode.CAST_NONE, n)
            asc.Muls(tmp, tmp, -1.0, n)
            tmp2 = self.QueueTmp2.Get(asc.int16_t)          # the shift pair wraps as int8 arithmetic would
            asc.Cast(tmp2, tmp, asc.RoundMode.CAST_RINT, n)
            asc.ShiftLeft(tmp2, tmp2, 8, n)
            asc.ShiftRight(tmp2, tmp2, 8, n)
            asc.Cast(tmp, tmp2, asc.RoundMode.CAST_NONE, n)
            asc.Cast(dstLocal, tmp, asc.RoundMode.CAST_NONE, n)
            self.QueueTmp2.FreeTensor(tmp2)
            self.QueueTmp.FreeTensor(tmp)
        elif T in (asc.float, asc.half):
            asc.Muls(dstLocal, srcLocal, -1.0, n)
        else:                                              # Muls has no bfloat16
            tmp1 = self.QueueTmp.Get(asc.float)
            asc.Cast(tmp1, srcLocal, asc.RoundMode.CAST_NONE, n)
            asc.Muls(tmp1, tmp1, -1.0, n)
            asc.Cast(dstLocal, tmp1, asc.RoundMode.CAST_RINT, n)
            self.QueueTmp.FreeTensor(tmp1)
        self.outQueueY.EnQue(dstLocal)
        self.inQueueX.FreeTensor(srcLocal)


class KernelExp(KernelB):
    def InitExtra(self):
        t = self.t
        self.base, self.shift, self.scale = np.float32(t["base"]), np.float32(t["shift"]), np.float32(t["scale"])

    def InitBuffers(self):
        self.tmp1 = asc.TBuf(asc.QuePosition.VECCALC)
        if self.TYPE_X == asc.bfloat16_t:
            self.pipe.InitBuffer(self.tmp1, self.ubPartDataNum * asc.float.itemsize)

    def Compute(self, progress):
        n = self.processDataNum
        xLocal = self.inQueueX.DeQue(self.TYPE_X)
        yLocal = self.outQueueY.AllocTensor(self.TYPE_Y)
        if self.TYPE_X in (asc.float, asc.half):
            asc.Muls(yLocal, xLocal, float(self.scale), n)
            asc.Adds(yLocal, yLocal, float(self.shift), n)
            asc.Muls(yLocal, yLocal, float(self.base), n)
            asc.Exp(yLocal, yLocal, n)
        else:
            xLocalFp32 = self.tmp1.Get(asc.float)
            asc.Cast(xLocalFp32, xLocal, asc.RoundMode.CAST_NONE, n)
            asc.Muls(xLocalFp32, xLocalFp32, float(self.scale), n)
            asc.Adds(xLocalFp32, xLocalFp32, float(self.shift), n)
            asc.Muls(xLocalFp32, xLocalFp32, float(self.base), n)
            asc.Exp(xLocalFp32, xLocalFp32, n)
            asc.Cast(yLocal, xLocalFp32, asc.RoundMode.CAST_RINT, n)
        self.outQueueY.EnQue(yLocal)
        self.inQueueX.FreeTensor(xLocal)


class KernelLogicalNot(KernelB):
    ONE, NEGATIVE_ONE = 1.0, -1.0                      # constexpr half

    def Init(self, x, y, *split):
        globalBufferIndex = self.Split(*split)
        self.tmp1 = asc.TBuf(asc.QuePosition.VECCALC)
        self.xGm.SetGlobalBuffer(x.cast(self.TYPE_X) + globalBufferIndex, self.coreDataNum)
        self.yGm.SetGlobalBuffer(y.cast(self.TYPE_Y) + globalBufferIndex, self.coreDataNum)
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, self.ubPartDataNum * self.TYPE_X.itemsize)
        self.pipe.InitBuffer(self.tmp1, self.ubPartDataNum * asc.half.itemsize)
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, self.ubPartDataNum * self.TYPE_Y.itemsize)

    def Compute(self, progress):
        n = self.processDataNum
        xLocal = self.inQueueX.DeQue(self.TYPE_X)
        yLocal = self.outQueueY.AllocTensor(self.TYPE_Y)
        tmp1Local = self.tmp1.Get(asc.half)
        asc.Cast(tmp1Local, xLocal, asc.RoundMode.CAST_NONE, n)
        asc.Abs(tmp1Local, tmp1Local, n)
        asc.Mins(tmp1Local, tmp1Local, self.ONE, n)
        asc.Adds(tmp1Local, tmp1Local, self.NEGATIVE_ONE, n)
        asc.Abs(tmp1Local, tmp1Local, n)
        asc.Cast(yLocal, tmp1Local, asc.RoundMode.CAST_NONE, n)
        self.outQueueY.EnQue(yLocal)
        self.inQueueX.FreeTensor(xLocal)


class KernelLerp(KernelB):
    """TYPE_X here is TYPE_START (= TYPE_END = TYPE_WEIGHT in every build the host registers), TYPE_Y is TYPE_Y."""
    def Init(self, start, end, weight, y, *split):
        T, TY = self.TYPE_X, self.TYPE_Y
        globalBufferIndex = self.Split(*split)
        self.inQueueStart, self.inQueueEnd, self.inQueueWeight = (asc.TQue(asc.QuePosition.VECIN, BUFFER_NUM)
                                                                  for _ in range(3))
        self.tmp1, self.tmp2 = asc.TBuf(asc.QuePosition.VECCALC), asc.TBuf(asc.QuePosition.VECCALC)
        self.startGm, self.endGm, self.weightGm = (asc.GlobalTensor(T) for _ in range(3))
        self.startGm.SetGlobalBuffer(start.cast(T) + globalBufferIndex, self.coreDataNum)
        self.endGm.SetGlobalBuffer(end.cast(T) + globalBufferIndex, self.coreDataNum)
        self.weightGm.SetGlobalBuffer(weight.cast(T) + globalBufferIndex, self.coreDataNum)
        self.yGm.SetGlobalBuffer(y.cast(TY) + globalBufferIndex, self.coreDataNum)
        self.pipe.InitBuffer(self.inQueueStart, BUFFER_NUM, self.ubPartDataNum * T.itemsize)
        self.pipe.InitBuffer(self.inQueueEnd, BUFFER_NUM, self.ubPartDataNum * T.itemsize)
        self.pipe.InitBuffer(self.inQueueWeight, BUFFER_NUM, self.ubPartDataNum * T.itemsize)
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, self.ubPartDataNum * TY.itemsize)
        if T != asc.float:
            self.pipe.InitBuffer(self.tmp1, self.ubPartDataNum * asc.float.itemsize)
            self.pipe.InitBuffer(self.tmp2, self.ubPartDataNum * asc.float.itemsize)

    def CopyIn(self, progress):
        T, n, off = self.TYPE_X, self.processDataNum, progress * self.ubPartDataNum
        startLocal = self.inQueueStart.AllocTensor(T)
        endLocal = self.inQueueEnd.AllocTensor(T)
        weightLocal = self.inQueueWeight.AllocTensor(T)
        asc.DataCopy(startLocal, self.startGm[off], n)
        asc.DataCopy(endLocal, self.endGm[off], n)
        asc.DataCopy(weightLocal, self.weightGm[off], n)
        self.inQueueStart.EnQue(startLocal)
        self.inQueueEnd.EnQue(endLocal)
        self.inQueueWeight.EnQue(weightLocal)

    def Compute(self, progress):
        T, n = self.TYPE_X, self.processDataNum
        startLocal = self.inQueueStart.DeQue(T)
        endLocal = self.inQueueEnd.DeQue(T)
        weightLocal = self.inQueueWeight.DeQue(T)
        yLocal = self.outQueueY.AllocTensor(self.TYPE_Y)
        if T == asc.float:                                 # y = start + weight * (end - start)
            asc.Sub(yLocal, endLocal, startLocal, n)
            asc.Mul(yLocal, weightLocal, yLocal, n)
            asc.Add(yLocal, yLocal, startLocal, n)
        elif T in (asc.half, asc.bfloat16_t):              # in float, rounded back once (RINT)
            fstart, fend = self.tmp1.Get(asc.float), self.tmp2.Get(asc.float)
            asc.Cast(fstart, startLocal, asc.RoundMode.CAST_NONE, n)
            asc.Cast(fend, endLocal, asc.RoundMode.CAST_NONE, n)
            asc.Sub(fend, fend, fstart, n)
            asc.Cast(fstart, weightLocal, asc.RoundMode.CAST_NONE, n)
            asc.Mul(fend, fstart, fend, n)
            asc.Cast(fstart, startLocal, asc.RoundMode.CAST_NONE, n)
            asc.Add(fend, fend, fstart, n)
            asc.Cast(yLocal, fend, asc.RoundMode.CAST_RINT, n)
        self.outQueueY.EnQue(yLocal)
        self.inQueueStart.FreeTensor(startLocal)
        self.inQueueEnd.FreeTensor(endLocal)
        self.inQueueWeight.FreeTensor(weightLocal)


class KernelMuls(KernelB):
    CAST_TYPES = (asc.bfloat16_t, asc.int16_t, asc.int32_t, asc.int64_t)

    def Init(self, x, value, y, *split):
        T = self.TYPE_X
        globalBufferIndex = self.Split(*split)
        self.tmp1 = asc.TBuf(asc.QuePosition.VECCALC)
        self.valueGm = asc.GlobalTensor(asc.float)
        self.xGm.SetGlobalBuffer(x.cast(T) + globalBufferIndex, self.coreDataNum)
        self.yGm.SetGlobalBuffer(y.cast(T) + globalBufferIndex, self.coreDataNum)
        self.valueGm.SetGlobalBuffer(value.cast(asc.float))
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, self.ubPartDataNum * T.itemsize)
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, self.ubPartDataNum * T.itemsize)
        self.value = self.valueGm.GetValue(0)
        if T == asc.half:
            self.m_value = np.float16(self.value)          # m_value = (half)this->value
        if T in self.CAST_TYPES:                           # tmp1: the float copy of x
            self.pipe.InitBuffer(self.tmp1, self.ubPartDataNum * asc.float.itemsize)

    def Compute(self, progress):
        T, n = self.TYPE_X, self.processDataNum
        xLocal = self.inQueueX.DeQue(T)
        yLocal = self.outQueueY.AllocTensor(T)
        if T in self.CAST_TYPES:
            p1 = self.tmp1.Get(asc.float)
            asc.Cast(p1, xLocal, asc.RoundMode.CAST_NONE, n)
            asc.Muls(p1, p1, self.value, n)
            asc.Cast(yLocal, p1, asc.RoundMode.CAST_RINT, n)
        elif T == asc.half:
            asc.Muls(yLocal, xLocal, self.m_value, n)
        elif T == asc.float:
            asc.Muls(yLocal, xLocal, self.value, n)
        self.outQueueY.EnQue(yLocal)
        self.inQueueX.FreeTensor(xLocal)


class KernelAdd(KernelB):
    Shift = 8

    def Init(self, x, y, z, *split):
        T = self.TYPE_X
        globalBufferIndex = self.Split(*split)
        self.inQueueY = asc.TQue(asc.QuePosition.VECIN, BUFFER_NUM)
        self.tmp1, self.tmp2 = asc.TBuf(asc.QuePosition.VECCALC), asc.TBuf(asc.QuePosition.VECCALC)
        self.zGm = asc.GlobalTensor(T)                      # KernelB's yGm is add_custom's second input
        self.xGm.SetGlobalBuffer(x.cast(T) + globalBufferIndex, self.coreDataNum)
        self.yGm.SetGlobalBuffer(y.cast(T) + globalBufferIndex, self.coreDataNum)
        self.zGm.SetGlobalBuffer(z.cast(T) + globalBufferIndex, self.coreDataNum)
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, self.ubPartDataNum * T.itemsize)
        self.pipe.InitBuffer(self.inQueueY, BUFFER_NUM, self.ubPartDataNum * T.itemsize)
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, self.ubPartDataNum * T.itemsize)    # outQueueZ
        if T == asc.int8_t:
            self.pipe.InitBuffer(self.tmp1, self.ubPartDataNum * asc.half.itemsize)
            self.pipe.InitBuffer(self.tmp2, self.ubPartDataNum * asc.half.itemsize)

    def CopyIn(self, progress):
        T, n, off = self.TYPE_X, self.processDataNum, progress * self.ubPartDataNum
        xLocal = self.inQueueX.AllocTensor(T)
        yLocal = self.inQueueY.AllocTensor(T)
        asc.DataCopy(xLocal, self.xGm[off], n)
        asc.DataCopy(yLocal, self.yGm[off], n)
        self.inQueueX.EnQue(xLocal)
        self.inQueueY.EnQue(yLocal)

    def Compute(self, progress):
        T, n = self.TYPE_X, self.processDataNum
        xLocal = self.inQueueX.DeQue(T)
        yLocal = self.inQueueY.DeQue(T)
        zLocal = self.outQueueY.AllocTensor(T)
        if T == asc.int8_t:                                # through half; the int16 shift pair wraps to int8
            p1, p2 = self.tmp1.Get(asc.half), self.tmp2.Get(asc.half)
            asc.Cast(p1, xLocal, asc.RoundMode.CAST_NONE, n)
            asc.Cast(p2, yLocal, asc.RoundMode.CAST_NONE, n)
            asc.Add(p2, p1, p2, n)
            asc.Cast(p1.ReinterpretCast(asc.int16_t), p2, asc.RoundMode.CAST_RINT, n)
            asc.ShiftLeft(p1.ReinterpretCast(asc.int16_t), p1.ReinterpretCast(asc.int16_t), self.Shift, n)
            asc.ShiftRight(p1.ReinterpretCast(asc.int16_t), p1.ReinterpretCast(asc.int16_t), self.Shift, n)
            asc.Cast(p2, p1.ReinterpretCast(asc.int16_t), asc.RoundMode.CAST_NONE, n)
            asc.Cast(zLocal, p2, asc.RoundMode.CAST_NONE, n)
        else:
            asc.Add(zLocal, xLocal, yLocal, n)
        self.outQueueY.EnQue(zLocal)
        self.inQueueX.FreeTensor(xLocal)
        self.inQueueY.FreeTensor(yLocal)

    def CopyOut(self, progress):
        zLocal = self.outQueueY.DeQue(self.TYPE_X)
        asc.DataCopy(self.zGm[progress * self.ubPartDataNum], zLocal, self.processDataNum)
        self.outQueueY.FreeTensor(zLocal)


class KernelLogicalOr(KernelB):
    """int8 bools: Cast to half, Max, Cast back."""
    def Init(self, x1, x2, y, *split):
        I8 = asc.int8_t
        globalBufferIndex = self.Split(*split)
        self.inQueueX2 = asc.TQue(asc.QuePosition.VECIN, BUFFER_NUM)
        self.tmp1, self.tmp2 = asc.TBuf(asc.QuePosition.VECCALC), asc.TBuf(asc.QuePosition.VECCALC)
        self.x2Gm = asc.GlobalTensor(I8)
        self.xGm.SetGlobalBuffer(x1.cast(I8) + globalBufferIndex, self.coreDataNum)      # x1Gm
        self.x2Gm.SetGlobalBuffer(x2.cast(I8) + globalBufferIndex, self.coreDataNum)
        self.yGm.SetGlobalBuffer(y.cast(I8) + globalBufferIndex, self.coreDataNum)
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, self.ubPartDataNum * I8.itemsize)     # inQueueX1
        self.pipe.InitBuffer(self.inQueueX2, BUFFER_NUM, self.ubPartDataNum * I8.itemsize)
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, self.ubPartDataNum * I8.itemsize)
        self.pipe.InitBuffer(self.tmp1, self.ubPartDataNum * asc.half.itemsize)
        self.pipe.InitBuffer(self.tmp2, self.ubPartDataNum * asc.half.itemsize)

    def CopyIn(self, progress):
        I8, n, off = asc.int8_t, self.processDataNum, progress * self.ubPartDataNum
        x1Local = self.inQueueX.AllocTensor(I8)
        x2Local = self.inQueueX2.AllocTensor(I8)
        asc.DataCopy(x1Local, self.xGm[off], n)
        asc.DataCopy(x2Local, self.x2Gm[off], n)
        self.inQueueX.EnQue(x1Local)
        self.inQueueX2.EnQue(x2Local)

    def Compute(self, progress):
        I8, n = asc.int8_t, self.processDataNum
        x1Local = self.inQueueX.DeQue(I8)
        x2Local = self.inQueueX2.DeQue(I8)
        yLocal = self.outQueueY.AllocTensor(I8)
        p1, p2 = self.tmp1.Get(asc.half), self.tmp2.Get(asc.half)
        asc.Cast(p1, x1Local, asc.RoundMode.CAST_NONE, n)
        asc.Cast(p2, x2Local, asc.RoundMode.CAST_NONE, n)
        asc.Max(p1, p1, p2, n)
        asc.Cast(yLocal, p1, asc.RoundMode.CAST_NONE, n)
        self.outQueueY.EnQue(yLocal)
        self.inQueueX.FreeTensor(x1Local)
        self.inQueueX2.FreeTensor(x2Local)


def _split(t):
    return (t["smallCoreDataNum"], t["bigCoreDataNum"], t["bigCoreLoopNum"], t["smallCoreLoopNum"],
            t["ubPartDataNum"], t["smallCoreTailDataNum"], t["bigCoreTailDataNum"], t["tailBlockNum"])


def _general_op_impl(cls, x, y, t, DTYPE_X, DTYPE_Y):
    """GENERAL_OP_IMPL: GET_TILING_DATA, the kernel class with IsExistBigCore = (TILING_KEY == 1), Init, Process."""
    key = t.get("TILING_KEY", 0)
    if key not in (0, 1):
        return
    op = cls(DTYPE_X, DTYPE_Y, key == 1)
    op.t = t
    op.Init(x, y, t["smallCoreDataNum"], t["bigCoreDataNum"], t["bigCoreLoopNum"], t["smallCoreLoopNum"],
            t["ubPartDataNum"], t["smallCoreTailDataNum"], t["bigCoreTailDataNum"], t["tailBlockNum"])
    op.Process()


def reciprocal(x, y, workspace=None, tiling=None, DTYPE_X=asc.float, DTYPE_Y=asc.float):
    _general_op_impl(KernelReciprocal, x, y, tiling, DTYPE_X, DTYPE_Y)


def neg(x, y, workspace=None, tiling=None, DTYPE_X=asc.float):
    _general_op_impl(KernelNeg, x, y, tiling, DTYPE_X, DTYPE_X)


def exp(x, y, workspace=None, tiling=None, DTYPE_X=asc.float, DTYPE_Y=asc.float):
    _general_op_impl(KernelExp, x, y, tiling, DTYPE_X, DTYPE_Y)


def logical_not(x, y, workspace=None, tiling=None):
    _general_op_impl(KernelLogicalNot, x, y, tiling, asc.int8_t, asc.int8_t)


def lerp(start, end, weight, y, workspace=None, tiling=None, DTYPE_START=asc.float, DTYPE_Y=asc.float):
    key = tiling.get("TILING_KEY", 0)
    if key not in (0, 1):
        return
    op = KernelLerp(DTYPE_START, DTYPE_Y, key == 1)
    op.Init(start, end, weight, y, *_split(tiling))
    op.Process()


MULS_TYPES = {0: asc.bfloat16_t, 1: asc.half, 2: asc.float, 3: asc.int16_t, 4: asc.int32_t}


def muls(x, value, y, workspace=None, tiling=None):
    key = tiling.get("TILING_KEY", 0)
    if key not in MULS_TYPES:
        raise NotImplementedError(f"muls TILING_KEY {key} (int64 / complex64) is not ported")
    op = KernelMuls(MULS_TYPES[key], MULS_TYPES[key], tiling["IsExistBigCore"] == 1)
    op.Init(x, value, y, *_split(tiling))
    op.Process()


def add_custom(x, y, z, workspace=None, tiling=None, DTYPE_X=asc.float):
    key = tiling.get("TILING_KEY", 0)
    if key not in (0, 1):
        return
    op = KernelAdd(DTYPE_X, DTYPE_X, key == 1)
    op.Init(x, y, z, *_split(tiling))
    op.Process()


def logical_or(x1, x2, y, workspace=None, tiling=None):
    key = tiling.get("TILING_KEY", 0)
    if key not in (0, 1):
        return
    op = KernelLogicalOr(asc.int8_t, asc.int8_t, key == 1)
    op.Init(x1, x2, y, *_split(tiling))
    op.Process()
