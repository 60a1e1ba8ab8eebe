"""Which addresses a crawl or a clone may reach. A root on a private, loopback or
link-local address (a server on this machine, an intranet) admits its own host; any other
request to such an address is refused unless `--allow-private` says so, so a public page
cannot lead the crawler to 127.0.0.1 or to a cloud's metadata address. Every redirect is
checked again."""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass, field
from functools import lru_cache
from urllib.parse import urlsplit


class Refused(Exception):
    """A URL this crawl may not request: one line, naming it and why."""


def _is_private(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return not ip.is_global or ip.is_multicast


@lru_cache(maxsize=256)
def _addresses(host: str) -> tuple[str, ...]:
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        return ()
    return tuple(dict.fromkeys(str(info[4][0]) for info in infos))


def private_address(host: str) -> str | None:
    """The first private, loopback, link-local or reserved address `host` resolves to."""
    return next((a for a in _addresses(host) if _is_private(a)), None)


@dataclass
class AddressPolicy:
    allow_private: bool = False
    # Hosts a root names that resolve to a private address: admitted, as the user asked.
    trusted: set[str] = field(default_factory=set)

    def trust_root(self, url: str) -> None:
        host = (urlsplit(url).hostname or "").lower()
        if host and private_address(host):
            self.trusted.add(host)

    def check(self, url: str) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https"):
            raise Refused(f"{url}: not an http(s) URL")
        host = (parts.hostname or "").lower()
        if self.allow_private or host in self.trusted:
            return
        found = private_address(host)
        if found:
            raise Refused(
                f"{url}: refused: {host} is a private address ({found}); --allow-private permits it"
            )
