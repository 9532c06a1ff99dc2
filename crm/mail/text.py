"""Text clean-up for mail: control characters and surrogates dropped, HTML turned into plain
text."""

from __future__ import annotations

import re
from html.parser import HTMLParser

_CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # keeps \t and \n
_SURROGATES = re.compile(r"[\ud800-\udfff]")
_WHITESPACE_RUN = re.compile(r"\s+")


def _normalise_text(text: str) -> str:
    """LF line ends, no NULs or other control characters, no trailing spaces or blank edges."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _SURROGATES.sub("\ufffd", _CONTROL_CHARS.sub("", text))
    text = "\n".join(line.rstrip() for line in text.lstrip("\ufeff").split("\n"))
    return text.strip("\n")


def _single_line(text: str) -> str:
    """A header value as one clean line: folded or injected line breaks become spaces."""
    text = _SURROGATES.sub("\ufffd", text)
    text = _WHITESPACE_RUN.sub(" ", _CONTROL_CHARS.sub(" ", text))
    return text.strip()


# --- HTML ----------------------------------------------------------------------------------

_SKIPPED_TAGS = frozenset({"script", "style", "title", "template"})
_PARAGRAPH_TAGS = frozenset(
    {"p", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "table", "ul", "ol", "hr", "pre"}
)
_LINE_TAGS = frozenset(
    {
        "address", "article", "aside", "body", "caption", "center", "dd", "details", "dialog",
        "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "header",
        "html", "li", "main", "nav", "section", "summary", "tbody", "tfoot", "thead", "tr",
    }
)  # fmt: skip
_HTML_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)


class _HtmlText(HTMLParser):
    """Readable text of an HTML body: what a mail client shows, with its line structure."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skipping = 0
        self._preformatted = 0
        self._trailing_newlines = 2  # the start counts as a fresh paragraph: no leading gap

    def _emit(self, text: str) -> None:
        self.parts.append(text)
        stripped = text.rstrip("\n")
        if stripped:
            self._trailing_newlines = len(text) - len(stripped)
        else:
            self._trailing_newlines += len(text)

    def _break(self, newlines: int) -> None:
        """End the current line (1) or paragraph (2), without stacking up blank lines."""
        if self._trailing_newlines < newlines:
            self._emit("\n" * (newlines - self._trailing_newlines))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED_TAGS:
            self._skipping += 1
        elif tag == "br":
            self._emit("\n")
        elif tag == "li":
            self._break(1)
            self._emit("- ")
        elif tag in ("td", "th"):
            if not self._trailing_newlines:
                self._emit(" ")
        elif tag in _PARAGRAPH_TAGS:
            self._break(2)
        elif tag in _LINE_TAGS:
            self._break(1)
        if tag == "pre":
            self._preformatted += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED_TAGS:
            self._skipping = max(0, self._skipping - 1)
        elif tag in _PARAGRAPH_TAGS:
            self._break(2)
        elif tag in _LINE_TAGS:
            self._break(1)
        if tag == "pre":
            self._preformatted = max(0, self._preformatted - 1)

    def handle_data(self, data: str) -> None:
        if self._skipping or not data:
            return
        if not self._preformatted:
            data = _WHITESPACE_RUN.sub(" ", data)
            if self._trailing_newlines:
                data = data.lstrip(" ")
            if not data:
                return
        self._emit(data)


def _html_to_text(html: str) -> str:
    converter = _HtmlText()
    try:
        converter.feed(html)
        converter.close()
    except Exception:  # noqa: S110 - HTMLParser is lenient; keep whatever it produced
        pass
    text = _normalise_text("".join(converter.parts))
    return re.sub(r"\n{3,}", "\n\n", text)
