"""Suite-wide settings. CI runs on 2 shared cores: wall-clock deadlines would make property tests flaky,
so hypothesis judges by examples, not by time."""
from hypothesis import HealthCheck, settings

settings.register_profile("npusim", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("npusim")
