"""Differential-testing oracle: Sophgo's own BM1684 C-model (tpu-mlir 1.30.2) through ctypes."""

from .fetch import available, fetch  # noqa: F401
