"""Python port of Huawei's TPipe/TQue Add sample (elementwise).

Original: github.com/mirror-cann/asc-devkit, examples/01_simd_cpp_api/00_introduction/01_add/add_tpipe_tque/
add_tpipe_tque.asc (the kernel add_custom), commit 82b89a15f26329511fc7fbc807d5132a1f9b4ba7. Host part: 8 blocks,
totalLength 8 * 2048 floats (main() of the same file).
"""
import numpy as np

from npusim import ascendc as asc


def add_custom(x, y, z, totalLength):
    pipe = asc.TPipe()
    inQueueX = asc.TQue(asc.TPosition.VECIN, 1)
    inQueueY = asc.TQue(asc.TPosition.VECIN, 1)
    outQueueZ = asc.TQue(asc.TPosition.VECOUT, 1)
    xGm = asc.GlobalTensor(asc.float)
    yGm = asc.GlobalTensor(asc.float)
    zGm = asc.GlobalTensor(asc.float)

    blockLength = totalLength // asc.GetBlockNum()
    xGm.SetGlobalBuffer(x.cast(asc.float) + blockLength * asc.GetBlockIdx(), blockLength)
    yGm.SetGlobalBuffer(y.cast(asc.float) + blockLength * asc.GetBlockIdx(), blockLength)
    zGm.SetGlobalBuffer(z.cast(asc.float) + blockLength * asc.GetBlockIdx(), blockLength)
    pipe.InitBuffer(inQueueX, 1, blockLength * 4)
    pipe.InitBuffer(inQueueY, 1, blockLength * 4)
    pipe.InitBuffer(outQueueZ, 1, blockLength * 4)

    xLocal = inQueueX.AllocTensor(asc.float)
    yLocal = inQueueY.AllocTensor(asc.float)
    asc.DataCopy(xLocal, xGm, blockLength)
    asc.DataCopy(yLocal, yGm, blockLength)
    inQueueX.EnQue(xLocal)
    inQueueY.EnQue(yLocal)

    xLocal = inQueueX.DeQue(asc.float)
    yLocal = inQueueY.DeQue(asc.float)
    zLocal = outQueueZ.AllocTensor(asc.float)
    asc.Add(zLocal, xLocal, yLocal, blockLength)
    outQueueZ.EnQue(zLocal)
    inQueueX.FreeTensor(xLocal)
    inQueueY.FreeTensor(yLocal)

    zLocal = outQueueZ.DeQue(asc.float)
    asc.DataCopy(zGm, zLocal, blockLength)
    outQueueZ.FreeTensor(zLocal)


def test_add_tpipe_tque_matches_numpy():
    numBlocks, totalLength = 8, 8 * 2048
    rng = np.random.default_rng(1)
    x = rng.uniform(1, 100, totalLength).astype(np.float32)
    y = rng.uniform(1, 100, totalLength).astype(np.float32)
    z = np.zeros_like(x)
    res = asc.launch(add_custom, numBlocks, x, y, z, totalLength)
    np.testing.assert_array_equal(z, x + y)
    assert res.auto_syncs == 0          # the queues order everything
