"""A website as an ingest root, crawled from real HTTP servers on 127.0.0.1: a subset of
Python's HTML documentation (Debian's python3-doc, a real Sphinx build) with a sitemap,
robots.txt and ETags, and a server of faults."""

from __future__ import annotations

import shutil

import pytest

from ragcli.remote.fetch import USER_AGENT, Limits
from ragcli.remote.roots import WebRoot
from ragcli.remote.run import RemoteOptions, ingest_roots
from ragcli.remote.web import CrawlOptions
from tests.support.embedders import CountingEmbedder
from tests.support.web_server import StaticSite, copy_docs, python_docs

pytestmark = pytest.mark.server

DOCS = python_docs()
needs_docs = pytest.mark.skipif(
    DOCS is None, reason="python3-doc is not installed (scripts/install_python_docs.sh)"
)
PAGES = [
    "faq/index.html",
    "faq/gui.html",
    "faq/installed.html",
    "faq/windows.html",
    "tutorial/index.html",
]
# What Python's pages have around their content: sidebar, related bar, footer.
BOILERPLATE = (
    "Previous topic",
    "Report a Bug",
    "Show Source",
    "Python Software Foundation",
    "Navigation",
    "Quick search",
)


def _ingestor(store):
    from ragcli import service
    from tests.support.common import settings_for

    ingestor = service.ingestor(settings_for(store))
    ingestor.embedder = CountingEmbedder()  # tiny vectors: the crawl is what is tested
    return ingestor


def _chunks(ingestor):
    got = ingestor.store.get_all("docs") if hasattr(ingestor.store, "get_all") else None
    if got is not None:
        return got
    collection = ingestor.store.collection("docs")
    data = collection.get(include=["documents", "metadatas"])
    return list(zip(data["documents"], data["metadatas"], strict=True))


def _crawl(ingestor, url, prune=False, **crawl):
    options = RemoteOptions(CrawlOptions(**crawl))
    return ingest_roots(ingestor, [WebRoot(url)], "docs", prune=prune, options=options)


@needs_docs
def test_a_documentation_site_is_crawled_then_kept_in_step(tmp_path):
    site_dir = copy_docs(DOCS, tmp_path / "site", PAGES)
    with StaticSite(site_dir) as site:
        site.robots = "User-agent: *\nDisallow: /faq/windows.html\n"
        root = f"{site.url}/faq/"
        ingestor = _ingestor(tmp_path / "store")
        first = _crawl(ingestor, root)
        stored = {f.path: f for f in first.files if f.status == "new"}
        # The root and the pages it links to under /faq/; not the tutorial the sitemap
        # lists (outside the prefix), nor the page robots.txt disallows.
        assert set(stored) == {f"{root}", f"{root}gui.html", f"{root}installed.html"}, (
            first.to_dict()
        )
        assert site.requests["/faq/windows.html"] == 0
        assert site.requests["/tutorial/index.html"] == 0
        assert site.requests["/robots.txt"] == 1 and site.requests["/sitemap.xml"] == 1
        assert site.agents == {USER_AGENT}
        # /faq/index.html is the root's page again: read once.
        skipped = {f.path: f.reason for f in first.files if f.status == "skipped"}
        assert "same page as" in skipped.get(f"{root}index.html", "same page as"), skipped
        # A page the site links to and does not have is a broken link, not a failure.
        assert any("HTTP 404" in reason for reason in skipped.values())
        assert first.new_failures() == 0
        chunks = _chunks(ingestor)
        texts = " ".join(text for text, _ in chunks)
        assert "Tkinter" in texts  # the GUI FAQ's content
        for words in BOILERPLATE:
            assert words not in texts, words
        urls = {meta["url"] for _, meta in chunks}
        assert any(u.startswith(f"{root}gui.html#") for u in urls), urls
        assert all(meta["source_file"] in stored for _, meta in chunks)

        # Again: every stored page asked for conditionally, a 304 each, nothing embedded.
        site.reset_counts()
        ingestor.embedder.calls.clear()
        second = _crawl(ingestor, root)
        assert ingestor.embedder.texts == 0
        assert second.count("unchanged") == 3 and second.stored() == 0
        for path in ("/faq/", "/faq/gui.html", "/faq/installed.html"):
            assert site.conditional[path] == 1, dict(site.requests)
        assert site.not_modified == 3
        remote = second.remote[0]
        assert remote["not_modified"] == 3 and remote["conditional"] == 3
        from ragcli.remote.state import root_summaries

        (synced,) = root_summaries(ingestor.manifest.path)  # what `ragcli status` shows
        assert (synced["root"], synced["documents"], synced["failed"]) == (root, 3, 0)

        # A page edited, one moved (a redirect), one deleted.
        gui = site_dir / "faq" / "gui.html"
        gui.write_text(gui.read_text().replace("Tkinter", "Tkinter (edited)", 1))
        shutil.move(site_dir / "faq" / "installed.html", site_dir / "faq" / "setup.html")
        site.redirects["/faq/installed.html"] = "/faq/setup.html"
        third = _crawl(ingestor, root, prune=True)
        by_status = {f.path: f.status for f in third.files}
        assert by_status[f"{root}gui.html"] == "changed"
        assert by_status[f"{root}setup.html"] == "new"
        assert third.moved[0]["from"] == f"{root}installed.html"
        assert third.moved[0]["to"] == f"{root}setup.html"
        sources = {meta["source_file"] for _, meta in _chunks(ingestor)}
        assert f"{root}installed.html" not in sources and f"{root}setup.html" in sources

        (site_dir / "faq" / "setup.html").unlink()
        del site.redirects["/faq/installed.html"]
        kept = _crawl(ingestor, root)  # without --prune: said, kept
        assert f"{root}setup.html" in kept.gone
        pruned = _crawl(ingestor, root, prune=True)
        assert [f.path for f in pruned.files if f.status == "removed"] == [f"{root}setup.html"]


