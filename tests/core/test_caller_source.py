"""core.timeline.caller_source: each event names its own user call site, whatever path through npusim led
there (the file:line of a frame is cached per code object and instruction offset)."""
import os
import sys

from npusim.core import timeline
from npusim.core.timeline import Timeline, caller_source, source_override

# A stand-in front end: code whose file lies inside the npusim package, so the walk passes over it.
_FRONT = os.path.join(timeline._PKG_DIR, "fake_front_end.py")
_front: dict = {}
exec(compile("def op(tl):\n    return tl.place('vector', 'op', 1)\n"
             "def outer(tl):\n    return op(tl)\n", _FRONT, "exec"), _front)


def _line_of_next_call() -> int:
    return sys._getframe(1).f_lineno + 1


def test_two_paths_through_the_same_front_end_function_name_their_own_callers():
    tl = Timeline({"vector": 1e9})
    here = os.path.basename(__file__)
    line_a = _line_of_next_call()
    a = _front["op"](tl)
    line_b = _line_of_next_call()
    b = _front["outer"](tl)         # one frame deeper, through the same op()
    line_c = _line_of_next_call()
    c = _front["op"](tl)
    assert (a.source, b.source, c.source) == (f"{here}:{line_a}", f"{here}:{line_b}", f"{here}:{line_c}")
    repeat = [_front["op"](tl).source for _ in range(3)]    # a cached site gives the same answer again
    assert len(set(repeat)) == 1 and repeat[0] == f"{here}:{_line_of_next_call() - 2}"


def test_equal_code_in_two_files_and_lines_gets_each_own_source():
    """Code objects that compare equal (same body) but come from different files or lines stay apart."""
    tl = Timeline({"vector": 1e9})
    body = "def kernel(op, tl):\n    return op(tl)\n"
    got = []
    for name, pad in (("kernel_a.py", 0), ("kernel_b.py", 0), ("kernel_a.py", 5)):
        ns: dict = {}
        exec(compile("\n" * pad + body, f"/somewhere/{name}", "exec"), ns)
        got.append(ns["kernel"](_front["op"], tl).source)
    assert got == ["kernel_a.py:2", "kernel_b.py:2", "kernel_a.py:7"]


def test_override_still_wins_over_a_cached_site():
    tl = Timeline({"vector": 1e9})
    first = _front["op"](tl).source
    with source_override("k.c:9"):
        inside = _front["op"](tl).source
    assert first.startswith("test_caller_source.py:") and inside == "k.c:9"


def test_a_full_cache_starts_over_and_keeps_answering(monkeypatch):
    monkeypatch.setattr(timeline, "_LINES", {})
    monkeypatch.setattr(timeline, "_LINES_CAP", 2)
    tl = Timeline({"vector": 1e9})
    first = _line_of_next_call()
    got = [_front["op"](tl).source,
           _front["op"](tl).source,
           _front["op"](tl).source]
    again = _front["op"](tl).source
    assert len(timeline._LINES) <= 2
    assert got == [f"test_caller_source.py:{first + k}" for k in range(3)]
    assert again == f"test_caller_source.py:{first + 3}"
    assert caller_source() != ""      # called from pytest's frames: some file outside npusim
