"""Follow-ups made standalone offline (the extractive backend, and the openai backend when
the model's reply is unusable).

A follow-up that stands alone is searched as asked. One that leans on the conversation
takes words of the latest turn that has a topic, and which words depends on what the
follow-up does, read from its own words:
- it names a focus of its own, and says it continues ("what about add-ons?", "and for
  numbers?", "SOCKS too?"): it keeps the context the previous question set (the names it
  used and what it said of its focus) and drops the focus it replaces. A name replaces
  the previous names instead ("how much is Business? and Team?" keeps "how much");
- it names none ("how often?", "since when?"; a short question that does not say it
  continues, "what do I need to install?", asks its question of the previous focus): it
  asks about the previous focus again;
- it refers back with a pronoun ("can I turn it off?"): the pronoun stands for the
  previous focus; both keep everything the previous question named. "Ones" after a word
  of the follow-up's own ("and for monthly ones?") is no pronoun: the word is its own
  focus in place of the word before the previous focus's head, which "ones" stands for
  ("annual plan" → monthly plan).

What the previous question's focus was comes from what its answer was found under: its
words that title the sections its sources came from ("How long do I have to get a refund
on an annual plan?" found "Annual plans": the focus is annual plan, refund stays). When no
section names any of them (or the turn carries no sources, as a conversation sent by a
client does), every word but the names is the focus."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ragcli.llm.subject import CODE_TOKEN
from ragcli.llm.text import WORD
from ragcli.models import PriorTurn, Standalone
from ragcli.terms import terms
from ragcli.words import STOPWORDS

# Words that point back at something said before.
ANAPHORS = frozenset(
    "it its they them their theirs this that these those there he she him her one ones "
    "same former latter such".split()
)
# Of those, the ones that are determiners when a topic word follows ("one seat", "that
# plan"): then they point at nothing but the noun after them.
DETERMINERS = frozenset("this that these those one".split())
# A noun standing for the head of a noun said before, when a word of the follow-up's own
# comes before it ("monthly ones"). Not "one": after a verb it is a pronoun ("can I
# protect one?"), and a verb and an adjective look alike here.
SUBSTITUTES = frozenset({"ones"})
# Openings that continue the previous question rather than start a new one, and endings
# that add to it ("… too?").
CONTINUATION = re.compile(
    r"^\s*(and|also|but|or|so|then|what about|how about|what else|and what|and how|"
    r"same for|what if|is that|are they|does it|do they|can it|can they)\b",
    re.IGNORECASE,
)
ADDITION = re.compile(r"\b(too|as well|also)\W*$", re.IGNORECASE)
# Question words and vague nouns that are no topic in themselves.
FILLER = frozenset(
    "what which how many much else more one ones thing things kind sort way ways about "
    "there any other another again instead case happen happens mean means work works "
    "long big old new take takes go goes include includes since".split()
)
# Most words carried into a follow-up from the latest turn that has a topic.
MAX_CARRIED = 8
# A question with this many topic words of its own stands alone even if it says "it".
OWN_TOPIC_WORDS = 3


def topic_words(text: str) -> list[str]:
    """The words of `text` that carry its topic, as written, each once."""
    words = [w for w in WORD.findall(text) if not _no_topic(w.lower())]
    return list(dict.fromkeys(w for w in words if len(w) > 1 or w.isdigit()))


def pronouns(question: str) -> list[str]:
    """The words of `question` that point back, lower-cased; a determiner followed by a
    topic word points at that word instead, and "ones" after a topic word is a
    substitute, no pronoun."""
    words = WORD.findall(question)
    found = []
    for position, word in enumerate(words):
        lowered = word.lower()
        if lowered not in ANAPHORS:
            continue
        after = words[position + 1].lower() if position + 1 < len(words) else ""
        if lowered in DETERMINERS and after and not _no_topic(after):
            continue
        if _substitutes_at(words, position):
            continue  # "monthly ones": a substitute (substitute()), no pronoun
        found.append(lowered)
    return found


def substitute(question: str) -> str:
    """The "ones" `question` says after a topic word of its own ("monthly ones"),
    lower-cased; "" when it says none."""
    words = WORD.findall(question)
    found = (w.lower() for i, w in enumerate(words) if _substitutes_at(words, i))
    return next(found, "")


def _substitutes_at(words: list[str], position: int) -> bool:
    """Whether the word at `position` is "ones" after a topic word."""
    return (
        words[position].lower() in SUBSTITUTES
        and position > 0
        and not _no_topic(words[position - 1].lower())
    )


def _no_topic(word: str) -> bool:
    return word in STOPWORDS | FILLER | ANAPHORS


def names(text: str) -> set[str]:
    """The words of `text` that are names: shaped like code (`hide_input`, `httpx.Limits`),
    or capitalized where a sentence does not capitalize (not its first word), or in
    capitals (SOCKS, CLI)."""
    words = WORD.findall(text)
    return {
        word
        for position, word in enumerate(words)
        if CODE_TOKEN.fullmatch(word)
        or (len(word) > 1 and word.isupper())
        or (position > 0 and word[:1].isupper())
    }


@dataclass(frozen=True)
class Previous:
    """The latest turn with a topic, as a follow-up reads it."""

    topic: list[str]  # its topic words, in order
    names: list[str]  # the names it used, but those of its focus
    focus: list[str]  # what it asked about
    said: list[str]  # what else it said of its focus ("how long … stay valid")
    titled: bool  # its focus is the words its sources' sections are titled with

    def words(self, *parts: list[str]) -> list[str]:
        """The words of `parts`, in the order the question has them."""
        chosen = {w for part in parts for w in part}
        return [w for w in self.topic if w in chosen]


def read_previous(turn: PriorTurn) -> Previous | None:
    text = turn.standalone or turn.question
    words = topic_words(text)
    if not words:
        return None
    named = names(text)
    titles = {t for section in turn.sections for t in terms(section.split(" > ")[-1])}
    focus = [w for w in words if set(terms(w)) & titles]
    titled = bool(focus)
    if not titled:  # no section is titled with its words: all but the names are its focus
        focus = [w for w in words if w not in named]
    rest = [w for w in words if w not in focus]
    return Previous(
        topic=words,
        names=[w for w in rest if w in named],
        focus=focus,
        said=[w for w in rest if w not in named],
        titled=titled,
    )


def make_standalone(question: str, history: list[PriorTurn]) -> Standalone:
    if not history:
        return Standalone(question=question, reason="first question of the conversation")
    own = topic_words(question)
    pointers = pronouns(question)
    continues = CONTINUATION.match(question) or ADDITION.search(question)
    if len(own) >= OWN_TOPIC_WORDS and not continues:
        return Standalone(
            question=question, reason=f"has a topic of its own ({', '.join(own[:5])})"
        )
    if not (pointers or continues or len(own) < 2):
        return Standalone(
            question=question, reason=f"has a topic of its own ({', '.join(own[:5])})"
        )
    previous = next(
        (found for turn in reversed(history) if (found := read_previous(turn)) is not None),
        None,
    )
    if previous is None:
        return Standalone(question=question, reason="earlier turns name no topic to carry")
    have = set(terms(question))

    def new(words: list[str]) -> list[str]:
        """`words` the follow-up does not already say, at most MAX_CARRIED."""
        return [w for w in words if not set(terms(w)) & have][:MAX_CARRIED]

    focus = ", ".join(previous.focus) or "none"
    if previous.titled:
        focus += ", as its answer's section is titled"
    if own and continues and not pointers:
        new_names = [w for w in own if w in names(question)]
        if new_names and previous.names:
            carried = new(previous.words(previous.focus, previous.said))
            why = (
                f"names its own focus ({', '.join(own)}) in place of "
                f"{', '.join(previous.names)}, and asks what was asked"
            )
        elif standing_for := substitute(question):
            # "monthly ones" after "… an annual plan": "ones" stands for the head of the
            # previous focus (its last word), and the follow-up's word for the word of the
            # focus before it; everything else is carried.
            head = previous.focus[-1]
            at = previous.topic.index(head)
            before = previous.topic[at - 1] if at else ""
            modifier = before if before in previous.focus else ""
            carried = new([w for w in previous.topic if w != modifier])
            why = (
                f"names its own focus ({', '.join(own)}) in place of "
                f'{modifier or "the previous one"}, "{standing_for}" standing for {head}'
            )
        else:
            carried = new(previous.words(previous.names, previous.said))
            why = f"names its own focus ({', '.join(own)}) in place of the previous one ({focus})"
    else:
        carried = new(previous.words(previous.names, previous.focus, previous.said))
        if pointers:
            why = f'"{pointers[0]}" refers to the previous focus ({focus})'
        elif own:  # a word of its own, but not said to continue: "what do I need to install?"
            why = f"asks its own question ({', '.join(own)}) of the previous focus ({focus})"
        else:
            why = f"names no focus of its own: asks again about the previous one ({focus})"
    if not carried:
        return Standalone(question=question, reason=f"{why}; nothing else to carry")
    return Standalone(
        question=f"{question.rstrip()} ({' '.join(carried)})",
        rewritten=True,
        reason=f"{why}: carried {', '.join(carried)}",
    )
