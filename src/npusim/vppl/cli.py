"""``npusim vppl FILE``: run a VPPL text and print its variables (and the simulated time)."""
from __future__ import annotations

import os

import numpy as np
from rich.table import Table

from ..core.errors import NpuSimError


def register(subparsers) -> None:
    p = subparsers.add_parser("vppl", help="run a VPPL (SMYLEvideo GEN.2) text and print its variables")
    p.add_argument("file")
    p.add_argument("--extended", action="store_true",
                   help="run suffixes outside the GEN.2 instruction set (default: they are errors, as --G2)")
    p.add_argument("--PINA", "--pin-a", dest="pin_a", help="PNG loaded into image buffer A")
    p.add_argument("--PINB", "--pin-b", dest="pin_b", help="PNG loaded into image buffer B")
    p.add_argument("--reading", action="append", default=[], metavar="FIELD=CHOICE",
                   help="an alternative reading of an ambiguous point, e.g. mul=q15 (docs/vppl.md)")
    p.add_argument("--trace", help="write Chrome/Perfetto trace JSON here")
    p.set_defaults(func=cmd_vppl)


def _show(v) -> str:
    if isinstance(v, np.ndarray):
        return f"{v.dtype}[{v.size}] " + np.array2string(v, threshold=24, max_line_width=100, separator=", ")
    return str(v)


def cmd_vppl(args, console) -> int:
    from .interpreter import Program, result
    from .machine import Machine
    from .readings import Readings
    images = {k: v for k, v in (("A", args.pin_a), ("B", args.pin_b)) if v}
    try:
        readings = Readings(**dict(r.split("=", 1) for r in args.reading))
    except (TypeError, ValueError) as e:
        console.print(f"--reading: {e}", markup=False)
        return 2
    try:
        with open(args.file, encoding="utf-8") as f:
            src = f.read()
        m = Machine("extended" if args.extended else "gen2", readings=readings)
        env = Program(src, os.path.basename(args.file)).run(m, images)
    except NpuSimError as e:
        console.print("\n".join([str(e), *getattr(e, "__notes__", [])]), markup=False, highlight=False)
        return 1
    table = Table(title=f"{args.file}: variables after the run")
    table.add_column("name")
    table.add_column("value")
    for k, v in result(env).items():
        note = "" if getattr(env[k], "valid", True) else "  (undefined: never written, or a work area)"
        table.add_row(k, _show(v) + note)
    console.print(table)
    tr = m.timeline.trace
    console.print(f"{len(tr.events)} instruction(s), {m.timeline.now_ns / 1e3:,.3f} us simulated "
                  f"at {m.freq_hz / 1e6:g} MHz ({m.timeline.now_ns * m.freq_hz / 1e9:,.0f} cycles, estimate)")
    if args.trace:
        tr.to_chrome(args.trace)
        console.print(f"trace written to {args.trace}")
    return 0
