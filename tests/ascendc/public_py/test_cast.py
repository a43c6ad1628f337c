"""Python port of Huawei's Cast sample, scenario 1 (half -> int32_t, CAST_CEIL).

Original: github.com/mirror-cann/asc-devkit, examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/
cast/cast.asc (kernel cast_custom, scenarioNum == 1), commit 82b89a15f26329511fc7fbc807d5132a1f9b4ba7. Scenario 0
(int4b_t) is not ported: npusim has no 4-bit tensors.
"""
import numpy as np

from npusim import ascendc as asc


def cast_custom(x, y, blockLength, tileLength):
    asc.InitSocState()

    xGm = asc.GlobalTensor(asc.half)
    yGm = asc.GlobalTensor(asc.int32_t)
    xGm.SetGlobalBuffer(x.cast(asc.half) + blockLength * asc.GetBlockIdx(), blockLength)
    yGm.SetGlobalBuffer(y.cast(asc.int32_t) + blockLength * asc.GetBlockIdx(), blockLength)

    ubAllocator = asc.LocalMemAllocator(asc.Hardware.UB)
    xLocal = ubAllocator.Alloc(asc.half, tileLength)
    yLocal = ubAllocator.Alloc(asc.int32_t, tileLength)

    asc.DataCopy(xLocal, xGm, tileLength)
    asc.SetFlag(asc.HardEvent.MTE2_V, 0)
    asc.WaitFlag(asc.HardEvent.MTE2_V, 0)

    asc.Cast(yLocal, xLocal, asc.RoundMode.CAST_CEIL, tileLength)
    asc.SetFlag(asc.HardEvent.V_MTE3, 0)
    asc.WaitFlag(asc.HardEvent.V_MTE3, 0)

    asc.DataCopy(yGm, yLocal, tileLength)

    asc.PipeBarrier(asc.PIPE_ALL)


def test_cast_half_to_int32_ceil():
    blocks, blockLength = 4, 512
    rng = np.random.default_rng(3)
    x = rng.uniform(-1000, 1000, blocks * blockLength).astype(np.float16)
    y = np.zeros(blocks * blockLength, np.int32)
    asc.launch(cast_custom, blocks, x, y, blockLength, blockLength)
    np.testing.assert_array_equal(y, np.ceil(x.astype(np.float64)).astype(np.int32))
