"""Remote roots without a server: what an argument is, a page's key, a crawl's scope, the
addresses a crawl may reach, --every's interval, a forge's file URL."""

import pytest

from ragcli.errors import ConfigError
from ragcli.remote.crawl import Scope, is_document, is_page
from ragcli.remote.fetch import _retry_after
from ragcli.remote.git import forge_url
from ragcli.remote.roots import GitRoot, WebRoot, canonical_url, parse_root
from ragcli.remote.safety import AddressPolicy, Refused
from ragcli.remote.schedule import parse_interval
from ragcli.remote.web import _anchor_of


def test_an_argument_is_a_path_a_site_or_a_repository(tmp_path):
    assert parse_root("docs") == tmp_path.__class__("docs")
    assert parse_root("HTTPS://Docs.Example.com:443/guide/#top") == WebRoot(
        "https://docs.example.com/guide/"
    )
    repo = parse_root("git+https://user:secret@example.com/team/repo.git@v1.2")
    assert isinstance(repo, GitRoot)
    assert (repo.shown, repo.ref) == ("git+https://example.com/team/repo.git", "v1.2")
    assert "secret" in repo.remote and "secret" not in repr(repo)
    assert repo.key("docs/a.md") == "git+https://example.com/team/repo.git#docs/a.md"
    ssh = parse_root("git+ssh://git@example.com/team/repo.git")
    assert isinstance(ssh, GitRoot) and ssh.ref is None
    assert ssh.shown == "git+ssh://example.com/team/repo.git"


@pytest.mark.parametrize("bad", ["ftp://example.com/x", "file:///etc/passwd", "git://x/y"])
def test_other_schemes_are_refused_by_name(bad):
    with pytest.raises(ConfigError, match="only http"):
        parse_root(bad)


def test_git_ref_needs_a_repository(tmp_path):
    with pytest.raises(ConfigError, match="--git-ref needs a Git repository"):
        parse_root(str(tmp_path), git_ref="main")
    (tmp_path / ".git").mkdir()
    root = parse_root(str(tmp_path), git_ref="main")
    assert isinstance(root, GitRoot) and root.remote.startswith("file://")


def test_canonical_url_keeps_query_and_drops_credentials():
    assert canonical_url("http://a:b@Host:80/x?q=1#f") == "http://host/x?q=1"
    assert canonical_url("https://host") == "https://host/"


def test_scope_is_the_roots_folder_unless_widened():
    scope = Scope("https://d.example/guide/index.html")
    assert scope.admits("https://d.example/guide/install.html")
    assert scope.admits("https://d.example/guide/")
    assert not scope.admits("https://d.example/guidebook/x.html")
    assert not scope.admits("https://d.example/api/x.html")
    assert not scope.admits("https://other.example/guide/x.html")
    assert not scope.admits("http://d.example/guide/x.html")  # another scheme
    wider = Scope("https://d.example/guide/", hosts=frozenset({"cdn.example"}), depth=1)
    assert wider.admits("https://cdn.example/files/a.pdf", depth=1)
    assert not wider.admits("https://d.example/guide/deep.html", depth=2)


def test_pages_and_documents_by_suffix():
    assert is_page("https://x/guide/") and is_page("https://x/a.html")
    assert is_document("https://x/a.pdf") and is_document("https://x/readme.md")
    assert not is_document("https://x/logo.png") and not is_document("https://x/app.py")


def test_private_addresses_need_the_root_or_a_flag():
    policy = AddressPolicy()
    with pytest.raises(Refused, match="127.0.0.1.*--allow-private"):
        policy.check("http://127.0.0.1:8000/x")
    with pytest.raises(Refused, match="private address"):
        policy.check("http://169.254.169.254/latest/meta-data/")
    with pytest.raises(Refused, match="private address"):
        policy.check("http://[::1]/x")
    policy.trust_root("http://127.0.0.1:8000/docs/")
    policy.check("http://127.0.0.1:9999/other")  # the root's host, whatever the port
    with pytest.raises(Refused):
        policy.check("http://10.0.0.7/")
    AddressPolicy(allow_private=True).check("http://10.0.0.7/")


def test_every_reads_units_and_refuses_nonsense():
    assert parse_interval("30m") == 1800 and parse_interval("1h") == 3600
    assert parse_interval("90s") == 90 and parse_interval("2") == 120
    with pytest.raises(ConfigError, match="not an interval"):
        parse_interval("soon")
    with pytest.raises(ConfigError, match="at least"):
        parse_interval("1s")


def test_forges_give_a_files_web_address():
    commit = "0123456789abcdef"
    assert forge_url("git+https://github.com/o/r.git", commit, "a/b.md") == (
        f"https://github.com/o/r/blob/{commit}/a/b.md"
    )
    assert forge_url("git+ssh://gitlab.com/g/sub/r.git", commit, "x.md") == (
        f"https://gitlab.com/g/sub/r/-/blob/{commit}/x.md"
    )
    assert "src/commit" in (forge_url("git+https://codeberg.org/o/r", commit, "x") or "")
    assert forge_url("git+https://bitbucket.org/o/r.git", commit, "x").startswith(
        "https://bitbucket.org/o/r/src/"
    )
    assert forge_url("git+file:///tmp/r.git", commit, "x") is None
    assert forge_url("git+https://git.example.org/o/r.git", commit, "x") is None


def test_a_chunk_links_to_its_deepest_anchored_heading():
    anchors = {"Sorting HOW TO": "sorting-how-to", "Key Functions": "key-functions"}
    assert _anchor_of("Sorting HOW TO > Key Functions¶", anchors) == "key-functions"
    assert _anchor_of("Sorting HOW TO > Odds and Ends", anchors) == "sorting-how-to"
    assert _anchor_of(None, anchors) is None


def test_retry_after_in_seconds_or_as_a_date():
    assert _retry_after("3") == 3.0
    assert _retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0
    assert _retry_after("soon") is None and _retry_after(None) is None
