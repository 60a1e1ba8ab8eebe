"""The documents mode's answer parts as Markdown: a heading part opens an item (or, with
`new_paragraph`, a document's own paragraph in bold), the sentences after it follow in
that item, each with its citation; a sentence with `new_paragraph` opens an item of its
own (a section with no name)."""

from __future__ import annotations

from ragcli.answer import Answer


def markdown(answer: Answer) -> str:
    lines: list[str] = []
    for part in answer.parts:
        if part.kind == "heading" and part.new_paragraph:
            if lines:
                lines.append("")
            lines.append(f"**{part.text}**")
            lines.append("")
        elif part.kind == "heading":
            lines.append(f"- **{part.text}**:")
        else:
            cited = "".join(f" [{n}]" for n in part.sources)
            sentence = f"{part.text}{cited}"
            if lines and lines[-1].startswith("- ") and not part.new_paragraph:
                lines[-1] += f" {sentence}"
            else:
                lines.append(f"- {sentence}")
    return "\n".join(lines).strip()
