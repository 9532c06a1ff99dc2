"""Poll an IMAP mailbox with the stdlib: fetch unseen mail, mark it seen only once stored."""

from __future__ import annotations

import base64
import contextlib
import imaplib
import re
import ssl as ssl_module
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from core.env import EnvError, env_bool, env_port, env_text

DEFAULT_TIMEOUT_S = 30.0
_ERROR_TEXT_LIMIT = 500


class ImapError(Exception):
    """The mailbox could not be polled: no connection, login refused, no such folder, or the
    connection broke. Messages stored before it happened are kept (and marked seen)."""


@dataclass(frozen=True)
class ImapSettings:
    """Where the CRM mailbox is. `ssl` means implicit TLS (port 993); without it the
    connection, password included, is plain text."""

    host: str
    port: int
    user: str
    password: str = field(repr=False)
    folder: str = "INBOX"
    ssl: bool = True
    timeout_s: float = DEFAULT_TIMEOUT_S

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> ImapSettings | None:
        """Settings from CRM_IMAP_HOST, _PORT (default 993, or 143 without SSL), _USER,
        _PASSWORD, _FOLDER (default INBOX) and _SSL (true/false, default true); None when
        no host is set, ValueError when a value is missing or malformed."""
        host = env_text("CRM_IMAP_HOST", environ=environ)
        if host is None:
            return None
        use_ssl = env_bool("CRM_IMAP_SSL", default=True, environ=environ)
        port = env_port("CRM_IMAP_PORT", default=993 if use_ssl else 143, environ=environ)
        user = env_text("CRM_IMAP_USER", environ=environ)
        if user is None:
            raise EnvError("CRM_IMAP_USER must be set when CRM_IMAP_HOST is set")
        password = environ.get("CRM_IMAP_PASSWORD") or ""
        if not password:
            raise EnvError("CRM_IMAP_PASSWORD must be set when CRM_IMAP_HOST is set")
        return cls(
            host=host,
            port=port,
            user=user,
            password=password,
            folder=env_text("CRM_IMAP_FOLDER", environ=environ) or "INBOX",
            ssl=use_ssl,
        )


@dataclass(frozen=True)
class ImapPollResult:
    """What one poll did. `unseen` is how many unseen messages the folder held; more than
    `limit` of them means the rest waits for the next poll."""

    unseen: int
    fetched: int
    stored: int
    failed: int
    errors: tuple[str, ...]


def imap_folder_name(folder: str) -> str:
    """A folder name as IMAP wants it on the wire: modified UTF-7 (RFC 3501 5.1.3), quoted."""
    encoded: list[str] = []
    pending: list[str] = []

    def flush() -> None:
        if pending:
            utf16 = "".join(pending).encode("utf-16-be")
            chunk = base64.b64encode(utf16).decode("ascii").rstrip("=").replace("/", ",")
            encoded.append(f"&{chunk}-")
            pending.clear()

    for char in folder:
        if " " <= char <= "~":
            flush()
            encoded.append("&-" if char == "&" else char)
        else:
            pending.append(char)
    flush()
    name = "".join(encoded).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{name}"'


def _text(value: object) -> str:
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if isinstance(value, list | tuple):
        value = " ".join(_text(item) for item in value if item is not None)
    return str(value)[:_ERROR_TEXT_LIMIT]


def _connect(settings: ImapSettings, ssl_context: ssl_module.SSLContext | None) -> imaplib.IMAP4:
    try:
        if settings.ssl:
            return imaplib.IMAP4_SSL(
                settings.host,
                settings.port,
                ssl_context=ssl_context or ssl_module.create_default_context(),
                timeout=settings.timeout_s,
            )
        return imaplib.IMAP4(settings.host, settings.port, timeout=settings.timeout_s)
    except (OSError, imaplib.IMAP4.error) as error:
        raise ImapError(
            f"cannot connect to IMAP server {settings.host}:{settings.port}: {_text(error)}"
        ) from error


