"""The `npusim demo` hook for Ascend C returns passing checks."""
from npusim.ascendc import demo


def test_demo_checks_pass():
    checks = demo.run()
    assert len(checks) == 3 and all(c.ok for c in checks), [(c.name, c.detail) for c in checks]
