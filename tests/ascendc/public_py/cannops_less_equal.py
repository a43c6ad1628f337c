"""A line-by-line Python port of cann-ops' less_equal kernel (Hayden727/cann-ops,
src/math/less_equal/op_kernel/less_equal.cpp @ eef0ff770ece1497e98bbf063028465a20417dfe, kept verbatim in
tests/ascendc/public/less_equal/): KernelLessEqual<DTYPE_X1> for half, float, int8 and int32, the result as
int8 0/1 built from Max/Min, Sub, Abs and saturating multiplications. The .cpp's DTYPE_X1 define is the
keyword argument DTYPE_X1."""
from npusim import ascendc as asc

BUFFER_NUM = 2
NEGATIVE_ONE_FP32 = -1.0
POSITIVE_ONE_FP32 = 1.0
NEGATIVE_ONE_I32 = -1
POSITIVE_ONE_I32 = 1
MIN_ACCURACY_FP16 = 0.00000005960464477539063
MAX_MUL_FP16 = 4096.0
MIN_ACCURACY_FP32 = 1.1754943508222875e-38
MAX_MUL_1_FP32 = 1125899906842624.0
MAX_MUL_2_FP32 = 67108864.0
BLOCK_SIZE = 32
H, F, I8, I32 = asc.half, asc.float, asc.int8_t, asc.int32_t


