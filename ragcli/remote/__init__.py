"""Remote ingest roots: a website (crawled under a URL prefix, kept in step by conditional
requests) and a Git repository (a shallow clone in the user cache, kept in step by the diff
between the stored commit and the new one). Each is an ingest Source (ingest/items.py):
the runner journals, embeds and writes their documents as it does files'."""
