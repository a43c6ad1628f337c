"""Fingerprint every NKI launch a test run makes (events, outputs, in-place inputs, errors, warnings), to
check that a speed-up of the simulator changed nothing observable.

Record (a pytest plugin; run once before a change and once after):

    PYTHONPATH=src:benchmarks python -m pytest tests/nki -p nki_fingerprint --hypothesis-seed=0 \
        --fingerprint=/tmp/before.json
    (the same with --fingerprint=/tmp/after.json after the change)

Serial runs only (no -n: each xdist worker would write the file). Global numpy/random state is seeded
before each test and hypothesis runs with a fixed seed, so two runs of the same code agree.

Or record the public-kernel benchmark cases (bench_nki_public.py, larger inputs than the tests):

    PYTHONPATH=src:benchmarks python benchmarks/nki_fingerprint.py bench /tmp/bench_before.json

Compare:

    python benchmarks/nki_fingerprint.py /tmp/before.json /tmp/after.json

Each test id maps to the list of its launches' digests, in launch order. A digest hashes every event of
the launch's trace (core, engine, name, start/end ns, cycles, frequency, bytes, elements, source line,
args), the returned arrays (dtype, shape, bytes; NaN payloads included), the input arrays after the launch
(kernels write some in place), the exception raised (type and message) and the warnings issued.
"""
from __future__ import annotations

import hashlib
import json
import re
import sys
import warnings


def _text(value) -> bytes:
    """repr without object addresses and temporary file names (they differ from run to run: nki-library's
    rotational top-K caches its shared constants in tempfile names its config repr shows)."""
    text = re.sub(r" at 0x[0-9a-fA-F]+", "", repr(value))
    return re.sub(r"/tmp[a-z0-9_]{8}\.", "/tmp<name>.", text).encode()


def _feed(h, value) -> None:
    import numpy as np
    if isinstance(value, np.ndarray):
        h.update(f"nd{value.dtype.str}{value.shape}".encode())
        h.update(np.ascontiguousarray(value).view(np.uint8).tobytes())
    elif isinstance(value, (tuple, list)):
        h.update(f"seq{type(value).__name__}{len(value)}".encode())
        for v in value:
            _feed(h, v)
    elif isinstance(value, dict):
        h.update(b"dict")
        for k in value:
            h.update(_text(k))
            _feed(h, value[k])
    else:
        h.update(_text(value))


def _digest(run, args, kwargs, result, error, caught) -> str:
    h = hashlib.sha256()
    if run is not None:
        for e in run.trace.events:
            h.update(_text((e.core, e.engine, e.name, e.start_ns, e.end_ns, e.cycles, e.freq_hz, e.nbytes,
                            e.elements, e.source, e.args)))
    _feed(h, result)
    _feed(h, list(args))
    _feed(h, dict(kwargs))
    h.update(_text(error))
    for w in caught:
        h.update(_text(f"{w.category.__name__}:{w.message}"))
    return h.hexdigest()[:20]


_records: dict[str, list[str]] = {}
_current = ["<outside a test>"]


def pytest_addoption(parser):
    parser.addoption("--fingerprint", default=None, help="write NKI launch digests (JSON) to this file")


def pytest_configure(config):
    if not config.getoption("--fingerprint"):
        return
    from npusim.nki import kernel as _kernel
    original = _kernel.launch

    def launch(k, args, kwargs, target=None):
        result, error = None, None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = original(k, args, kwargs, target)
            except Exception as exc:     # recorded, then raised again for the test to see
                error = exc
        _records.setdefault(_current[0], []).append(
            _digest(_kernel.last_run(), args, kwargs, result, None if error is None else
                    (type(error).__name__, str(error)), caught))
        for w in caught:                  # hand the warnings on (pytest.warns and filters still see them)
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        if error is not None:
            raise error
        return result

    _kernel.launch = launch


def pytest_runtest_setup(item):
    _current[0] = item.nodeid
    if item.config.getoption("--fingerprint", None):
        import random
        import numpy as np
        random.seed(0)          # kernels' own __main__ blocks draw unseeded inputs: same inputs each run
        np.random.seed(0)


def pytest_unconfigure(config):
    path = config.getoption("--fingerprint", None)
    if path:
        with open(path, "w") as f:
            json.dump(_records, f, indent=0, sort_keys=True)


def compare(before: str, after: str) -> int:
    a, b = (json.load(open(p)) for p in (before, after))
    bad = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
    launches = sum(len(v) for v in a.values())
    for k in bad:
        print("DIFFERS:", k, a.get(k), b.get(k))
    print(f"{len(a)} tests, {launches} launches compared: {len(bad)} differ")
    return 1 if bad else 0


def record_bench(path: str) -> None:
    import bench_nki_public
    from npusim.nki import kernel as _kernel
    out = {}
    for case in bench_nki_public.cases():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = case.fn()
        out[case.name] = [_digest(_kernel.last_run(), (), {}, result, None, caught)]
    with open(path, "w") as f:
        json.dump(out, f, indent=0, sort_keys=True)


if __name__ == "__main__":
    if sys.argv[1] == "bench":
        record_bench(sys.argv[2])
    else:
        sys.exit(compare(sys.argv[1], sys.argv[2]))
