"""Core bookkeeping per instruction (target: under 10 us per event) and cast/view throughput."""
import ml_dtypes
import numpy as np

from harness import Case
from npusim import configure
from npusim.core import Memory, RoundMode, TensorView, Timeline, cast

N_EVENTS = 2000


def _place_events(order: str):
    mem = Memory("sbuf", lane_bytes=192 * 1024, lanes=128)
    views = [TensorView(mem, 2048 * (i % 64), (128, 512), (192 * 1024, 4), "float32") for i in range(64)]

    def run():
        tl = Timeline({"dma-q0": 1.4e9, "vector": 0.96e9})
        with configure(record_source=True):
            for i in range(N_EVENTS // 2):
                a, b = views[i % 64].footprint, views[(i + 1) % 64].footprint
                tl.place("dma-q0", "nisa.dma_copy", 1000, writes=[a], order=order)
                if order == "sync":
                    tl.wait("vector", tl.signal("dma-q0"))
                tl.place("vector", "nisa.tensor_scalar", 512, reads=[a], writes=[b], order=order)
                if order == "sync":
                    tl.wait("dma-q0", tl.signal("vector"))
    return run


def _views():
    mem = Memory("sbuf", lane_bytes=192 * 1024, lanes=128)

    def run():
        for i in range(N_EVENTS):
            TensorView(mem, 4 * (i % 1000), (128, 64), (192 * 1024, 4), "float32")
    return run


def cases():
    rng = np.random.default_rng(0)
    x = rng.standard_normal(1 << 20).astype(np.float32) * 100
    mem = Memory("m", 8 << 20)
    src = TensorView(mem, 0, (1024, 1024), None, "float32")
    dst = TensorView(mem, 4 << 20, (1024, 1024), None, "float32")
    src.write(x.reshape(1024, 1024))
    return [
        Case("Timeline.place, data order, 2 footprints", _place_events("data"), per=N_EVENTS,
             target="< 10 us per event"),
        Case("Timeline.place, sync order + flag, race check", _place_events("sync"), per=N_EVENTS,
             target="< 10 us per event"),
        Case("TensorView: build + bounds check (laned)", _views(), per=N_EVENTS, target="< 10 us"),
        Case("cast fp32 -> bf16 RINT, 1M", lambda: cast(x, "bfloat16"),
             numpy=lambda: x.astype(ml_dtypes.bfloat16)),
        Case("cast fp32 -> int8 RINT saturate, 1M", lambda: cast(x, "int8"),
             numpy=lambda: np.clip(np.rint(x), -128, 127).astype(np.int8)),
        Case("cast fp32 -> fp16 TRUNC, 1M", lambda: cast(x, "float16", RoundMode.TRUNC),
             numpy=lambda: x.astype(np.float16)),
        Case("view read + write 4 MiB (init tracked)", lambda: dst.write(src.read()),
             numpy=lambda: np.copyto(np.empty_like(x), x)),
    ]
