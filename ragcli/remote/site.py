"""What a site says about crawling it: robots.txt (read by protego, Scrapy's parser: the
RFC 9309 rules, wildcards, Crawl-delay, Sitemap lines) and its sitemaps (the URLs they
list, a sitemap index followed a level down)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

from ragcli.remote.fetch import ROBOTS_AGENT, Fetched, FetchError

SITEMAP_NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
MAX_SITEMAPS = 50  # sitemap files read per site, an index's children included


@dataclass
class Robots:
    """A site's robots.txt, or none (everything allowed)."""

    parser: object | None = None
    # robots.txt could not be read (a 5xx, no answer): RFC 9309 says assume nothing is allowed.
    unreachable: str = ""
    sitemaps: list[str] = field(default_factory=list)

    def allows(self, url: str) -> bool:
        if self.unreachable:
            return False
        if self.parser is None:
            return True
        return bool(self.parser.can_fetch(url, ROBOTS_AGENT))  # type: ignore[attr-defined]

    def delay(self) -> float:
        if self.parser is None:
            return 0.0
        delay = self.parser.crawl_delay(ROBOTS_AGENT)  # type: ignore[attr-defined]
        return float(delay or 0.0)


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def read_robots(get: Callable[[str], Fetched], site: str) -> Robots:
    """`site`'s robots.txt: 4xx means no rules; 5xx or no answer, nothing allowed."""
    from protego import Protego

    url = f"{site}/robots.txt"
    try:
        fetched = get(url)
    except FetchError as failed:
        return Robots(unreachable=str(failed))
    if fetched.status >= 500:
        return Robots(unreachable=f"{url}: HTTP {fetched.status}")
    if fetched.status != 200:
        return Robots()
    text = fetched.body.decode("utf-8", "replace")
    parser = Protego.parse(text)
    sitemaps = [urljoin(url, s) for s in parser.sitemaps]
    return Robots(parser, sitemaps=sitemaps)


def sitemap_urls(get: Callable[[str], Fetched], sitemaps: list[str], notes: list[str]) -> list[str]:
    """The page URLs `sitemaps` list (an index's sitemaps read in turn); a sitemap that
    cannot be read or parsed is a note."""
    from lxml import etree

    queue, pages = list(sitemaps), []
    seen: set[str] = set()
    while queue and len(seen) < MAX_SITEMAPS:
        url = queue.pop(0)
        if url in seen:
            continue
        seen.add(url)
        try:
            fetched = get(url)
        except FetchError as failed:
            notes.append(f"sitemap {failed}")
            continue
        if fetched.status != 200:
            if fetched.status != 404 or url not in sitemaps[:1] or len(sitemaps) > 1:
                notes.append(f"sitemap {url}: HTTP {fetched.status}")
            continue
        parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
        try:
            root = etree.fromstring(fetched.body, parser)
        except etree.XMLSyntaxError as exc:
            notes.append(f"sitemap {url}: not XML ({exc.msg})")
            continue
        locations = [
            (loc.text or "").strip() for loc in root.iter(f"{SITEMAP_NS}loc", "loc") if loc.text
        ]
        if root.tag in (f"{SITEMAP_NS}sitemapindex", "sitemapindex"):
            queue += [urljoin(url, loc) for loc in locations]
        else:
            pages += [urljoin(url, loc) for loc in locations]
    return pages
