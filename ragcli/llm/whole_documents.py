"""A model's answer over whole documents (`ask --file`, auto's summaries), with the
OpenAI-compatible backend: one call when the sections fit the context budget
(`documents.context_tokens`), else map-reduce: each group of consecutive sections that
fits is read by one call that notes what answers the question, citing the sections, and
one last call writes the answer from the notes, keeping their citations. Groups beyond the
run's model calls (limits.max_llm_calls) are not read: the coverage says how many were."""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from ragcli.llm import prompts
from ragcli.models import RetrievedChunk

NOTHING = "NONE"  # a map call's reply when its sections say nothing on the question
OVERHEAD_TOKENS = 400  # the prompt's own words and a source's tags, per call
MAP_WORKERS = 4  # map calls at once: a remote model serves them side by side
CHARS_PER_TOKEN = 4  # English text's average: a budget needs no tokenizer


def estimate_tokens(text: str) -> int:
    return len(text) // CHARS_PER_TOKEN + 1


@dataclass
class ModelReading:
    """What the model wrote and which sections (0-based indexes) it read."""

    answer: str
    read: list[int] = field(default_factory=list)
    strategy: str = "whole"  # whole | map_reduce
    groups: int = 1
    groups_read: int = 1


def tokens_of(section: RetrievedChunk) -> int:
    return estimate_tokens(section.content) + estimate_tokens(prompts.source_label(section))


def groups_within(sections: list[RetrievedChunk], budget: int) -> list[list[int]]:
    """Consecutive sections in groups of at most `budget` tokens (a section longer than
    that alone is a group of one, cut when it is sent)."""
    groups: list[list[int]] = []
    used = 0
    for index, section in enumerate(sections):
        size = tokens_of(section)
        if groups and used + size <= budget:
            groups[-1].append(index)
            used += size
        else:
            groups.append([index])
            used = size
    return groups


def whole_prompt(question: str, sections: list[RetrievedChunk], chars: int) -> str:
    return (
        f"Sources (whole documents, section by section):\n"
        f"{prompts.numbered_sources(sections, max_chars=chars)}\n\n"
        f"Question: {question}\n\n"
        "Answer the question from these documents only. Cite the section each sentence "
        "comes from with its number in square brackets, like [1] or [2][3]."
    )


def map_prompt(
    question: str, sections: list[RetrievedChunk], first: int, total: int, chars: int
) -> str:
    numbered = prompts.numbered_sources(sections, max_chars=chars, start=first)
    return (
        f"Sources (sections {first}–{first + len(sections) - 1} of {total} of the "
        f"documents):\n{numbered}\n\n"
        f"Question: {question}\n\n"
        "Write, as short points, what these sections say that helps answer the question, "
        "each point citing its section's number in square brackets, like [4]. If they say "
        f"nothing that helps, reply {NOTHING}."
    )


def reduce_prompt(question: str, notes: list[str]) -> str:
    joined = "\n\n".join(f"<answer>\n{prompts.as_data(note)}\n</answer>" for note in notes)
    return (
        f"Notes taken from the documents, part by part, each citing the sections it "
        f"comes from:\n{joined}\n\n"
        f"Question: {question}\n\n"
        "Write the answer from these notes only. Keep each point's citations, like [4], "
        "after the sentence that uses it."
    )


def read_with_model(
    backend,
    question: str,
    sections: list[RetrievedChunk],
    budget: int,
    fits_calls: Callable[[int], bool],
    on_token: Callable[[str], None] | None = None,
) -> ModelReading:
    """The answer over `sections` with `backend` (an OpenAIBackend): whole when they fit
    `budget` tokens, else map-reduce within the calls the run has left."""
    chars = max(1000, budget * CHARS_PER_TOKEN)
    total = sum(tokens_of(s) for s in sections) + OVERHEAD_TOKENS
    if total <= budget:
        prompt = whole_prompt(question, sections, chars)
        answer = backend._chat_streaming(prompt, on_token) if on_token else backend._chat(prompt)
        return ModelReading(answer, list(range(len(sections))))
    groups = groups_within(sections, budget - OVERHEAD_TOKENS)
    affordable = len(groups)
    while affordable > 0 and not fits_calls(affordable + 1):
        affordable -= 1
    read = groups[:affordable]

    def note(group: list[int]) -> str:
        chosen = [sections[i] for i in group]
        return backend._chat(map_prompt(question, chosen, group[0] + 1, len(sections), chars))

    with ThreadPoolExecutor(max_workers=MAP_WORKERS, thread_name_prefix="ragcli-map") as pool:
        futures = [pool.submit(contextvars.copy_context().run, note, group) for group in read]
        notes = [future.result() for future in futures]
    useful = [n for n in notes if n.strip() and n.strip().upper() != NOTHING]
    if not useful:
        return ModelReading("", [i for g in read for i in g], "map_reduce", len(groups), len(read))
    prompt = reduce_prompt(question, useful)
    answer = backend._chat_streaming(prompt, on_token) if on_token else backend._chat(prompt)
    return ModelReading(answer, [i for g in read for i in g], "map_reduce", len(groups), len(read))
