"""Word lists shared by the lexical index and the backends, with no dependencies: the
index must not import the backends."""

from __future__ import annotations

# Function words and question words: they say nothing about what a text is about.
STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing done down during each
    either else ever few for from further get gets got had has have having he her here hers
    him his how i if in into is it its itself just may me might more most much must my no nor
    not now of off on once only or other our ours out over own per please same shall she should
    so some such than that the their theirs them then there these they this those through to
    too under until up upon us use used using very was we were what when where which while who
    whom whose why will with within without would you your yours tell know want need like""".split()
)

# The words a BM25 document leaves out: bm25s's English list, which every stored index was
# tokenized with (a change would make a document's saved tokens differ from a query's).
INDEX_STOPWORDS = frozenset(
    """a an and are as at be but by for if in into is it no not of on or such that the their
    then there these they this to was will with""".split()
)

# Words that relate things ("price per seat", "sign up", "before the upgrade"): a query
# keeps them, though they are stopwords when only content is compared.
RELATIONS = frozenset(
    """per up down out off over under before after above below between against during
    without within through until upon further""".split()
)

# A query's function words, dropped from its BM25 terms: question words and auxiliaries too.
QUERY_STOPWORDS = (STOPWORDS - RELATIONS) | INDEX_STOPWORDS
