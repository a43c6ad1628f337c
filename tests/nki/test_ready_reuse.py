"""Run.issue reuses the answer of the Run.ready_ns call just before it (dma_issue asks, then places the
same lists) only while nothing can have changed it: the start always equals what a data-order placement
would compute."""
import numpy as np

from npusim.nki import spec
from npusim.nki.runtime import Run
from npusim.nki.tensor import MemoryRegion


def _run():
    run = Run(spec.chip("trn2"))
    a = run.allocate((128, 64), np.float32, MemoryRegion.sbuf, name="a")
    b = run.allocate((128, 64), np.float32, MemoryRegion.sbuf, name="b")
    return run, a, b


def _data_order_start(run, engine, reads, writes, not_before):
    tl = run.timeline
    return tl.dependencies_end([t.tv.footprint for t in reads], [t.tv.footprint for t in writes], engine,
                               max(tl.engines[engine].free_ns, not_before))


def test_issue_after_ready_starts_at_the_data_order_start():
    run, a, b = _run()
    run.issue("w", "vector", 500, writes=[a])                   # a is written until ~520 ns
    reads, writes = [a], [b]
    ready = run.ready_ns("dma-q0", reads=reads, writes=writes)
    assert ready == run.timeline.engines["vector"].free_ns
    for not_before in (0.0, ready + 7.0):
        run2, a2, b2 = _run()
        run2.issue("w", "vector", 500, writes=[a2])
        r2, w2 = [a2], [b2]
        want = _data_order_start(run2, "dma-q0", r2, w2, not_before)
        run2.ready_ns("dma-q0", reads=r2, writes=w2)
        ev = run2.issue("dma", "dma-q0", 100, reads=r2, writes=w2, not_before_ns=not_before).event
        assert ev.start_ns == want


def test_a_placement_in_between_is_not_missed():
    run, a, b = _run()
    reads, writes = [a], [b]
    assert run.ready_ns("dma-q0", reads=reads, writes=writes) == 0.0
    # placed after the question, past Run.issue (as issue_one and other callers of the timeline do)
    run.timeline.place("vector", "w", 500, writes=[a.tv.footprint])
    want = _data_order_start(run, "dma-q0", reads, writes, 0.0)
    assert want == run.timeline.engines["vector"].free_ns > 0.0
    assert run.issue("dma", "dma-q0", 100, reads=reads, writes=writes).event.start_ns == want


def test_another_engine_or_other_lists_do_not_reuse_the_answer():
    run, a, b = _run()
    run.issue("w", "vector", 500, writes=[a])
    run.issue("long", "vector", 5000)                           # vector free long after a is written
    reads, writes = [a], [b]
    assert run.ready_ns("vector", reads=reads, writes=writes) == run.timeline.engines["vector"].free_ns
    want = _data_order_start(run, "scalar", reads, writes, 0.0)
    assert want < run.timeline.engines["vector"].free_ns
    assert run.issue("r", "scalar", 10, reads=reads, writes=writes).event.start_ns == want    # another engine
    c = run.allocate((128, 64), np.float32, MemoryRegion.sbuf, name="c")
    run.issue("w", "gpsimd", 3000, writes=[c])
    assert run.ready_ns("scalar", reads=[a], writes=[]) < run.timeline.engines["gpsimd"].free_ns
    reads = [c]
    want = _data_order_start(run, "scalar", reads, [], 0.0)
    assert want == run.timeline.engines["gpsimd"].free_ns
    assert run.issue("r", "scalar", 10, reads=reads, writes=[]).event.start_ns == want        # other lists
