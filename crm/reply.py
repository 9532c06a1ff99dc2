"""A mail's text in its parts: what the sender wrote now, their signature, and what they
quote or forward (an earlier message of the thread, the studio's own included). Values of a
lead card are read from the new text and the signature; a quote is context, never the
client's contacts, call-back or dates."""

from __future__ import annotations

import re
from dataclasses import dataclass

# Where an earlier message starts: a reply's attribution line ("On … wrote:", "… пишет:",
# "… написав:"), Outlook's and other clients' header blocks, a forward's separator.
_ATTRIBUTION = re.compile(
    r"^\s*(?:"
    r"on\b.{0,200}\bwrote\s*:"
    r"|.{0,200}\b(?:пишет|писал|писала|написал|написала|пише|писав|писала|написав|написала"
    r"|wrote)\s*:"
    r"|-{2,}\s*(?:original\s+message|исходное\s+сообщение|оригинальное\s+сообщение"
    r"|вихідне\s+повідомлення|оригінальне\s+повідомлення|пересылаемое\s+сообщение"
    r"|forwarded\s+message|переслане\s+повідомлення|пересланное\s+сообщение)\s*-{2,}"
    r"|begin\s+forwarded\s+message\s*:"
    r")\s*$",
    re.IGNORECASE | re.MULTILINE,
)
# A header block as mail clients write one above a quoted message: "From:" (or its
# translation) with a date or "Sent:" line among the next three.
_HEADER_FROM = re.compile(r"^\s*\*?(?:from|от|від|відправник|отправитель)\s*:\*?\s*\S", re.I)
_HEADER_DATE = re.compile(
    r"^\s*\*?(?:sent|date|отправлено|дата|надіслано|відправлено|to|кому)\s*:", re.I
)
_QUOTED_LINE = re.compile(r"^\s*>")
# A line that closes the letter: the signature follows it (or holds the name on its line).
_SIGN_OFF = re.compile(
    r"^\s*(?:с\s+уважением|с\s+наилучшими\s+пожеланиями|всего\s+(?:доброго|хорошего)"
    r"|спасибо|благодарю|з\s+повагою|з\s+найкращими\s+побажаннями|дякую|щиро"
    r"|(?:best|kind|warm|many)\s+(?:regards|wishes|thanks)|best|regards|sincerely"
    r"|thank\s+you|thanks\s+a\s+(?:lot|million)|thanks|cheers|yours(?:\s+sincerely|\s+truly)?"
    r"|--\s*)[\s,.!]*(?P<rest>.*)$",
    re.IGNORECASE,
)
# A closing block of short lines with no sentence in it: a name, a role, a phone.
_SHORT_LINE = 60


@dataclass(frozen=True)
class MailParts:
    new_text: str  # what the sender wrote now, without the signature
    signature: str  # the lines after the sign-off, or the closing block of short lines
    quoted: str  # earlier messages quoted or forwarded, never the client's own words

    @property
    def own(self) -> str:
        """The sender's own words: the new text and the signature."""
        return f"{self.new_text}\n\n{self.signature}".strip() if self.signature else self.new_text


def mail_parts(text: str, *, sender: str = "") -> MailParts:
    """Split a mail's text. A forward's body is the sender's words when the sender wrote
    nothing above it (a colleague passing a client's request on) or it is their own earlier
    mail (its "From:" is the sender's address); below a forwarder's own text, another
    person's forwarded mail is context: its people, contacts and dates are not the
    sender's. The forward's header lines and closing separator are dropped."""
    lines = text.splitlines()
    cut = _quote_start(lines)
    head, tail = lines[:cut], lines[cut:]
    forwarded = bool(tail) and _is_forward_separator(tail[0])
    if forwarded and (not _says_something(head) or _forwarded_from(tail[1:], sender)):
        own_lines = head + [
            line for line in _without_headers(tail[1:]) if not _is_forward_end(line)
        ]
        quoted_lines: list[str] = []
    else:
        own_lines, quoted_lines = head, tail
    quoted_lines = [line for line in own_lines if _QUOTED_LINE.match(line)] + quoted_lines
    own_lines = [line for line in own_lines if not _QUOTED_LINE.match(line)]
    new_lines, signature_lines = _signature_split(own_lines)
    return MailParts(
        new_text="\n".join(new_lines).strip(),
        signature="\n".join(signature_lines).strip(),
        quoted="\n".join(quoted_lines).strip(),
    )


_FORWARD = re.compile(r"forward|пересл|пересыл|begin\s+forwarded", re.IGNORECASE)
# "-------- Конец пересылаемого сообщения --------", "---- End forwarded message ----".
_FORWARD_END = re.compile(r"^\s*-{2,}\s*(?:конец|кінець|end\s+of|end)\b.*-{2,}\s*$", re.I)
_ADDRESS = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


def _is_forward_separator(line: str) -> bool:
    return bool(_FORWARD.search(line))


def _is_forward_end(line: str) -> bool:
    return bool(_FORWARD_END.match(line))


def _says_something(lines: list[str]) -> bool:
    """Whether the forwarder wrote text of their own above the forward: more than a
    greeting, a "see below" or an "FYI"."""
    words = sum(len(line.split()) for line in lines if not _QUOTED_LINE.match(line))
    return words > 8


def _forwarded_from(lines: list[str], sender: str) -> bool:
    """Whether the forwarded mail's header names the sender's own address as its author."""
    if "@" not in sender:
        return False
    for line in lines[:8]:
        if _HEADER_FROM.match(line):
            return sender.casefold() in (a.casefold() for a in _ADDRESS.findall(line))
    return False


def _quote_start(lines: list[str]) -> int:
    for index, line in enumerate(lines):
        if _ATTRIBUTION.match(line):
            return index
        if _HEADER_FROM.match(line) and any(
            _HEADER_DATE.match(following) for following in lines[index + 1 : index + 4]
        ):
            return index
    return len(lines)


def _without_headers(lines: list[str]) -> list[str]:
    """A forwarded message's lines without its header block (From, Date, Subject, To)."""
    index = 0
    while index < len(lines) and (
        not lines[index].strip()
        or (re.match(r"^\s*\*?[\w -]{2,20}\s*:\*?\s", lines[index]) and index < 8)
    ):
        index += 1
    return lines[index:]


def _signature_split(lines: list[str]) -> tuple[list[str], list[str]]:
    """(the text, the signature): after the last sign-off line, else the closing block of
    short lines after a blank line, when it is not a sentence."""
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    for index in range(len(lines) - 1, -1, -1):
        match = _SIGN_OFF.match(lines[index])
        rest = match.group("rest").strip() if match else ""
        # "Спасибо за ответ, нам нужен ролик" is a sentence; "Thanks, Jake" a sign-off.
        if match and len(lines) - index <= 8 and (not rest or rest[0].isupper()):
            return lines[:index], ([rest] if rest else []) + lines[index + 1 :]
    blank = max((i for i, line in enumerate(lines) if not line.strip()), default=-1)
    block = lines[blank + 1 :]
    if blank > 0 and 0 < len(block) <= 5 and all(_signature_line(line) for line in block):
        return lines[:blank], block
    return lines, []


def _signature_line(line: str) -> bool:
    line = line.strip()
    return bool(line) and len(line) <= _SHORT_LINE and not line.endswith((".", "!", "?", ":"))
