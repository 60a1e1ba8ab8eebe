#!/usr/bin/env python
"""The formats of issue 71 (AsciiDoc, Org, e-mail, tables in PDFs) on real files, one run.

    .venv/bin/python scripts/format_benchmark.py [--files tests/data/formats] [--pdf PDF]

For each format: `ragcli ingest` of its files (tests/data/formats/<format>/, or --files) into
a fresh store, and of Markdown of the same size (this repository's docs/, cut to the same
number of bytes) into another; chunks per second of each and their ratio (a process's wall
time, so the embedding is counted in both). Then the PDF reading without and with the
table pass on --pdf (a text PDF without tables: pages per second, and their ratio), and
the share of the known tables' cells (KNOWN below, checked by eye on the rendered pages)
read into the right row and column."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scripts.benchmark import clean_env, ragcli_command, run_timed  # noqa: E402

FORMATS = {"adoc": "adoc", "org": "org", "mail": "eml/mbox", "pdf": "pdf"}
# The tables of tests/data/formats/pdf/, cell by cell as the rendered page shows them (a
# merged cell in every place it covers; a footnote's superscript left out).
KNOWN = {
    "example.pdf": [
        ["", "Indonesia", "Germany", "Austria", "France", "Vatican"],
        ["Continent", "Asia", "Europe", "Europe", "Europe", "Europe"],
        ["Capital", "Jakarta", "Berlin", "Vienna", "Paris", "Vatican City"],
        ["Currency", "Rupia", "EUR (€)", "EUR (€)", "EUR (€)", "-"],
        ["Population", "273.879.750", "83,190,556", "8,935,112", "67,413,000", "453"],
    ],
    "geobase-nhnc1-pages-3-and-14.pdf": [
        ["Date", "Version", "Description"],
        ["September 2002", "Draft 01", "First draft for discussion with Nova Scotia"],
        [
            "January 2003",
            "Draft",
            "Second draft after discussion with Nova Scotia and major "
            "review of the hydro network model through: Proposal of options",
        ],
        [
            "March 2003",
            "Alpha",
            "Draft version after discussion and decisions made concerning "
            "NHNC1 scope and content with Nova Scotia and British Columbia",
        ],
        [
            "July 2003",
            "Draft 02",
            "Draft version after discussion and decisions made concerning "
            "the detailed NHNC1 model and content with Nova Scotia, British Columbia, and the "
            "Yukon. Meeting in Victoria, May 2003.",
        ],
        [
            "December 2003",
            "Draft",
            "Integration of UML model for both LRS and Segmented views of the NHNC1.",
        ],
        ["February 2004", "Draft", "English review; Remove the UML model for the Segmented view."],
        ["May 2004", "Draft", "Update from the March Workshop comments."],
        [
            "August 2004",
            "2004.1",
            "The object metadata attribute « date » is renamed « "
            "validity_date » in section 3.1.6.2 and at all other parts referring to object "
            "metadata. A new Feature type value is added for inland water (see section 3.1.5)",
        ],
    ],
}


def markdown_of_size(folder: Path, size: int) -> None:
    """This repository's docs, whole pages, up to `size` bytes."""
    folder.mkdir(parents=True)
    used = 0
    for page in sorted((ROOT / "docs").glob("*.md")):
        text = page.read_bytes()
        if used + len(text) > size:
            text = text[: max(0, size - used)]
            cut = text.rfind(b"\n\n")
            text = text[:cut] if cut > 0 else b""
        if text:
            (folder / page.name).write_bytes(text)
            used += len(text)
        if used >= size:
            break


def ingest(folder: Path, work: Path, env: dict[str, str]) -> tuple[float, int, int]:
    store = work / f"store-{folder.name}"
    command = [*ragcli_command(), "ingest", str(folder), "--store", str(store), "--json"]
    seconds, out, _ = run_timed(command, work, env)
    report = json.loads(out)
    return seconds, int(report["chunks_added"]), int(report["files_new"])


