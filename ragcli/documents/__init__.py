"""Whole documents as they were read: a file's stored chunks put back together into its
sections (`ragcli show`, the MCP tools `get` and `list`, and answers over whole files).

- places.py: where a part sits (lines, pages, slides, rows, cells) from its locator, and
  `PATH:START-END` read
- rebuild.py: chunks into sections, the overlap between neighbours and the repeated
  heading lines taken out
- model.py: the typed document, its outline and a listing's page
- reading.py: a file's chunks read from the store, a path found in the manifest"""
