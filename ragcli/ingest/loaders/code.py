"""Source code: split at top-level definitions with tree-sitter (grammars bundled by
tree-sitter-language-pack), each section cited by its line range (`lines 12–40`). Comments
just above a definition stay with it; small top-level statements (imports, constants) are
gathered together; a definition too long for one chunk is cut between lines, so every
chunk's line range stays exact. A language without a grammar is cut between lines."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragcli.ingest.loaders.base import LoadedFile, Section, lines_locator
from ragcli.ingest.loaders.encoding import read_text

# Suffix → tree-sitter grammar name.
LANGUAGES = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".scala": "scala",
    ".c": "c",
    ".h": "c",
    ".cpp": "cpp",
    ".cc": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".hxx": "cpp",
    ".cs": "csharp",
    ".rb": "ruby",
    ".php": "php",
    ".swift": "swift",
    ".sh": "bash",
    ".bash": "bash",
    ".zsh": "bash",
    ".sql": "sql",
    ".lua": "lua",
    ".r": "r",
    ".pl": "perl",
    ".pm": "perl",
    ".jl": "julia",
    ".ex": "elixir",
    ".exs": "elixir",
    ".erl": "erlang",
    ".hs": "haskell",
    ".ml": "ocaml",
    ".dart": "dart",
    ".ps1": "powershell",
}
# Characters per section: about one chunk of code (code tokenizes densely).
SECTION_CHARS = 900


@dataclass
class _Unit:
    first: int  # 0-based line numbers, inclusive
    last: int
    definition: bool
    name: str | None = None
    comment: bool = False


def load_code(path: Path) -> LoadedFile:
    text, notes = read_text(path)
    language = LANGUAGES.get(path.suffix.lower(), "text")
    lines = text.splitlines()
    units = _units(text, language) if language != "text" else None
    if units is None:
        units = [_Unit(0, len(lines) - 1, False)]
    return LoadedFile(language, _sections(lines, units), notes=notes)


def _units(text: str, language: str) -> list[_Unit] | None:
    """Top-level nodes as line ranges, or None when no grammar can parse the file."""
    try:
        from tree_sitter_language_pack import get_parser

        tree = get_parser(language).parse(text.encode("utf-8"))  # type: ignore[arg-type]
    except Exception:  # an unknown grammar or a parser failure: cut between lines instead
        return None
    units: list[_Unit] = []
    for node in tree.root_node.named_children:
        first, last = node.start_point[0], node.end_point[0]
        if node.end_point[1] == 0 and last > first:
            last -= 1  # a node that ends at the start of a line does not reach into it
        comment = "comment" in node.type
        units.append(_Unit(first, last, _is_definition(node), _name(node), comment))
    return units


def _is_definition(node: Any) -> bool:
    kind = node.type
    return (
        any(
            word in kind
            for word in (
                "function",
                "class",
                "method",
                "struct",
                "impl",
                "trait",
                "interface",
                "enum",
                "module",
                "definition",
                "declaration",
                "object",
                "namespace",
            )
        )
        and "import" not in kind
        and node.end_point[0] > node.start_point[0]
    )


def _name(node: Any) -> str | None:
    """The defined name: the node's `name` field, or that of the definition it wraps
    (a decorated Python function, an exported JavaScript class)."""
    for candidate in (node, *node.named_children[:3]):
        name = candidate.child_by_field_name("name")
        if name is not None and name.text:
            return bytes(name.text).decode("utf-8", errors="replace")
        declarator = candidate.child_by_field_name("declarator")  # C and C++ functions
        while declarator is not None:
            inner = declarator.child_by_field_name("declarator")
            if inner is None:
                return bytes(declarator.text or b"").decode("utf-8", errors="replace")
            declarator = inner
    return None


def _sections(lines: list[str], units: list[_Unit]) -> list[Section]:
    """Definitions alone (with the comments right above them), the rest gathered."""
    groups: list[_Unit] = []
    gathered: list[_Unit] = []  # statements and comments between definitions

    def flush() -> None:
        for unit in gathered:
            previous = groups[-1] if groups else None
            if (
                previous is not None
                and not previous.definition
                and _chars(lines, previous.first, unit.last) <= SECTION_CHARS
            ):
                previous.last = unit.last
            else:
                groups.append(_Unit(unit.first, unit.last, False))
        gathered.clear()

    for unit in units:
        if not unit.definition:
            gathered.append(unit)
            continue
        first = unit.first
        while gathered and gathered[-1].comment and gathered[-1].last >= first - 1:
            first = gathered.pop().first
        flush()
        groups.append(_Unit(first, unit.last, True, unit.name))
    flush()
    sections: list[Section] = []
    for group in groups:
        for first, last in _windows(lines, group.first, group.last):
            body = "\n".join(lines[first : last + 1])
            if body.strip():
                sections.append(
                    Section(body, heading=group.name, locator=lines_locator(first + 1, last + 1))
                )
    return sections


def _chars(lines: list[str], first: int, last: int) -> int:
    return sum(len(line) + 1 for line in lines[first : last + 1])


def _windows(lines: list[str], first: int, last: int) -> list[tuple[int, int]]:
    """Cut a long range between lines into pieces of about SECTION_CHARS, preferring a
    blank line as the cut."""
    windows = []
    start = first
    while start <= last:
        end, size = start, 0
        while end <= last and (size == 0 or size + len(lines[end]) + 1 <= SECTION_CHARS):
            size += len(lines[end]) + 1
            end += 1
        if end <= last:  # look back for a blank line in the second half of the window
            for cut in range(end - 1, start + (end - start) // 2, -1):
                if not lines[cut].strip():
                    end = cut + 1
                    break
        windows.append((start, end - 1))
        start = end
    return windows
