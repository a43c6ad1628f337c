"""NKI: what one small Vector-engine op costs numpy on SBUF's partition-strided rows, the floor under the
per-instruction figure of bench_nki_mamba. A (128, 16) fp32 multiply whose three operands are rows of
trn2's SBUF model (128 partitions, one per ``lane_bytes`` apart, as npusim stores them), at fresh
addresses each time (next fit sweeps the whole SBUF in a kernel of thousands of small tiles: every
operand's 128 cache lines come from DRAM), at the same addresses (in cache), and on a contiguous array;
and the same multiply through the native path tensor_tensor takes (native_elementwise.binary: one C loop over
the rows, numpy's general iterator and overlap buffering skipped), when a C compiler is there."""
import numpy as np

from harness import Case
from npusim.core.memory import Memory
from npusim.nki import native_elementwise, spec

N = 2000


def _rows():
    chip = spec.chip("trn2")
    mem = Memory("SBUF", chip.sbuf_usable, chip.partitions, small_pages=True)
    rows = np.ndarray((chip.partitions, chip.sbuf_usable // 4), np.float32, buffer=mem.data,
                      strides=(chip.sbuf_usable, 4))
    rows[...] = 1.0                     # every page mapped: only the cache differs between the cases
    return rows


def _multiply(rows, step):
    width = rows.shape[1] - 48
    def fn():
        col = 0
        for _ in range(N):
            np.multiply(rows[:, col:col + 16], rows[:, col + 16:col + 32], out=rows[:, col + 32:col + 48])
            col = (col + step) % width
    return fn


def _native_multiply(rows, step):
    width = rows.shape[1] - 48
    def fn():
        col = 0
        for _ in range(N):
            if not native_elementwise.binary(np.multiply, rows[:, col:col + 16], rows[:, col + 16:col + 32],
                                             rows[:, col + 32:col + 48]):
                raise AssertionError(native_elementwise.last_reason())
            col = (col + step) % width
    return fn


def cases():
    rows = _rows()
    contiguous = np.ones((3, 128, 16), np.float32)

    def dense():
        for _ in range(N):
            np.multiply(contiguous[0], contiguous[1], out=contiguous[2])

    return [
        Case("(128, 16) fp32 multiply on SBUF rows at fresh addresses (next fit's sweep: cold lines)",
             _multiply(rows, 48), per=N, repeats=5),
        Case("(128, 16) fp32 multiply on SBUF rows at the same addresses (cached)", _multiply(rows, 0),
             per=N, repeats=5),
        Case("(128, 16) fp32 multiply on a contiguous array", dense, per=N, repeats=5),
    ] + ([
        Case("(128, 16) fp32 multiply on SBUF rows at fresh addresses, native (tensor_tensor's path)",
             _native_multiply(rows, 48), per=N, repeats=5),
        Case("(128, 16) fp32 multiply on SBUF rows at the same addresses, native", _native_multiply(rows, 0),
             per=N, repeats=5),
    ] if native_elementwise.enabled() else [])
