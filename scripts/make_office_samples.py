"""Rebuild the Office, spreadsheet and scanned samples in sample_corpus/ and the fixtures in
tests/data/office/ (run once; the outputs are committed).

Each document is written with its Python writer library, then opened and saved again by
LibreOffice (`soffice --headless --convert-to`), so the committed files are real files of
another program, not the ones the reading libraries themselves write. Needs LibreOffice
(Debian: libreoffice-writer-nogui, -calc-nogui, -impress-nogui); ragcli itself does not.

    python scripts/make_office_samples.py
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.office_files import (  # noqa: E402
    SAMPLE_SCAN_LINES,
    make_docx,
    make_pptx,
    make_xlsx,
    scanned_pdf,
)

SAMPLE_DOCS = ROOT / "sample_corpus" / "docs"
FIXTURES = ROOT / "tests" / "data" / "office"


def resave(source: Path, target: Path, filter_name: str) -> None:
    """`source` opened and saved by LibreOffice as `target` (its format by `filter_name`)."""
    with tempfile.TemporaryDirectory() as out, tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [
                "soffice", f"-env:UserInstallation=file://{profile}", "--headless",
                "--convert-to", filter_name, "--outdir", out, str(source),
            ],
            check=True, capture_output=True, timeout=180,
        )
        made = next(Path(out).iterdir())
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(made, target)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        docx = make_docx(work / "onboarding_checklist.docx")
        pptx = make_pptx(work / "quarterly_review.pptx")
        xlsx = make_xlsx(work / "support_desks.xlsx")
        resave(docx, SAMPLE_DOCS / "onboarding_checklist.docx", "docx:MS Word 2007 XML")
        resave(pptx, SAMPLE_DOCS / "quarterly_review.pptx",
               "pptx:Impress MS PowerPoint 2007 XML")
        resave(xlsx, SAMPLE_DOCS / "support_desks.xlsx", "xlsx:Calc MS Excel 2007 XML")
        scanned_pdf(SAMPLE_DOCS / "scanned_memo.pdf", SAMPLE_SCAN_LINES)
        # Formats only LibreOffice writes here: OpenDocument and the legacy binary ones.
        resave(docx, FIXTURES / "onboarding_checklist.odt", "odt")
        resave(xlsx, FIXTURES / "support_desks.ods", "ods")
        resave(xlsx, FIXTURES / "support_desks.xls", "xls:MS Excel 97")
        resave(docx, FIXTURES / "onboarding_checklist.doc", "doc:MS Word 97")
        resave(docx, FIXTURES / "onboarding_checklist.rtf", "rtf")
    for path in sorted([*SAMPLE_DOCS.iterdir(), *FIXTURES.iterdir()]):
        print(f"{path.stat().st_size:>8}  {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
