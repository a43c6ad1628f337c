"""Fuzzing every front end: random and malformed calls, as a careless user would make them.

``harness`` runs and judges one trial; ``<target>.py`` draws trials for one front end; ``campaign`` is
``make fuzz``. The bounded versions run in ``tests/fuzz/`` under ``make test``.
"""
