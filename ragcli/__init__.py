"""ragcli: retrieval-augmented question answering over your own files."""

__version__ = "0.1.0"
