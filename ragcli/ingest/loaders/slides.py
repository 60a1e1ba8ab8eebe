"""PowerPoint .pptx with python-pptx: one section per slide (`slide N`) with its title,
text, tables, chart titles, pictures' alt text and speaker notes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ragcli.ingest.loaders.base import LoadedFile, LoadError, Section
from ragcli.ingest.loaders.containers import check_zip, library_error
from ragcli.ingest.loaders.properties import core_properties
from ragcli.ingest.loaders.tables import table_lines


def load_pptx(path: Path) -> LoadedFile:
    check_zip(path, "PowerPoint deck")
    from pptx import Presentation
    from pptx.exc import PackageNotFoundError

    try:
        deck = Presentation(str(path))
        slides = list(deck.slides)
        sections = [_slide(slide, number) for number, slide in enumerate(slides, start=1)]
    except LoadError:
        raise
    except PackageNotFoundError:
        raise LoadError("corrupt PowerPoint deck (not a .pptx package)") from None
    except Exception as exc:  # python-pptx and lxml raise many kinds on damaged files
        raise library_error("PowerPoint deck", exc) from None
    return LoadedFile("pptx", sections, pages=len(slides), metadata=core_properties(deck))


def _slide(slide: Any, number: int) -> Section:
    title_shape = slide.shapes.title
    title = " ".join(title_shape.text_frame.text.split()) if title_shape is not None else ""
    parts: list[str] = [title] if title else []
    for shape in slide.shapes:
        if title_shape is not None and shape.shape_id == title_shape.shape_id:
            continue
        parts.extend(_shape_texts(shape))
    if slide.has_notes_slide:
        notes = slide.notes_slide.notes_text_frame
        if notes is not None and notes.text.strip():
            parts.append("Speaker notes: " + notes.text.strip())
    return Section(
        "\n\n".join(p for p in parts if p.strip()),
        page=None,
        heading=title or None,
        locator=f"slide {number}",
    )


def _shape_texts(shape: Any) -> Iterator[str]:
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
        for inner in shape.shapes:
            yield from _shape_texts(inner)
        return
    if shape.has_text_frame and shape.text_frame.text.strip():
        yield shape.text_frame.text.strip()
    if getattr(shape, "has_table", False) and shape.has_table:
        rows = [[cell.text for cell in row.cells] for row in shape.table.rows]
        yield "\n".join(table_lines(rows))
    if getattr(shape, "has_chart", False) and shape.has_chart:
        chart = shape.chart
        if chart.has_title and chart.chart_title.has_text_frame:
            title = chart.chart_title.text_frame.text.strip()
            if title:
                yield f"Chart: {title}"
    # Alt text ("descr") of pictures and other shapes: often the only words a diagram has.
    description = shape._element.xpath("./*[1]/p:cNvPr/@descr")
    if description and description[0].strip():
        yield f"Picture: {description[0].strip()}"