def test_faults_are_one_line_each_and_the_crawl_goes_on(tmp_path):
    (tmp_path / "site").mkdir()
    with StaticSite(tmp_path / "site") as site:
        site.slow_seconds = 2.0
        ingestor = _ingestor(tmp_path / "store")
        limits = Limits(timeout=0.5, max_bytes=5 << 20, rate=50.0)
        import ragcli.remote.fetch as fetch

        retries, fetch.RETRIES = fetch.RETRIES, 1
        try:
            report = _crawl(ingestor, f"{site.url}/faults/index.html", limits=limits)
        finally:
            fetch.RETRIES = retries
        outcomes = {f.path.rsplit("/", 1)[-1]: f for f in report.files}
        assert outcomes["index.html"].status == "new", str(report.to_dict()["files"])
        assert outcomes["fine.html"].status == "new"
        assert outcomes["busy.html"].status == "new"  # 429, Retry-After 1, then the page
        reasons = {name: f.reason for name, f in outcomes.items() if f.status == "failed"}
        assert "no answer within 0.5 s" in reasons["slow.html"]
        assert "HTTP 503" in reasons["error.html"]
        assert "connection failed" in reasons["drop.html"]
        assert "redirect loop" in reasons["loop-a.html"]
        assert "over the limit of 5 MB" in reasons["huge.html"]
        assert "binary" in reasons["binary.html"]
        for reason in reasons.values():
            assert "\n" not in reason and "Traceback" not in reason
        assert outcomes["gone.html"].status == "skipped"

        # Stored pages survive a site that now fails: kept, and said.
        site.folder = tmp_path / "nowhere"
        again = _crawl(ingestor, f"{site.url}/faults/fine.html", limits=limits)
        assert again.new_failures() == 0


def test_a_public_page_cannot_lead_the_crawl_to_a_private_address(tmp_path):
    from ragcli.remote.fetch import Fetcher, FetchError
    from ragcli.remote.safety import AddressPolicy

    (tmp_path / "site").mkdir()
    with StaticSite(tmp_path / "site") as site:
        site.redirects["/out"] = "http://10.1.2.3/secret"
        policy = AddressPolicy()
        policy.trust_root(site.url)
        fetcher = Fetcher(policy)
        with pytest.raises(FetchError, match=r"10\.1\.2\.3.*private address"):
            fetcher.get(f"{site.url}/out")
        assert fetcher.requests == 1  # the redirect was checked before any request to it
