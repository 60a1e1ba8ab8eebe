"""Subject–relation–object statements ("triplets") of the modal and deontic sentences that
terms and policies are written in: "You must be at least 16" -> (you, must, be at least 16);
"Sharing one account ... is not permitted" -> (sharing one account ..., is not permitted, -).

Deterministic and offline: a sentence is split at its first modal phrase (must, may not,
shall, will, cannot, are not permitted to, is responsible for ...), the words before it
(after any leading clause) are the subject, the rest up to the next clause break the
object. A lead-in that ends with a colon ("You may not use the Services to:") gives its
relation to each list item below it. Ingest stores each chunk's triplets in its metadata
(`triplets`, JSON); tos mode's `triplets` signal matches a question, read as a triplet of its
own ("Can I resell Driftwood?" -> (you, may, resell driftwood)), against them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ragcli.terms import index_terms
from ragcli.text.sentences import split_sentences
from ragcli.words import QUERY_STOPWORDS

METADATA_KEY = "triplets"  # the chunk metadata that holds them, a JSON list of [s, r, o]
MAX_PER_CHUNK = 24
MAX_OBJECT_WORDS = 24
MAX_SUBJECT_WORDS = 8

# Longest first, so "may not" is found before "may". Each maps to the relation stored.
_MODALS: list[tuple[str, str]] = [
    (r"(?:is|are) not (?:permitted|allowed) to", "may not"),
    (r"(?:is|are) (?:prohibited|forbidden) from", "may not"),
    (r"(?:is|are) not (?:permitted|allowed)", "is not permitted"),
    (r"(?:is|are) (?:permitted|allowed) to", "may"),
    (r"(?:is|are) (?:required|obliged|obligated) to", "must"),
    (r"(?:is|are) (?:responsible|liable) for", "is responsible for"),
    (r"(?:is|are) entitled to", "is entitled to"),
    (r"(?:has|have) the right to", "may"),
    (r"(?:must|shall|may|will|should|can) (?:not|never)", "{0} not"),
    (r"cannot|can't|can not", "cannot"),
    (r"won't", "will not"),
    (r"agrees? to|consents? to", "agrees to"),
    (r"must|shall|may|will|can|need to|needs to", "{0}"),
]
_MODAL_PATTERN = r"\b(" + "|".join(f"(?:{pattern})" for pattern, _ in _MODALS) + r")\b"
_MODAL = re.compile(_MODAL_PATTERN)  # on lower-cased text: twice as fast as IGNORECASE
_MODAL_ANY_CASE = re.compile(_MODAL_PATTERN, re.IGNORECASE)
# A sentence holding none of these has no modal phrase: most prose is ruled out by
# substring checks, far cheaper than the regex (ingest extracts from every chunk).
_ANCHORS = (
    "must",
    "may",
    "shall",
    "will",
    "can",
    "won't",
    "should",
    "need",
    "agree",
    "consent",
    "permit",
    "allow",
    "prohibit",
    "forbid",
    "requir",
    "oblig",
    "responsib",
    "liable",
    "entitle",
    "right",
)
_COMPILED = [(re.compile(rf"^(?:{pattern})$", re.IGNORECASE), rel) for pattern, rel in _MODALS]
# Words that open a leading clause the subject is not part of ("If a payment fails, we ...").
_CLAUSE_OPENERS = {"if", "when", "unless", "after", "before", "once", "while", "where", "so"}
_PRONOUNS = {"we", "you", "they", "it", "i", "he", "she"}
_RELATIVES = {"that", "which", "who"}
_CONJUNCTIONS = {"and", "but", "or", "then", "so", "also"}
# A statement ends with its sentence (text/sentences.py) or at a semicolon before a new clause.
_CLAUSE_END = re.compile(r"(?<=;)\s+(?=[\"'(A-Z0-9])")
# Clause breaks that end an object: the rest is a condition or an exception.
_OBJECT_END = re.compile(r"[.;!?]|,\s*(?:unless|except|if|but|and we|so that)\b", re.IGNORECASE)
_NUMBERING = re.compile(r"^\s*(?:[-*•]\s*)?(?:\(?[0-9]+(?:\.[0-9]+)*\.?\)?|\([a-z]\))\s+")
_LIST_ITEM = re.compile(r"^\s*(?:[-*•]|\(?[a-z0-9]{1,3}[.)])\s+")
_MARKUP = re.compile(r"[*_`#>]+")
# The user's side and the provider's side of a policy, as its subjects name them.
_USER = {"you", "your", "user", "users", "customer", "customers", "account", "owner"}
_PROVIDER = {"we", "us", "our"}


@dataclass(frozen=True)
class Triplet:
    subject: str
    relation: str
    object: str

    def text(self) -> str:
        return " / ".join(part for part in (self.subject, self.relation, self.object) if part)

    def as_list(self) -> list[str]:
        return [self.subject, self.relation, self.object]


def extract(text: str) -> list[Triplet]:
    """The triplets of a chunk's modal sentences, in order, each once. Heading lines
    (`# Title > Section`) are skipped."""
    found: list[Triplet] = []
    lead: Triplet | None = None  # a "... may not use the Services to:" waiting for its items
    if not _has_anchor(text.lower()):
        return found
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:  # a blank line between a lead-in and its list keeps the lead-in
            continue
        if stripped.startswith(("#", "|")):
            lead = None
            continue
        if lead is not None and _LIST_ITEM.match(stripped):
            item = _clean(_LIST_ITEM.sub("", _LIST_ITEM.sub("", stripped, count=1), count=1))
            end = _OBJECT_END.search(item)
            item = item[: end.start()] if end else item
            found.append(Triplet(lead.subject, lead.relation, _cut(f"{lead.object} {item}")))
            continue
        lead = None
        cleaned = _clean(_NUMBERING.sub("", stripped, count=1))
        clauses = [c for s in split_sentences(cleaned) for c in _CLAUSE_END.split(s)]
        for sentence in clauses:
            triplet = _statement(sentence)
            if triplet is None:
                continue
            if sentence.rstrip().endswith(":"):
                lead = triplet
            else:
                found.append(triplet)
    unique = list(dict.fromkeys(found))
    return unique[:MAX_PER_CHUNK]


def _has_anchor(lowered: str) -> bool:
    return any(anchor in lowered for anchor in _ANCHORS)


def _statement(sentence: str) -> Triplet | None:
    lowered = sentence.lower()
    if not _has_anchor(lowered):
        return None
    # Lower-casing can change a length (a dotted capital I): then search the text itself.
    same = len(lowered) == len(sentence)
    match = _MODAL.search(lowered) if same else _MODAL_ANY_CASE.search(sentence)
    if match is None:
        return None
    subject = _subject(sentence[: match.start()])
    if not subject:
        return None
    relation = _relation(match.group(1))
    rest = sentence[match.end() :].strip().rstrip(":")
    end = _OBJECT_END.search(rest)
    obj = _cut(rest[: end.start()] if end else rest)
    if relation in ("will", "can", "need to") and not obj:
        return None
    return Triplet(subject, relation, obj)


def _subject(before: str) -> str:
    """The noun phrase before the modal: after the last comma (a leading clause), from the
    last personal pronoun ("so that you", "in that case we"), the word before a closing
    relative pronoun ("liability that"); never a clause opener; at most MAX_SUBJECT_WORDS
    words."""
    words = before.rsplit(",", 1)[-1].lower().split()
    if not words or words[0] in _CLAUSE_OPENERS:
        return ""
    pronouns = [i for i, word in enumerate(words) if word in _PRONOUNS]
    if pronouns:
        words = words[pronouns[-1] :]
    elif words[-1] in _RELATIVES:
        words = words[-2:-1]
    while words and words[0] in _CONJUNCTIONS:
        words = words[1:]
    return " ".join(words[-MAX_SUBJECT_WORDS:])


def _relation(phrase: str) -> str:
    phrase = " ".join(phrase.lower().split())
    for pattern, relation in _COMPILED:
        if pattern.match(phrase):
            return relation.format(phrase.split()[0])
    return phrase


def _clean(text: str) -> str:
    return " ".join(_MARKUP.sub("", text).split())


def _cut(text: str) -> str:
    words = text.strip().strip(":,").split()
    return " ".join(words[:MAX_OBJECT_WORDS]).lower()


# -- stored form ----------------------------------------------------------------------------


def encode(triplets: Iterable[Triplet]) -> str:
    return json.dumps([t.as_list() for t in triplets], ensure_ascii=False)


def decode(raw: str | None) -> list[Triplet] | None:
    """A chunk's stored triplets; None when it was stored before triplets were extracted
    (or the value is damaged), so the caller can extract them from its text."""
    if not isinstance(raw, str):
        return None
    try:
        rows = json.loads(raw)
    except json.JSONDecodeError:
        return None
    if not isinstance(rows, list):
        return None
    return [
        Triplet(*(str(part) for part in row))
        for row in rows
        if isinstance(row, list) and len(row) == 3
    ]


# -- a question as a triplet ----------------------------------------------------------------

# "Can I ...", "Am I allowed to ...", "Do I have to ...", "Will you ...": the question's own
# subject and relation; anything else is read as an object alone.
_ASKER = r"(?P<s>i|we|you|my \w+|our \w+)"
_QUESTION_FORMS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(pattern, re.IGNORECASE), relation)
    for pattern, relation in [
        (r"^(?:am|are|is)\s+(?P<s>.+?)\s+(?:allowed|permitted)\s+to\s+(?P<o>.+)$", "may"),
        (r"^is\s+it\s+(?:ok|okay|allowed|permitted|fine)\s+(?:to|if)\s+(?P<o>.+)$", "may"),
        (r"^(?:do|does)\s+(?P<s>.+?)\s+(?:have|has|need|needs)\s+to\s+(?P<o>.+)$", "must"),
        (rf"^(?:can|may|could)\s+{_ASKER}\s+(?P<o>.+)$", "may"),
        (rf"^(?:must|should|shall)\s+{_ASKER}\s+(?P<o>.+)$", "must"),
        (rf"^(?:will|would)\s+{_ASKER}\s+(?P<o>.+)$", "will"),
    ]
]
_RELATION_KIND = {
    "may": "permission",
    "may not": "permission",
    "is not permitted": "permission",
    "cannot": "permission",
    "can": "permission",
    "can not": "permission",
    "must": "obligation",
    "must not": "permission",
    "shall": "obligation",
    "shall not": "permission",
    "need to": "obligation",
    "is responsible for": "obligation",
    "agrees to": "obligation",
    "is entitled to": "permission",
    "will": "commitment",
    "will not": "commitment",
}


def question_triplet(question: str) -> Triplet:
    """A question read as the statement that would answer it. Its subject is said from the
    policy's side: the asker's "I" is the policy's "you", the asker's "you" its "we"."""
    text = _clean(question).rstrip("?!. ")
    for pattern, relation in _QUESTION_FORMS:
        match = pattern.match(text)
        if match:
            subject = _policy_side(match.groupdict().get("s") or "")
            return Triplet(subject, relation, match.group("o").lower())
    return Triplet("", "", text.lower())


def _policy_side(subject: str) -> str:
    words = subject.lower().split()
    if not words:
        return ""
    if words[0] in ("i", "we", "my", "our"):
        return "you" if len(words) == 1 else "your " + " ".join(words[1:])
    if words[0] == "you":
        return "we"
    return " ".join(words)


def side(subject: str) -> str:
    """Whose statement it is: "user", "provider" or "" (neither is named)."""
    words = set(subject.lower().split())
    if words & _PROVIDER:
        return "provider"
    if words & _USER:
        return "user"
    return ""


def _terms(text: str) -> list[str]:
    """Terms as a search query reads them (the keyword index's idf is keyed by them)."""
    return index_terms([text], QUERY_STOPWORDS)[0]


@dataclass(frozen=True)
class TripletMatch:
    triplet: Triplet
    score: float


def match(
    question: Triplet, candidates: Iterable[Triplet], weight: Mapping[str, float] | None = None
) -> TripletMatch | None:
    """The candidate that best states what the question asks, scored in [0, 1]: the share of
    the question's index terms (weighted, e.g. by idf) its subject and object hold, times 0.8
    when the two name different sides (you / we) and 0.8 when their relations are of
    different kinds (permission, obligation, commitment). None when no term is shared."""
    wanted = set(_terms(f"{question.subject} {question.object}"))
    if not wanted:
        return None
    weights = {t: (weight or {}).get(t, 1.0) for t in wanted}
    total = sum(weights.values()) or 1.0
    best: TripletMatch | None = None
    for candidate in candidates:
        held = set(_terms(f"{candidate.subject} {candidate.object}"))
        shared = sum(w for t, w in weights.items() if t in held)
        if not shared:
            continue
        score = shared / total
        asked, stated = side(question.subject), side(candidate.subject)
        if asked and stated and asked != stated:
            score *= 0.8
        kind = _RELATION_KIND.get(question.relation)
        if kind and _RELATION_KIND.get(candidate.relation) != kind:
            score *= 0.8
        if best is None or score > best.score:
            best = TripletMatch(candidate, round(score, 4))
    return best
