"""Hostile documents: damaged and disguised containers, zip and decompression bombs, a
password-protected Office file, a notebook that is not JSON, binary "code", a million-row
spreadsheet. Each gets a one-line reason naming why; the good files are stored; nothing
already stored is lost; memory stays bounded where the issue gives a bound."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import textwrap
import zipfile
import zlib
from pathlib import Path

import pytest

from tests.support import office_files as make
from tests.support.storecheck import ROOT, cli_env, ragcli, store_state

# Broken and huge documents ingested for real, the million-row sheet among them.
pytestmark = pytest.mark.slow


def png_header_only(path: Path, width: int, height: int) -> None:
    """A PNG that claims `width` × `height` pixels in a few bytes: a decompression bomb."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    idat = zlib.compress(b"\x00" * 1024)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")
    )


def zip_bomb_docx(path: Path, good: Path) -> None:
    """A real .docx whose document part is replaced by 200 MB of zeros (~200 KB zipped)."""
    with zipfile.ZipFile(good) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for item in source.infolist():
            if item.filename == "word/document.xml":
                with out.open(item.filename, "w", force_zip64=True) as handle:
                    block = b"\x00" * (1 << 20)
                    for _ in range(200):
                        handle.write(block)
            else:
                out.writestr(item, source.read(item.filename))


def test_hostile_documents_are_reported_by_name_and_the_rest_ingest(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    good_docx = make.make_docx(docs / "good.docx")
    make.make_pptx(docs / "good.pptx")
    (docs / "truncated.docx").write_bytes(good_docx.read_bytes()[:3000])
    (docs / "random.xlsx").write_bytes(bytes(range(256)) * 40)
    (docs / "random.epub").write_bytes(b"PK\x03\x04" + bytes(range(200)) * 5)
    (docs / "random.png").write_bytes(bytes(range(256)) * 4)
    (docs / "locked.docx").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 4000)
    (docs / "notes.ipynb").write_text('{"cells": [ this is not json')
    (docs / "tool.py").write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00" + bytes(range(256)))
    zip_bomb_docx(docs / "bomb.docx", good_docx)
    png_header_only(docs / "huge.png", 20_000, 20_000)
    (docs / "old.ppt").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 512)

    store = tmp_path / "store"
    # Something already stored must survive a run full of hostile files.
    first = docs.parent / "kept"
    first.mkdir()
    (first / "kept.md").write_text("# Kept\nThe pager rota changes every Wednesday.\n")
    assert ragcli("ingest", str(first), "--store", str(store), cwd=tmp_path).returncode == 0
    kept = [c for c in store_state(store)["chunks"] if c[1].endswith("kept.md")]

    result = ragcli("ingest", str(docs), "--store", str(store), "--json", cwd=tmp_path)
    assert result.returncode == 3, result.stderr
    assert "Traceback" not in result.stderr
    report = json.loads(result.stdout)
    outcome = {Path(f["path"]).name: (f["status"], f["reason"]) for f in report["files"]}
    expected = {
        "truncated.docx": "corrupt Word document",
        "random.xlsx": "corrupt Excel workbook",
        "random.epub": "corrupt EPUB book",
        "random.png": "not a readable image",
        "locked.docx": "password-protected",
        "notes.ipynb": "notebook is not valid JSON",
        "tool.py": "binary file",
        "bomb.docx": "zip bomb",
        "huge.png": "20,000 × 20,000 pixels",
        "old.ppt": "save it as .pptx",
    }
    for name, words in expected.items():
        status, reason = outcome[name]
        assert status == "failed" and words in reason, (name, status, reason)
        assert "\n" not in reason and len(reason) < 160, reason
    assert outcome["good.docx"] == ("new", "") and outcome["good.pptx"] == ("new", "")
    chunks = store_state(store)["chunks"]
    assert [c for c in chunks if c[1].endswith("kept.md")] == kept


MEMORY_SCRIPT = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from ragcli.ingest.loaders import load
    loaded = load(Path(sys.argv[1]))
    rows = sum(s.text.count("\\n") + 1 for s in loaded.sections)
    last = loaded.sections[-1].locator
    # This process's own peak (VmHWM): getrusage's ru_maxrss survives exec on Linux, so it
    # would report the parent's peak (pytest's, with models loaded) when that is higher.
    status = Path("/proc/self/status").read_text()
    peak = int(next(l for l in status.splitlines() if l.startswith("VmHWM")).split()[1]) / 1024
    print(rows, round(peak), last, sep="\\n")
    """
)


@pytest.mark.timeout(900)  # writes and reads the million rows: ~2 minutes loaded
def test_a_million_row_spreadsheet_reads_in_bounded_memory(tmp_path):
    import xlsxwriter  # openpyxl's dependency-free sibling writes a million rows fast

    path = tmp_path / "ledger.xlsx"
    workbook = xlsxwriter.Workbook(str(path), {"constant_memory": True})
    sheet = workbook.add_worksheet("Ledger")
    sheet.write_row(0, 0, ["entry", "account", "amount"])
    for row in range(1, 1_000_001):
        sheet.write_row(row, 0, [row, "Operations", row * 0.25])
    workbook.close()
    result = subprocess.run(
        [sys.executable, "-c", MEMORY_SCRIPT, str(path)],
        capture_output=True,
        text=True,
        env=cli_env(),
        cwd=ROOT,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    rows, peak_mb, locator = result.stdout.splitlines()
    assert int(rows) == 1_000_000
    assert locator.startswith("Ledger, rows ") and locator.endswith("–1000001")
    assert int(peak_mb) < 500, f"peak memory {peak_mb} MB"
