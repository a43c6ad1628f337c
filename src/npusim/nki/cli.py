"""``npusim nki KERNEL.py --target trn1``: run an NKI script on a chosen Trainium generation.

The same as ``npusim run`` (profile, summary, optional Perfetto trace and PNG), with the target set
through ``NEURON_PLATFORM_TARGET_OVERRIDE`` as the Neuron tools do, so a kernel script that calls
``nki.simulate(kernel)`` without ``target=`` runs on the chosen chip.
"""
from __future__ import annotations

import os

from .spec import ALIASES


def _run(args, console) -> int:
    from ..cli import cmd_run
    previous = os.environ.get("NEURON_PLATFORM_TARGET_OVERRIDE")
    os.environ["NEURON_PLATFORM_TARGET_OVERRIDE"] = args.target
    try:
        console.print(f"NKI target: {args.target}")
        return cmd_run(args, console)
    finally:
        if previous is None:
            os.environ.pop("NEURON_PLATFORM_TARGET_OVERRIDE", None)
        else:
            os.environ["NEURON_PLATFORM_TARGET_OVERRIDE"] = previous


def register(subparsers) -> None:
    p = subparsers.add_parser("nki", help="run an NKI kernel script on trn1, trn2 or trn3")
    p.add_argument("file")
    p.add_argument("args", nargs="*", help="arguments passed to the script (after --)")
    p.add_argument("--target", default="trn2", choices=sorted(ALIASES), help="chip (default trn2)")
    p.add_argument("--trace", help="write Chrome/Perfetto trace JSON here")
    p.add_argument("--plot", help="write a timeline PNG here")
    p.set_defaults(func=_run)
