"""The shared machine model. No vendor names live here."""
from .allocator import Allocator, Block
from .dtypes import DTYPES, DType, RoundMode, cast, dtype, from_fixed, to_fixed
from .errors import (ConstraintError, NpuSimError, OutOfBoundsError, RaceError, UninitializedReadError,
                     UninitializedReadWarning, UnsupportedError)
from .memory import Memory
from .options import Options, configure, options, set_options
from .timeline import Engine, SyncToken, Timeline
from .trace import Event, Trace, profile
from .view import Footprint, TensorView, views_overlap

__all__ = [n for n in dir() if not n.startswith("_")]
