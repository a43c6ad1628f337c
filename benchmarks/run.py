"""Run every benchmarks/bench_*.py and print (or --write) the BENCHMARKS.md table."""
from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "src"))

from harness import fmt_seconds, run_case  # noqa: E402


def load_cases(only: str | None):
    for fname in sorted(os.listdir(HERE)):
        if not (fname.startswith("bench_") and fname.endswith(".py")):
            continue
        if only and only not in fname:
            continue
        spec = importlib.util.spec_from_file_location(fname[:-3], os.path.join(HERE, fname))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        yield fname[6:-3], mod.cases()


def machine() -> str:
    import ml_dtypes
    import numpy
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return (f"{cpu}, {os.cpu_count()} cores; Python {platform.python_version()}, numpy {numpy.__version__}, "
            f"ml_dtypes {ml_dtypes.__version__}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", help="write the markdown table to this file")
    ap.add_argument("--only", help="only bench files whose name contains this")
    args = ap.parse_args()
    lines = ["# Benchmarks", "",
             "Simulator wall time against plain numpy doing the same math (median of repeats after a "
             "warm-up). Regenerate with `make bench`.", "", f"Machine: {machine()}", ""]
    for group, cases in load_cases(args.only):
        lines += [f"## {group}", "", "| case | simulator | per call | numpy | ratio | target |",
                  "|---|---|---|---|---|---|"]
        for case in cases:
            r = run_case(case)
            ratio = f"{r.ratio:.2f}x" if r.ratio is not None else "-"
            base = fmt_seconds(r.numpy_s) if r.numpy_s else "-"
            per = fmt_seconds(r.per_call_s) if case.per > 1 else "-"
            row = f"| {case.name} | {fmt_seconds(r.median_s)} | {per} | {base} | {ratio} | {case.target} |"
            print(row, flush=True)
            lines.append(row)
        lines.append("")
    text = "\n".join(lines)
    if args.write:
        with open(args.write, "w") as f:
            f.write(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
