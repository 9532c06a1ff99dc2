"""A small IMAP4rev1 server on 127.0.0.1 speaking the real wire format, with flags and faults.

It implements what `crm.imap` and imaplib send: CAPABILITY, LOGIN, SELECT, UID SEARCH,
UID FETCH, UID STORE, NOOP and LOGOUT. Like a real server, a non-peek `BODY[]` fetch sets
\\Seen and `BODY.PEEK[]` does not, so tests can tell which messages a client marked.
"""

from __future__ import annotations

import base64
import re
import socketserver
import ssl
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

_TOKEN = re.compile(r'"((?:[^"\\]|\\.)*)"|(\([^)]*\))|(\S+)')


@dataclass
class ServerMail:
    uid: int
    raw: bytes
    flags: set[str] = field(default_factory=set)


def decode_folder_name(name: str) -> str:
    """Modified UTF-7 (RFC 3501 5.1.3) to text, written independently of crm.imap."""

    def shifted(match: re.Match[str]) -> str:
        encoded = match.group(1)
        if not encoded:
            return "&"
        padded = encoded.replace(",", "/") + "=" * (-len(encoded) % 4)
        return base64.b64decode(padded).decode("utf-16-be")

    return re.sub(r"&([^-]*)-", shifted, name)


def _arguments(text: str) -> list[str]:
    """Atoms, quoted strings (unescaped) and parenthesised lists (kept with parentheses)."""
    tokens = []
    for match in _TOKEN.finditer(text):
        quoted, parenthesised, atom = match.groups()
        if quoted is not None:
            tokens.append(re.sub(r"\\(.)", r"\1", quoted))
        else:
            tokens.append(parenthesised or atom)
    return tokens


def _uid_set(text: str, uids: Iterable[int]) -> set[int]:
    present = set(uids)
    highest = max(present, default=0)
    chosen: set[int] = set()
    for part in text.split(","):
        first, _, last = part.partition(":")
        low = highest if first == "*" else int(first)
        high = low if not last else highest if last == "*" else int(last)
        low, high = min(low, high), max(low, high)
        chosen.update(uid for uid in present if low <= uid <= high)
    return chosen


