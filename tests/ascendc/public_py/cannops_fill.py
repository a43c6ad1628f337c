"""A line-by-line Python port of cann-ops' fill kernel (Hayden727/cann-ops, src/math/fill/op_kernel/fill.cpp @
eef0ff770ece1497e98bbf063028465a20417dfe, kept verbatim in tests/ascendc/public/fill/): KernelFill<DTYPE_VALUE>
(TILING_KEY 0 / 1 = IsExistBigCore): Duplicate of the GM scalar, int8 / bool through half. The int64 class
(two interleaved bit-mask Duplicates) is not ported. The .cpp reads the value with a raw
`*reinterpret_cast<__gm__ DTYPE_VALUE *>(value)`; npusim's Python GM_ADDR has no dereference, so the port reads
it through a GlobalTensor's GetValue (see the test for what that changes)."""
from npusim import ascendc as asc

BUFFER_NUM = 1


class KernelFill:
    def __init__(self, T, DTYPE_VALUE, DTYPE_Y, IsExistBigCore):
        self.T, self.V, self.Y, self.IsExistBigCore = T, DTYPE_VALUE, DTYPE_Y, IsExistBigCore
        self.pipe = asc.TPipe()
        self.outQueueOUT = asc.TQue(asc.QuePosition.VECOUT, BUFFER_NUM)
        self.yGm = asc.GlobalTensor(DTYPE_Y)
        self.tmpBuf = asc.TBuf(asc.TPosition.VECCALC)

    def Init(self, dims, value, y, smallCoreDataNum, bigCoreDataNum, bigCoreLoopNum, smallCoreLoopNum, ubPartDataNum,
             smallCoreTailDataNum, bigCoreTailDataNum, tailBlockNum):
        asc.ASSERT(asc.GetBlockNum() != 0, "block dim can not be zero!")
        coreNum = asc.GetBlockIdx()
        globalBufferIndex = bigCoreDataNum * asc.GetBlockIdx()
        self.ubPartDataNum = ubPartDataNum
        if self.IsExistBigCore and coreNum < tailBlockNum:
            self.coreDataNum, self.tileNum, self.tailDataNum = bigCoreDataNum, bigCoreLoopNum, bigCoreTailDataNum
        elif self.IsExistBigCore:
            self.coreDataNum, self.tileNum, self.tailDataNum = smallCoreDataNum, smallCoreLoopNum, smallCoreTailDataNum
            globalBufferIndex -= (bigCoreDataNum - smallCoreDataNum) * (asc.GetBlockIdx() - tailBlockNum)
        else:
            self.coreDataNum, self.tileNum, self.tailDataNum = smallCoreDataNum, smallCoreLoopNum, smallCoreTailDataNum
            globalBufferIndex = smallCoreDataNum * asc.GetBlockIdx()
        valueGm = asc.GlobalTensor(self.V)                   # this->value = *(__gm__ DTYPE_VALUE *)value
        valueGm.SetGlobalBuffer(value.cast(self.V), 1)
        self.value = valueGm.GetValue(0)
        self.yGm.SetGlobalBuffer(y.cast(self.Y) + globalBufferIndex, self.coreDataNum)
        if self.T == asc.int8_t:
            self.pipe.InitBuffer(self.tmpBuf, self.ubPartDataNum * asc.half.itemsize)
        self.pipe.InitBuffer(self.outQueueOUT, BUFFER_NUM, self.ubPartDataNum * self.Y.itemsize)

    def Process(self):
        loopCount = self.tileNum
        self.processDataNum = self.ubPartDataNum
        for i in range(loopCount - 1):
            self.Compute(i)
            self.CopyOut(i)
        self.processDataNum = self.tailDataNum
        self.Compute(loopCount - 1)
        self.CopyOut(loopCount - 1)

    def Compute(self, progress):
        if self.T == asc.int8_t:
            outLocal = self.outQueueOUT.AllocTensor(asc.int8_t)
            tmpLocal = self.tmpBuf.Get(asc.half)
            asc.Duplicate(tmpLocal, float(self.value), self.processDataNum)
            asc.Cast(outLocal, tmpLocal, asc.RoundMode.CAST_NONE, self.processDataNum)
            self.outQueueOUT.EnQue(outLocal)
        else:
            outLocal = self.outQueueOUT.AllocTensor(self.T)
            asc.Duplicate(outLocal, self.value, self.processDataNum)
            self.outQueueOUT.EnQue(outLocal)

    def CopyOut(self, progress):
        outLocal = self.outQueueOUT.DeQue(self.V)
        asc.DataCopy(self.yGm[progress * self.ubPartDataNum], outLocal, self.processDataNum)
        self.outQueueOUT.FreeTensor(outLocal)


def fill(dims, value, y, workspace=None, tiling=None, DTYPE_VALUE=asc.float, DTYPE_Y=asc.float):
    t = tiling
    key = t.get("TILING_KEY", 0)
    if key not in (0, 1):
        return
    if DTYPE_VALUE == asc.int64_t:
        raise NotImplementedError("fill: KernelFill1_INT64 is not ported")
    T = asc.int8_t if DTYPE_VALUE in (asc.int8_t, asc.bool_t) else DTYPE_VALUE
    op = KernelFill(T, DTYPE_VALUE, DTYPE_Y, key == 1)
    op.Init(dims, value, y, t["smallCoreDataNum"], t["bigCoreDataNum"], t["bigCoreLoopNum"], t["smallCoreLoopNum"],
            t["ubPartDataNum"], t["smallCoreTailDataNum"], t["bigCoreTailDataNum"], t["tailBlockNum"])
    op.Process()
