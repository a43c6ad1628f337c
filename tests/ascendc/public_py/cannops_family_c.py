"""Line-by-line Python ports of cann-ops kernels of the totalLength / ALIGN_NUM / block_size / core_size tiling
family (Hayden727/cann-ops @ eef0ff770ece1497e98bbf063028465a20417dfe, kept verbatim in
tests/ascendc/public/<op>/): src/math/gelu/op_kernel/gelu.cpp, src/math/fast_gelu/op_kernel/fast_gelu.cpp,
src/math/clip_by_value/op_kernel/clip_by_value.cpp, src/math/fast_gelu_grad/op_kernel/fast_gelu_grad.cpp. Their block split and Process loop are the same lines in
each .cpp (written once here, in KernelC); each kernel's buffers and Compute follow its file."""
import numpy as np

from npusim import ascendc as asc

BUFFER_NUM = 2
F32 = asc.float


class KernelC:
    def __init__(self, T, TY=None):
        self.T, self.TY = T, TY or T
        self.pipe = asc.TPipe()
        self.inQueueX = asc.TQue(asc.QuePosition.VECIN, BUFFER_NUM)
        self.outQueueY = asc.TQue(asc.QuePosition.VECOUT, BUFFER_NUM)
        self.xGm, self.yGm = asc.GlobalTensor(self.T), asc.GlobalTensor(self.TY)

    def Split(self, x, y, totalLength, ALIGN_NUM, block_size, core_size, core_remain):
        self.blockLength = core_size + (core_remain if asc.GetBlockNum() == asc.GetBlockIdx() + 1 else 0)
        self.tileLength = block_size
        self.blockLength = self.blockLength + (ALIGN_NUM - self.blockLength % ALIGN_NUM
                                               if self.blockLength % ALIGN_NUM else 0)
        startPointer = core_size * asc.GetBlockIdx()
        bufferlength = self.blockLength
        self.xGm.SetGlobalBuffer(x.cast(self.T) + startPointer, bufferlength)
        self.yGm.SetGlobalBuffer(y.cast(self.TY) + startPointer, bufferlength)
        self.tileNum = self.blockLength // self.tileLength + (self.blockLength % self.tileLength > 0)

    def Process(self):
        loopCount = self.tileNum
        for i in range(loopCount - 1):
            self.CopyIn(i, self.tileLength)
            self.Compute(i, self.tileLength)
            self.CopyOut(i, self.tileLength)
        length = self.blockLength - self.tileLength * (loopCount - 1)
        self.CopyIn(loopCount - 1, length)
        self.Compute(loopCount - 1, length)
        self.CopyOut(loopCount - 1, length)

    def CopyIn(self, progress, length):
        xLocal = self.inQueueX.AllocTensor(self.T)
        asc.DataCopy(xLocal, self.xGm[progress * self.tileLength], length)
        self.inQueueX.EnQue(xLocal)

    def CopyOut(self, progress, length):
        yLocal = self.outQueueY.DeQue(self.TY)
        asc.DataCopy(self.yGm[progress * self.tileLength], yLocal, length)
        self.outQueueY.FreeTensor(yLocal)


class KernelGelu(KernelC):
    param1 = float(np.float32(0.0455399241))
    param2 = float(np.float32(-1.595769122))

    def Init(self, x, y, *tiling):
        T = self.T
        self.tmp1, self.tmp2 = asc.TBuf(asc.QuePosition.VECCALC), asc.TBuf(asc.QuePosition.VECCALC)
        self.Split(x, y, *tiling)
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, self.tileLength * T.itemsize)
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, self.tileLength * T.itemsize)
        if T != F32:
            self.pipe.InitBuffer(self.tmp1, self.tileLength * F32.itemsize)
        # the .cpp's `if constexpr` has no braces: tmp2 is initialised for every T, float too
        self.pipe.InitBuffer(self.tmp2, self.tileLength * F32.itemsize)

    def Compute(self, process, length):
        T = self.T
        dstLocal = self.outQueueY.AllocTensor(T)
        srcLocal = self.inQueueX.DeQue(T)
        if T != F32:
            p1, p2 = self.tmp1.Get(F32), self.tmp2.Get(F32)
            asc.Cast(p1, srcLocal, asc.RoundMode.CAST_NONE, length)
            asc.Cast(p2, srcLocal, asc.RoundMode.CAST_NONE, length)
            asc.Mul(p2, p1, p1, length)
            asc.Mul(p2, p2, p1, length)
            asc.Muls(p2, p2, self.param1, length)
            asc.Add(p2, p2, p1, length)
            asc.Muls(p2, p2, self.param2, length)
            asc.Exp(p2, p2, length)
            asc.Adds(p2, p2, 1.0, length)
            asc.Div(p2, p1, p2, length)
            asc.Cast(dstLocal, p2, asc.RoundMode.CAST_RINT, length)
            self.tmp1.FreeTensor(p1)
            self.tmp2.FreeTensor(p2)
        else:
            asc.Mul(dstLocal, srcLocal, srcLocal, length)
            asc.Mul(dstLocal, dstLocal, srcLocal, length)
            asc.Muls(dstLocal, dstLocal, self.param1, length)
            asc.Add(dstLocal, dstLocal, srcLocal, length)
            asc.Muls(dstLocal, dstLocal, self.param2, length)
            asc.Exp(dstLocal, dstLocal, length)
            asc.Adds(dstLocal, dstLocal, 1.0, length)
            asc.Div(dstLocal, srcLocal, dstLocal, length)
        self.outQueueY.EnQue(dstLocal)
        self.inQueueX.FreeTensor(srcLocal)


