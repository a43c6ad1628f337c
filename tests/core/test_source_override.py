"""core.timeline.source_override: a front end running foreign code (okk's C kernels) names the source."""
from npusim.core.timeline import SOURCE_OVERRIDE, Timeline, source_override


def test_override_names_the_source_then_goes_away():
    tl = Timeline({"vector": 1e9})
    with source_override("kernel.c:12"):
        a = tl.place("vector", "op", 10)
        with source_override("helper.c:3"):
            b = tl.place("vector", "op", 10)
        c = tl.place("vector", "op", 10)
    d = tl.place("vector", "op", 10)
    assert (a.source, b.source, c.source) == ("kernel.c:12", "helper.c:3", "kernel.c:12")
    assert d.source.startswith("test_source_override.py:") and SOURCE_OVERRIDE == []
