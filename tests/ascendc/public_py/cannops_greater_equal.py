"""A line-by-line Python port of cann-ops' greater_equal kernel (Hayden727/cann-ops,
src/math/greater_equal/op_kernel/greater_equal.cpp @ eef0ff770ece1497e98bbf063028465a20417dfe, kept verbatim in
tests/ascendc/public/greater_equal/). The file is less_equal.cpp with the operands of Max / Min / Sub swapped
and no int8 path, so the port is cannops_less_equal.py's KernelLessEqual with those methods replaced."""
import importlib.util
import os

from npusim import ascendc as asc

_spec = importlib.util.spec_from_file_location(
    "cannops_less_equal", os.path.join(os.path.dirname(os.path.abspath(__file__)), "cannops_less_equal.py"))
_le = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_le)

MIN_ACCURACY_FP16 = 5.9604645e-8
MIN_ACCURACY_FP32 = 1.1754943508222875e-38          # FLT_MIN
H, F, I8, I32 = asc.half, asc.float, asc.int8_t, asc.int32_t


class KernelGreaterEqual(_le.KernelLessEqual):
    def ComputeHalf(self, x1_local, x2_local, y_compute):
        n = self.tile_cache
        asc.Max(y_compute, x2_local, x1_local, n)
        asc.Sub(y_compute, x1_local, y_compute, n)
        asc.Abs(y_compute, y_compute, n)
        asc.Mins(y_compute, y_compute, MIN_ACCURACY_FP16, n)
        asc.Muls(y_compute, y_compute, _le.MAX_MUL_FP16, n)
        asc.Muls(y_compute, y_compute, _le.MAX_MUL_FP16, n)
        asc.Adds(y_compute, y_compute, _le.NEGATIVE_ONE_FP32, n)
        asc.Abs(y_compute, y_compute, n)

    def ComputeFloat(self, x1_local, x2_local, y_compute):
        n = self.tile_cache
        asc.Max(y_compute, x2_local, x1_local, n)
        asc.Sub(y_compute, x1_local, y_compute, n)
        asc.Abs(y_compute, y_compute, n)
        asc.Mins(y_compute, y_compute, MIN_ACCURACY_FP32, n)
        asc.Muls(y_compute, y_compute, _le.MAX_MUL_1_FP32, n)
        asc.Muls(y_compute, y_compute, _le.MAX_MUL_1_FP32, n)
        asc.Muls(y_compute, y_compute, _le.MAX_MUL_2_FP32, n)
        asc.Adds(y_compute, y_compute, _le.NEGATIVE_ONE_FP32, n)
        asc.Abs(y_compute, y_compute, n)

    def ComputeInt32(self, x1_local, x2_local, y_compute):
        n = self.tile_cache
        asc.Min(y_compute, x1_local, x2_local, n)
        asc.Sub(y_compute, x1_local, y_compute, n)
        asc.Mins(y_compute, y_compute, _le.POSITIVE_ONE_I32, n)
        asc.Sub(x1_local, x1_local, x2_local, n)
        asc.Mins(x1_local, x1_local, _le.POSITIVE_ONE_I32, n)
        asc.Maxs(x1_local, x1_local, _le.NEGATIVE_ONE_I32, n)
        asc.Mul(x1_local, x1_local, x1_local, n)
        asc.Duplicate(x2_local, _le.POSITIVE_ONE_I32, n)
        asc.Sub(x1_local, x2_local, x1_local, n)
        asc.Add(y_compute, y_compute, x1_local, n)

    def Compute(self, progress):
        if self.T == I8:
            raise NotImplementedError("greater_equal.cpp has no int8 path")
        super().Compute(progress)


def greater_equal(x1, x2, y, workspace=None, tiling=None, DTYPE_X1=F):
    op = KernelGreaterEqual(DTYPE_X1)
    op.Init(x1, x2, y, tiling)
    op.Process()
