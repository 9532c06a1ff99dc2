"""The IMAP poller against a local IMAP4rev1 server: what gets \\Seen, errors, settings."""

from __future__ import annotations

import imaplib
import ssl
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest

from crm.imap import ImapError, ImapSettings, imap_folder_name, imap_poll
from crm.mail import mail_parse
from tests.crm.imap_server import ImapTestServer, decode_folder_name
from tests.llmkit.wire_servers import free_port, make_test_certificates


def a_mail(number: int, body: str = "Нужен ролик к запуску.") -> bytes:
    message = EmailMessage()
    message["From"] = f"Client {number} <client{number}@example.ru>"
    message["Subject"] = f"Заявка {number}"
    message["Message-ID"] = f"<lead-{number}@example.ru>"
    message.set_content(body)
    return bytes(message)


@pytest.fixture
def server() -> Iterator[ImapTestServer]:
    with ImapTestServer() as running:
        yield running


def settings_for(server: ImapTestServer, **changes: object) -> ImapSettings:
    values: dict[str, object] = {
        "host": "127.0.0.1",
        "port": server.port,
        "user": "crm@example.ru",
        "password": "secret",
        "ssl": False,
        "timeout_s": 5.0,
    }
    values.update(changes)
    return ImapSettings(**values)  # type: ignore[arg-type]


class Recorder:
    """A store that keeps what it was given and raises for chosen UIDs."""

    def __init__(self, fail_uids: set[str] = frozenset()) -> None:  # type: ignore[assignment]
        self.fail_uids = fail_uids
        self.stored: list[tuple[str, bytes]] = []

    def __call__(self, raw: bytes, uid: str) -> None:
        if uid in self.fail_uids:
            raise RuntimeError(f"database is locked while storing {uid}")
        self.stored.append((uid, raw))


# --- polling -------------------------------------------------------------------------------


def test_stored_messages_get_seen_and_already_seen_ones_are_left_alone(server):
    read_before = server.add(a_mail(0), flags={"\\Seen"})
    uids = [server.add(a_mail(number)) for number in (1, 2, 3)]
    store = Recorder()

    result = imap_poll(settings_for(server), store)

    assert (result.unseen, result.fetched, result.stored, result.failed) == (3, 3, 3, 0)
    assert result.errors == ()
    assert [uid for uid, _ in store.stored] == [str(uid) for uid in uids]
    assert [raw for _, raw in store.stored] == [a_mail(n) for n in (1, 2, 3)]
    assert mail_parse(store.stored[0][1]).message_id == "lead-1@example.ru"
    assert server.seen() == [read_before, *uids]


def test_a_store_that_raises_leaves_its_message_unseen_and_the_poll_goes_on(server):
    first, second, third = (server.add(a_mail(number)) for number in (1, 2, 3))

    result = imap_poll(settings_for(server), Recorder(fail_uids={str(second)}))

    assert (result.fetched, result.stored, result.failed) == (3, 2, 1)
    assert len(result.errors) == 1
    assert f"uid {second}" in result.errors[0]
    assert "RuntimeError: database is locked" in result.errors[0]
    assert server.seen() == [first, third]
    assert "\\Seen" not in server.flags(second)

    retry = Recorder()
    again = imap_poll(settings_for(server), retry)
    assert [uid for uid, _ in retry.stored] == [str(second)]
    assert (again.unseen, again.stored) == (1, 1)
    assert server.seen() == [first, second, third]


def test_fetching_uses_peek_so_the_server_never_marks_on_fetch(server):
    uid = server.add(a_mail(1))

    imap_poll(settings_for(server), Recorder(fail_uids={str(uid)}))

    fetches = server.commands_named("UID FETCH")
    assert fetches == [f"UID FETCH {uid} (BODY.PEEK[])"]
    assert "\\Seen" not in server.flags(uid)


def test_the_test_server_marks_a_plain_body_fetch_as_seen(server):
    # The control for the test above: a non-peek fetch on this server does set \Seen.
    uid = server.add(a_mail(1))
    client = imaplib.IMAP4("127.0.0.1", server.port, timeout=5)
    try:
        client.login("crm@example.ru", "secret")
        client.select("INBOX")
        status, data = client.uid("FETCH", str(uid), "(BODY[])")
    finally:
        client.logout()
    assert status == "OK"
    assert data[0][1] == a_mail(1)
    assert "\\Seen" in server.flags(uid)


