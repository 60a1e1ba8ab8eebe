"""E-mail: a message (.eml, a Maildir's message file) or a mailbox (.mbox) of them.

The standard library reads both: `email` with policy `default` (headers decoded, the
body chosen by `get_body`), `mailbox` for mbox files. Each message is a section (several
when long) under its subject, cited by its subject and date; its subject, from, to, cc and
date are the section's metadata. Its text part is read, else its HTML part through the HTML
reader; what it quotes of the message it answers (`> ` lines, the "On … wrote:" line,
an Outlook "Original Message", a `blockquote`) is left out, as that message is read on its
own. Its attachments are read by their own loaders and cited as `message › attachment`.
A message that cannot be read is one note, and the rest of the mailbox goes on."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from datetime import datetime
from email import policy
from email.message import EmailMessage, MIMEPart
from email.parser import BytesParser
from email.utils import getaddresses
from pathlib import Path, PurePath
from typing import Any

from ragcli.ingest.loaders.base import LoadedFile, LoadError, NothingOfItsOwn, Section

QUOTED = re.compile(r"^[ \t]*>")
# The line a mail client writes above what it quotes ("On Mon, 1 Oct 2018, Ann <a@b.c>
# wrote:"), in a few languages; it may wrap onto a second line.
ATTRIBUTION = re.compile(
    r"(?:^|\n)[^\n]{0,160}\b(?:wrote|writes|schrieb|a écrit|escribió|scrisse|написал)\s*:\s*$",
    re.I,
)
ATTRIBUTION_START = re.compile(r"^\s*(?:On|Le|Am|El|Il|Op)\s.*[^.!?]\s*$")
# Where Outlook (and others) start the message answered, which they do not mark with `>`.
ORIGINAL = re.compile(
    r"^\s*(?:-{2,}\s*Original Message\s*-{2,}|_{10,}\s*$|From:\s.+\n\s*(?:Sent|Date):\s)",
    re.I | re.M,
)
SIGNATURE = re.compile(r"^-- ?$", re.M)
NO_SUBJECT = "(no subject)"
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # Outlook's .msg (a compound file)
# An attachment's own reader is skipped past this size (a mailbox's videos, disk images).
MAX_ATTACHMENT_BYTES = 50 << 20


def load_eml(path: Path) -> LoadedFile:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise LoadError(f"cannot read message ({exc.strerror})") from None
    if data.startswith(OLE_MAGIC):
        raise LoadError("an Outlook .msg file, not a MIME message (save it as .eml)")
    message = _parse(data)
    if not any(_header(message, name) for name in ("from", "to", "subject", "date")):
        raise LoadError("not an e-mail message (no From, To, Subject or Date header)")
    notes: list[str] = []
    sections = message_sections(message, notes)
    return LoadedFile("eml", sections, notes=notes, metadata={})


def load_mbox(path: Path) -> LoadedFile:
    import mailbox

    try:
        box = mailbox.mbox(path, create=False)
        keys = box.keys()
    except (OSError, mailbox.Error) as exc:
        raise LoadError(f"cannot read mailbox ({str(exc)[:80]})") from None
    if not keys:
        raise LoadError("no messages found (an mbox starts each with a 'From ' line)")
    sections: list[Section] = []
    notes: list[str] = []
    failed = 0
    for number, key in enumerate(keys, start=1):
        try:
            message = _parse(box.get_bytes(key))
            sections += message_sections(message, notes, number)
        except Exception as exc:  # one bad message is a note; the mailbox goes on
            failed += 1
            notes.append(f"message {number} not read ({type(exc).__name__}: {str(exc)[:60]})")
    box.close()
    if failed == len(keys):
        raise LoadError(notes[-1] if len(keys) == 1 else f"none of {len(keys)} messages read")
    return LoadedFile("mbox", sections, notes=notes)


def _parse(data: bytes) -> EmailMessage:
    message = BytesParser(policy=policy.default).parsebytes(data)
    assert isinstance(message, EmailMessage)
    return message


def message_sections(
    message: EmailMessage, notes: list[str], number: int | None = None
) -> list[Section]:
    """The message's text and its attachments' sections; `number` is its place in a
    mailbox, for notes."""
    metadata = headers_metadata(message)
    subject = str(metadata.get("subject") or NO_SUBJECT)
    label = message_label(subject, metadata.get("date"))
    where = f"message {number} ({label})" if number else label
    if _truncated(message):
        notes.append(f"{where} ends early (truncated?): what it holds was read")
    sections = []
    for section in _body_sections(message, subject):
        section.locator = label
        section.metadata = dict(metadata)
        sections.append(section)
    for name, part in _attachments(message):
        for section in _attachment_sections(name, part, notes, where):
            section.locator = f"{label} › {name}" + (
                f", {section.locator}" if section.locator else ""
            )
            section.heading = f"{subject} › {name}" + (
                f" > {section.heading}" if section.heading else ""
            )
            section.metadata = {**section.metadata, **metadata, "attachment": name}
            sections.append(section)
    return sections


def headers_metadata(message: EmailMessage) -> dict[str, str | list[str]]:
    """Subject, from, to, cc and date: each address as its address and its name (so
    `--meta from=ann@example.org` and `--meta "from=Ann Lee"` both find the message),
    the date in ISO 8601."""
    found: dict[str, str | list[str]] = {}
    subject = " ".join(str(_header(message, "subject") or "").split())
    if subject:
        found["subject"] = subject
    for name in ("from", "to", "cc"):
        values = []
        for display, address in getaddresses([str(v) for v in message.get_all(name, [])]):
            values += [v for v in (address.lower(), " ".join(display.split())) if v]
        if values:
            found[name] = list(dict.fromkeys(values))
    date = _date(message)
    if date is not None:
        found["date"] = date.isoformat()
    message_id = str(_header(message, "message-id") or "").strip()
    if message_id:
        found["message-id"] = message_id
    return found


def message_label(subject: str, date: str | list[str] | None) -> str:
    """How a citation names a message: `Re: Budget, 2018-10-01 09:49`."""
    if isinstance(date, str) and date:
        return f"{subject}, {date[:16].replace('T', ' ')}"
    return subject


def _header(message: EmailMessage, name: str) -> Any:
    try:
        return message[name]
    except Exception:  # a header the policy cannot parse reads as missing
        return None


def _date(message: EmailMessage) -> datetime | None:
    header = _header(message, "date")
    value = getattr(header, "datetime", None)
    return value if isinstance(value, datetime) else None


def _truncated(message: EmailMessage) -> bool:
    from email import errors

    cut = (errors.CloseBoundaryNotFoundDefect, errors.StartBoundaryNotFoundDefect)
    return any(isinstance(d, cut) for part in message.walk() for d in part.defects)


def _body_sections(message: EmailMessage, subject: str) -> list[Section]:
    body = message.get_body(preferencelist=("plain", "html"))
    if body is None:
        return []
    text = _text_of(body)
    if body.get_content_subtype() == "html":
        return _html_sections(text, subject)
    text = new_text(text)
    return [Section(text, heading=subject)] if text.strip() else []


def _text_of(part: MIMEPart) -> str:
    """A text part's text, its charset trusted first, else detected."""
    try:
        content = part.get_content()
        if isinstance(content, str):
            return content
    except (LookupError, UnicodeError, AssertionError):
        pass
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    from charset_normalizer import from_bytes

    best = from_bytes(payload).best()
    return str(best) if best is not None else payload.decode("utf-8", "replace")


