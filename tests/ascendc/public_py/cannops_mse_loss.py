"""A line-by-line Python port of cann-ops' mse_loss kernel (src/math/mse_loss/op_kernel/mse_loss.cpp @
eef0ff770ece1497e98bbf063028465a20417dfe, kept verbatim in tests/ascendc/public/mse_loss/): mode 3 (none,
elementwise (x - y)^2), modes 1 / 2 (mean / sum: a ReduceSum per tile into a TBuf, then one over the tiles,
the result written with a scalar SetValue)."""
from npusim import ascendc as asc

BUFFER_NUM = 1
MODE_ONE, MODE_TWO, MODE_THREE = 1, 2, 3
T = asc.float                                   # DTYPE_Y


class MseLoss:
    def __init__(self):
        self.pipe = asc.TPipe()
        self.inQueueIN = asc.TQue(asc.QuePosition.VECIN, BUFFER_NUM)
        self.outQueueOUT = asc.TQue(asc.QuePosition.VECOUT, BUFFER_NUM)
        self.tempBuf = asc.TBuf()
        self.xGm, self.yGm, self.outGm = asc.GlobalTensor(T), asc.GlobalTensor(T), asc.GlobalTensor(T)

    def Init(self, predict, label, y, mode, totalLength, blockLength, tileNum, tileLength, lastTileLength):
        asc.ASSERT(asc.GetBlockNum() != 0, "block dim can not be zero!")
        self.mode = mode
        self.totalLength = totalLength
        self.totalLength_f32 = float(totalLength)
        self.blockLength, self.tileNum = blockLength, tileNum
        self.tileLength = tileLength // BUFFER_NUM
        self.lastTileLength = lastTileLength
        off = self.blockLength * asc.GetBlockIdx()
        self.xGm.SetGlobalBuffer(predict.cast(T) + off, self.blockLength)
        self.yGm.SetGlobalBuffer(label.cast(T) + off, self.blockLength)
        self.outGm.SetGlobalBuffer(y.cast(T) + off, self.blockLength if mode == MODE_THREE else 32)
        self.reduce_num = self.tileNum * BUFFER_NUM
        reduce_align = (self.reduce_num + 31) // 32 * 32
        self.pipe.InitBuffer(self.inQueueIN, BUFFER_NUM, self.tileLength * 2 * T.itemsize)
        if mode == MODE_THREE:
            self.pipe.InitBuffer(self.outQueueOUT, BUFFER_NUM, self.tileLength * T.itemsize)
        else:
            self.pipe.InitBuffer(self.tempBuf, reduce_align * T.itemsize)

    def Process(self):
        loopCount = self.tileNum * BUFFER_NUM
        if self.mode == MODE_THREE:
            for i in range(loopCount):
                self.CopyIn_Strategy(i)
                self.Compute_Strategy_1(i)
                self.CopyOut_Strategy_1(i)
            return
        for i in range(loopCount):
            self.CopyIn_Strategy(i)
            self.Compute_Strategy_2(i)
        temp1 = self.tempBuf.Get(T)
        temp2 = self.inQueueIN.AllocTensor(T)
        asc.Duplicate(temp2, 0.0, self.tileLength)
        asc.ReduceSum(temp1, temp1, temp2, self.reduce_num)
        if self.mode == MODE_ONE:
            temp2.SetValue(0, self.totalLength_f32)
            asc.Div(temp1, temp1, temp2, 1)
        self.outGm.SetValue(0, temp1.GetValue(0))
        self.inQueueIN.FreeTensor(temp2)

    def _start(self, progress):
        if progress == self.tileNum - 1 and progress != 0:        # the last tile moves back onto the data
            return (progress - 1) * self.tileLength + self.lastTileLength
        return progress * self.tileLength

    def CopyIn_Strategy(self, progress):
        inLocal = self.inQueueIN.AllocTensor(T)
        s = self._start(progress)
        asc.DataCopy(inLocal[0], self.xGm[s], self.tileLength)
        asc.DataCopy(inLocal[self.tileLength], self.yGm[s], self.tileLength)
        self.inQueueIN.EnQue(inLocal)

    def Compute_Strategy_1(self, progress):
        inLocal = self.inQueueIN.DeQue(T)
        xLocal, yLocal = inLocal, inLocal[self.tileLength]
        outLocal = self.outQueueOUT.AllocTensor(T)
        asc.Sub(outLocal, xLocal, yLocal, self.tileLength)
        asc.Mul(outLocal, outLocal, outLocal, self.tileLength)
        self.outQueueOUT.EnQue(outLocal)
        self.inQueueIN.FreeTensor(inLocal)

    def CopyOut_Strategy_1(self, progress):
        outLocal = self.outQueueOUT.DeQue(T)
        asc.DataCopy(self.outGm[self._start(progress)], outLocal, self.tileLength)
        self.outQueueOUT.FreeTensor(outLocal)

    def Compute_Strategy_2(self, progress):
        inLocal = self.inQueueIN.DeQue(T)
        xLocal, yLocal = inLocal, inLocal[self.tileLength]
        temp1 = self.tempBuf.Get(T)
        asc.Sub(yLocal, xLocal, yLocal, self.tileLength)
        asc.Mul(yLocal, yLocal, yLocal, self.tileLength)
        asc.ReduceSum(yLocal, yLocal, xLocal, self.tileLength)
        temp1.SetValue(progress, yLocal.GetValue(0))
        self.inQueueIN.FreeTensor(inLocal)


def mse_loss(predict, label, y, workspace=None, tiling=None):
    op = MseLoss()
    t = tiling
    op.Init(predict, label, y, t["mode"], t["totalLength"], t["blockLength"], t["tileNum"], t["tileLength"],
            t["lastTileLength"])
    op.Process()