def _login_and_select(connection: imaplib.IMAP4, settings: ImapSettings) -> None:
    where = f"{settings.user} on {settings.host}:{settings.port}"
    try:
        connection.login(settings.user, settings.password)
    except UnicodeEncodeError as error:
        raise ImapError(f"IMAP LOGIN as {where}: user and password must be ASCII") from error
    except imaplib.IMAP4.abort:
        raise
    except imaplib.IMAP4.error as error:
        raise ImapError(f"IMAP login as {where} was refused: {_text(error.args)}") from error
    status, data = connection.select(imap_folder_name(settings.folder))
    if status != "OK":
        raise ImapError(f"IMAP folder {settings.folder!r} cannot be opened: {_text(data)}")


def _unseen_uids(connection: imaplib.IMAP4) -> list[str]:
    status, data = connection.uid("SEARCH", "UNSEEN")
    if status != "OK":
        raise ImapError(f"IMAP UID SEARCH UNSEEN failed: {_text(data)}")
    uids = {int(token) for line in data if line for token in line.split() if token.isdigit()}
    return [str(uid) for uid in sorted(uids)]  # oldest first


def _fetch(connection: imaplib.IMAP4, uid: str) -> bytes | str:
    """The raw message, or why it could not be fetched. BODY.PEEK[] leaves \\Seen alone."""
    status, data = connection.uid("FETCH", uid, "(BODY.PEEK[])")
    if status != "OK":
        return f"FETCH refused: {_text(data)}"
    for item in data:
        if not (isinstance(item, tuple) and len(item) == 2 and b"BODY[]" in item[0].upper()):
            continue
        # Unsolicited FETCH responses for other messages may come along; skip them.
        answered_uid = re.search(rb"UID (\d+)", item[0], re.IGNORECASE)
        if answered_uid is None or answered_uid.group(1).decode() == uid:
            return bytes(item[1])
    return "FETCH answer held no message body"


def imap_poll(
    settings: ImapSettings,
    store: Callable[[bytes, str], None],
    *,
    limit: int = 200,
    ssl_context: ssl_module.SSLContext | None = None,
    abort_on: tuple[type[BaseException], ...] = (),
    keep_going: Callable[[], bool] | None = None,
) -> ImapPollResult:
    """Fetch up to `limit` unseen messages, oldest first, and hand each to `store(raw, uid)`.

    A message gets \\Seen only after `store` returned; when `store` raises, the message
    stays unseen for the next poll and this poll goes on with the next one (the error is
    counted and kept; `store` decides when to stop retrying one). Exceptions in `abort_on`
    (say, a task's soft time limit) are not counted but end the poll. `keep_going` is asked
    before each message (the poll's lock still held?); when it says no, the poll ends there.
    Connection, login and folder problems raise ImapError. The session is always logged out.
    """
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    connection = _connect(settings, ssl_context)
    fetched = stored = failed = 0
    errors: list[str] = []
    try:
        _login_and_select(connection, settings)
        uids = _unseen_uids(connection)
        for uid in uids[:limit]:
            if keep_going is not None and not keep_going():
                errors.append(f"stopped before uid {uid}: the poll's lock was lost")
                break
            raw = _fetch(connection, uid)
            if isinstance(raw, str):
                failed += 1
                errors.append(f"uid {uid}: {raw}")
                continue
            fetched += 1
            try:
                store(raw, uid)
            except abort_on:
                raise
            except Exception as error:
                failed += 1
                errors.append(f"uid {uid}: store failed: {type(error).__name__}: {_text(error)}")
                continue
            stored += 1
            status, data = connection.uid("STORE", uid, "+FLAGS.SILENT", r"(\Seen)")
            if status != "OK":  # stored already; fetched again next poll, deduplicated then
                errors.append(f"uid {uid}: stored, but \\Seen was not set: {_text(data)}")
    except (imaplib.IMAP4.error, OSError) as error:
        raise ImapError(
            f"IMAP session with {settings.host}:{settings.port} failed after {stored} stored "
            f"message(s): {_text(error.args) or type(error).__name__}"
        ) from error
    finally:
        with contextlib.suppress(Exception):
            connection.logout()
    return ImapPollResult(
        unseen=len(uids),
        fetched=fetched,
        stored=stored,
        failed=failed,
        errors=tuple(errors),
    )
