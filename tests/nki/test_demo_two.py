"""The part-two demo checks all pass (and would fail on a wrong matmul or cost)."""
from npusim.nki import demo_two


def test_demo_two_checks_pass():
    checks = demo_two.run()
    assert len(checks) == 3
    assert all(c.ok for c in checks), [c for c in checks if not c.ok]
