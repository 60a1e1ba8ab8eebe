"""documents: a question answered over whole documents (`ask --file`, or auto's route for
"summarise / compare these documents"), not over retrieved chunks.

Each section of the documents is a source. The offline backend writes an extractive
summary (llm/summary.py: sentences chosen for coverage of the sections, each citing its
section); a model reads the sections whole when they fit `documents.context_tokens`, else
map-reduces over groups of them (llm/whole_documents.py). The answer cites sections;
the result's sources are the sections it cites, and the support marks check each sentence
against them. Budget and coverage (sections read of all) are the `read_documents` step's,
and the result's `documents_details`."""

from __future__ import annotations

from pathlib import PurePath

from ragcli.answer import Answer, AnswerPart
from ragcli.documents.model import StoredDocument
from ragcli.llm.answer_parse import parse_answer
from ragcli.llm.summary import SectionText, summarise
from ragcli.models import ChunkMetadata, RetrievedChunk
from ragcli.pipeline.context import RunContext
from ragcli.pipeline.conversation import estimate_tokens
from ragcli.pipeline.modes.documents.details import DocumentRead, DocumentsDetails
from ragcli.pipeline.results import AskResult
from ragcli.terms import terms

NOTHING_TO_READ = "There is no document to read whole: name the files (ask --file PATH)."


def run(ctx: RunContext, question: str) -> AskResult:
    documents = [d for d in ctx.documents or [] if d.sections]
    if not documents:
        return ctx.result(Answer.of_notes(NOTHING_TO_READ), [], "not_covered")
    sources, owners = section_sources(documents)
    budget = ctx.settings.documents.context_tokens
    tokens = sum(estimate_tokens(s.content) for s in sources)
    offline = ctx.llm.name != "openai"
    with ctx.trace.step(
        "read_documents", documents=[d.path for d in documents], chosen_by=ctx.documents_chosen_by
    ) as step:
        step.scores = {"documents": len(documents), "sections": len(sources), "tokens": tokens}
        step.threshold = {"documents.context_tokens": budget}
        if offline:
            step.decision = f"extractive summary over all {len(sources)} sections"
        elif tokens <= budget:
            step.decision = f"whole: {tokens:,} tokens fit {budget:,}"
        else:
            step.decision = f"map-reduce: {tokens:,} tokens exceed {budget:,}"
        step.details["documents"] = [
            {"path": d.path, "sections": len(d.sections), "chars": d.chars} for d in documents
        ]
    if offline:
        answer, read, strategy, groups = _extractive(ctx, question, documents, sources)
    else:
        answer, read, strategy, groups = _with_model(ctx, question, sources, budget)
    cited = sorted(n for n in answer.cited() if 0 < n <= len(sources))
    answer, _ = answer.renumbered({old: new for new, old in enumerate(cited, start=1)})
    details = _details(documents, owners, read, cited, strategy, groups, budget, tokens, ctx)
    notes = []
    if details.coverage < 1.0:
        notes.append(
            f"read {sum(d.sections_read for d in details.documents)} of {len(sources)} "
            "sections: the model calls ran out (limits.max_llm_calls)"
        )
    if answer.empty:
        nothing = Answer.of_notes("The documents say nothing on this.")
        return ctx.result(nothing, [], "not_covered", notes)
    result = ctx.result(answer, [sources[n - 1] for n in cited], "answer", notes)
    result.documents_details = details
    return result


def section_sources(documents: list[StoredDocument]) -> tuple[list[RetrievedChunk], list[int]]:
    """Each section with text as a source, and the index of the document it belongs to."""
    sources: list[RetrievedChunk] = []
    owners: list[int] = []
    for index, document in enumerate(documents):
        for section in document.sections:
            if not section.text.strip():
                continue
            first = section.parts[0] if section.parts else None
            meta = ChunkMetadata(
                chunk_id=first.chunk_id if first else f"{document.path}#{len(sources)}",
                source_file=document.path,
                file_type=document.file_type,
                chunk_index=first.chunk_index if first else 0,
                total_chunks=document.chunks,
                chunk_method="section",
                char_count=len(section.text),
                content_preview=section.text[:100],
                page=section.page,
                heading=section.heading,
                locator=section.locator,
            )
            sources.append(RetrievedChunk(content=section.text, score=1.0, metadata=meta))
            owners.append(index)
    return sources, owners


