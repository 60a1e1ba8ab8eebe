"""Follow-ups made standalone offline (the extractive backend): a question that refers
back ("how do I restore it?") or names no topic of its own ("and for Business?") takes the
topic words of the turns before it, so retrieval searches for what the user means."""

from __future__ import annotations

import re

from ragcli.llm.text import WORD
from ragcli.models import PriorTurn, Standalone
from ragcli.terms import terms
from ragcli.words import STOPWORDS

# Words that point back at something said before.
ANAPHORS = frozenset(
    "it its they them their theirs this that these those there he she him her one ones "
    "same former latter such".split()
)
# Openings that continue the previous question rather than start a new one.
CONTINUATION = re.compile(
    r"^\s*(and|also|but|or|so|then|what about|how about|what else|and what|and how|"
    r"same for|what if|is that|are they|does it|do they|can it|can they)\b",
    re.IGNORECASE,
)
# Question words and vague nouns that are no topic in themselves.
FILLER = frozenset(
    "what which how many much else more one ones thing things kind sort way ways about "
    "there any other another again instead case happen happens mean means work works "
    "long big old new take takes go goes include includes".split()
)
# Most topic words carried into a follow-up from the latest turn that has a topic.
MAX_CARRIED = 8
# A question with this many topic words of its own stands alone even if it says "it".
OWN_TOPIC_WORDS = 3


def topic_words(text: str) -> list[str]:
    """The words of `text` that carry its topic, as written, each once."""
    words = [w for w in WORD.findall(text) if w.lower() not in STOPWORDS | FILLER | ANAPHORS]
    return list(dict.fromkeys(w for w in words if len(w) > 1 or w.isdigit()))


def make_standalone(question: str, history: list[PriorTurn]) -> Standalone:
    if not history:
        return Standalone(question=question, reason="first question of the conversation")
    own = topic_words(question)
    lowered = [w.lower() for w in WORD.findall(question)]
    pointers = [w for w in lowered if w in ANAPHORS]
    continues = CONTINUATION.match(question)
    if len(own) >= OWN_TOPIC_WORDS and not continues:
        return Standalone(
            question=question, reason=f"has a topic of its own ({', '.join(own[:5])})"
        )
    if not own:
        why = "names no topic of its own"
    elif pointers:
        why = f'refers back ("{pointers[0]}")'
    elif continues:
        why = f'continues the previous question ("{continues.group(1).lower()}")'
    else:
        why = f"names too little of a topic ({', '.join(own)})"
    if not (pointers or continues or len(own) < 2):
        return Standalone(
            question=question, reason=f"has a topic of its own ({', '.join(own[:5])})"
        )
    have = set(terms(question))
    carried: list[str] = []
    for turn in reversed(history):
        for word in topic_words(turn.standalone or turn.question):
            stems = set(terms(word))
            if stems and not stems & have and word.lower() not in {c.lower() for c in carried}:
                carried.append(word)
                have |= stems
        if carried:  # the latest turn with a topic: it already carries what it followed
            break
    carried = carried[:MAX_CARRIED]
    if not carried:
        return Standalone(question=question, reason=f"{why}, but earlier turns name none")
    return Standalone(
        question=f"{question.rstrip()} ({' '.join(carried)})",
        rewritten=True,
        reason=f"{why}: carried {', '.join(carried)} from earlier turns",
    )