class KernelFastGelu(KernelC):
    def Init(self, x, y, *tiling):
        self.tmpBuffer = asc.TBuf(asc.QuePosition.VECCALC)
        self.Split(x, y, *tiling)
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, self.tileLength * self.T.itemsize)
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, self.tileLength * self.TY.itemsize)
        self.pipe.InitBuffer(self.tmpBuffer, self.tileLength * self.T.itemsize)

    def Compute(self, progress, length):
        xLocal = self.inQueueX.DeQue(self.T)
        yLocal = self.outQueueY.AllocTensor(self.TY)
        tmp = self.tmpBuffer.Get(self.T)
        c2, c3, zero = -1.702, 1.0, 0.0                 # DTYPE_X c2 = -1.702 (rounded to DTYPE_X by Muls)
        asc.Abs(tmp, xLocal, length)
        asc.Muls(yLocal, tmp, c2, length)
        asc.Exp(yLocal, yLocal, length)
        asc.Adds(yLocal, yLocal, c3, length)
        asc.Mins(xLocal, xLocal, zero, length)
        asc.Div(yLocal, tmp, yLocal, length)
        asc.Add(yLocal, yLocal, xLocal, length)
        self.outQueueY.EnQue(yLocal)
        self.inQueueX.FreeTensor(xLocal)


class KernelClipByValue(KernelC):
    def Init(self, x, clip_value_min, clip_value_max, y, *tiling):
        self.Split(x, y, *tiling)
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, self.tileLength * self.T.itemsize)
        self.Gm_clip_value_min, self.Gm_clip_value_max = asc.GlobalTensor(self.T), asc.GlobalTensor(self.T)
        self.Gm_clip_value_min.SetGlobalBuffer(clip_value_min.cast(self.T), 1)
        self.Gm_clip_value_max.SetGlobalBuffer(clip_value_max.cast(self.T), 1)
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, self.tileLength * self.TY.itemsize)
        self.clip_value_min = self.Gm_clip_value_min.GetValue(0)
        self.clip_value_max = self.Gm_clip_value_max.GetValue(0)

    def Compute(self, progress, length):
        x = self.inQueueX.DeQue(self.T)
        y = self.outQueueY.AllocTensor(self.TY)
        asc.Mins(x, x, self.clip_value_max, length)
        asc.Maxs(y, x, self.clip_value_min, length)
        self.inQueueX.FreeTensor(x)
        self.outQueueY.EnQue(y)


