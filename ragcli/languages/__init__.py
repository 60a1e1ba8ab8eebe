"""Languages: each chunk's language detected at ingest (detect.py), the BM25 analyzer each
language is tokenized with (analyzers.py), and which languages the embedder covers
(coverage.py). docs/retrieval.md, "Languages", has what each choice measured."""
