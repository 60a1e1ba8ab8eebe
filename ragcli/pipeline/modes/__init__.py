"""The six modes, one home each: a package per mode holds its control flow (mode.py), its
decisions, its traced steps and its typed details; both.py and standard.py compose the
others' parts. registry.py lists them by name, the one list every front end reads."""
