"""The text layer: how ragcli reads and writes the small pieces of text every other layer
shares, with nothing of ragcli's above it (llm/, pipeline/, ingest/ and the views all use
it). sentences.py: the one sentence splitter; citations.py: the one citation pattern
(`[3]`, `[1, 2]`) and what is read and written with it; rows.py: a table row as
`header: value; …`; lead_ins.py: a sentence that introduces what follows it; fences.py:
a code block's fence; markdown.py: a typed answer (ragcli/answer.py) as Markdown."""