class ImapTestServer:
    """Run with `with ImapTestServer() as server:`; `server.commands` records every command
    line (tag removed) in order; the fail_*/drop_* sets inject faults by UID."""

    def __init__(
        self,
        *,
        users: dict[str, str] | None = None,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.users = users if users is not None else {"crm@example.ru": "secret"}
        self.folders: dict[str, list[ServerMail]] = {"INBOX": []}
        self.commands: list[str] = []
        self.fail_fetch: set[int] = set()
        self.fail_store: set[int] = set()
        self.drop_on_fetch: set[int] = set()
        self.lock = threading.Lock()
        self._next_uid = 1
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.imap = self
        if tls is not None:
            self._server.socket = tls.wrap_socket(self._server.socket, server_side=True)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    def add(self, raw: bytes, *, folder: str = "INBOX", flags: Iterable[str] = ()) -> int:
        with self.lock:
            uid = self._next_uid
            self._next_uid += 1
            self.folders.setdefault(folder, []).append(ServerMail(uid, raw, set(flags)))
            return uid

    def flags(self, uid: int) -> set[str]:
        with self.lock:
            for mails in self.folders.values():
                for mail in mails:
                    if mail.uid == uid:
                        return set(mail.flags)
        raise KeyError(uid)

    def seen(self, folder: str = "INBOX") -> list[int]:
        with self.lock:
            return [mail.uid for mail in self.folders[folder] if "\\Seen" in mail.flags]

    def commands_named(self, name: str) -> list[str]:
        return [line for line in self.commands if line.upper().startswith(name.upper())]

    def __enter__(self) -> ImapTestServer:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    imap: ImapTestServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # clients hanging up (or dropped on purpose) are part of the tests


class _Handler(socketserver.StreamRequestHandler):
    server: _Server

    def handle(self) -> None:
        self.imap = self.server.imap
        self.user: str | None = None
        self.selected: str | None = None
        self.send("* OK IMAP4rev1 test server ready")
        while True:
            line = self.rfile.readline(65536)
            if not line:
                return
            tag, _, rest = line.rstrip(b"\r\n").decode("utf-8", "replace").partition(" ")
            command, _, arguments = rest.partition(" ")
            with self.imap.lock:
                self.imap.commands.append(rest)
            method = getattr(self, f"do_{command.lower()}", None)
            if method is None:
                self.send(f"{tag} BAD unknown command {command!r}")
            elif command.upper() not in ("CAPABILITY", "NOOP", "LOGIN", "LOGOUT") and not self.user:
                self.send(f"{tag} BAD log in first")
            elif method(tag, arguments) is False:
                return

    def send(self, line: str | bytes) -> None:
        data = line if isinstance(line, bytes) else line.encode("utf-8")
        self.wfile.write(data + b"\r\n")
        self.wfile.flush()

    # --- commands: each answers and returns False to end the connection ---------------------

    def do_capability(self, tag: str, arguments: str) -> None:
        self.send("* CAPABILITY IMAP4rev1")
        self.send(f"{tag} OK CAPABILITY completed")

    def do_noop(self, tag: str, arguments: str) -> None:
        self.send(f"{tag} OK NOOP completed")

    def do_logout(self, tag: str, arguments: str) -> bool:
        self.send("* BYE logging out")
        self.send(f"{tag} OK LOGOUT completed")
        return False

    def do_login(self, tag: str, arguments: str) -> None:
        parsed = _arguments(arguments)
        if len(parsed) != 2:
            self.send(f"{tag} BAD LOGIN takes a user and a password")
        elif self.imap.users.get(parsed[0]) == parsed[1]:
            self.user = parsed[0]
            self.send(f"{tag} OK LOGIN completed")
        else:
            self.send(f"{tag} NO [AUTHENTICATIONFAILED] Invalid credentials")

    def do_select(self, tag: str, arguments: str) -> None:
        parsed = _arguments(arguments)
        name = decode_folder_name(parsed[0]) if parsed else ""
        if name.upper() == "INBOX":
            name = "INBOX"
        with self.imap.lock:
            mails = self.imap.folders.get(name)
            if mails is None:
                self.send(f"{tag} NO [NONEXISTENT] Unknown mailbox")
                return
            self.selected = name
            uid_next = max((mail.uid for mail in mails), default=0) + 1
            self.send("* FLAGS (\\Answered \\Flagged \\Deleted \\Seen \\Draft)")
            self.send(f"* {len(mails)} EXISTS")
            self.send("* 0 RECENT")
            self.send("* OK [UIDVALIDITY 1] UIDs valid")
            self.send(f"* OK [UIDNEXT {uid_next}] Predicted next UID")
        self.send(f"{tag} OK [READ-WRITE] SELECT completed")

    def do_uid(self, tag: str, arguments: str) -> bool | None:
        if self.selected is None:
            self.send(f"{tag} BAD select a folder first")
            return None
        subcommand, _, rest = arguments.partition(" ")
        method = getattr(self, f"uid_{subcommand.lower()}", None)
        if method is None:
            self.send(f"{tag} BAD unknown UID command")
            return None
        with self.imap.lock:
            mails = list(self.imap.folders[self.selected])
        return method(tag, _arguments(rest), mails)

    def uid_search(self, tag: str, criteria: list[str], mails: list[ServerMail]) -> None:
        if [c.upper() for c in criteria] == ["UNSEEN"]:
            found = [mail.uid for mail in mails if "\\Seen" not in mail.flags]
        elif [c.upper() for c in criteria] == ["ALL"]:
            found = [mail.uid for mail in mails]
        else:
            self.send(f"{tag} BAD only UNSEEN and ALL are supported")
            return
        self.send(" ".join(["* SEARCH", *map(str, found)]))
        self.send(f"{tag} OK SEARCH completed")

    def uid_fetch(self, tag: str, arguments: list[str], mails: list[ServerMail]) -> bool | None:
        if len(arguments) != 2:
            self.send(f"{tag} BAD UID FETCH takes a UID set and items")
            return None
        wanted = _uid_set(arguments[0], (mail.uid for mail in mails))
        items = arguments[1].strip("()").upper().split()
        for number, mail in enumerate(mails, start=1):
            if mail.uid not in wanted:
                continue
            if mail.uid in self.imap.drop_on_fetch:
                return False  # the connection breaks mid-session
            if mail.uid in self.imap.fail_fetch:
                self.send(f"{tag} NO [UNAVAILABLE] message {mail.uid} cannot be read")
                return None
            with self.imap.lock:
                if "BODY[]" in items:  # a non-peek fetch marks the message read (RFC 3501)
                    mail.flags.add("\\Seen")
                flags = " ".join(sorted(mail.flags))
            parts = [f"UID {mail.uid}"]
            if "FLAGS" in items or "BODY[]" in items:
                parts.append(f"FLAGS ({flags})")
            if "BODY[]" in items or "BODY.PEEK[]" in items:
                head = f"* {number} FETCH ({' '.join(parts)} BODY[] {{{len(mail.raw)}}}"
                self.send(head.encode("ascii") + b"\r\n" + mail.raw + b")")
            else:
                self.send(f"* {number} FETCH ({' '.join(parts)})")
        self.send(f"{tag} OK FETCH completed")
        return None

    def uid_store(self, tag: str, arguments: list[str], mails: list[ServerMail]) -> None:
        if len(arguments) != 3:
            self.send(f"{tag} BAD UID STORE takes a UID set, an action and flags")
            return
        wanted = _uid_set(arguments[0], (mail.uid for mail in mails))
        action = arguments[1].upper()
        silent = action.endswith(".SILENT")
        action = action.removesuffix(".SILENT")
        if action not in ("FLAGS", "+FLAGS", "-FLAGS"):
            self.send(f"{tag} BAD unknown STORE action")
            return
        if wanted & self.imap.fail_store:
            self.send(f"{tag} NO [CANNOT] flags cannot be changed")
            return
        flags = set(arguments[2].strip("()").split())
        for number, mail in enumerate(mails, start=1):
            if mail.uid not in wanted:
                continue
            with self.imap.lock:
                if action == "FLAGS":
                    mail.flags = set(flags)
                elif action == "+FLAGS":
                    mail.flags |= flags
                else:
                    mail.flags -= flags
                current = " ".join(sorted(mail.flags))
            if not silent:
                self.send(f"* {number} FETCH (UID {mail.uid} FLAGS ({current}))")
        self.send(f"{tag} OK STORE completed")
