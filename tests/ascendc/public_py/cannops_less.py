"""A line-by-line Python port of cann-ops' less kernel (Hayden727/cann-ops, src/math/less/op_kernel/less.cpp @
eef0ff770ece1497e98bbf063028465a20417dfe, kept verbatim in tests/ascendc/public/less/): KernelLess for float and
half (Compare LT into the int8 output's bits, Duplicate, Select tensor-scalar, Cast), int8 and int32; the
tiling's isTailBlock picks IsExistBigCore, TILING_KEY the temporary buffers (read inside Init, as the .cpp's
TILING_KEY_IS there does). The int64 and bfloat16 paths are not ported."""
from npusim import ascendc as asc

BUFFER_NUM = 2
BLOCK_SIZE = 32
SCALAR_MIN_FP16 = 0.00000005960464477539063
SCALAR_MUL_FP16 = 4096.0
SCALAR_ZERO_FP32 = 0.0
H, F, I8, U8, I32 = asc.half, asc.float, asc.int8_t, asc.uint8_t, asc.int32_t


class KernelLess:
    def __init__(self, TYPE_X1, TYPE_X2, IsExistBigCore, tiling_key):
        self.T, self.X2, self.IsExistBigCore, self.key = TYPE_X1, TYPE_X2, IsExistBigCore, tiling_key
        self.pipe = asc.TPipe()
        self.inQueueX1 = asc.TQue(asc.QuePosition.VECIN, BUFFER_NUM)
        self.inQueueX2 = asc.TQue(asc.QuePosition.VECIN, BUFFER_NUM)
        self.outQueueY = asc.TQue(asc.QuePosition.VECOUT, BUFFER_NUM)
        self.tmp1, self.tmp2, self.tmp3, self.tmp4 = (asc.TBuf(asc.QuePosition.VECCALC) for _ in range(4))
        self.x1Gm, self.x2Gm, self.yGm = asc.GlobalTensor(TYPE_X1), asc.GlobalTensor(TYPE_X2), asc.GlobalTensor(I8)

    def Init(self, x1, x2, y, smallCoreDataNum, bigCoreDataNum, bigCoreLoopNum, smallCoreLoopNum, ubPartDataNum,
             smallCoreTailDataNum, bigCoreTailDataNum, tailBlockNum, bigprocessDataNumComputes,
             smallprocessDataNumComputes, tailbigprocessDataNumComputes, tailsmallprocessDataNumComputes):
        asc.ASSERT(asc.GetBlockNum() != 0, "block dim can not be zero!")
        coreNum = asc.GetBlockIdx()
        globalBufferIndex = bigCoreDataNum * asc.GetBlockIdx()
        self.ubPartDataNum = ubPartDataNum
        if self.IsExistBigCore and coreNum < tailBlockNum:
            self.coreDataNum, self.tileNum, self.tailDataNum = bigCoreDataNum, bigCoreLoopNum, bigCoreTailDataNum
            self.processDataNumComputes = bigprocessDataNumComputes
            self.tailprocessDataNumComputes = tailbigprocessDataNumComputes
        elif self.IsExistBigCore:
            self.coreDataNum, self.tileNum, self.tailDataNum = smallCoreDataNum, smallCoreLoopNum, smallCoreTailDataNum
            self.processDataNumComputes = smallprocessDataNumComputes
            self.tailprocessDataNumComputes = tailsmallprocessDataNumComputes
            globalBufferIndex -= (bigCoreDataNum - smallCoreDataNum) * (asc.GetBlockIdx() - tailBlockNum)
        else:
            self.coreDataNum, self.tileNum, self.tailDataNum = smallCoreDataNum, smallCoreLoopNum, smallCoreTailDataNum
            self.processDataNumComputes = smallprocessDataNumComputes
            self.tailprocessDataNumComputes = tailsmallprocessDataNumComputes
            globalBufferIndex = smallCoreDataNum * asc.GetBlockIdx()
        self.x1Gm.SetGlobalBuffer(x1.cast(self.T) + globalBufferIndex, self.coreDataNum)
        self.x2Gm.SetGlobalBuffer(x2.cast(self.X2) + globalBufferIndex, self.coreDataNum)
        self.yGm.SetGlobalBuffer(y.cast(I8) + globalBufferIndex, self.coreDataNum)
        n = self.ubPartDataNum
        self.pipe.InitBuffer(self.inQueueX1, BUFFER_NUM, n * self.T.itemsize + 256)
        self.pipe.InitBuffer(self.inQueueX2, BUFFER_NUM, n * self.X2.itemsize + 256)
        self.pipe.InitBuffer(self.outQueueY, BUFFER_NUM, n * I8.itemsize + 256)
        if self.key == 0:
            self.pipe.InitBuffer(self.tmp1, n * H.itemsize)
            self.pipe.InitBuffer(self.tmp2, n * H.itemsize)
        elif self.key == 1:
            if self.T == asc.int64_t:
                raise NotImplementedError("less: the int64 path is not ported")
            self.pipe.InitBuffer(self.tmp1, n * H.itemsize + 256)
            self.pipe.InitBuffer(self.tmp2, n * F.itemsize + 256)
            self.pipe.InitBuffer(self.tmp3, n * F.itemsize + 256)

    def Process(self):
        loopCount = self.tileNum
        self.processDataNum = self.ubPartDataNum
        for i in range(loopCount - 1):
            self.CopyIn(i)
            self.ProcessCompute(i)
            self.CopyOut(i)
        self.processDataNum = self.tailDataNum
        self.processDataNumComputes = self.tailprocessDataNumComputes
        self.CopyIn(loopCount - 1)
        self.ProcessCompute(loopCount - 1)
        self.CopyOut(loopCount - 1)

    def ProcessCompute(self, progress):
        if self.T in (I8, U8):
            self.ComputeInt8(progress)
        elif self.T == H:
            self.ComputeFp16(progress)
        elif self.T == F:
            self.ComputeFp(progress)
        elif self.T == I32:
            self.ComputeInt(progress)
        else:
            raise NotImplementedError("less: the int64 / bfloat16 paths are not ported")

    def CopyIn(self, progress):
        x1Local = self.inQueueX1.AllocTensor(self.T)
        x2Local = self.inQueueX2.AllocTensor(self.X2)
        asc.DataCopy(x1Local, self.x1Gm[progress * self.ubPartDataNum], self.processDataNum)
        asc.DataCopy(x2Local, self.x2Gm[progress * self.ubPartDataNum], self.processDataNum)
        self.inQueueX1.EnQue(x1Local)
        self.inQueueX2.EnQue(x2Local)

    def _deque(self):
        return self.inQueueX1.DeQue(self.T), self.inQueueX2.DeQue(self.X2), self.outQueueY.AllocTensor(I8)

    def _release(self, x1Local, x2Local, yLocal):
        self.inQueueX1.FreeTensor(x1Local)
        self.inQueueX2.FreeTensor(x2Local)
        self.outQueueY.EnQue(yLocal)

    def ComputeInt8(self, progress):
        n = self.processDataNum
        x1Local, x2Local, yLocal = self._deque()
        p1, p2 = self.tmp1.Get(H), self.tmp2.Get(H)
        asc.Cast(p1, x1Local, asc.RoundMode.CAST_NONE, n)
        asc.Cast(p2, x2Local, asc.RoundMode.CAST_NONE, n)
        asc.Sub(p1, p2, p1, n)
        asc.Mins(p1, p1, SCALAR_MIN_FP16, n)
        asc.Maxs(p1, p1, SCALAR_ZERO_FP32, n)
        asc.Muls(p1, p1, SCALAR_MUL_FP16, n)
        asc.Muls(p1, p1, SCALAR_MUL_FP16, n)
        asc.Cast(yLocal, p1, asc.RoundMode.CAST_NONE, n)
        self._release(x1Local, x2Local, yLocal)

    def ComputeFp16(self, progress):
        nc = self.processDataNumComputes
        x1Local, x2Local, yLocal = self._deque()
        asc.Compare(yLocal, x1Local, x2Local, asc.CMPMODE.LT, nc)
        asc.Duplicate(x1Local, 1, nc)
        asc.Select(x1Local, yLocal, x1Local, 0, asc.SELMODE.VSEL_TENSOR_SCALAR_MODE, nc)
        asc.Cast(yLocal, x1Local, asc.RoundMode.CAST_NONE, nc)
        self._release(x1Local, x2Local, yLocal)

    def ComputeFp(self, progress):
        nc = self.processDataNumComputes
        x1Local, x2Local, yLocal = self._deque()
        asc.Compare(yLocal, x1Local, x2Local, asc.CMPMODE.LT, nc)
        asc.Duplicate(x1Local, 1, nc)
        asc.Select(x1Local, yLocal, x1Local, 0, asc.SELMODE.VSEL_TENSOR_SCALAR_MODE, nc)
        p1 = self.tmp1.Get(H)
        asc.Cast(p1, x1Local, asc.RoundMode.CAST_NONE, nc)
        asc.Cast(yLocal, p1, asc.RoundMode.CAST_NONE, nc)
        self._release(x1Local, x2Local, yLocal)

    def ComputeInt(self, progress):
        nc = self.processDataNumComputes
        x1Local, x2Local, yLocal = self._deque()
        p1 = self.tmp1.Get(H)
        asc.Max(x2Local, x1Local, x2Local, nc)
        asc.Compare(yLocal, x1Local, x2Local, asc.CMPMODE.EQ, nc)
        asc.Duplicate(p1, 0, nc)
        asc.Select(p1, yLocal, p1, 1, asc.SELMODE.VSEL_TENSOR_SCALAR_MODE, nc)
        asc.Cast(yLocal, p1, asc.RoundMode.CAST_NONE, nc)
        self._release(x1Local, x2Local, yLocal)

    def CopyOut(self, progress):
        yLocal = self.outQueueY.DeQue(I8)
        asc.DataCopy(self.yGm[progress * self.ubPartDataNum], yLocal, self.processDataNum)
        self.outQueueY.FreeTensor(yLocal)


def less(x1, x2, y, workspace=None, tiling=None, DTYPE_X1=F, DTYPE_X2=F):
    t = tiling
    op = KernelLess(DTYPE_X1, DTYPE_X2, t["isTailBlock"] == 1, t.get("TILING_KEY", 0))
    op.Init(x1, x2, y, t["smallCoreDataNum"], t["bigCoreDataNum"], t["bigCoreLoopNum"], t["smallCoreLoopNum"],
            t["ubPartDataNum"], t["smallCoreTailDataNum"], t["bigCoreTailDataNum"], t["tailBlockNum"],
            t["bigprocessDataNumComputes"], t["smallprocessDataNumComputes"], t["tailbigprocessDataNumComputes"],
            t["tailsmallprocessDataNumComputes"])
    op.Process()
