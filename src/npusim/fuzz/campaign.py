"""`make fuzz` / `python -m npusim.fuzz.campaign`: a long fuzz campaign over every front end.

Each target's fuzzer module ``npusim.fuzz.<target>`` exposes ``draw(rng) -> Trial``. The campaign draws
``--cases`` trials per target from a seeded Generator, runs each (every ``--twice-every``-th one twice, for
determinism), and prints, per target: cases, outcomes by kind, errors by class, and every defect count
(internal errors, hangs, out-of-footprint writes, reads that changed memory, nondeterminism) with up to
five reproducers. Exit status 1 when any defect was found.
"""
from __future__ import annotations

import argparse
import importlib
import sys
import time
import warnings

import numpy as np

from .harness import DEFECTS, Tally, execute

TARGETS = ("okk", "nki", "ascendc", "vppl")


def run_target(target: str, cases: int, seed: int, seconds: float, twice_every: int,
               progress=None) -> Tally:
    module = importlib.import_module(f"npusim.fuzz.{target}")
    rng = np.random.default_rng(seed)
    tally = Tally()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(cases):
            trial = module.draw(rng)
            tally.add(trial, execute(trial, seconds, twice=twice_every > 0 and i % twice_every == 0))
            if progress is not None:
                progress(target, i + 1)
    return tally


def report(target: str, tally: Tally, elapsed: float) -> str:
    lines = [f"== {target}: {tally.cases} cases in {elapsed:.1f} s"]
    lines.append("   outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(tally.kinds.items())))
    for key, n in sorted(tally.error_classes.items(), key=lambda kv: -kv[1]):
        lines.append(f"   {key}: {n}")
    lines.append("   " + ", ".join(f"{k} {tally.kinds.get(k, 0)}" for k in DEFECTS))
    for kind, examples in tally.examples.items():
        for ex in examples:
            lines.append(f"   [{kind}] {ex}")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="npusim-fuzz", description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=10_000, help="trials per target (default 10000)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--seconds", type=float, default=10.0, help="time limit per trial (a hang past it)")
    ap.add_argument("--twice-every", type=int, default=10, help="run every Nth trial twice (determinism)")
    ap.add_argument("--target", action="append", choices=TARGETS, help="only these targets")
    args = ap.parse_args(argv)
    defects = 0
    for target in args.target or TARGETS:
        t0 = time.perf_counter()
        tally = run_target(target, args.cases, args.seed, args.seconds, args.twice_every)
        print(report(target, tally, time.perf_counter() - t0), flush=True)
        defects += tally.defects
    print(f"defects: {defects}")
    return 1 if defects else 0


if __name__ == "__main__":
    sys.exit(main())
