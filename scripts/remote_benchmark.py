#!/usr/bin/env python3
"""Issue 69's figures, one run: Python 3.11's HOWTO pages (Debian's python3-doc) served by
the tests' static server on 127.0.0.1 (ETags, a sitemap, robots.txt) and crawled, against
the same HTML files ingested from disk.

- pages per second, crawl and embed, against the same pages from disk (a ratio);
- an unchanged re-sync: seconds, requests, how many conditional, how many 304;
- boilerplate left in stored chunks, with and without main-content extraction: the chunks
  holding the pages' sidebar and footer words, and the share of characters in such lines;
- what each extractor keeps of a page body's headings, code blocks and tables;
- how-to answers (scripts/data/python_howto_questions.yaml, the offline backend) over the
  crawled site against the files.

    nice -n 10 .venv/bin/python scripts/remote_benchmark.py
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.web_server import StaticSite, python_docs  # noqa: E402

QUESTIONS = ROOT / "scripts" / "data" / "python_howto_questions.yaml"
SECTION = "howto"
TABLE_PAGES = ("string.html", "datetime.html", "stdtypes.html")


def settings_for(store: Path):
    from ragcli.config import load_settings

    return load_settings(None, {"store.path": str(store), "llm.provider": "extractive"}, {})


def crawl(store: Path, url: str, main_content: bool = True, embed: bool = True):
    """Crawl `url` into `store`; without `embed`, tiny stand-in vectors (what is measured
    then is only what the chunks hold)."""
    from ragcli import service
    from ragcli.remote.roots import WebRoot
    from ragcli.remote.run import RemoteOptions, ingest_roots
    from ragcli.remote.web import CrawlOptions

    ingestor = service.ingestor(settings_for(store))
    if not embed:
        from tests.support.embedders import CountingEmbedder

        ingestor.embedder = CountingEmbedder()
    options = RemoteOptions(CrawlOptions(main_content=main_content))
    started = time.perf_counter()
    report = ingest_roots(ingestor, [WebRoot(url)], "docs", options=options)
    seconds = time.perf_counter() - started
    return ingestor, report, seconds


def body_text(html: str) -> str:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "lxml")
    main = soup.select_one("[role=main]") or soup
    return normal(main.get_text(" "))


def normal(text: str) -> str:
    return " ".join(re.sub(r"[`*_|#>\[\]()¶-]", " ", text).split()).lower()


# What Python's pages hold around their content (sidebar, related bar, footer).
BOILERPLATE = (
    "Previous topic",
    "Next topic",
    "This Page",
    "Report a Bug",
    "Show Source",
    "Quick search",
    "Copyright",
    "Navigation",
    "Theme Auto Light Dark",
)


def boilerplate_share(ingestor, pages: dict[str, str]) -> dict[str, float]:
    """Stored chunks holding the pages' sidebar or footer words, and the share of the
    characters in such lines."""
    del pages
    data = ingestor.store.collection("docs").get(include=["documents"])
    texts = data["documents"]
    total = sum(len(t) for t in texts) or 1
    lines = sum(len(x) for t in texts for x in t.splitlines() if any(w in x for w in BOILERPLATE))
    holding = sum(1 for t in texts if any(w in t for w in BOILERPLATE))
    return {"chunks": len(texts), "holding": holding, "chars": round(lines / total, 4)}


def extractor_fidelity(pages: list[Path]) -> dict[str, dict[str, float]]:
    """Per extractor: the share of the body's headings, code blocks and table rows it keeps
    (each told by its first 80 characters, normalised)."""
    from bs4 import BeautifulSoup

    from ragcli.blocks.html import html_document
    from ragcli.blocks.model import CodeBlock, Heading, Table, flat
    from ragcli.remote import extract

    def counts(html: str) -> dict[str, set[str]]:
        blocks = flat(html_document(html)[1])
        tables = [b for b in blocks if isinstance(b, Table)]
        return {
            "headings": {normal(b.title) for b in blocks if isinstance(b, Heading)},
            "code": {normal(b.text)[:80] for b in blocks if isinstance(b, CodeBlock)},
            "tables": {normal(" ".join(row))[:80] for t in tables for row in t.rows},
        }

    extractors = {"landmark": None, "trafilatura": extract._trafilatura}
    try:
        from readability import Document

        extractors["readability"] = lambda html: Document(html).summary(html_partial=True)
    except ImportError:
        pass
    kept = {name: {"headings": 0, "code": 0, "tables": 0} for name in extractors}
    whole = {"headings": 0, "code": 0, "tables": 0}
    for page in pages:
        html = page.read_text(encoding="utf-8")
        soup = BeautifulSoup(html, "lxml")
        truth = counts(str(soup.select_one("[role=main]") or soup))
        for kind in whole:
            whole[kind] += len(truth[kind])
        for name, function in extractors.items():
            if function is None:
                main = extract._landmark(soup)
                got = counts(str(main)) if main is not None else counts("")
            else:
                got = counts(function(html) or "")
            for kind in whole:
                kept[name][kind] += len(truth[kind] & got[kind])
    return {
        name: {
            kind: round(kept[name][kind] / whole[kind], 3) if whole[kind] else 1.0 for kind in whole
        }
        | {"of": dict(whole)}
        for name in extractors
    }


def answers(store: Path) -> tuple[int, int, list[str]]:
    from ragcli import service
    from ragcli.evaluation.howto import answers_it, load_howtos

    settings = settings_for(store)
    resources = service.Resources(settings)
    questions = load_howtos(QUESTIONS)
    hits, said = 0, []
    for q in questions:
        result = service.ask(settings, q.question, resources=resources)
        hit = answers_it(result.answer, q)
        hits += hit
        said.append(("✓ " if hit else "✗ ") + q.question)
    return hits, len(questions), said


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.parse_args()
    docs = python_docs()
    if docs is None:
        raise SystemExit(
            "remote_benchmark: python3-doc is not installed (scripts/install_python_docs.sh)"
        )
    work = Path(tempfile.mkdtemp(prefix="ragcli-remote-bench-"))
    figures: dict = {"corpus": f"Python 3.11 HTML docs, {SECTION}/ ({docs})"}
    try:
        site = work / "site"
        shutil.copytree(docs / SECTION, site / SECTION)
        files = work / "files"
        shutil.copytree(docs / SECTION, files)
        pages = sorted(files.glob("*.html"))
        with StaticSite(site) as server:
            url = f"{server.url}/{SECTION}/"
            ingestor, report, seconds = crawl(work / "crawled", url)
            crawled = report.stored()
            figures["crawl"] = {
                "pages": crawled,
                "seconds": round(seconds, 1),
                "pages_per_second": round(crawled / seconds, 2),
                "chunks": report.chunks_added,
            }
            bodies = {f"{url}{p.name}": body_text(p.read_text(encoding="utf-8")) for p in pages}
            bodies[url] = bodies.get(f"{url}index.html", "")
            figures["boilerplate_main_content"] = boilerplate_share(ingestor, bodies)
            ingestor.close()
            server.reset_counts()
            ingestor, again, seconds = crawl(work / "crawled", url)
            figures["resync"] = {
                "seconds": round(seconds, 2),
                "requests": sum(server.requests.values()),
                "conditional": sum(server.conditional.values()),
                "not_modified": server.not_modified,
                "unchanged": again.count("unchanged"),
                "stored": again.stored(),
            }
            ingestor.close()
            whole, _, _ = crawl(work / "whole", url, main_content=False, embed=False)
            figures["boilerplate_whole_page"] = boilerplate_share(whole, bodies)
            whole.close()
        from ragcli import service

        started = time.perf_counter()
        disk = service.ingestor(settings_for(work / "disk"))
        local = disk.run(pages, "docs")
        seconds = time.perf_counter() - started
        disk.close()
        figures["disk"] = {
            "pages": local.stored(),
            "seconds": round(seconds, 1),
            "pages_per_second": round(local.stored() / seconds, 2),
            "chunks": local.chunks_added,
        }
        figures["crawl_over_disk"] = round(
            figures["crawl"]["pages_per_second"] / figures["disk"]["pages_per_second"], 2
        )
        # The HOWTOs have no tables: three library pages that have some are added.
        figures["extractors"] = extractor_fidelity(
            pages + [docs / "library" / name for name in TABLE_PAGES]
        )
        site_hits, total, site_said = answers(work / "crawled")
        disk_hits, _, disk_said = answers(work / "disk")
        figures["howto"] = {
            "questions": total,
            "site": site_hits,
            "files": disk_hits,
            "site_answers": site_said,
            "file_answers": disk_said,
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(figures, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
