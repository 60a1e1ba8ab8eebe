"""documents: questions answered over whole documents (mode.py), not retrieved chunks."""