def test_limit_takes_the_oldest_unseen_first_and_reports_how_many_wait(server):
    uids = [server.add(a_mail(number)) for number in range(5)]
    store = Recorder()

    result = imap_poll(settings_for(server), store, limit=2)

    assert (result.unseen, result.fetched, result.stored) == (5, 2, 2)
    assert [uid for uid, _ in store.stored] == [str(uids[0]), str(uids[1])]
    assert server.seen() == uids[:2]


def test_an_empty_folder_polls_to_nothing_and_logs_out(server):
    result = imap_poll(settings_for(server), Recorder())

    assert (result.unseen, result.fetched, result.stored, result.failed) == (0, 0, 0, 0)
    assert server.commands_named("LOGOUT") == ["LOGOUT"]


def test_a_5_mb_message_arrives_whole(server):
    big = a_mail(1, body="строка заявки\n" * 200_000)
    assert len(big) > 5_000_000
    uid = server.add(big)
    store = Recorder()

    imap_poll(settings_for(server), store)

    assert store.stored == [(str(uid), big)]
    assert server.seen() == [uid]


def test_a_refused_flag_update_is_reported_and_the_message_stays_unseen(server):
    uid = server.add(a_mail(1))
    server.fail_store.add(uid)

    result = imap_poll(settings_for(server), Recorder())

    assert (result.stored, result.failed) == (1, 0)
    assert result.errors == (
        f"uid {uid}: stored, but \\Seen was not set: [CANNOT] flags cannot be changed",
    )
    assert server.seen() == []


def test_a_refused_fetch_counts_as_failed_and_the_next_message_is_still_stored(server):
    broken, fine = server.add(a_mail(1)), server.add(a_mail(2))
    server.fail_fetch.add(broken)
    store = Recorder()

    result = imap_poll(settings_for(server), store)

    assert (result.fetched, result.stored, result.failed) == (1, 1, 1)
    assert "FETCH refused" in result.errors[0]
    assert [uid for uid, _ in store.stored] == [str(fine)]
    assert server.seen() == [fine]


def test_a_connection_lost_mid_poll_raises_but_keeps_what_was_marked(server):
    first, second = server.add(a_mail(1)), server.add(a_mail(2))
    server.drop_on_fetch.add(second)
    store = Recorder()

    with pytest.raises(ImapError, match=r"failed after 1 stored message"):
        imap_poll(settings_for(server), store)

    assert [uid for uid, _ in store.stored] == [str(first)]
    assert server.seen() == [first]


def test_an_abort_exception_ends_the_poll_without_marking(server):
    class SoftTimeLimitExceeded(Exception):
        pass

    uid = server.add(a_mail(1))
    server.add(a_mail(2))

    def store(raw: bytes, uid: str) -> None:
        raise SoftTimeLimitExceeded

    with pytest.raises(SoftTimeLimitExceeded):
        imap_poll(settings_for(server), store, abort_on=(SoftTimeLimitExceeded,))

    assert server.seen() == []
    assert "\\Seen" not in server.flags(uid)
    assert server.commands_named("UID FETCH") == [f"UID FETCH {uid} (BODY.PEEK[])"]
    assert server.commands_named("LOGOUT") == ["LOGOUT"]


def test_a_wrong_password_is_a_clear_error_without_the_password(server):
    with pytest.raises(ImapError) as caught:
        imap_poll(settings_for(server, password="wrong-password"), Recorder())

    message = str(caught.value)
    assert "login as crm@example.ru" in message
    assert "refused" in message
    assert "AUTHENTICATIONFAILED" in message
    assert "wrong-password" not in message
    assert server.commands_named("UID") == []
    assert server.commands_named("LOGOUT") == ["LOGOUT"]


def test_an_unknown_folder_is_a_clear_error(server):
    with pytest.raises(ImapError, match=r"folder 'Leads' cannot be opened: \[NONEXISTENT\]"):
        imap_poll(settings_for(server, folder="Leads"), Recorder())


def test_nobody_listening_is_a_clear_error():
    settings = ImapSettings(
        host="127.0.0.1", port=free_port(), user="u", password="p", ssl=False, timeout_s=2
    )
    with pytest.raises(ImapError, match=r"cannot connect to IMAP server 127\.0\.0\.1:\d+"):
        imap_poll(settings, Recorder())


