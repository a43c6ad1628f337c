"""The optional C extension (native/timeline.c) behind the timeline's data-order hot path.

``Timeline`` (timeline.py) derives from its ``TimelineCore`` type when it is available, whose C methods
``_dependencies_end`` and ``_remember`` replace the pure-Python ones; these stay in timeline.py as the
reference and the fallback (``Timeline._dependencies_end_py``, ``_remember_py``), over the very same
state. The extension is built once per source, compiler, flags and Python ABI into the npusim cache
folder; without a C compiler, with ``NPUSIM_NATIVE=0`` or ``NPUSIM_NATIVE_TIMELINE=0`` (read when
npusim is imported), or when the build or load fails (one warning saying why), the Python methods run.
"""
from __future__ import annotations

import os
import sysconfig
import warnings

from . import native_build

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "native", "timeline.c")
MODULE = "npusim.core._timeline_c"      # its PyInit__timeline_c names the last part
#: the Python ABI (SOABI) is in the flags, so it is part of the build's cache key: an extension is
#: reused only by the Python it was built for
FLAGS = ["-std=gnu99", "-O2", "-fPIC", "-shared", "-fno-strict-aliasing", "-ffp-contract=off",
         "-I" + sysconfig.get_paths()["include"], f"-DNPUSIM_SOABI=\"{sysconfig.get_config_var('SOABI')}\""]


#: the log class of the native timeline (load sets it), access_log.MemoryLog's fields in C slots
MemoryLog = None


def wanted() -> bool:
    """False when the environment forces the pure-Python timeline."""
    return (os.environ.get("NPUSIM_NATIVE", "1") != "0"
            and os.environ.get("NPUSIM_NATIVE_TIMELINE", "1") != "0")


def build() -> tuple[object | None, str]:
    """(the loaded extension module, "") or (None, why not)."""
    if not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")):
        return None, "no Python.h (the Python development headers are not installed)"
    try:
        path, why = native_build.build_library("core_native", SOURCE, [FLAGS])
    except OSError as e:            # the source is missing (an install without package data) or unreadable
        return None, f"cannot build {SOURCE}: {e}"
    if path is None:
        return None, why
    try:
        module = native_build.load_extension(MODULE, path)
    except (ImportError, OSError) as e:
        return None, f"cannot load {path}: {e}"
    return module, ""


def load():
    """The extension module, configured with access_log.py's structures, or None (the Python timeline)."""
    if not wanted():
        return None
    module, why = build()
    if module is None:
        if "no C compiler" not in why and "no Python.h" not in why:
            warnings.warn(f"npusim.core: native timeline.c does not build, using Python: {why[:500]}",
                          RuntimeWarning)
        return None
    import sys
    from . import access_log, timeline, trace
    from .options import options
    options_module = sys.modules[options.__module__]     # (npusim.core's `options` is the function)
    slots = event_slots(trace.Event)
    if slots is None:
        warnings.warn("npusim.core: trace.Event is no longer a plain slots dataclass, using the Python timeline",
                      RuntimeWarning)
        return None
    global MemoryLog
    # the native timeline's log: MemoryLog's methods over the extension's fields (same attributes)
    MemoryLog = type("MemoryLog", (module.MemoryLogBase, access_log.LogMethods),
                     {"__slots__": (), "__module__": __name__, "__doc__": access_log.MemoryLog.__doc__})
    module.configure({
        "MemoryLog": MemoryLog, "build_index": access_log.build_index, "append": access_log.append,
        "end_of": access_log.end_of,
        "BUCKET_SPAN": access_log.BUCKET_SPAN, "INDEX_AFTER": access_log.INDEX_AFTER, "FRESH": access_log.FRESH,
        "MIN_SHIFT": access_log.MIN_SHIFT,
        "options": options_module.options, "options_globals": vars(options_module),
        "Event": trace.Event, "event_slots": slots, "active_traces": trace._active,
        "timeline_globals": vars(timeline), "basename": os.path.basename})
    return module


def event_slots(event_type) -> tuple | None:
    """The slot descriptors of ``event_type``'s fields in field order, when its generated ``__init__`` only
    stores its arguments in them (a slots dataclass without ``__post_init__``): the C ``place`` makes an
    Event by setting them. None otherwise."""
    import dataclasses
    import types
    if not dataclasses.is_dataclass(event_type) or hasattr(event_type, "__post_init__"):
        return None
    slots = tuple(event_type.__dict__.get(f.name) for f in dataclasses.fields(event_type))
    if not all(isinstance(d, types.MemberDescriptorType) for d in slots):
        return None
    return slots
