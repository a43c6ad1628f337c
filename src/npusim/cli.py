"""The ``npusim`` command: info, run, demo, and the subcommands targets add (``npusim vppl FILE``)."""
from __future__ import annotations

import argparse
import importlib
import os
import runpy
import sys
import time

from rich.console import Console
from rich.table import Table

from . import TARGETS, __version__
from .core.trace import profile


def _target_module(target: str, sub: str | None = None):
    """Import ``npusim.<target>[.<sub>]``; None when that target (or part) has not landed."""
    name = f"npusim.{target}" + (f".{sub}" if sub else "")
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name and (e.name == name or name.startswith(e.name + ".")):
            return None
        raise


def cmd_info(args, console: Console) -> int:
    table = Table(title=f"npusim {__version__}: targets")
    for col in ("target", "chip", "constant", "value"):
        table.add_column(col)
    for target in TARGETS:
        mod = _target_module(target)
        if mod is None or not hasattr(mod, "info"):
            table.add_row(target, "-", "not built yet", "")
            continue
        for chip, consts in mod.info().items():
            first = True
            for k, v in consts.items():
                table.add_row(target if first else "", chip if first else "", k, str(v))
                first = False
    console.print(table)
    return 0


def cmd_run(args, console: Console) -> int:
    path = os.path.abspath(args.file)
    sys.argv = [path] + list(args.args)
    sys.path.insert(0, os.path.dirname(path))
    compat = _target_module("nki", "compat")
    if compat is not None:
        compat.install()        # published NKI kernels import nki / neuronxcc.nki unchanged
    t0 = time.perf_counter()
    status = 0
    with profile() as prof:
        with console.status(f"running {args.file} ..."):
            try:
                runpy.run_path(path, run_name="__main__")
            except SystemExit as stop:      # most examples end with sys.exit(main()): still report
                status = _exit_status(stop.code, console)
    wall = time.perf_counter() - t0
    console.print(prof.trace.summary())
    console.print(f"simulated {prof.trace.total_ns / 1e3:,.3f} us in {wall:.2f} s of wall time")
    if args.trace:
        prof.trace.to_chrome(args.trace)
        console.print(f"trace written to {args.trace} (open it in https://ui.perfetto.dev)")
    if args.plot:
        prof.trace.plot(args.plot, title=os.path.basename(args.file))
        console.print(f"timeline plot written to {args.plot}")
    console.print(f"{args.file} exited with status {status}", style="red" if status else None)
    return status


def _exit_status(code, console: Console) -> int:
    """The process exit status Python gives ``sys.exit(code)``: None is 0, an int is itself, anything
    else is printed and is 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    console.print(str(code))
    return 1


def cmd_demo(args, console: Console) -> int:
    from .demo import run_demo
    return run_demo(console, args.out, only=args.target)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="npusim", description="AI-accelerator kernel simulator")
    parser.add_argument("--version", action="version", version=f"npusim {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("info", help="targets, chips and their constants")
    p.set_defaults(func=cmd_info)
    p = sub.add_parser("run", help="run a kernel script under the profiler and print the timeline summary")
    p.add_argument("file")
    p.add_argument("args", nargs="*", help="arguments passed to the script (after --)")
    p.add_argument("--trace", help="write Chrome/Perfetto trace JSON here")
    p.add_argument("--plot", help="write a timeline PNG here")
    p.set_defaults(func=cmd_run)
    p = sub.add_parser("demo", help="run the bundled examples of every target; write traces and plots")
    p.add_argument("--out", default="npusim-demo", help="output folder (default ./npusim-demo)")
    p.add_argument("--target", choices=("core",) + TARGETS, help="only this target")
    p.set_defaults(func=cmd_demo)
    from .tune.cli import register as register_sweep
    register_sweep(sub)
    for target in TARGETS:
        mod = _target_module(target, "cli")
        if mod is not None and hasattr(mod, "register"):
            mod.register(sub)
    args = parser.parse_args(argv)
    console = Console()
    return args.func(args, console)
