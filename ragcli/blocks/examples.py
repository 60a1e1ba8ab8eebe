"""One reference per code example in a section.

Sites that include their examples from files often show one example several times: a tab
per Python version (`tutorial001_py310.py`, `tutorial001_py39.py`, `tutorial001.py`),
then the same files again in a "Full file preview" details block. Each becomes an include
block ("code example from …"), and six of them fill a chunk with file names, pushing the
section's prose into chunks of its own that retrieval then misses. A reader of the built
page sees one example; the section keeps one reference to it.

A file included again between paragraphs (an mdBook chapter shows `main.rs:here`, then
`main.rs:print`) is another part of it and stays; so do API references (`::: module.Name`),
which each name something else."""

from __future__ import annotations

from pathlib import PurePosixPath

from ragcli.blocks.model import Admonition, Block, CodeBlock


def one_reference_per_example(blocks: list[Block] | tuple[Block, ...]) -> list[Block]:
    """`blocks` (one section's) without the includes that repeat an example: one right
    after an include of a variant of the same file (another tab's version of it), and an
    admonition holding nothing but includes of examples shown before it (a file preview)."""
    shown: set[str] = set()
    before: str | None = None  # the example the block before includes
    kept: list[Block] = []
    for block in blocks:
        examples = _examples(block)
        if examples is None:
            before = None
            kept.append(block)
        elif isinstance(block, Admonition):
            if not examples <= shown:
                kept.append(block)
            shown |= examples
            before = None
        else:
            (example,) = examples
            if example != before:
                kept.append(block)
            shown.add(example)
            before = example
    return kept


def _examples(block: Block) -> set[str] | None:
    """The examples a file include (or an admonition of nothing else) shows; None for
    any other block. An example is a file with its variant tags aside: the same folder,
    suffix and name up to its first `_` (`tutorial001_py39.py` is `tutorial001*.py`)."""
    if isinstance(block, Admonition):
        inner = [_examples(b) for b in block.blocks]
        if not inner or any(found is None for found in inner):
            return None
        return set().union(*(found for found in inner if found is not None))
    if not (isinstance(block, CodeBlock) and block.include and block.includes_file):
        return None
    path = PurePosixPath(block.include)
    return {f"{path.parent}/{path.stem.split('_')[0]}*{path.suffix}"}
