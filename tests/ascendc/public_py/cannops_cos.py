"""A line-by-line Python port of cann-ops' cos kernel (Hayden727/cann-ops, src/math/cos/op_kernel/cos.cpp @
eef0ff770ece1497e98bbf063028465a20417dfe, kept verbatim in tests/ascendc/public/cos/): KernelCos<T, HighPrecStrategy>
(the build's default: HIGH_PERFORMANCE unset), TILING_KEY 1 / 0 for Init<IsExistBigCore>. The strategy's
ComputeImpl is the .cpp's ~100 lines of range reduction and polynomial, one call per line, its tensor aliases kept
as Python names (HighPerfStrategy is not ported)."""
import numpy as np

from npusim import ascendc as asc

BUFFER_NUM = 2
F32 = asc.float


class KernelCos:
    def __init__(self, T, ComputeStrategy):
        self.T = T
        self.inQueueX = asc.TQue(asc.QuePosition.VECIN, 1)
        self.outQueueY = asc.TQue(asc.QuePosition.VECOUT, 1)
        self.xBuf, self.yBuf = asc.TBuf(asc.QuePosition.VECCALC), asc.TBuf(asc.QuePosition.VECCALC)
        self.xGm, self.yGm = asc.GlobalTensor(T), asc.GlobalTensor(T)
        self.strategy = ComputeStrategy()

    def Init(self, IsExistBigCore, x, y, smallCoreDataNum, bigCoreDataNum, bigCoreLoopNum, smallCoreLoopNum,
             ubPartDataNum, smallCoreTailDataNum, bigCoreTailDataNum, tailBlockNum, pipe):
        T = self.T
        asc.ASSERT(asc.GetBlockNum() != 0, "block dim can not be zero!")
        coreNum = asc.GetBlockIdx()
        globalBufferIndex = bigCoreDataNum * coreNum
        self.ubPartDataNum = ubPartDataNum
        if IsExistBigCore:
            if coreNum < tailBlockNum:
                self.coreDataNum, self.tileNum, self.tailDataNum = bigCoreDataNum, bigCoreLoopNum, bigCoreTailDataNum
            else:
                self.coreDataNum, self.tileNum = smallCoreDataNum, smallCoreLoopNum
                self.tailDataNum = smallCoreTailDataNum
                globalBufferIndex -= (bigCoreDataNum - smallCoreDataNum) * (coreNum - tailBlockNum)
        else:
            self.coreDataNum, self.tileNum, self.tailDataNum = smallCoreDataNum, smallCoreLoopNum, smallCoreTailDataNum
            globalBufferIndex = smallCoreDataNum * coreNum
        self.xGm.SetGlobalBuffer(x.cast(T) + globalBufferIndex, self.coreDataNum)
        self.yGm.SetGlobalBuffer(y.cast(T) + globalBufferIndex, self.coreDataNum)
        pipe.InitBuffer(self.inQueueX, BUFFER_NUM, self.ubPartDataNum * T.itemsize)
        pipe.InitBuffer(self.outQueueY, BUFFER_NUM, self.ubPartDataNum * T.itemsize)
        if T != F32:
            pipe.InitBuffer(self.xBuf, self.ubPartDataNum * F32.itemsize)
            pipe.InitBuffer(self.yBuf, self.ubPartDataNum * F32.itemsize)
        self.strategy.InitBufImpl(pipe, self.ubPartDataNum)

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
        asc.DataCopy(xLocal, self.xGm[progress * self.ubPartDataNum], self.processDataNum)
        self.inQueueX.EnQue(xLocal)

    def Compute(self, progress):
        xLocal = self.PreDeQueCastX()
        yLocal = self.PreAllocateY()
        self.strategy.ComputeImpl(xLocal, yLocal, self.processDataNum)
        self.PostReleaseCastEnQue(xLocal, yLocal)

    def CopyOut(self, progress):
        yLocal = self.outQueueY.DeQue(self.T)
        asc.DataCopy(self.yGm[progress * self.ubPartDataNum], yLocal, self.processDataNum)
        self.outQueueY.FreeTensor(yLocal)

    def PreDeQueCastX(self):
        if self.T == F32:
            return self.inQueueX.DeQue(F32)
        xLocal = self.xBuf.Get(F32)
        xOrigin = self.inQueueX.DeQue(self.T)
        asc.Cast(xLocal, xOrigin, asc.RoundMode.CAST_NONE, self.processDataNum)
        self.inQueueX.FreeTensor(xOrigin)
        return xLocal

    def PreAllocateY(self):
        if self.T == F32:
            return self.outQueueY.AllocTensor(F32)
        return self.yBuf.Get(F32)

    def PostReleaseCastEnQue(self, xLocal, yLocal):
        if self.T == F32:
            self.outQueueY.EnQue(yLocal)
            self.inQueueX.FreeTensor(xLocal)
        else:
            yTarget = self.outQueueY.AllocTensor(self.T)
            asc.Cast(yTarget, yLocal, asc.RoundMode.CAST_RINT, self.processDataNum)
            self.outQueueY.EnQue(yTarget)


