"""A line-by-line Python port of cann-ops' pre_layer_norm kernel (Hayden727/cann-ops,
src/math/pre_layer_norm/op_kernel/pre_layer_norm.cpp @ eef0ff770ece1497e98bbf063028465a20417dfe, kept verbatim
in tests/ascendc/public/pre_layer_norm/): the lastDim == 2048 path (one row per tile; TILING_KEY 1), layer
norm of x + y. Python has no assignment overload: the .cpp's `dst = a * b` / `dst = a + b` (Mul / Add over
dst.GetSize() elements, as npusim's kernel_operator.h expands them) are written as those calls."""
import numpy as np

from npusim import ascendc as asc

epsilon = float(np.float32(1e-5))
BUFFER_NUM = 1
F32 = asc.float


class KernelPreLayerNorm:
    def __init__(self):
        self.pipe = asc.TPipe()
        self.queueX, self.queueY, self.queueGamma, self.queueBeta = (asc.TQue(asc.QuePosition.VECIN, BUFFER_NUM)
                                                                     for _ in range(4))
        self.queueZ = asc.TQue(asc.QuePosition.VECOUT, BUFFER_NUM)
        self.xGm, self.yGm, self.gemmaGm, self.betaGm, self.zGm = (asc.GlobalTensor(F32) for _ in range(5))
        self.tempBuf1, self.tempBuf2, self.tempBuf3, self.tempBuf4 = (asc.TBuf() for _ in range(4))

    def Init(self, x, y, gamma, beta, z, lastDim, tileNum):
        self.lastDim = lastDim
        if self.lastDim != 2048:
            raise NotImplementedError("pre_layer_norm: only the lastDim == 2048 path is ported")
        self.rowNum = tileNum
        self.rowLength = lastDim
        self.gemmaGm.SetGlobalBuffer(gamma.cast(F32))
        self.betaGm.SetGlobalBuffer(beta.cast(F32))
        off, n = self.rowNum * self.rowLength * asc.GetBlockIdx(), self.rowNum * self.rowLength
        self.xGm.SetGlobalBuffer(x.cast(F32) + off, n)
        self.yGm.SetGlobalBuffer(y.cast(F32) + off, n)
        self.zGm.SetGlobalBuffer(z.cast(F32) + off, n)
        initLength = self.rowLength
        for q in (self.queueX, self.queueY, self.queueZ, self.queueGamma, self.queueBeta):
            self.pipe.InitBuffer(q, BUFFER_NUM, initLength * F32.itemsize)
        for b in (self.tempBuf1, self.tempBuf2, self.tempBuf3, self.tempBuf4):
            self.pipe.InitBuffer(b, initLength * F32.itemsize)

    def Process(self):
        for i in range(self.rowNum):
            self.CopyIn(i)
            self.Compute(i)
            self.CopyOut(i)

    def CopyIn(self, progress):
        xLocal = self.queueX.AllocTensor(F32)
        yLocal = self.queueY.AllocTensor(F32)
        gammaLocal = self.queueGamma.AllocTensor(F32)
        betaLocal = self.queueBeta.AllocTensor(F32)
        asc.DataCopy(xLocal, self.xGm[progress * self.rowLength], self.rowLength)
        asc.DataCopy(yLocal, self.yGm[progress * self.rowLength], self.rowLength)
        asc.DataCopy(gammaLocal, self.gemmaGm, self.rowLength)
        asc.DataCopy(betaLocal, self.betaGm, self.rowLength)
        self.queueX.EnQue(xLocal)
        self.queueY.EnQue(yLocal)
        self.queueGamma.EnQue(gammaLocal)
        self.queueBeta.EnQue(betaLocal)

    def Compute(self, progress):
        n = self.rowLength
        inv_n = float(np.float32(1.0) / np.float32(n))                 # 1.0f / this->rowLength
        xLocal = self.queueX.DeQue(F32)
        yLocal = self.queueY.DeQue(F32)
        gammaLocal = self.queueGamma.DeQue(F32)
        betaLocal = self.queueBeta.DeQue(F32)
        zLocal = self.queueZ.AllocTensor(F32)
        tempOneLocal = self.tempBuf1.Get(F32)
        tempTwoLocal = self.tempBuf2.Get(F32)
        tempThreeLocal = self.tempBuf3.Get(F32)
        asc.Add(xLocal, xLocal, yLocal, n)
        asc.ReduceSum(tempOneLocal, xLocal, tempTwoLocal, n)
        asc.Muls(tempOneLocal, tempOneLocal, inv_n, 1)
        average = np.float32(tempOneLocal.GetValue(0)) * np.float32(-1.0)   # read on PIPE_S: auto-sync's V_S flag
        asc.Adds(xLocal, xLocal, float(average), n)
        asc.Mul(tempOneLocal, xLocal, xLocal, tempOneLocal.GetSize())       # tempOneLocal = xLocal * xLocal
        asc.ReduceSum(tempTwoLocal, tempOneLocal, tempThreeLocal, n)
        asc.Muls(tempTwoLocal, tempTwoLocal, inv_n, 1)
        asc.Adds(tempTwoLocal, tempTwoLocal, epsilon, 1)
        asc.Sqrt(tempTwoLocal, tempTwoLocal, 1)
        asc.Mul(tempOneLocal, xLocal, gammaLocal, tempOneLocal.GetSize())   # tempOneLocal = xLocal * gammaLocal
        temp = np.float32(1.0) / np.float32(tempTwoLocal.GetValue(0))
        asc.Muls(tempOneLocal, tempOneLocal, float(temp), n)
        asc.Add(zLocal, tempOneLocal, betaLocal, zLocal.GetSize())          # zLocal = tempOneLocal + betaLocal
        self.queueZ.EnQue(zLocal)
        self.queueGamma.FreeTensor(gammaLocal)
        self.queueBeta.FreeTensor(betaLocal)
        self.queueY.FreeTensor(yLocal)
        self.queueX.FreeTensor(xLocal)

    def CopyOut(self, progress):
        zLocal = self.queueZ.DeQue(F32)
        asc.DataCopy(self.zGm[progress * self.rowLength], zLocal, self.rowLength)
        self.queueZ.FreeTensor(zLocal)


def pre_layer_norm(x, y, gamma, beta, res_out, workspace=None, tiling=None):
    op = KernelPreLayerNorm()
    op.Init(x, y, gamma, beta, res_out, tiling["lastDim"], tiling["tileNum"])
    if tiling.get("TILING_KEY", 0) == 1:
        op.Process()