def parse_rate(folder: Path, rounds: int = 3) -> tuple[float, int]:
    """Chunks per second of reading and cutting `folder`'s files in this process (the
    fastest of `rounds`: a warm Asciidoctor, a warm page cache), and the chunks made."""
    from ragcli.embedding.embedder import bundled_model_dir
    from ragcli.embedding.wordpieces import TokenCounter
    from ragcli.ingest.chunker import Chunker
    from ragcli.ingest.loaders import LoadError, load
    from ragcli.ingest.walker import walk

    chunker = Chunker(TokenCounter(bundled_model_dir()))
    best, chunks = float("inf"), 0
    for _ in range(rounds):
        start, made = time.perf_counter(), 0
        for path in walk(folder):
            try:
                made += len(chunker.chunk(load(path).sections))
            except LoadError:
                continue
        best, chunks = min(best, time.perf_counter() - start), made
    return chunks / best, chunks


def cell_accuracy() -> tuple[int, int]:
    from ragcli.ingest.loaders.pdf_tables import read_tables, ruled_pages

    right = total = 0
    for name, truth in KNOWN.items():
        path = ROOT / "tests" / "data" / "formats" / "pdf" / name
        found, _ = read_tables(path, ruled_pages(path, 100), lambda: False)
        cells = found[0].tables[0] if found and found[0].tables else []
        for r, row in enumerate(truth):
            for c, value in enumerate(row):
                total += 1
                got = cells[r][c] if r < len(cells) and c < len(cells[r]) else None
                right += got == value
    return right, total


def pdf_pages_per_second(pdf: Path) -> tuple[float, float, int]:
    from ragcli.ingest.loaders import pdf as module
    from ragcli.ingest.loaders.base import LoadOptions

    options = LoadOptions(ocr="off")
    original = module._with_tables
    try:
        module._with_tables = lambda path, sections, *rest: sections  # type: ignore
        start = time.perf_counter()
        pages = module.load_pdf(pdf, options, lambda: False).pages or 0
        without = time.perf_counter() - start
    finally:
        module._with_tables = original
    start = time.perf_counter()
    module.load_pdf(pdf, options, lambda: False)
    with_tables = time.perf_counter() - start
    return pages / without, pages / with_tables, pages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=Path, default=ROOT / "tests" / "data" / "formats")
    parser.add_argument("--pdf", type=Path, help="a text PDF without tables (pages/s)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ragcli-formats-") as tmp:
        work = Path(tmp)
        env = clean_env(work / "home")
        for name, label in FORMATS.items():
            source = args.files / name
            if not source.is_dir():
                continue
            files = work / name
            shutil.copytree(source, files, ignore=shutil.ignore_patterns("README*"))
            size = sum(p.stat().st_size for p in files.rglob("*") if p.is_file())
            markdown = work / f"md-{name}"
            markdown_of_size(markdown, size)
            seconds, chunks, read = ingest(files, work, env)
            md_seconds, md_chunks, _ = ingest(markdown, work, env)
            rate, md_rate = chunks / seconds, md_chunks / md_seconds
            print(
                f"{label:9} {read} files, {size / 1024:.0f} KB: {chunks} chunks in {seconds:.1f} s "
                f"({rate:.1f}/s); Markdown of that size {md_chunks} chunks in {md_seconds:.1f} s "
                f"({md_rate:.1f}/s): ratio {rate / md_rate:.2f}"
            )
            parsed, parsed_md = parse_rate(files), parse_rate(markdown)
            print(
                f"{'':9} read and cut alone: {parsed[0]:.0f} chunks/s, Markdown "
                f"{parsed_md[0]:.0f} chunks/s: ratio {parsed[0] / parsed_md[0]:.2f}"
            )
    right, total = cell_accuracy()
    print(f"PDF table cells in the right row and column: {right}/{total} ({right / total:.0%})")
    if args.pdf:
        before, after, pages = pdf_pages_per_second(args.pdf)
        print(
            f"PDF reading of {args.pdf.name} ({pages} pages): {before:.1f} pages/s without the "
            f"table pass, {after:.1f} with it: ratio {after / before:.2f}"
        )


if __name__ == "__main__":
    main()