PI_V4_0 = float(np.float32(1.5708008))
PI_V4_1 = float(np.float32(-0.0000044535846))
PI_V4_2 = float(np.float32(-8.706138e-10))
PI_V4_3 = float(np.float32(1.5703125))
PI_12 = float(np.float32(0.0004837513))
PI_22 = float(np.float32(0.000000075495336))
PI_32 = float(np.float32(2.5579538e-12))
PI_42 = float(np.float32(5.389786e-15))
PI_52 = float(np.float32(5.166901e-19))
PI_62 = float(np.float32(3.281839e-22))
INV_HALF_PI = float(np.float32(0.63661975))
SCOEF_4 = float(np.float32(0.0000027183114939898219064))
SCOEF_3 = float(np.float32(-0.000198393348360966317347))
SCOEF_2 = float(np.float32(0.0083333293858894631756))
SCOEF_1 = float(np.float32(-0.166666666416265235595))
CCOEF_4 = float(np.float32(0.0000243904487962774090654))
CCOEF_3 = float(np.float32(-0.00138867637746099294692))
CCOEF_2 = float(np.float32(0.0416666233237390631894))
CCOEF_1 = float(np.float32(-0.499999997251031003120))


class HighPrecStrategy:
    def __init__(self):
        self.tmpBuf1, self.tmpBuf2, self.tmpBuf3, self.tmpBuf4 = (asc.TBuf(asc.QuePosition.VECCALC) for _ in range(4))

    def InitBufImpl(self, pipe, tileDataNum):
        pipe.InitBuffer(self.tmpBuf1, tileDataNum * F32.itemsize)
        pipe.InitBuffer(self.tmpBuf2, tileDataNum * F32.itemsize)
        pipe.InitBuffer(self.tmpBuf3, tileDataNum * F32.itemsize)
        pipe.InitBuffer(self.tmpBuf4, tileDataNum * F32.itemsize)

    def ComputeImpl(self, xLocal, yLocal, processDataNum):
        tmpTensor1 = self.tmpBuf1.Get(F32)
        tmpTensor2 = self.tmpBuf2.Get(F32)
        tmpTensor3 = self.tmpBuf3.Get(F32)
        tmpTensor4 = self.tmpBuf4.Get(F32)
        input_x = xLocal
        x_scaled = tmpTensor1
        x_overpi = tmpTensor3
        n = tmpTensor2
        n0 = yLocal
        n0_1 = tmpTensor3
        n0_2 = yLocal
        n1 = tmpTensor3
        fix = tmpTensor4
        x_fix = tmpTensor2
        fix_1 = tmpTensor4
        x_fix_1 = tmpTensor1
        fix_2 = tmpTensor4
        x_fix_2 = tmpTensor2
        fix_3 = tmpTensor4
        x_fix_3 = tmpTensor1
        fix_4 = tmpTensor4
        x_fix_4 = tmpTensor2
        remain_x = tmpTensor1
        temp = tmpTensor2
        n2 = tmpTensor1
        n0_3 = tmpTensor2
        n1_1 = yLocal
        fix_5 = tmpTensor4
        x_fix_5 = tmpTensor3
        fix_6 = tmpTensor4
        x_fix_6 = xLocal
        fix_7 = tmpTensor4
        x_fix_7 = tmpTensor3
        fix_8 = tmpTensor4
        x_fix_8 = xLocal
        fix_9 = tmpTensor4
        x_fix_9 = tmpTensor3
        fix_10 = tmpTensor4
        x_fix_10 = xLocal
        fix_11 = tmpTensor4
        x_fix_11 = tmpTensor3
        fix_12 = tmpTensor4
        x_fix_12 = xLocal
        fix_13 = tmpTensor4
        x_fix_13 = tmpTensor3
        fix_14 = tmpTensor4
        x_fix_14 = xLocal
        fix_15 = tmpTensor4
        x_fix_15 = tmpTensor3
        fix_16 = tmpTensor4
        x_fix_16 = xLocal
        fix_17 = tmpTensor4
        x_fix_17 = tmpTensor3
        fix_18 = tmpTensor4
        x_fix_18 = xLocal
        fix_19 = tmpTensor4
        x_fix_19 = tmpTensor3
        fix_20 = tmpTensor4
        x_fix_20 = xLocal
        fix_21 = tmpTensor4
        x_fix_21 = tmpTensor3
        fix_22 = xLocal
        x_fix_22 = tmpTensor2
        fix_23 = tmpTensor3
        x_fix_23 = xLocal
        fix_24 = tmpTensor2
        x_fix_24 = yLocal
        fix_25 = tmpTensor2
        x_fix_25 = xLocal
        x_pow = tmpTensor2
        sin_poly = tmpTensor3
        sin_poly_1 = yLocal
        sin_poly_2 = tmpTensor3
        sin_poly_3 = yLocal
        sin_poly_4 = tmpTensor3
        sin_poly_5 = yLocal
        sin_poly_6 = tmpTensor3
        sin_poly_7 = tmpTensor4
        sin_poly_8 = yLocal
        cos_poly = tmpTensor3
        cos_poly_1 = xLocal
        cos_poly_2 = tmpTensor3
        cos_poly_3 = xLocal
        cos_poly_4 = tmpTensor3
        cos_poly_5 = xLocal
        cos_poly_6 = tmpTensor3
        cos_poly_7 = tmpTensor2
        n2_1 = xLocal
        half_n2 = tmpTensor4
        half4_n2 = tmpTensor3
        n_half2 = tmpTensor1
        n_half4 = tmpTensor4
        k1 = tmpTensor3
        k2 = tmpTensor1
        sign = tmpTensor4
        sign_1 = tmpTensor1
        ifcos = tmpTensor4
        ifsin = xLocal
        ifsin_1 = tmpTensor3
        temp1 = xLocal
        cos_poly_8 = yLocal
        res = tmpTensor2
        res_1 = yLocal
        asc.Muls(x_scaled, input_x, 1.0 / 2048.0, processDataNum)
        asc.Muls(x_overpi, x_scaled, INV_HALF_PI, processDataNum)
        asc.Cast(n, x_overpi, asc.RoundMode.CAST_RINT, processDataNum)
        asc.Muls(n0, x_overpi, 1.0 / 2048.0, processDataNum)
        asc.Cast(n0_1, n0, asc.RoundMode.CAST_RINT, processDataNum)
        asc.Muls(n0_2, n0_1, 2048.0, processDataNum)
        asc.Sub(n1, n, n0_2, processDataNum)
        asc.Muls(fix, n0_2, PI_V4_0, processDataNum)
        asc.Sub(x_fix, x_scaled, fix, processDataNum)
        asc.Muls(fix_1, n1, PI_V4_0, processDataNum)
        asc.Sub(x_fix_1, x_fix, fix_1, processDataNum)
        asc.Muls(fix_2, n0_2, PI_V4_1, processDataNum)
        asc.Sub(x_fix_2, x_fix_1, fix_2, processDataNum)
        asc.Muls(fix_3, n1, PI_V4_1, processDataNum)
        asc.Sub(x_fix_3, x_fix_2, fix_3, processDataNum)
        asc.Muls(fix_4, n0_2, PI_V4_2, processDataNum)
        asc.Sub(x_fix_4, x_fix_3, fix_4, processDataNum)
        asc.Muls(remain_x, x_fix_4, 2048.0, processDataNum)
        asc.Muls(temp, remain_x, INV_HALF_PI, processDataNum)
        asc.Cast(n2, temp, asc.RoundMode.CAST_RINT, processDataNum)
        asc.Muls(n0_3, n0_2, 2048.0, processDataNum)
        asc.Muls(n1_1, n1, 2048.0, processDataNum)
        asc.Muls(fix_5, n0_3, PI_V4_3, processDataNum)
        asc.Sub(x_fix_5, input_x, fix_5, processDataNum)
        asc.Muls(fix_6, n1_1, PI_V4_3, processDataNum)
        asc.Sub(x_fix_6, x_fix_5, fix_6, processDataNum)
        asc.Muls(fix_7, n0_3, PI_12, processDataNum)
        asc.Sub(x_fix_7, x_fix_6, fix_7, processDataNum)
        asc.Muls(fix_8, n2, PI_V4_3, processDataNum)
        asc.Sub(x_fix_8, x_fix_7, fix_8, processDataNum)
        asc.Muls(fix_9, n1_1, PI_12, processDataNum)
        asc.Sub(x_fix_9, x_fix_8, fix_9, processDataNum)
        asc.Muls(fix_10, n0_3, PI_22, processDataNum)
        asc.Sub(x_fix_10, x_fix_9, fix_10, processDataNum)
        asc.Muls(fix_11, n2, PI_12, processDataNum)
        asc.Sub(x_fix_11, x_fix_10, fix_11, processDataNum)
        asc.Muls(fix_12, n1_1, PI_22, processDataNum)
        asc.Sub(x_fix_12, x_fix_11, fix_12, processDataNum)
        asc.Muls(fix_13, n0_3, PI_32, processDataNum)
        asc.Sub(x_fix_13, x_fix_12, fix_13, processDataNum)
        asc.Muls(fix_14, n2, PI_22, processDataNum)
        asc.Sub(x_fix_14, x_fix_13, fix_14, processDataNum)
        asc.Muls(fix_15, n1_1, PI_32, processDataNum)
        asc.Sub(x_fix_15, x_fix_14, fix_15, processDataNum)
        asc.Muls(fix_16, n0_3, PI_42, processDataNum)
        asc.Sub(x_fix_16, x_fix_15, fix_16, processDataNum)
        asc.Muls(fix_17, n2, PI_32, processDataNum)
        asc.Sub(x_fix_17, x_fix_16, fix_17, processDataNum)
        asc.Muls(fix_18, n1_1, PI_42, processDataNum)
        asc.Sub(x_fix_18, x_fix_17, fix_18, processDataNum)
        asc.Muls(fix_19, n0_3, PI_52, processDataNum)
        asc.Sub(x_fix_19, x_fix_18, fix_19, processDataNum)
        asc.Muls(fix_20, n2, PI_42, processDataNum)
        asc.Sub(x_fix_20, x_fix_19, fix_20, processDataNum)
        asc.Muls(fix_21, n1_1, PI_52, processDataNum)
        asc.Sub(x_fix_21, x_fix_20, fix_21, processDataNum)
        asc.Muls(fix_22, n0_3, PI_62, processDataNum)
        asc.Sub(x_fix_22, x_fix_21, fix_22, processDataNum)
        asc.Muls(fix_23, n2, PI_52, processDataNum)
        asc.Sub(x_fix_23, x_fix_22, fix_23, processDataNum)
        asc.Muls(fix_24, n1_1, PI_62, processDataNum)
        asc.Sub(x_fix_24, x_fix_23, fix_24, processDataNum)
        asc.Muls(fix_25, n2, PI_62, processDataNum)
        asc.Sub(x_fix_25, x_fix_24, fix_25, processDataNum)
        asc.Mul(x_pow, x_fix_25, x_fix_25, processDataNum)
        asc.Muls(sin_poly, x_pow, SCOEF_4, processDataNum)
        asc.Adds(sin_poly_1, sin_poly, SCOEF_3, processDataNum)
        asc.Mul(sin_poly_2, x_pow, sin_poly_1, processDataNum)
        asc.Adds(sin_poly_3, sin_poly_2, SCOEF_2, processDataNum)
        asc.Mul(sin_poly_4, x_pow, sin_poly_3, processDataNum)
        asc.Adds(sin_poly_5, sin_poly_4, SCOEF_1, processDataNum)
        asc.Mul(sin_poly_6, x_pow, sin_poly_5, processDataNum)
        asc.Adds(sin_poly_7, sin_poly_6, 1.0, processDataNum)
        asc.Mul(sin_poly_8, x_fix_25, sin_poly_7, processDataNum)
        asc.Muls(cos_poly, x_pow, CCOEF_4, processDataNum)
        asc.Adds(cos_poly_1, cos_poly, CCOEF_3, processDataNum)
        asc.Mul(cos_poly_2, x_pow, cos_poly_1, processDataNum)
        asc.Adds(cos_poly_3, cos_poly_2, CCOEF_2, processDataNum)
        asc.Mul(cos_poly_4, x_pow, cos_poly_3, processDataNum)
        asc.Adds(cos_poly_5, cos_poly_4, CCOEF_1, processDataNum)
        asc.Mul(cos_poly_6, x_pow, cos_poly_5, processDataNum)
        asc.Adds(cos_poly_7, cos_poly_6, 1.0, processDataNum)
        asc.Adds(n2_1, n2, 1.0, processDataNum)
        asc.Muls(half_n2, n2_1, 0.5, processDataNum)
        asc.Muls(half4_n2, n2_1, 0.25, processDataNum)
        asc.Cast(n_half2, half_n2, asc.RoundMode.CAST_FLOOR, processDataNum)
        asc.Cast(n_half4, half4_n2, asc.RoundMode.CAST_FLOOR, processDataNum)
        asc.Muls(k1, n_half2, -2.0, processDataNum)
        asc.Muls(k2, n_half4, 4.0, processDataNum)
        asc.Add(sign, k1, k2, processDataNum)
        asc.Adds(sign_1, sign, 1.0, processDataNum)
        asc.Add(ifcos, n2_1, k1, processDataNum)
        asc.Muls(ifsin, ifcos, -1.0, processDataNum)
        asc.Adds(ifsin_1, ifsin, 1.0, processDataNum)
        asc.Mul(temp1, sin_poly_8, ifsin_1, processDataNum)
        asc.Mul(cos_poly_8, cos_poly_7, ifcos, processDataNum)
        asc.Add(res, temp1, cos_poly_8, processDataNum)
        asc.Mul(res_1, res, sign_1, processDataNum)



def cos(x, y, workspace=None, tiling=None, DTYPE_X=F32):
    t = tiling
    op = KernelCos(DTYPE_X, HighPrecStrategy)
    pipe = asc.TPipe()
    key = t.get("TILING_KEY", 0)
    if key in (0, 1):
        op.Init(key == 1, x, y, t["smallCoreDataNum"], t["bigCoreDataNum"], t["bigCoreLoopNum"],
                t["smallCoreLoopNum"], t["ubPartDataNum"], t["smallCoreTailDataNum"], t["bigCoreTailDataNum"],
                t["tailBlockNum"], pipe)
    op.Process()
