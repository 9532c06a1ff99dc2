"""Raw messages read from `.eml` files, folders of them and mbox files (`manage.py crm_import`)."""

from __future__ import annotations

import errno
import mailbox
import os
from collections.abc import Iterable, Iterator
from pathlib import Path


def _looks_like_mbox(path: Path) -> bool:
    with path.open("rb") as handle:
        return handle.read(5) == b"From "  # the mbox separator; a header would be "From:"


def _mail_sources(paths: Iterable[str | os.PathLike[str]]) -> Iterator[tuple[Path, bool]]:
    """(file, is_mbox) for every file to read, each once, in a stable order."""
    seen: set[Path] = set()

    def first_time(path: Path) -> bool:
        resolved = path.resolve()
        if resolved in seen:
            return False
        seen.add(resolved)
        return True

    for given in paths:
        path = Path(given)
        if path.is_dir():
            for folder, subfolders, files in os.walk(path):
                subfolders.sort()
                for name in sorted(files):
                    found = Path(folder) / name
                    if found.suffix.lower() == ".eml" and found.is_file() and first_time(found):
                        yield found, False
        elif path.is_file():
            if first_time(path):
                yield path, _looks_like_mbox(path)
        else:
            raise FileNotFoundError(errno.ENOENT, "no such mail file or folder", str(path))


def mail_messages_from_paths(
    paths: Iterable[str | os.PathLike[str]],
) -> Iterator[tuple[str, bytes]]:
    """(source label, raw bytes) for each message: a file given or found under a folder
    (`*.eml`, walked recursively) is one message, unless it starts with an mbox "From "
    line; each message of an mbox is labelled "path#n" (n from 1). Labels are for people
    and progress output; a message's identity is its Message-ID and content hash."""
    for path, is_mbox in _mail_sources(paths):
        if not is_mbox:
            yield str(path), path.read_bytes()
            continue
        box = mailbox.mbox(path, create=False)
        try:
            for number, key in enumerate(box.iterkeys(), start=1):
                yield f"{path}#{number}", box.get_bytes(key)
        finally:
            box.close()


def mail_messages_count(paths: Iterable[str | os.PathLike[str]]) -> int:
    """How many messages `mail_messages_from_paths` will yield for the same paths."""
    total = 0
    for path, is_mbox in _mail_sources(paths):
        if not is_mbox:
            total += 1
            continue
        box = mailbox.mbox(path, create=False)
        try:
            total += len(box)
        finally:
            box.close()
    return total
