"""Rule-based decomposition for the offline backend: no model reads the question, so the
parts are found in its grammar. Several questions ("...? Also, how ...?"), clauses
joined by a conjunction before a new question ("..., and how long ..."), comparisons
("compare A and B" → about A, about B, how they differ) and lists ("what are the X,
the Y and the Z") each become sub-questions."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ragcli.llm.text import sentences

_QUESTION_WORDS = r"what|which|who|where|when|why|how|is|are|can|could|does|do|did|should"
_IMPERATIVES = r"tell me|explain|describe|list|compare|contrast|show me|give me|summari[sz]e"
_DETERMINER = r"(?:the|a|an|my|your|our|its|their|this|that|these|those)\b"

# "...? what ...": a question mark ends a question even before a lower-case letter.
QUESTION_END = re.compile(r"(?<=\?)\s+")
# "Also, how ..." / "And what ...": the lead-in is not part of the question.
LEAD_IN = re.compile(
    r"^(?:also|and|plus|additionally|then|finally|lastly|besides|secondly|next)\b[,:]?\s+", re.I
)
# A conjunction that starts a new question: "..., and how long ...", "...; what ...".
CLAUSE_BREAK = re.compile(
    rf"\s*;\s*|,?\s+(?:and|but|as well as)\s+(?:also\s+)?"
    rf"(?=(?:{_QUESTION_WORDS}|{_IMPERATIVES})\b)",
    re.I,
)
TELL_ME = re.compile(rf"^(?:please\s+)?tell me\s+(?=(?:{_QUESTION_WORDS})\b)", re.I)
EMBEDDED_QUESTION = re.compile(
    r"^(?P<wh>how(?:\s+(?:long|much|many|often|soon))?|what|when|where|why|which)\s+"
    r"(?P<subject>I|you|we|they)\s+(?!do\b|can\b|should\b|will\b|must\b)",
    re.I,
)
COMPARE = re.compile(r"^(?:please\s+)?(?:compare|contrast)\s+(?P<object>.+)$", re.I)
# "Compare A and B: price and refunds", "... in terms of price": what to compare them on.
ASPECT = re.compile(r"\s*:\s+|\s+in\s+terms\s+of\s+", re.I)
DIFFERENCE = re.compile(
    r"\b(?:the\s+)?differences?\s+between\s+(?P<a>.+?)\s+and\s+(?P<b>.+)$", re.I
)
COMPARED_TO = re.compile(
    r"^how\s+(?:does|do|did)\s+(?P<a>.+?)\s+compare\s+(?:to|with|against)\s+(?P<b>.+)$", re.I
)
VERSUS = re.compile(r"^(?P<a>.+?)\s+(?:vs\.?|versus)\s+(?P<b>.+)$", re.I)
# "What are ...", "How long is ...": the part of a list question that every item shares.
LIST_HEAD = re.compile(
    r"^(?P<head>(?:what|which|who|where|when|how(?:\s+\w+)?)\s+(?P<verb>is|are|was|were)\s+)"
    r"(?P<rest>.+)$",
    re.I,
)
IMPERATIVE_HEAD = re.compile(
    r"^(?:tell me(?: about)?|list|give me|show me|describe)\s+(?P<rest>.+)$", re.I
)
# "the yearly prices of the Team" + "Business plans": the coordination is inside a phrase.
SHARED_PHRASE = re.compile(
    r"^(?P<head>.+\b(?:of|for|in|on|with|under|from)\s+(?:the\s+)?)(?P<word>\S+)$", re.I
)
# Words after a noun phrase's head noun: "the port [used for ...]", "the time [of day]".
_AFTER_HEAD_NOUN = re.compile(
    r"\s+(?:of|for|in|on|at|by|from|to|with|used|that|which|who|when|if|per)\b.*$", re.I
)


@dataclass(frozen=True)
class Part:
    text: str
    contrast: bool = False  # "how do A and B differ": the first to go when over the limit


def decompose(question: str, max_parts: int) -> list[str]:
    """The sub-questions of `question`, or `[question]` when it has only one part."""
    parts: list[Part] = []
    pieces = [p for s in sentences(question) or [question] for p in QUESTION_END.split(s)]
    for sentence in pieces:
        for clause in CLAUSE_BREAK.split(sentence):
            parts.extend(_expand(_clean(clause)))
    parts = [p for p in parts if re.search(r"\w", p.text)]
    seen: set[str] = set()
    unique = []
    for part in parts:
        if _key(part.text) not in seen:
            seen.add(_key(part.text))
            unique.append(part)
    if len(unique) > max_parts:
        # "How do they differ" is what the synthesis shows anyway: drop it before a part
        # the user asked about.
        contrasts = [p for p in unique if p.contrast]
        for part in reversed(contrasts[: len(unique) - max_parts]):
            unique.remove(part)
    if len(unique) < 2:
        return [question.strip()]
    return [p.text for p in unique]


def _key(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def _clean(clause: str) -> str:
    clause = clause.strip().rstrip("?.!").strip()
    while LEAD_IN.match(clause):
        clause = LEAD_IN.sub("", clause, count=1)
    if TELL_ME.match(clause):
        # "tell me how long I have to ..." asks "how long do I have to ...?"
        clause = EMBEDDED_QUESTION.sub(r"\g<wh> do \g<subject> ", TELL_ME.sub("", clause))
    return clause.strip(" ,")


def _as_question(text: str) -> str:
    text = text.strip().rstrip("?.!,;").strip()
    return text[:1].upper() + text[1:] + "?" if text else ""


def _expand(clause: str) -> list[Part]:
    if not clause:
        return []
    compared, aspect = _aspect(clause)
    pair = _comparison(compared)
    if pair is not None:
        a, b, whole_a, whole_b = pair
        if aspect:
            # "price" → "What is the price of A?", "How do A and B differ in price?"
            named = aspect if re.match(_DETERMINER, aspect, re.I) else f"the {aspect}"
            head = _agree("What are ", "are", named) + named
            return [
                Part(_as_question(f"{head} of {a}")),
                Part(_as_question(f"{head} of {b}")),
                Part(_as_question(f"How do {whole_a} and {whole_b} differ in {aspect}"), True),
            ]
        return [
            Part(_as_question(_agree("What is ", "is", a) + a)),
            Part(_as_question(_agree("What is ", "is", b) + b)),
            Part(_as_question(f"How do {whole_a} and {whole_b} differ"), contrast=True),
        ]
    items = _list_items(clause)
    if items is not None:
        return [Part(_as_question(item)) for item in items]
    return [Part(_as_question(clause))]


def _aspect(clause: str) -> tuple[str, str]:
    """'Compare A and B: price and refunds' → ('Compare A and B', 'price and refunds'); a
    clause without an aspect comes back whole, with an empty one."""
    match = ASPECT.search(clause)
    if match is None:
        return clause, ""
    head, aspect = clause[: match.start()].strip(" ,"), clause[match.end() :].strip(" ,")
    if not COMPARE.match(head) or not aspect:
        return clause, ""
    return head, aspect


def _comparison(clause: str) -> tuple[str, str, str, str] | None:
    """(A, B) as self-contained phrases, and as the user wrote them."""
    a = b = None
    if match := COMPARE.match(clause):
        a, b = _split_pair(match.group("object"))
    elif (match := DIFFERENCE.search(clause)) or (match := COMPARED_TO.match(clause)):
        a, b = match.group("a"), match.group("b")
    elif match := VERSUS.match(clause):
        a, b = match.group("a"), match.group("b")
    if not a or not b:
        return None
    a, b = a.strip(" ,"), b.strip(" ,")
    return (*_distribute(a, b), a, b)


def _split_pair(text: str) -> tuple[str | None, str | None]:
    for joint in (" and ", " with ", " versus ", " vs. ", " vs ", " to "):
        left, found, right = text.partition(joint)
        if found and left.strip() and right.strip():
            return left, right
    return None, None


def _distribute(a: str, b: str) -> tuple[str, str]:
    """'the yearly prices of the Team' and 'Business plans' are about 'the yearly prices of
    the Team plans' and 'the yearly prices of the Business plans'."""
    a_words, b_words = a.split(), b.split()
    shared = SHARED_PHRASE.match(a)
    # "the Team and Business plans": the head noun after B is A's too ("the Team plans").
    noun = b_words[-1] if len(b_words) >= 2 else ""
    bare_a = [w for w in a_words if not re.fullmatch(_DETERMINER, w, re.I)]
    if shared is None and noun.endswith("s") and len(bare_a) == 1 and noun not in a_words:
        return f"{a} {noun}", b
    if (
        shared is None
        or len(b_words) >= len(a_words)
        or len(b_words) > 3
        or re.match(_DETERMINER, b, re.I)
    ):
        return a, b
    suffix = " ".join(b_words[1:])
    return f"{a} {suffix}".strip(), f"{shared.group('head')}{b}"


