"""okk: BDC exp/sigmoid and GDMA copies on (8, 64, 64, 64) fp32 against plain numpy doing the same math
and against Sophgo's C-model running the same calls (when the tpu-mlir 1.30.2 libraries are in the
cache, see ``make oracle``); per-call overhead on a tiny shape (target < 50 us)."""
import ctypes
import os

import numpy as np

from harness import Case
from npusim import configure, okk

SHAPE = (8, 64, 64, 64)                 # 128 KiB per NPU per fp32 tensor: three fit in 512 KiB
SRC, DST, WORK = 0, 0x20000, 0x40000
G = okk.okk_global_mem_start_addr()
TINY_CALLS = 500


def _cmodel_path():
    root = os.environ.get("NPUSIM_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "npusim")
    p = os.path.join(root, "tpu-mlir-1.30.2", "lib", "libcmodel_bm1684.so")
    return p if os.path.isfile(p) else None


class _Dim4(ctypes.Structure):
    _fields_ = [("n", ctypes.c_int), ("c", ctypes.c_int), ("h", ctypes.c_int), ("w", ctypes.c_int)]


def _cmodel(x: np.ndarray):
    """Sophgo's C-model in this process (valid calls only: its errors exit the process)."""
    path = _cmodel_path()
    if path is None:
        return None
    lib = ctypes.CDLL(path, mode=os.RTLD_LAZY | os.RTLD_GLOBAL)
    lib.cmodel_init.argtypes = [ctypes.c_int32, ctypes.c_int64]
    if lib.cmodel_init(0, 1 << 28) != 0:
        return None
    lib.get_global_memaddr.restype = ctypes.c_void_p
    lib.get_global_memaddr.argtypes = [ctypes.c_int32]
    ctypes.memmove(lib.get_global_memaddr(0), x.ctypes.data, x.nbytes)
    u32, u64, p = ctypes.c_uint32, ctypes.c_uint64, ctypes.c_void_p
    for name, types in (("okk_gdma_32bit_cpy_S2L", [u32, u64, p, p, p]),
                        ("okk_gdma_32bit_cpy_L2S", [u64, u32, p, p, p]),
                        ("okk_bdc_exp", [u32, u32, u32, p]), ("okk_bdc_sigmoid", [u32, u32, u32, p]),
                        ("okk_bdc_neg", [u32, u32, p, p, p])):
        getattr(lib, name).argtypes = types
    lib.okk_initialize()
    return lib


def cases():
    x = np.random.default_rng(0).uniform(-10, 10, SHAPE).astype(np.float32)
    sh = okk.dim4(*SHAPE)
    tiny = okk.dim4(1, 1, 1, 1)
    dev = okk.Device(global_mem_bytes=1 << 28)
    with dev:
        dev.write_system(G, x)
        okk.okk_gdma_32bit_cpy_S2L(SRC, G, sh)
        okk.okk_gdma_32bit_set_C_local(0x60000, 1.0, okk.dim4(1, 64, 1, 64))

    def on_dev(f):
        def run():
            with dev, configure(record_source=False):
                f()
        return run

    def tiny_calls():
        for _ in range(TINY_CALLS):
            okk.okk_bdc_neg(0x60080, 0x60000, tiny, None, None)

    def tiny_numpy():
        a = np.ones(1, np.float32)
        for _ in range(TINY_CALLS):
            np.negative(a)

    out = [
        Case("okk_bdc_exp (8,64,64,64) fp32 [7 instructions]",
             on_dev(lambda: okk.okk_bdc_exp(DST, SRC, WORK, sh)), numpy=lambda: np.exp(x), repeats=3),
        Case("okk_bdc_sigmoid (8,64,64,64) fp32 [11 instructions]",
             on_dev(lambda: okk.okk_bdc_sigmoid(DST, SRC, WORK, sh)), numpy=lambda: 1 / (1 + np.exp(-x)),
             repeats=3),
        Case("okk_gdma_32bit_cpy_S2L (8,64,64,64) fp32, 8 MiB",
             on_dev(lambda: okk.okk_gdma_32bit_cpy_S2L(DST, G, sh)), numpy=lambda: np.copy(x),
             target="within 2x of numpy"),
        Case("okk_gdma_32bit_cpy_L2S (8,64,64,64) fp32, 8 MiB",
             on_dev(lambda: okk.okk_gdma_32bit_cpy_L2S(G + (16 << 20), SRC, sh)), numpy=lambda: np.copy(x),
             target="within 2x of numpy"),
        Case("okk_bdc_neg (1,1,1,1): per-call overhead", on_dev(tiny_calls), numpy=tiny_numpy,
             per=TINY_CALLS, target="< 50 us per call"),
    ]
    if _cmodel_path() is None:
        return out
    # Loaded on the first C-model case, after the npusim cases ran: libcmodel starts worker threads
    # that keep spinning and would otherwise be charged to (and slow down) every npusim case.
    d = _Dim4(*SHAPE)
    t = _Dim4(1, 1, 1, 1)
    loaded = []

    def lib():
        if not loaded:
            lb = _cmodel(x)
            if lb is None:
                raise RuntimeError("the C-model library did not initialize")
            lb.okk_gdma_32bit_cpy_S2L(SRC, G, ctypes.byref(d), None, None)
            loaded.append(lb)
        return loaded[0]

    def cm_tiny():
        lb = lib()
        for _ in range(TINY_CALLS):
            lb.okk_bdc_neg(0x60080, 0x60000, ctypes.byref(t), None, None)

    def polled(f):
        # libcmodel may defer commands to okk_poll: time the call and the poll together
        def run():
            f()
            lib().okk_poll()
            lib().okk_initialize()
        return run
    out += [
        Case("C-model okk_bdc_exp (8,64,64,64)",
             polled(lambda: lib().okk_bdc_exp(DST, SRC, WORK, ctypes.byref(d))), repeats=3),
        Case("C-model okk_bdc_sigmoid (8,64,64,64)",
             polled(lambda: lib().okk_bdc_sigmoid(DST, SRC, WORK, ctypes.byref(d))), repeats=3),
        Case("C-model okk_gdma_32bit_cpy_S2L (8,64,64,64)",
             polled(lambda: lib().okk_gdma_32bit_cpy_S2L(DST, G, ctypes.byref(d), None, None))),
        Case("C-model okk_gdma_32bit_cpy_L2S (8,64,64,64)",
             polled(lambda: lib().okk_gdma_32bit_cpy_L2S(G + (16 << 20), SRC, ctypes.byref(d), None, None))),
        Case("C-model okk_bdc_neg (1,1,1,1) per call", polled(cm_tiny), per=TINY_CALLS),
    ]
    return out
