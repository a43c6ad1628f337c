"""A line-by-line Python port of cann-ops' xlogy kernel (Hayden727/cann-ops, src/math/xlogy/op_kernel/xlogy.cpp @
eef0ff770ece1497e98bbf063028465a20417dfe, kept verbatim in tests/ascendc/public/xlogy/): x1 * ln(x2), 0 where
x1 == 0 (Compare EQ into an int8 mask, Select tensor-scalar, Ln, Mul); inputs shorter than the output are
broadcast element by element with GlobalTensor::GetValue / LocalTensor::SetValue, as the .cpp does."""
from npusim import ascendc as asc

BUFFER_NUM = 2
inputVarNum = 2
maxDimNum = 64


class TileVar:
    def __init__(self, t):
        self.CoreDataNum, self.finalTileNum = t["CoreDataNum"], t["finalTileNum"]
        self.tileDataNum, self.TailDataNum = t["tileDataNum"], t["TailDataNum"]
        self.x1_length, self.x2_length, self.numshapes = t["x1_length"], t["x2_length"], t["numshapes"]
        self.ss = list(t["shape"])
        self.sf = list(t["shapefull"])


class Kernelxlogy_Broadcast:
    def __init__(self, TYPE_X1, TYPE_X2, TYPE_Y):
        self.X1, self.X2, self.Y = TYPE_X1, TYPE_X2, TYPE_Y
        self.pipe = asc.TPipe()
        self.inQueueX1 = asc.TQue(asc.QuePosition.VECIN, BUFFER_NUM)
        self.inQueueX2 = asc.TQue(asc.QuePosition.VECIN, BUFFER_NUM)
        self.outQueueY = asc.TQue(asc.QuePosition.VECOUT, BUFFER_NUM)
        self.QueueTmp1, self.QueueTmp2 = asc.TBuf(asc.QuePosition.VECCALC), asc.TBuf(asc.QuePosition.VECCALC)
        self.x1Gm, self.x2Gm, self.yGm = asc.GlobalTensor(TYPE_X1), asc.GlobalTensor(TYPE_X2), asc.GlobalTensor(TYPE_Y)

    def Init(self, x1, x2, y, tilevar):
        asc.ASSERT(asc.GetBlockNum() != 0, "block dim can not be zero!")
        self.coreDataNum = tilevar.CoreDataNum
        self.tileNum = tilevar.finalTileNum
        self.tileDataNum = tilevar.tileDataNum
        self.tailDataNum = tilevar.TailDataNum
        self.shape = [tilevar.ss[:maxDimNum], tilevar.ss[maxDimNum:]]
        self.numshapes = tilevar.numshapes
        self.shapefull = list(tilevar.sf)
        self.total_length = 1
        for i in range(self.numshapes):
            self.total_length *= self.shapefull[i]
        self.x1_Length = tilevar.x1_length
        self.x2_Length = tilevar.x2_length
        self.x1Gm.SetGlobalBuffer(x1.cast(self.X1), self.coreDataNum)
        self.x2Gm.SetGlobalBuffer(x2.cast(self.X2), self.coreDataNum)
        self.yGm.SetGlobalBuffer(y.cast(self.Y), self.coreDataNum)
        self.pipe.InitBuffer(self.inQueueX1, BUFFER_NUM, self.tileDataNum * self.X1.itemsize)
        self.pipe.InitBuffer(self.inQueueX2, BUFFER_NUM, self.tileDataNum * self.X2.itemsize)
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, self.tileDataNum * self.Y.itemsize)
        self.pipe.InitBuffer(self.QueueTmp1, self.tileDataNum * self.X1.itemsize)
        self.pipe.InitBuffer(self.QueueTmp2, self.tileDataNum * asc.int8_t.itemsize)

    def Process(self):
        loopCount = self.tileNum
        self.processDataNum = self.tileDataNum
        for i in range(loopCount):
            if i == self.tileNum - 1:
                self.processDataNum = self.tailDataNum
            self.CopyIn(i)
            self.Compute(i)
            self.CopyOut(i)

    def CopyIn(self, progress):
        x1Local = self.inQueueX1.AllocTensor(self.X1)
        x2Local = self.inQueueX2.AllocTensor(self.X2)
        if self.x1_Length < self.total_length:
            self.BroadCX(x1Local, self.x1Gm, self.x1_Length, 0, progress * self.tileDataNum, self.processDataNum)
        else:
            asc.DataCopy(x1Local, self.x1Gm[progress * self.tileDataNum], self.processDataNum)
        if self.x2_Length < self.total_length:
            self.BroadCX(x2Local, self.x2Gm, self.x2_Length, 1, progress * self.tileDataNum, self.processDataNum)
        else:
            asc.DataCopy(x2Local, self.x2Gm[progress * self.tileDataNum], self.processDataNum)
        self.inQueueX1.EnQue(x1Local)
        self.inQueueX2.EnQue(x2Local)

    def BroadCX(self, dst, gm, gm_length, inputNo, offset, length):
        """BroadCX1 / BroadCX2 (the same lines on x1Gm / x2Gm)."""
        if gm_length == 1:
            tmp = gm.GetValue(0)
            asc.Duplicate(dst, tmp, length)
            return
        for i in range(length):
            istart = i + offset
            idxtmp = self.GetPos(istart, inputNo)
            tmp = gm.GetValue(idxtmp)
            dst.SetValue(i, tmp)

    def GetPos(self, istart, inputNo):
        idxtmp = 0
        shapefull, shape = self.shapefull, self.shape
        for k in range(1, self.numshapes + 1):
            if k < self.numshapes:
                krange = 1
                for m in range(k + 1, self.numshapes + 1):
                    krange *= shapefull[m - 1]
                kpos = istart // krange
                istart = istart % krange
            else:
                krange = shapefull[k - 1]
                kpos = istart % krange
            krangeB = 1
            if shapefull[k - 1] == shape[inputNo][k - 1]:
                if k < self.numshapes:
                    for m in range(k + 1, self.numshapes + 1):
                        krangeB *= shape[1][m - 1]              # shape[1] for either input, as in the .cpp
                    idxtmp += kpos * krangeB
                else:
                    idxtmp += kpos
        return idxtmp

    def Compute(self, progress):
        n = self.processDataNum
        x1Local = self.inQueueX1.DeQue(self.X1)
        x2Local = self.inQueueX2.DeQue(self.X2)
        yLocal = self.outQueueY.AllocTensor(self.Y)
        tmp1 = self.QueueTmp1.Get(self.X1)
        cmp1 = self.QueueTmp2.Get(asc.int8_t)
        asc.Duplicate(tmp1, 0, n)
        asc.Compare(cmp1, x1Local, tmp1, asc.CMPMODE.EQ, n)
        asc.Select(tmp1, cmp1, tmp1, 1, asc.SELMODE.VSEL_TENSOR_SCALAR_MODE, n)
        asc.Ln(yLocal, x2Local, n)
        asc.Mul(yLocal, yLocal, x1Local, n)
        asc.Mul(yLocal, yLocal, tmp1, n)
        self.outQueueY.EnQue(yLocal)
        self.inQueueX1.FreeTensor(x1Local)
        self.inQueueX2.FreeTensor(x2Local)

    def CopyOut(self, progress):
        yLocal = self.outQueueY.DeQue(self.Y)
        asc.DataCopy(self.yGm[progress * self.tileDataNum], yLocal, self.processDataNum)
        self.outQueueY.FreeTensor(yLocal)


def xlogy(x1, x2, y, workspace=None, tiling=None, DTYPE_X1=asc.float, DTYPE_X2=asc.float, DTYPE_Y=asc.float):
    op = Kernelxlogy_Broadcast(DTYPE_X1, DTYPE_X2, DTYPE_Y)
    op.Init(x1, x2, y, TileVar(tiling))
    op.Process()