def _list_items(clause: str) -> list[str] | None:
    """'What are the X, the Y and the Z' → 'What is the X?', 'What is the Y?', ..."""
    head, verb, rest = "", "", clause
    if match := LIST_HEAD.match(clause):
        head, verb, rest = match.group("head"), match.group("verb"), match.group("rest")
    elif match := IMPERATIVE_HEAD.match(clause):
        head, verb, rest = "What is ", "is", match.group("rest")
    else:
        return None
    items = _items(rest)
    if items is None:
        return None
    return [_agree(head, verb, item) + item for item in items]


def _items(text: str) -> list[str] | None:
    parts = [p.strip() for p in re.split(r"\s*,\s*", text) if p.strip()]
    if len(parts) >= 2:
        if match := re.match(r"(?:and|or)\s+(.+)$", parts[-1], re.I):
            parts[-1] = match.group(1)
            return parts
        if match := re.match(r"(.+?)\s+(?:and|or)\s+(.+)$", parts[-1], re.I):
            parts[-1:] = [match.group(1), match.group(2)]
            return parts
        return None
    # Two items only when both are noun phrases: "the port and the time", not
    # "terms and conditions".
    match = re.match(rf"^({_DETERMINER}.+?)\s+and\s+({_DETERMINER}.+)$", text, re.I)
    return [match.group(1), match.group(2)] if match else None


def _agree(head: str, verb: str, item: str) -> str:
    """'What are' + 'the default web port' → 'What is the default web port'."""
    noun = _AFTER_HEAD_NOUN.sub("", item).split()
    # "prices", "backups"; not "access", "status", nor a name such as "Postgres".
    plural = bool(noun) and noun[-1].islower() and re.search(r"[^su]s$", noun[-1]) is not None
    wanted = {"is": "are", "are": "are", "was": "were", "were": "were"}[verb.lower()]
    if not plural:
        wanted = {"are": "is", "were": "was"}[wanted]
    return re.sub(rf"\b{verb}\s+$", f"{wanted} ", head)
