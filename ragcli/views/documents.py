"""The line `ask` shows above an answer over whole documents: what was read, how much of
it (sections read of all), how the answer was made and within which budget."""

from __future__ import annotations

from pathlib import PurePath

from rich.text import Text

from ragcli.pipeline.modes.documents.details import DocumentsDetails

HOW = {
    "extractive": "an extractive summary",
    "whole": "read whole by the model",
    "map_reduce": "map-reduced by the model",
}


def documents_line(details: DocumentsDetails) -> Text:
    read = sum(d.sections_read for d in details.documents)
    total = sum(d.sections for d in details.documents)
    cited = sum(d.sections_cited for d in details.documents)
    names = ", ".join(PurePath(d.path).name for d in details.documents)
    facts = [f"{read} of {total} sections read", f"{cited} cited", HOW[details.strategy]]
    if details.strategy != "extractive":
        facts.append(f"{details.tokens:,} tokens, {details.budget_tokens:,} a call")
    if details.groups:
        facts.append(f"{details.groups_read} of {details.groups} groups")
    style = "bold cyan" if read == total else "bold yellow"
    return Text(f"whole documents: {names} ({'; '.join(facts)})", style=style)
