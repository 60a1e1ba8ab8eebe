"""E-mail (.eml, .mbox, Maildir) read from real messages (tests/data/formats/, whose README
says where each comes from): a message per section, cited by subject and date, quoted
replies left out, attachments read by their own readers, bad messages one note."""

from __future__ import annotations

import mailbox
import shutil

import pytest

from ragcli.ingest.loaders import LoadError, file_type_of, load
from ragcli.ingest.loaders.mail import new_text
from ragcli.ingest.walker import walk
from tests.support.common import ROOT

DATA = ROOT / "tests" / "data" / "formats"


def test_a_mailbox_is_read_message_by_message_without_the_quoted_replies():
    loaded = load(DATA / "mail" / "lists.mbox")
    assert loaded.file_type == "mbox" and not loaded.notes
    assert [s.locator for s in loaded.sections] == [
        "Re: 64-bit sysinfo, 2003-06-12 08:04",
        "Re: kernel.bkbits.net off the air, 2003-11-10 17:57",
        "Re: [BK PATCH] SCSI update for 2.6.3, 2004-02-24 10:24",
    ]
    rsync = loaded.sections[1]
    assert rsync.heading == "Re: kernel.bkbits.net off the air"
    assert rsync.metadata["from"] == ["andrea@suse.de", "Andrea Arcangeli"]
    assert "davidel@xmailserver.org" in rsync.metadata["to"]
    assert rsync.metadata["date"] == "2003-11-10T17:57:38+01:00"
    assert "two sequence number locking" not in rsync.text  # quoted: Davide's words
    assert "Davide Libenzi wrote" not in rsync.text
    assert rsync.text.startswith("our rsync isn't going to be coherency guaranteed")


def test_reply_text_without_quotes_attribution_signature_or_outlook_original():
    text = (
        "Yes, Friday works.\n\nOn Mon, 1 Oct 2018 at 09:49, Ann Lee\n<ann@example.org> wrote:\n"
        "> Can we meet Friday?\n>\n> Ann\n\n-- \nBo, Sales\n"
    )
    assert new_text(text) == "Yes, Friday works."
    outlook = "Agreed.\r\n\r\nFrom: Ann Lee\r\nSent: Monday, 1 October 2018 09:49\r\nTo: Bo\r\nOld"
    assert new_text(outlook) == "Agreed."


def test_an_html_message_is_read_by_the_html_reader_without_its_quote(tmp_path):
    from email.message import EmailMessage

    message = EmailMessage()
    message["Subject"], message["From"] = "Re: Budget", "Bo <bo@example.org>"
    message.set_content(
        "<p>The <b>Q3</b> budget is approved.</p><div class='gmail_quote'>On Mon, Ann wrote:"
        "<blockquote>Is the Q3 budget approved?</blockquote></div>",
        subtype="html",
    )
    (tmp_path / "reply.eml").write_bytes(message.as_bytes())
    (section,) = load(tmp_path / "reply.eml").sections
    assert section.text == "The Q3 budget is approved."
    assert section.heading == "Re: Budget" and section.metadata["from"] == ["bo@example.org", "Bo"]


def test_an_attachment_is_read_by_its_own_reader_and_cited_under_its_message():
    loaded = load(DATA / "mail" / "mail_test_7.eml")
    assert loaded.sections[0].locator == "I: Ordine, 2017-06-09 17:56"
    assert loaded.sections[0].text.startswith("Ciao sere mi puoi dire se il mio cliente")
    attached = {s.locator: s for s in loaded.sections if "attachment" in s.metadata}
    footer = attached["I: Ordine, 2017-06-09 17:56 › att09558.htm"]
    assert footer.text.startswith("MM Lampadari Srl Legal and Operative Head Office")
    assert footer.heading.startswith("I: Ordine › att09558.htm")
    assert footer.metadata["attachment"] == "att09558.htm"
    assert footer.metadata["subject"] == "I: Ordine"
    # An empty part is no note; every note names the message and the attachment.
    assert all(note.startswith("I: Ordine, 2017-06-09 17:56 › ") for note in loaded.notes)


def test_a_truncated_mailbox_keeps_its_whole_messages_and_says_which_ended_early(tmp_path):
    data = (DATA / "mail" / "lists.mbox").read_bytes()
    cut = tmp_path / "cut.mbox"
    cut.write_bytes(data[: data.rindex(b"Hi James") + 20])  # the last one ends mid-body
    loaded = load(cut)
    assert len(loaded.sections) == 3  # the cut message keeps what it holds
    (tmp_path / "empty.mbox").write_text("Not a mailbox at all.\n")
    with pytest.raises(LoadError, match="no messages found"):
        load(tmp_path / "empty.mbox")


def test_a_message_that_cannot_be_read_is_one_note_and_the_others_are_read(tmp_path, monkeypatch):
    from ragcli.ingest.loaders import mail

    box = tmp_path / "lists.mbox"
    shutil.copy(DATA / "mail" / "lists.mbox", box)
    real = mail.message_sections

    def failing_second(message, notes, number=None):
        if number == 2:
            raise ValueError("bad header")
        return real(message, notes, number)

    monkeypatch.setattr(mail, "message_sections", failing_second)
    loaded = load(box)
    assert len(loaded.sections) == 2
    assert loaded.notes == ["message 2 not read (ValueError: bad header)"]


def test_a_maildir_is_a_folder_of_messages_and_its_deliveries_are_passed_over(tmp_path):
    box = mailbox.Maildir(tmp_path / "Mail", create=True)
    source = mailbox.mbox(DATA / "mail" / "lists.mbox", create=False)
    keys = [box.add(message) for message in source]
    source.close()
    (tmp_path / "Mail" / "tmp" / "123.delivering").write_text("half a message")
    files = list(walk(tmp_path))
    assert len(files) == len(keys) == 3
    assert all(file_type_of(f) == "eml" and f.parent.name == "new" for f in files)
    sections = [s for f in files for s in load(f).sections]
    assert {s.metadata["subject"] for s in sections} >= {"Re: 64-bit sysinfo"}


def test_not_an_email_and_outlook_msg_are_refused_with_a_reason(tmp_path):
    (tmp_path / "notes.eml").write_text("just some words\nand more\n")
    with pytest.raises(LoadError, match="not an e-mail message"):
        load(tmp_path / "notes.eml")
    (tmp_path / "old.eml").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 600)
    with pytest.raises(LoadError, match="Outlook .msg"):
        load(tmp_path / "old.eml")
    (tmp_path / "x.msg").write_bytes(b"\0")
    with pytest.raises(LoadError, match="save the message as .eml"):
        load(tmp_path / "x.msg")
