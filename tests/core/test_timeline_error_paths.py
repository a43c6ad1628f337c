"""The timeline's access index on an error path: an access whose liveness flag raises in ``__bool__``
while a bucket drops its dead accesses. The error comes out (as access_log.append raises it), and the
bucket stays consistent: no access released twice (the C index once segfaulted at the log's death)."""
import gc
import sys

import pytest

from npusim.core import Memory, Timeline
from npusim.core.access_log import build_index
from npusim.core.view import Footprint


class _Raises:
    def __bool__(self):
        raise ValueError("liveness unknown")


@pytest.mark.parametrize("bad_at", [0, 5, 10, 15])
def test_a_raising_liveness_flag_while_dropping_the_dead_leaves_the_index_consistent(bad_at):
    mem = Memory("sbuf", 1 << 16, lanes=128)
    tl = Timeline({"vector": 1e9})
    tl.place("vector", "w", 100, writes=[Footprint(mem, 0, 128, 0, 64)])
    log = tl._logs[mem.id]
    fp = Footprint(mem, 0, 128, 0, 64)
    # 20 accesses of one bucket: the 17th's append drops the dead (every odd one) first
    accs = [[float(i), True, "vector", 0, fp, None, False, i % 2 == 0] for i in range(20)]
    accs[bad_at][7] = _Raises()
    log.accesses[:] = accs
    before = [sys.getrefcount(a) for a in accs]
    with pytest.raises(ValueError, match="liveness unknown") as raised:
        build_index(log)
    log.accesses[:] = []
    del log, tl, raised         # (the traceback holds build_index's frame, which holds the log)
    gc.collect()
    after = [sys.getrefcount(a) for a in accs]
    # every access held alike (an access released twice would count one less than the others; the C
    # index once kept such a dangling entry and crashed at the log's death)
    assert len(set(after)) == 1 and after[0] <= before[0], (before, after)


def test_emptying_the_index_during_a_scan_is_refused_not_a_use_after_free():
    """An access end of a float subclass runs Python code in the scan's comparison; code that empties
    the log's index there would free the bucket the C scan is walking: the native log refuses (a
    RuntimeError), the Python log scans the old bucket list to the end."""
    mem = Memory("sbuf", 1 << 16, lanes=128)
    tl = Timeline({"vector": 1e9, "scalar": 1e9})
    tl.place("scalar", "warm-up", 1)
    fp = Footprint(mem, 0, 128, 0, 64)
    for _ in range(3):
        tl.place("vector", "w", 100, writes=[fp])
    log = tl._logs[mem.id]

    class Meddling(float):
        def __gt__(self, other):
            log.buckets = {}
            return float(self) > other

    for a in log.accesses:
        a[0] = Meddling(a[0])
    build_index(log)            # (the buckets list the accesses with meddling ends)
    try:
        t = tl._conflicts_end(Footprint(mem, 0, 128, 0, 64), False, "scalar", 1.0)
    except RuntimeError as e:
        assert "during a scan" in str(e)
    else:
        assert t == 300.0          # the last write's end