def test_a_cyrillic_folder_with_spaces_is_selected_by_its_modified_utf7_name(server):
    folder = "Входящие/Заявки с сайта & форма"
    uid = server.add(a_mail(1), folder=folder)
    store = Recorder()

    result = imap_poll(settings_for(server, folder=folder), store)

    assert result.stored == 1
    assert server.seen(folder) == [uid]
    selects = server.commands_named("SELECT")
    assert selects[0].isascii()
    assert decode_folder_name(selects[0].removeprefix('SELECT "').removesuffix('"')) == folder


def test_folder_names_follow_rfc_3501_modified_utf7():
    # The example from RFC 3501 section 5.1.3.
    assert imap_folder_name("~peter/mail/台北/日本語") == '"~peter/mail/&U,BTFw-/&ZeVnLIqe-"'
    assert imap_folder_name("A&B") == '"A&-B"'
    assert imap_folder_name('say "hi"\\') == '"say \\"hi\\"\\\\"'


def test_the_limit_must_be_positive(server):
    with pytest.raises(ValueError, match="limit"):
        imap_poll(settings_for(server), Recorder(), limit=0)


def test_polling_over_tls_verifies_the_server_against_the_given_ca(tmp_path: Path):
    certificates = make_test_certificates(tmp_path)
    if certificates is None:
        pytest.skip("the openssl CLI is needed to issue test certificates")
    server_tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_tls.load_cert_chain(certificates.server_cert, certificates.server_key)
    trusting = ssl.create_default_context(cafile=str(certificates.ca_cert))

    with ImapTestServer(tls=server_tls) as server:
        uid = server.add(a_mail(1))
        settings = settings_for(server, ssl=True)
        with pytest.raises(ImapError, match="CERTIFICATE_VERIFY_FAILED"):
            imap_poll(settings, Recorder())  # the system CAs do not know the test CA
        result = imap_poll(settings, Recorder(), ssl_context=trusting)

    assert result.stored == 1
    assert server.seen() == [uid]


# --- settings ------------------------------------------------------------------------------

FULL_ENV = {
    "CRM_IMAP_HOST": "imap.example.ru",
    "CRM_IMAP_USER": "crm@example.ru",
    "CRM_IMAP_PASSWORD": "s3cret pass",
}


def test_no_host_means_no_mailbox():
    assert ImapSettings.from_env({}) is None
    assert ImapSettings.from_env({"CRM_IMAP_HOST": "  ", "CRM_IMAP_USER": "x"}) is None


def test_settings_default_to_imaps_on_993_and_the_inbox():
    settings = ImapSettings.from_env(FULL_ENV)

    assert settings == ImapSettings(
        host="imap.example.ru",
        port=993,
        user="crm@example.ru",
        password="s3cret pass",
        folder="INBOX",
        ssl=True,
    )
    assert "s3cret" not in repr(settings)


def test_settings_read_every_variable():
    settings = ImapSettings.from_env(
        {
            **FULL_ENV,
            "CRM_IMAP_PORT": "1143",
            "CRM_IMAP_FOLDER": "Заявки",
            "CRM_IMAP_SSL": "False",
        }
    )
    assert settings is not None
    assert (settings.port, settings.folder, settings.ssl) == (1143, "Заявки", False)


def test_plain_imap_defaults_to_port_143():
    settings = ImapSettings.from_env({**FULL_ENV, "CRM_IMAP_SSL": "false"})
    assert settings is not None
    assert settings.port == 143


@pytest.mark.parametrize("port", ["abc", "0", "65536", "-1", "99.5"])
def test_a_bad_port_is_a_clear_error(port):
    with pytest.raises(ValueError, match=rf"CRM_IMAP_PORT must be a port number .* got '{port}'"):
        ImapSettings.from_env({**FULL_ENV, "CRM_IMAP_PORT": port})


def test_ssl_must_be_true_or_false():
    with pytest.raises(ValueError, match="CRM_IMAP_SSL must be 'true' or 'false', got 'yes'"):
        ImapSettings.from_env({**FULL_ENV, "CRM_IMAP_SSL": "yes"})


@pytest.mark.parametrize("missing", ["CRM_IMAP_USER", "CRM_IMAP_PASSWORD"])
def test_a_host_without_credentials_is_a_clear_error(missing):
    environ = {name: value for name, value in FULL_ENV.items() if name != missing}
    with pytest.raises(ValueError, match=f"{missing} must be set"):
        ImapSettings.from_env(environ)
