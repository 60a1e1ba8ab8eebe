"""Sentence support under an answer: a mark (†1, †2 …) after each sentence its sources do
not back or that states a fact without a citation, and a footnote per mark."""

from __future__ import annotations

from rich.text import Text

from ragcli.pipeline.results import AskResult
from ragcli.text.markdown import render
from ragcli.views.format import one_line

MARK = "†"
QUOTE_CHARS = 70  # of a marked sentence, in its footnote


def support_marks(result: AskResult) -> tuple[str, list[Text]]:
    """The answer with its marks after the parts they judge, and the footnotes that
    explain them (a result stored without parts shows the footnotes only)."""
    marked = [s for s in result.support if not s.supported or s.uncited]
    if not marked:
        return result.answer, []
    answer = result.answer
    typed = result.typed_answer()
    if typed is not None:
        marks: dict[int, str] = {}  # a part of two marked sentences carries both marks
        for number, item in enumerate(marked, start=1):
            if item.part is not None:
                marks[item.part] = marks.get(item.part, "") + f" **{MARK}{number}**"
        answer = render(typed, marks)
    notes = []
    for number, item in enumerate(marked, start=1):
        backers = ", ".join(f"[{n}]" for n in item.backed_by)
        if item.uncited and item.supported:
            why = f"cites no source; {backers} supports it"
        elif item.uncited:
            why = f"cites no source, and no source supports it (support {item.score:.2f})"
        else:
            cited = ", ".join(f"[{n}]" for n in item.cites)
            why = f"not supported by {cited} (support {item.score:.2f})"
        quote = one_line(item.sentence)
        if len(quote) > QUOTE_CHARS:
            quote = quote[:QUOTE_CHARS].rsplit(" ", 1)[0] + " …"
        notes.append(Text(f"{MARK}{number} {why}: “{quote}”", style="yellow"))
    return answer, notes