def _extractive(ctx: RunContext, question: str, documents, sources):
    budget = ctx.settings.documents.summary_sentences
    texts = [
        SectionText(n, s.metadata.source_file, s.metadata.heading, s.content)
        for n, s in enumerate(sources, start=1)
    ]
    names = {t for d in documents for t in terms(_name_words(d))}
    with ctx.trace.step("summarize", sections=len(texts), budget=budget) as step:
        picks = summarise(question, texts, budget * len(documents), names)
        covered = {p.number for p in picks}
        step.scores = {"sentences": len(picks), "sections_cited": len(covered)}
        step.threshold = {"documents.summary_sentences": budget}
        step.decision = f"{len(picks)} sentences from {len(covered)} of {len(texts)} sections"
    answer = Answer(tuple(_parts(picks, sources, several=len(documents) > 1)))
    return answer, list(range(len(sources))), "extractive", None


def _parts(picks, sources: list[RetrievedChunk], several: bool) -> list[AnswerPart]:
    """Each section's chosen sentences as one item, under the section's name (a label; an
    empty one for a section under no heading, a PDF page); with several documents, each
    document's items under its file name, a paragraph of its own."""
    parts: list[AnswerPart] = []
    document = None
    section = None
    for pick in picks:
        meta = sources[pick.number - 1].metadata
        named = False
        if several and meta.source_file != document:
            document = meta.source_file
            parts.append(AnswerPart(PurePath(document).name, "heading", new_paragraph=True))
            named = True
        if pick.number != section:
            section = pick.number
            label = (meta.heading or "").rsplit(" > ", 1)[-1].strip()
            parts.append(AnswerPart(label, "label", new_paragraph=named))
        parts.append(AnswerPart(pick.text, "sentence", (pick.number,), chunk_id=meta.chunk_id))
    return parts


def _name_words(document: StoredDocument) -> str:
    return " ".join([PurePath(document.path).stem.replace("_", " "), document.title or ""])


def _with_model(ctx: RunContext, question: str, sources, budget: int):
    from ragcli.llm.whole_documents import read_with_model

    with ctx.trace.step("read_with_model", sections=len(sources), budget=budget) as step:
        reading = read_with_model(
            ctx.llm,
            question,
            sources,
            budget,
            ctx.budget.fits_llm_calls,
            **ctx.stream_kwargs(),
        )
        step.scores = {"sections_read": len(reading.read), "groups": reading.groups}
        step.threshold = {"limits.max_llm_calls": ctx.settings.limits.max_llm_calls}
        step.decision = (
            f"{reading.strategy}: read {len(reading.read)} of {len(sources)} sections"
            + (
                f" in {reading.groups_read} of {reading.groups} groups"
                if reading.groups > 1
                else ""
            )
        )
    groups = (reading.groups, reading.groups_read) if reading.strategy == "map_reduce" else None
    return parse_answer(reading.answer), reading.read, reading.strategy, groups


def _details(documents, owners, read, cited, strategy, groups, budget, tokens, ctx):
    rows = []
    for index, document in enumerate(documents):
        mine = [n for n, owner in enumerate(owners) if owner == index]
        rows.append(
            DocumentRead(
                path=document.path,
                sections=len(mine),
                sections_read=sum(1 for n in mine if n in set(read)),
                sections_cited=sum(1 for n in mine if n + 1 in set(cited)),
                tokens=estimate_tokens(document.text),
            )
        )
    total = max(1, len(owners))
    return DocumentsDetails(
        strategy=strategy,
        chosen_by=ctx.documents_chosen_by,
        budget_tokens=budget,
        tokens=tokens,
        coverage=round(len(set(read)) / total, 4),
        cited=round(len(set(cited)) / total, 4),
        groups=groups[0] if groups else None,
        groups_read=groups[1] if groups else None,
        documents=rows,
    )