def new_text(text: str) -> str:
    """What a plain-text message says itself: without the lines it quotes from the message
    it answers, the line that introduces them, the answered message Outlook appends
    below, or the signature."""
    text = text.replace("\r\n", "\n")
    if (original := ORIGINAL.search(text)) is not None:
        text = text[: original.start()]
    kept: list[str] = []
    for line in text.split("\n"):
        if QUOTED.match(line):
            # The attribution above a quote is part of it ("On …, Ann wrote:"), and so is
            # its first line when a long one wraps ("On Mon, 1 Oct, Ann Lee\n<a@b> wrote:").
            joined = "\n".join(kept).rstrip()
            if (attribution := ATTRIBUTION.search(joined)) is not None:
                kept = joined[: attribution.start()].split("\n") if attribution.start() else []
                if kept and ATTRIBUTION_START.match(kept[-1]):
                    kept.pop()
            continue
        kept.append(line)
    text = "\n".join(kept)
    if (signature := list(SIGNATURE.finditer(text))) and signature[-1].start() > 0:
        text = text[: signature[-1].start()]
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def _html_sections(html: str, subject: str) -> list[Section]:
    from ragcli.ingest.loaders.markup import html_sections

    sections = html_sections(_without_quotes(html))
    for section in sections:
        title = section.heading
        section.heading = subject if not title or title == subject else f"{subject} > {title}"
    return sections


def _without_quotes(html: str) -> str:
    """The HTML without what it quotes of the message answered (a `blockquote`, Gmail's
    `gmail_quote`, Outlook's reply header and what follows it)."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "lxml")
    for quote in soup.select("blockquote, .gmail_quote, .gmail_extra, #appendonsend"):
        quote.decompose()
    for reply in soup.select("#divRplyFwdMsg"):
        for later in list(reply.find_all_next()):
            later.decompose()
        reply.decompose()
    return str(soup)


def _attachments(message: EmailMessage) -> Iterator[tuple[str, EmailMessage]]:
    """Each attached file (or message) with its name; a part that is only decoration
    (an inline image a signature shows) is not an attachment to read."""
    count = 0
    for part in message.iter_attachments():
        assert isinstance(part, EmailMessage)
        count += 1
        if (
            part.get_content_maintype() == "image"
            and part.get_content_disposition() != "attachment"
        ):
            continue
        name = part.get_filename() or ""
        if part.get_content_type() == "message/rfc822":
            name = name or f"attached message {count}"
        yield PurePath(name.replace("\\", "/")).name or f"attachment {count}", part


def _attachment_sections(
    name: str, part: EmailMessage, notes: list[str], where: str
) -> list[Section]:
    from ragcli.ingest.loaders import file_type_of, load

    if part.get_content_type() == "message/rfc822":
        inner = part.get_payload()
        inner = inner[0] if isinstance(inner, list) and inner else inner
        if isinstance(inner, EmailMessage):
            return message_sections(inner, notes)
        return []
    suffix = PurePath(name).suffix.lower()
    if not suffix or file_type_of(Path(f"x{suffix}")) is None:
        return []  # a type nothing reads (an archive, a calendar invite): not a failure
    data = part.get_payload(decode=True)
    if not isinstance(data, bytes) or not data:
        return []
    if len(data) > MAX_ATTACHMENT_BYTES:
        notes.append(f"{where} › {name}: not read (over {MAX_ATTACHMENT_BYTES >> 20} MB)")
        return []
    with tempfile.TemporaryDirectory(prefix="ragcli-attachment-") as folder:
        copy = Path(folder) / f"attachment{suffix}"
        copy.write_bytes(data)
        try:
            loaded = load(copy)
        except NothingOfItsOwn:  # an empty part (a logo OCR finds no text in): no note
            return []
        except LoadError as exc:
            notes.append(f"{where} › {name}: {exc}")
            return []
    return loaded.sections
