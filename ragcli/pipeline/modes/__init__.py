"""The six modes, one home each: a package per mode holds its control flow (mode.py), its
decisions, its traced steps and its typed details; both.py and standard.py compose the
others' parts. registry.py maps names to modes; the names are here, free of imports, so
the command line can list them without loading the pipeline."""

MODE_NAMES = ("standard", "crag", "reflect", "both", "tos", "agentic")
AUTO = "auto"  # not a mode of its own: it picks one of MODE_NAMES per question
