"""Streaming helpers: spot when the first top-level JSON object has closed, and read SSE data."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

SSE_DONE = "[DONE]"
# How long a stream stays open after the answer's closing brace for the token counts the
# provider sends last (OpenAI's usage chunk, GigaChat's and YandexGPT's final chunk). A model
# held by a schema stops at the brace, so they follow at once; without them the call's cost
# is our estimate.
USAGE_WAIT_S = 2.0
# Text past the answer (a closing fence, a newline) that the wait tolerates. A model still
# talking after that sends its counts only when it stops: hanging up saves its tokens.
AFTER_ANSWER_MAX_CHARS = 64


class JsonObjectTracker:
    """Follows a streamed model answer and says when its first top-level JSON object closed.

    Everything before the first `{` is prose or a markdown fence opener (```json) and is
    skipped; from there the tracker counts braces outside JSON strings (honouring escapes),
    so braces inside string values never end the object early. Only braces are counted:
    the question is where the object that opened first ends, and brackets cannot change it
    in valid JSON.
    """

    __slots__ = ("_depth", "_end", "_escape", "_in_string", "_length", "_parts", "_start")

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._length = 0  # characters kept so far (everything fed, cut at the close)
        self._depth = 0
        self._in_string = False
        self._escape = False
        self._start: int | None = None  # index in `text` of the opening brace
        self._end: int | None = None  # index in `text` just after the closing brace

    def feed(self, chunk: str) -> int | None:
        """Take the next piece of the answer.

        Returns the offset in `chunk` just after the closing brace when this chunk closes
        the first top-level object, otherwise None (also for every chunk after the close,
        which is ignored).
        """
        if self._end is not None:
            return None
        depth, in_string, escape, start = self._depth, self._in_string, self._escape, self._start
        cut: int | None = None
        for index, char in enumerate(chunk):
            if start is None:
                if char == "{":
                    start = self._length + index
                    depth = 1
                continue
            if in_string:
                if escape:
                    escape = False
                elif char == "\\":
                    escape = True
                elif char == '"':
                    in_string = False
                continue
            if char == '"':
                in_string = True
            elif char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
                if depth == 0:
                    cut = index + 1
                    break
        self._depth, self._in_string, self._escape, self._start = depth, in_string, escape, start
        kept = chunk if cut is None else chunk[:cut]
        self._parts.append(kept)
        self._length += len(kept)
        if cut is not None:
            self._end = self._length
        return cut

    @property
    def closed(self) -> bool:
        """True once the first top-level object has closed."""
        return self._end is not None

    @property
    def started(self) -> bool:
        """True once the opening brace of the first object has been seen."""
        return self._start is not None

    @property
    def depth(self) -> int:
        """Current brace depth inside the first object (0 before it opens and after it closes)."""
        return self._depth

    @property
    def text(self) -> str:
        """Everything fed so far, cut right after the closing brace once the object closed."""
        if len(self._parts) > 1:
            # Join once and keep the result, so reading `text` repeatedly stays linear.
            self._parts = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""

    @property
    def object_text(self) -> str | None:
        """The object from its opening brace (complete once `closed`), or None before it opens."""
        if self._start is None:
            return None
        return self.text[self._start :]


def iter_sse_data(lines: Iterable[str]) -> Iterator[str]:
    """Yield the `data` payload of each server-sent event, stopping at `data: [DONE]`.

    Follows the SSE format: an event ends at a blank line, several `data:` lines of one event
    are joined with newlines, lines starting with `:` are comments, other fields (`event:`,
    `id:`, `retry:`) are ignored. A final event not followed by a blank line is still
    yielded, because some servers end the body without one.
    """
    data: list[str] = []
    for raw_line in lines:
        line = raw_line.rstrip("\r\n")
        if not line:
            if data:
                payload = "\n".join(data)
                data = []
                if payload.strip() == SSE_DONE:
                    return
                yield payload
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        if field != "data":
            continue
        data.append(value[1:] if value.startswith(" ") else value)
    if data:
        payload = "\n".join(data)
        if payload.strip() != SSE_DONE:
            yield payload
