"""What several test modules share: paths and settings, stub servers, corpora, embedders
that count, store checks. Test modules import from here, never from one another, so each
test module can be read (and run) on its own."""
