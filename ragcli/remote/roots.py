"""What `ragcli ingest` was given: a local path, a website or a Git repository.

Only http(s) URLs and git URLs (`git+https://`, `git+http://`, `git+ssh://`, `git+file://`)
are remote roots; any other scheme is refused by name. Credentials written in a URL are
used for its requests and never shown or stored: `shown` and every manifest key leave
them out."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import SplitResult, urlsplit, urlunsplit

from ragcli.errors import ConfigError as UsageError

WEB_SCHEMES = ("http", "https")
GIT_SCHEMES = ("git+https", "git+http", "git+ssh", "git+file")


@dataclass(frozen=True)
class WebRoot:
    url: str  # canonical: no credentials, no fragment

    @property
    def shown(self) -> str:
        return self.url


@dataclass(frozen=True)
class GitRoot:
    shown: str  # git+https://host/owner/repo.git: the manifest keys' prefix, no credentials
    ref: str | None  # a branch, tag or commit; None: the remote's default branch
    # What git fetches from (https://…, ssh://…, file:///…), credentials included if given.
    remote: str = field(repr=False, compare=False)

    def key(self, path: str) -> str:
        """A file's manifest key: the repository and the file's path in it."""
        return f"{self.shown}#{path}"


Root = Path | WebRoot | GitRoot


def without_credentials(parts: SplitResult) -> SplitResult:
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 literal
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port else host
    return parts._replace(netloc=netloc)


def canonical_url(url: str) -> str:
    """The URL a page is keyed by: scheme and host lower-cased, the default port, the
    fragment and any credentials left out, an empty path written `/`."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    parts = without_credentials(parts._replace(scheme=scheme, fragment=""))
    default = {"http": 80, "https": 443}.get(scheme)
    if parts.port == default:
        parts = parts._replace(netloc=parts.netloc.rsplit(":", 1)[0])
    return urlunsplit(parts._replace(netloc=parts.netloc.lower(), path=parts.path or "/"))


def parse_root(text: str, git_ref: str | None = None) -> Root:
    """An argument of `ragcli ingest`; a local clone with `git_ref` is a Git root."""
    scheme = text.split("://", 1)[0].lower() if "://" in text else ""
    if scheme in WEB_SCHEMES:
        if not urlsplit(text).hostname:
            raise UsageError(f"{text}: not a URL with a host")
        return WebRoot(canonical_url(text))
    if scheme in GIT_SCHEMES:
        return _git_root(text)
    if scheme:
        raise UsageError(
            f"{text}: only http(s) URLs and git URLs (git+https://, git+ssh://, git+file://) "
            "are read"
        )
    path = Path(text)
    if git_ref is not None:
        if not ((path / ".git").exists() or (path / "HEAD").is_file()):
            raise UsageError(f"{text}: --git-ref needs a Git repository (no .git here)")
        absolute = path.resolve()
        return GitRoot(f"git+file://{absolute.as_posix()}", git_ref, absolute.as_uri())
    return path


def _git_root(text: str) -> GitRoot:
    """`git+SCHEME://host/path[@ref]`: the ref is what follows the path's last `@`."""
    parts = urlsplit(text[len("git+") :])
    path, ref = parts.path, None
    if "@" in path:
        path, ref = path.rsplit("@", 1)
        ref = ref or None
    if parts.scheme != "file" and not parts.hostname:
        raise UsageError(f"{text}: not a URL with a host")
    if not path.strip("/"):
        raise UsageError(f"{text}: no repository path")
    remote = urlunsplit(parts._replace(path=path, fragment="", query=""))
    shown = urlunsplit(without_credentials(parts)._replace(path=path, fragment="", query=""))
    return GitRoot("git+" + shown, ref, remote)