class KernelFastGeluGrad:
    """fast_gelu_grad.cpp: its own members (dy, x in; z out) and a sign-bit mask made once in Init."""
    def __init__(self, DTYPE_DY, DTYPE_X, DTYPE_Z):
        self.DY, self.X, self.Z = DTYPE_DY, DTYPE_X, DTYPE_Z
        self.pipe = asc.TPipe()
        self.tmpBuffer, self.signbitBuffer = asc.TBuf(asc.QuePosition.VECCALC), asc.TBuf(asc.QuePosition.VECCALC)
        self.inQueueDY = asc.TQue(asc.QuePosition.VECIN, BUFFER_NUM)
        self.inQueueX = asc.TQue(asc.QuePosition.VECIN, BUFFER_NUM)
        self.outQueueZ = asc.TQue(asc.QuePosition.VECOUT, BUFFER_NUM)
        self.xGm, self.dyGm, self.zGm = asc.GlobalTensor(DTYPE_X), asc.GlobalTensor(DTYPE_DY), asc.GlobalTensor(DTYPE_Z)

    def Init(self, dy, x, z, totalLength, ALIGN_NUM, block_size, core_size, core_remain):
        self.blockLength = core_size + (core_remain if asc.GetBlockNum() == asc.GetBlockIdx() + 1 else 0)
        self.tileLength = block_size
        self.blockLength = self.blockLength + (ALIGN_NUM - self.blockLength % ALIGN_NUM
                                               if self.blockLength % ALIGN_NUM else 0)
        startPointer = core_size * asc.GetBlockIdx()
        bufferlength = self.blockLength
        self.dyGm.SetGlobalBuffer(dy.cast(self.DY) + startPointer, bufferlength)
        self.xGm.SetGlobalBuffer(x.cast(self.X) + startPointer, bufferlength)
        self.zGm.SetGlobalBuffer(z.cast(self.Z) + startPointer, bufferlength)
        self.tileNum = self.blockLength // self.tileLength + (self.blockLength % self.tileLength > 0)
        self.pipe.InitBuffer(self.inQueueDY, BUFFER_NUM, self.tileLength * self.DY.itemsize)
        self.pipe.InitBuffer(self.inQueueX, BUFFER_NUM, self.tileLength * self.X.itemsize)
        self.pipe.InitBuffer(self.outQueueZ, BUFFER_NUM, self.tileLength * self.Z.itemsize)
        self.pipe.InitBuffer(self.tmpBuffer, self.tileLength * self.X.itemsize)
        self.pipe.InitBuffer(self.signbitBuffer, self.tileLength * self.X.itemsize)
        self.signbit = self.signbitBuffer.Get(self.X)
        if self.X == F32:
            asc.Duplicate(self.signbit.ReinterpretCast(asc.uint32_t), 2147483648, self.tileLength)
        else:
            asc.Duplicate(self.signbit.ReinterpretCast(asc.uint16_t), 32768, self.tileLength)

    def Process(self):
        loopCount = self.tileNum
        for i in range(loopCount - 1):
            self.CopyIn(i, self.tileLength)
            self.Compute(i, self.tileLength)
            self.CopyOut(i, self.tileLength)
        length = self.blockLength - self.tileLength * (loopCount - 1)
        self.CopyIn(loopCount - 1, length)
        self.Compute(loopCount - 1, length)
        self.CopyOut(loopCount - 1, length)

    def CopyIn(self, progress, length):
        dyLocal = self.inQueueDY.AllocTensor(self.DY)
        xLocal = self.inQueueX.AllocTensor(self.X)
        asc.DataCopy(dyLocal, self.dyGm[progress * self.tileLength], length)
        asc.DataCopy(xLocal, self.xGm[progress * self.tileLength], length)
        self.inQueueDY.EnQue(dyLocal)
        self.inQueueX.EnQue(xLocal)

    def Compute(self, progress, length):
        U16 = asc.uint16_t
        dyLocal = self.inQueueDY.DeQue(self.DY)
        xLocal = self.inQueueX.DeQue(self.X)
        zLocal = self.outQueueZ.AllocTensor(self.Z)
        tmp = self.tmpBuffer.Get(self.X)
        c2, c3 = 1.702, 1.0                                        # DTYPE_X c2 = 1.702, c3 = 1.0
        asc.Muls(xLocal, xLocal, c2, length)                        # 1.702x
        if self.X == F32:                                           # tmp = -1.702|x| (sign bit set)
            asc.Or(tmp.ReinterpretCast(U16), xLocal.ReinterpretCast(U16), self.signbit.ReinterpretCast(U16),
                   length * 2)
        else:
            asc.Or(tmp.ReinterpretCast(U16), xLocal.ReinterpretCast(U16), self.signbit.ReinterpretCast(U16), length)
        asc.Add(zLocal, xLocal, tmp, length)                        # 1.702(x - |x|)
        asc.Exp(zLocal, zLocal, length)
        asc.Exp(tmp, tmp, length)                                   # e^(-1.702|x|)
        asc.Mul(xLocal, xLocal, tmp, length)
        asc.Add(xLocal, xLocal, tmp, length)
        asc.Add(zLocal, xLocal, zLocal, length)
        asc.Adds(tmp, tmp, c3, length)
        asc.Mul(tmp, tmp, tmp, length)
        asc.Div(zLocal, zLocal, tmp, length)
        asc.Mul(zLocal, zLocal, dyLocal, length)
        self.outQueueZ.EnQue(zLocal)
        self.inQueueDY.FreeTensor(dyLocal)
        self.inQueueX.FreeTensor(xLocal)

    def CopyOut(self, progress, length):
        zLocal = self.outQueueZ.DeQue(self.Z)
        asc.DataCopy(self.zGm[progress * self.tileLength], zLocal, length)
        self.outQueueZ.FreeTensor(zLocal)


def _tiling(t):
    return t["totalLength"], t["ALIGN_NUM"], t["block_size"], t["core_size"], t["core_remain"]


def gelu(x, y, workspace=None, tiling=None, DTYPE_X=F32):
    op = KernelGelu(DTYPE_X)
    op.Init(x, y, *_tiling(tiling))
    op.Process()


def fast_gelu(x, y, workspace=None, tiling=None, DTYPE_X=F32, DTYPE_Y=F32):
    op = KernelFastGelu(DTYPE_X, DTYPE_Y)
    op.Init(x, y, *_tiling(tiling))
    op.Process()


def clip_by_value(x, clip_value_min, clip_value_max, y, workspace=None, tiling=None, DTYPE_X=F32, DTYPE_Y=F32):
    op = KernelClipByValue(DTYPE_X, DTYPE_Y)
    op.Init(x, clip_value_min, clip_value_max, y, *_tiling(tiling))
    op.Process()


def fast_gelu_grad(dy, x, z, workspace=None, tiling=None, DTYPE_DY=F32, DTYPE_X=F32, DTYPE_Z=F32):
    op = KernelFastGeluGrad(DTYPE_DY, DTYPE_X, DTYPE_Z)
    op.Init(dy, x, z, *_tiling(tiling))
    op.Process()
