"""The offline answer's last stage: the chosen candidates as a typed Answer, each quote
cited, a lead-in followed by the list or code it introduces (or the include naming the
file that holds it) while the budget allows."""

from __future__ import annotations

from dataclasses import replace

from ragcli.answer import Answer, AnswerPart
from ragcli.llm.offline.brought import cut_off_pieces, introduced_pieces, reference_after
from ragcli.llm.offline.scoring import as_quoted
from ragcli.llm.offline.selection import Selection
from ragcli.llm.quotes import quoted_part
from ragcli.models import RetrievedChunk
from ragcli.text.lead_ins import LEAD_IN_END

NO_ANSWER = "The retrieved documents do not appear to answer this question."


def quoted_answer(selection: Selection, chunks: list[RetrievedChunk], max_chars: int) -> Answer:
    """The answer quoting `selection` within `max_chars` (llm.answer_max_chars)."""
    chosen, example = selection.chosen, selection.example
    # What the chosen sentences leave for the lists and code their lead-ins bring (they
    # were counted in when choosing, so each fits).
    room = max_chars - sum(len(as_quoted(c)) + (2 if c is example else 5) for c in chosen)
    parts: list[AnswerPart] = []
    taken: set[tuple[int, int]] = set()  # (chunk, position) quoted after a lead-in
    for c in chosen:
        if (c.chunk_number, c.position) in taken:
            continue
        chunk = chunks[c.chunk_number - 1]
        parts.append(quoted_part(as_quoted(c), c.kind, c.chunk_number, chunk, c.text))
        if LEAD_IN_END.search(c.text):  # a lead-in: quote the list or code it introduces
            follow, count = introduced_pieces(chunk.content, c.position)
            follow = follow or cut_off_pieces(chunk, c.position)
            reference = None
            if not follow and (reference := reference_after(chunk.content, c.position)):
                # The example is kept in another file: the answer says which.
                follow, count = [reference], 1
            taken |= {(c.chunk_number, c.position + i) for i in range(1, count + 1)}
            size = len("\n".join(p.text for p in follow))
            # Quoted as one with the lead-in, on lines of their own and cited once.
            if follow and size + 2 <= room:
                parts += [
                    quoted_part(p.text, p.kind, c.chunk_number, chunk, continues=True)
                    for p in follow
                ]
                if reference is not None and parts[-1].language:
                    # Its fence's `include=` names the file the text already names.
                    parts[-1] = replace(parts[-1], language=parts[-1].language.split()[0])
                room -= size + 2
    if not parts:
        return Answer.of_notes(NO_ANSWER)
    return Answer(tuple(parts))