class KernelLessEqual:
    def __init__(self, typeT):
        self.T = typeT
        self.pipe = asc.TPipe()
        self.calc_buf_1, self.calc_buf_2, self.calc_buf_3, self.calc_buf_4 = (asc.TBuf(asc.TPosition.VECCALC)
                                                                              for _ in range(4))
        self.x1_inque = asc.TQue(asc.QuePosition.VECIN, BUFFER_NUM)
        self.x2_inque = asc.TQue(asc.QuePosition.VECIN, BUFFER_NUM)
        self.y_outque = asc.TQue(asc.QuePosition.VECOUT, BUFFER_NUM)
        self.x1_gm, self.x2_gm, self.y_gm = asc.GlobalTensor(typeT), asc.GlobalTensor(typeT), asc.GlobalTensor(I8)

    def Init(self, x1, x2, y, tiling_data):
        T = self.T
        asc.ASSERT(asc.GetBlockNum() != 0, "block dim can not be zero!")
        self.ResovleTiling(tiling_data)
        off = self.block_offset * asc.GetBlockIdx()
        self.x1_gm.SetGlobalBuffer(x1.cast(T) + off, self.block_length)
        self.x2_gm.SetGlobalBuffer(x2.cast(T) + off, self.block_length)
        self.y_gm.SetGlobalBuffer(y.cast(I8) + off, self.block_length)
        tc = self.tile_cache
        self.pipe.InitBuffer(self.x1_inque, BUFFER_NUM, tc * T.itemsize)
        self.pipe.InitBuffer(self.x2_inque, BUFFER_NUM, tc * T.itemsize)
        self.pipe.InitBuffer(self.y_outque, BUFFER_NUM, max(BLOCK_SIZE, tc * I8.itemsize))
        self.pipe.InitBuffer(self.calc_buf_1, tc * T.itemsize)
        self.pipe.InitBuffer(self.calc_buf_2, max(BLOCK_SIZE, tc * H.itemsize))
        self.pipe.InitBuffer(self.calc_buf_3, max(BLOCK_SIZE, tc * H.itemsize))
        self.pipe.InitBuffer(self.calc_buf_4, max(BLOCK_SIZE, tc * F.itemsize))

    def Process(self):
        if self.total_length <= BLOCK_SIZE // self.T.itemsize:
            self.CopyInPad(0)
            self.Compute(0)
            self.CopyOutPad(0)
            return
        loopCount = self.tile_num
        for i in range(loopCount - 1):
            self.CopyIn(i)
            self.Compute(i)
            self.CopyOut(i)
        if asc.GetBlockIdx() == asc.GetBlockNum() - 1:
            self.CopyInPad(loopCount - 1)
            self.Compute(loopCount - 1)
            self.CopyOutPad(loopCount - 1)
        else:
            self.CopyIn(loopCount - 1)
            self.Compute(loopCount - 1)
            self.CopyOut(loopCount - 1)

    def ComputeHalf(self, x1_local, x2_local, y_compute):
        n = self.tile_cache
        asc.Max(y_compute, x1_local, x2_local, n)
        asc.Sub(y_compute, x2_local, y_compute, n)
        asc.Abs(y_compute, y_compute, n)
        asc.Mins(y_compute, y_compute, MIN_ACCURACY_FP16, n)
        asc.Muls(y_compute, y_compute, MAX_MUL_FP16, n)
        asc.Muls(y_compute, y_compute, MAX_MUL_FP16, n)
        asc.Adds(y_compute, y_compute, NEGATIVE_ONE_FP32, n)
        asc.Abs(y_compute, y_compute, n)

    def ComputeFloat(self, x1_local, x2_local, y_compute):
        n = self.tile_cache
        asc.Max(y_compute, x1_local, x2_local, n)
        asc.Sub(y_compute, x2_local, y_compute, n)
        asc.Abs(y_compute, y_compute, n)
        asc.Mins(y_compute, y_compute, MIN_ACCURACY_FP32, n)
        asc.Muls(y_compute, y_compute, MAX_MUL_1_FP32, n)
        asc.Muls(y_compute, y_compute, MAX_MUL_1_FP32, n)
        asc.Muls(y_compute, y_compute, MAX_MUL_2_FP32, n)
        asc.Adds(y_compute, y_compute, NEGATIVE_ONE_FP32, n)
        asc.Abs(y_compute, y_compute, n)

    def ComputeInt8(self, x1_local_fp16, x2_local_fp16, y_local_fp16):
        n = self.tile_cache
        asc.Min(y_local_fp16, x1_local_fp16, x2_local_fp16, n)
        asc.Sub(y_local_fp16, x2_local_fp16, y_local_fp16, n)
        asc.Mins(y_local_fp16, y_local_fp16, POSITIVE_ONE_FP32, n)
        asc.Sub(x1_local_fp16, x1_local_fp16, x2_local_fp16, n)
        asc.Abs(x1_local_fp16, x1_local_fp16, n)
        asc.Mins(x1_local_fp16, x1_local_fp16, POSITIVE_ONE_FP32, n)
        asc.Duplicate(x2_local_fp16, POSITIVE_ONE_FP32, n)
        asc.Sub(x1_local_fp16, x2_local_fp16, x1_local_fp16, n)
        asc.Add(y_local_fp16, y_local_fp16, x1_local_fp16, n)

    def ComputeInt32(self, x1_local, x2_local, y_compute):
        n = self.tile_cache
        asc.Min(y_compute, x1_local, x2_local, n)
        asc.Sub(y_compute, x2_local, y_compute, n)
        asc.Mins(y_compute, y_compute, POSITIVE_ONE_I32, n)
        asc.Sub(x1_local, x1_local, x2_local, n)
        asc.Mins(x1_local, x1_local, POSITIVE_ONE_I32, n)
        asc.Maxs(x1_local, x1_local, NEGATIVE_ONE_I32, n)
        asc.Mul(x1_local, x1_local, x1_local, n)
        asc.Duplicate(x2_local, POSITIVE_ONE_I32, n)
        asc.Sub(x1_local, x2_local, x1_local, n)
        asc.Add(y_compute, y_compute, x1_local, n)

    def ResovleTiling(self, t):
        total_length = t["totalLength"]
        pad32 = BLOCK_SIZE
        self.total_length = total_length
        if asc.GetBlockNum() >= 1 and asc.GetBlockIdx() == asc.GetBlockNum() - 1:
            self.block_length, self.tile_num = t["blockLengthEnd"], t["tileNumEnd"]
        else:
            self.block_length, self.tile_num = t["blockLengthMean"], t["tileNumMean"]
        self.block_offset = t["blockLengthMean"]
        self.tile_length = t["tileLengthMean"]
        self.tile_cache = t["tileLengthMean"]
        self.tile_length_end = t["tileLengthEnd"]
        if total_length < pad32:
            self.block_offset = 0
            self.tile_cache = pad32
            self.block_length = pad32

    def CopyIn(self, progress):
        x1_local = self.x1_inque.AllocTensor(self.T)
        x2_local = self.x2_inque.AllocTensor(self.T)
        asc.DataCopy(x1_local, self.x1_gm[progress * self.tile_cache], self.tile_cache)
        asc.DataCopy(x2_local, self.x2_gm[progress * self.tile_cache], self.tile_cache)
        self.x1_inque.EnQue(x1_local)
        self.x2_inque.EnQue(x2_local)

    def _end_len(self):
        return (self.tile_length_end + BLOCK_SIZE - 1) // BLOCK_SIZE * BLOCK_SIZE

    def CopyInPad(self, progress):
        x1_local = self.x1_inque.AllocTensor(self.T)
        x2_local = self.x2_inque.AllocTensor(self.T)
        asc.DataCopy(x1_local, self.x1_gm[progress * self.tile_cache], self._end_len())
        asc.DataCopy(x2_local, self.x2_gm[progress * self.tile_cache], self._end_len())
        self.x1_inque.EnQue(x1_local)
        self.x2_inque.EnQue(x2_local)

    def Compute(self, progress):
        T, n = self.T, self.tile_cache
        x1_local = self.x1_inque.DeQue(T)
        x2_local = self.x2_inque.DeQue(T)
        y_local = self.y_outque.AllocTensor(I8)
        y_compute = self.calc_buf_1.Get(T)
        if T == H:
            self.ComputeHalf(x1_local, x2_local, y_compute)
            asc.Cast(y_local, y_compute, asc.RoundMode.CAST_NONE, n)
        elif T == F:
            y_fp16 = self.calc_buf_2.Get(H)
            self.ComputeFloat(x1_local, x2_local, y_compute)
            asc.Cast(y_fp16, y_compute, asc.RoundMode.CAST_NONE, n)
            asc.Cast(y_local, y_fp16, asc.RoundMode.CAST_NONE, n)
        elif T == I8:
            x1_local_fp16, x2_local_fp16 = self.calc_buf_2.Get(H), self.calc_buf_3.Get(H)
            y_local_fp16 = self.calc_buf_4.Get(H)
            asc.Cast(x1_local_fp16, x1_local, asc.RoundMode.CAST_NONE, n)
            asc.Cast(x2_local_fp16, x2_local, asc.RoundMode.CAST_NONE, n)
            self.ComputeInt8(x1_local_fp16, x2_local_fp16, y_local_fp16)
            asc.Cast(y_local, y_local_fp16, asc.RoundMode.CAST_NONE, n)
        elif T == I32:
            y_fp16, y_fp32 = self.calc_buf_3.Get(H), self.calc_buf_4.Get(F)
            self.ComputeInt32(x1_local, x2_local, y_compute)
            asc.Cast(y_fp32, y_compute, asc.RoundMode.CAST_NONE, n)
            asc.Cast(y_fp16, y_fp32, asc.RoundMode.CAST_NONE, n)
            asc.Cast(y_local, y_fp16, asc.RoundMode.CAST_NONE, n)
        self.y_outque.EnQue(y_local)
        self.x1_inque.FreeTensor(x1_local)
        self.x2_inque.FreeTensor(x2_local)

    def CopyOut(self, progress):
        y_local = self.y_outque.DeQue(I8)
        asc.DataCopy(self.y_gm[progress * self.tile_cache], y_local, self.tile_cache)
        self.y_outque.FreeTensor(y_local)

    def CopyOutPad(self, progress):
        y_local = self.y_outque.DeQue(I8)
        asc.DataCopy(self.y_gm[progress * self.tile_cache], y_local, self._end_len())
        self.y_outque.FreeTensor(y_local)


def less_equal(x1, x2, y, workspace=None, tiling=None, DTYPE_X1=F):
    op = KernelLessEqual(DTYPE_X1)
    op.Init(x1, x2, y, tiling)
    op.Process()
