"""Regenerate the screenshots in docs/guide.md and docs/crm.md from a throwaway demo database.

Run from the repository root (Debian's Chromium must be installed; Playwright never downloads
a browser):

    .venv/bin/python docs/make_screenshots.py

It migrates a fresh SQLite database in a temporary folder, creates a manager ("demo", password
"demo"), seeds demo data through the platform's own services (briefings, CRM intake, dead
letters from a scripted model that answers garbage, a discard and a replay), serves it with
`manage.py runserver`, logs the manager in with Playwright (a Russian browser, as the back
office's default) and saves full-page PNGs, 1280 pixels wide, into docs/screenshots/:

    dashboard.png     the inbox: who needs a person first
    briefing.png      a briefing a producer took over: transcript, stages, locks
    client-chat.png   the client's page on a 390-pixel-wide phone
    dead-letters.png  the open dead letters grouped by error signature
    dead-letter.png   one replayed dead letter: its attempts, errors and history
    quality.png       the parse-quality dashboard with its charts drawn
    leads.png         the lead list
    lead.png          a lead that two messages of one client made
    human-queue.png   the messages a person must read
    admin-project.png, admin-events.png, admin-dead-letters.png
                      the Django admin as a Russian superuser sees it (a briefing, the event
                      list, the dead letters)

Nothing outside the temporary folder and docs/screenshots/ is written.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SCREENSHOTS = ROOT / "docs" / "screenshots"
MANAGER = ("demo", "demo")
ADMIN = ("admin-demo", "admin-demo")
VIEWPORT = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
# As tests/e2e/conftest.py launches Debian's Chromium.
SERVER_START_S = 30.0
# True once every canvas of the page holds a Chart.js chart that has finished animating.
CHARTS_DRAWN = """() => {
    const canvases = [...document.querySelectorAll("canvas")];
    return window.Chart !== undefined && canvases.length > 0 && canvases.every(canvas => {
        const chart = Chart.getChart(canvas);
        return chart !== undefined && !Chart.animator.running(chart);
    });
}"""

# --- 1. a throwaway database -----------------------------------------------------------------


def environment_prepare(folder: Path) -> dict[str, str]:
    """Point settings at a SQLite file (and Celery's folders) inside `folder`, run tasks in
    process, and use the rules agent as the model. Returns the environment, which the web
    server is started with as well."""
    env = {
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": f"sqlite:///{folder / 'demo.sqlite3'}",
        "VAR_DIR": str(folder / "var"),
        "SECRET_KEY": "screenshots-only-not-a-secret",
        "DEBUG": "true",
        "LLM_PROVIDERS": "rules",
        "CELERY_TASK_ALWAYS_EAGER": "true",
        "LOG_LEVEL": "ERROR",  # kombu warns that filesystem:// names no host
        # The demo mail is a car dealer's: read it with the dealer's lead catalogue.
        "CRM_LEAD_TYPE": "dealer",
    }
    os.environ.update(env)
    return {**os.environ, **env}


def database_create() -> Any:
    """Set Django up, migrate, and create the manager who takes the screenshots."""
    sys.path.insert(0, str(ROOT))  # `tests.llmkit.wire_servers` is not an installed package
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    get_user_model().objects.create_superuser(ADMIN[0], password=ADMIN[1])
    username, password = MANAGER
    manager = get_user_model().objects.create_user(
        username, password=password, first_name="Dana", last_name="Morozova"
    )
    manager.groups.add(Group.objects.get(name="Managers"))
    return manager


# --- 2. demo data through the services -------------------------------------------------------

INBOUND = [
    # (channel, sender, sender name, subject, text, hours ago)
    (
        "email", "ivan.petrov@mail.ru", "Иван Петров", "Кроссовер в кредит",
        "Здравствуйте! Хочу купить кроссовер, бюджет до 2 500 000 руб. Интересует кредит. "
        "Перезвоните, пожалуйста: +7 916 123-45-67. Меня зовут Иван Петров",
        70,
    ),
    (
        "form", "", "Ольга", "",
        "Добрый вечер. Хотим купить семейный седан, бюджет 1 800 000 ₽, нужен в течение двух "
        "недель. "
        "Телефон 8 (903) 555-12-34, почта olga.smirnova@yandex.ru",
        52,
    ),
    (
        "email", "j.miller@example.com", "John Miller", "Quote for an SUV",
        "Hello, I would like a price for an SUV, budget 4 000 000 RUB, ideally within three "
        "weeks. Please call me back at +7 925 700-11-22. Regards, John Miller",
        47,
    ),
    (
        "messenger", "telegram:48211", "Сергей", "",
        "Нужна запись на ТО, замена масла и колодок. Машина на гарантии. +7 926 111-22-33",
        30,
    ),
    (
        "email", "a.kuznetsova@gmail.com", "Анна Кузнецова", "Претензия",
        "Это жалоба: после ремонта снова горит Check Engine, обещали позвонить и пропали. "
        "Требую перезвонить сегодня: +7 915 222-33-44",
        26,
    ),
    (
        "form", "", "Emma", "",
        "Do you have electric cars in stock? Budget 3 200 000 rub, we need one urgently. "
        "emma.wilson@outlook.com",
        20,
    ),
    ("messenger", "whatsapp:79035550000", "", "", "Добрый день!", 9),
    ("email", "m.orlov@yandex.ru", "Максим Орлов", "Вопрос", "Добрый день!", 5),
    (
        # From the same phone as the first message: it extends Ivan's lead.
        "messenger", "telegram:51977", "Иван", "",
        "Это снова Иван, +7 916 123-45-67. Готов приехать на тест-драйв кроссовера в субботу, "
        "можно trade-in моего седана?",
        3,
    ),
]  # fmt: skip
# Read by the scripted model: the first gets a card with a phone the client never wrote, the
# second an intent outside the schema; both stay broken after the retry.
INBOUND_BROKEN = [
    (
        "email", "p.sokolov@mail.ru", "Павел Соколов", "Хэтчбек",
        "Добрый день, рассматриваю покупку хэтчбека до 1 200 000 руб. Пишите на эту почту.",
        40,
    ),
    (
        "form", "", "Lena", "",
        "Looking to buy a minivan for a family of six, budget 3 500 000 RUB, "
        "phone +7 999 404-50-60",
        16,
    ),
]  # fmt: skip
# Read by the scripted model into the right card, but untidily: after extraction from prose,
# after repair of broken JSON, after coercion of a string budget, after one retry.
INBOUND_UNTIDY = [
    (
        "email", "d.volkov@mail.ru", "Дмитрий Волков", "Пикап",
        "Хочу купить пикап для работы, бюджет 2 900 000 руб., звоните +7 917 808-90-10",
        60,
    ),
    (
        "form", "", "Ксения", "",
        "Хочу купить хэтчбек в кредит, бюджет 1 100 000 руб. Телефон +7 901 234-56-78",
        36,
    ),
    (
        "email", "t.brown@example.org", "Tom Brown", "Sedan lease",
        "We want to lease three sedans for our sales team, budget 6 000 000 RUB in total. "
        "Call +7 495 123-45-67",
        12,
    ),
    (
        "messenger", "telegram:60321", "Артём", "",
        "Сколько стоит кроссовер в наличии? Бюджет 2 200 000 руб, +7 964 777-00-11",
        7,
    ),
]  # fmt: skip
# Briefing turns the scripted model answers in prose or with a status that is not a boolean.
BRIEFINGS_BROKEN = [
    ("Промо-ролик для кофейни", "Здравствуйте, я Мария из «Зерна», +7 916 000-11-22, нужен ролик"),
    ("Подкаст о технологиях", "Алексей, alexey@techcast.ru, хотим подкаст на 10 выпусков"),
    ("Launch video", "Hi, Sarah from Brightline, +44 20 7946 0000, a launch video"),
    ("Клип для группы", "Добрый день! Нас зовут «Полночь», нужен клип, тел. +7 925 555-66-77"),
    ("Explainer for an app", "Tom here, tom@appwise.io, we need a 60-second explainer"),
    ("Ролик к юбилею", "Добрый день, это Ирина, звоните +7 903 111-00-99, нужен фильм к юбилею"),
]
SOURCES = {"email": "sales@dealer.example", "form": "site"}
BRIEFING_EXAMPLES = ["ru_orderly.yaml", "en_orderly.yaml", "uk_orderly.yaml", "ru_takeover.yaml"]


def inbound_receive(channel: str, sender: str, name: str, subject: str, text: str, hours: int):
    """Store one message as its channel would; the eager worker reads it on commit."""
    from django.db import transaction
    from django.utils import timezone

    from crm.services import Inbound, inbound_store

    inbound = Inbound(
        channel=channel,
        source=sender.partition(":")[0] if channel == "messenger" else SOURCES[channel],
        sender=sender,
        sender_name=name,
        subject=subject,
        body_text=text,
        received_at=timezone.now() - timedelta(hours=hours),
    )
    with transaction.atomic():
        message, _ = inbound_store(inbound)
    message.refresh_from_db()
    return message


def attachments_only_mail() -> bytes:
    """A real MIME mail with a scan and a photo and no text at all."""
    mail = EmailMessage()
    mail["From"] = "Виктор Лебедев <v.lebedev@mail.ru>"
    mail["To"] = "sales@dealer.example"
    mail["Subject"] = "Документы"
    mail["Message-ID"] = "<scan-20240601@mail.ru>"
    mail.set_content("")
    mail.add_attachment(
        b"%PDF-1.4 demo", maintype="application", subtype="pdf", filename="passport.pdf"
    )
    mail.add_attachment(b"\xff\xd8\xff demo", maintype="image", subtype="jpeg", filename="car.jpg")
    return mail.as_bytes()


def briefings_seed(manager: Any) -> Any:
    """A few example briefings played through the orchestrator with the rules agent; returns
    the last (a Russian one a producer took over), whose pages the screenshots show."""
    import yaml

    from briefing.playback.simulation import simulation_run

    project = None
    for name in BRIEFING_EXAMPLES:
        script = yaml.safe_load((ROOT / "briefing" / "examples" / name).read_text("utf-8"))
        project = simulation_run(script=script, user=manager)
    return project


def inbound_seed() -> None:
    """CRM intake read by the rules agent: leads, two greetings and an attachments-only mail
    for the human queue, and a second message from a known phone."""
    from django.db import transaction
    from django.utils import timezone

    from crm.services import inbound_from_mail, inbound_store

    for row in INBOUND:
        inbound_receive(*row)
    mail = inbound_from_mail(
        attachments_only_mail(),
        source=SOURCES["email"],
        received_at=timezone.now() - timedelta(hours=1),
    )
    with transaction.atomic():
        inbound_store(mail)


@contextlib.contextmanager
def scripted_model() -> Iterator[Any]:
    """Point the provider chain at a local server speaking the OpenAI wire format (as the
    tests' `scripted_model` fixture does); the rules agent again afterwards."""
    from dlq.services import llm_chain
    from tests.llmkit.wire_servers import WireServer

    names = ("LLM_PROVIDERS", "OPENAI_BASE_URL", "OPENAI_MODEL", "LLM_BREAKER_FAILURES")
    saved = {name: os.environ.get(name) for name in names}
    with WireServer() as server:
        os.environ.update(
            LLM_PROVIDERS="openai",
            OPENAI_BASE_URL=server.url("/v1"),
            OPENAI_MODEL="scripted",
            LLM_BREAKER_FAILURES="1000",
        )
        llm_chain.cache_clear()
        try:
            yield server
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
            llm_chain.cache_clear()


def answers(server: Any, *replies: Any) -> None:
    """Script the model's next answers (the last one repeats): a string as it is, anything
    else as JSON; a number is an HTTP error status."""
    from tests.llmkit.wire_servers import JsonReply, RawReply, openai_completion

    scripted = []
    for reply in replies:
        if isinstance(reply, int):
            scripted.append(RawReply(b"<html>Bad gateway</html>", status=reply))
        else:
            text = reply if isinstance(reply, str) else json.dumps(reply, ensure_ascii=False)
            scripted.append(JsonReply(openai_completion(text, model="scripted")))
    server.route("/v1/chat/completions", *scripted)


def card_for(text: str) -> dict[str, Any]:
    """The lead card the rules agent reads from `text`: what a good model would answer."""
    from django.utils import timezone

    from crm.card import lead_read

    return lead_read(text, today=timezone.localdate(), language="ru")


def model_trouble_seed(manager: Any) -> None:
    """Briefing turns and inbound messages read by a scripted model: some answers broken for
    good (dead letters in three signature groups), some untidy but recoverable (the
    dashboard's other outcomes and a failover)."""
    from django.db import transaction

    from briefing.services import project_create, turn_receive

    with scripted_model() as server:
        for index, (title, text) in enumerate(BRIEFINGS_BROKEN):
            if index % 3 != 1:
                answers(server, "Извините, я не совсем понял. Можете уточнить?")
            else:
                answers(server, {"message": "Спасибо!", "introStatus": "почти"})
            project = project_create(title=title, language="ru", producer=manager)
            with transaction.atomic():
                turn_receive(project=project, text=text)

        hatchback, minivan = INBOUND_BROKEN
        invented = {**card_for(hatchback[4]), "phones": ["+79161112233"]}
        answers(server, invented)
        inbound_receive(*hatchback)
        answers(server, {**card_for(minivan[4]), "client_intent": "buy"})
        inbound_receive(*minivan)

        pickup, hatch, lease, crossover = INBOUND_UNTIDY
        card = card_for(pickup[4])
        answers(server, "Вот карточка:\n```json\n" + json.dumps(card, ensure_ascii=False) + "\n```")
        inbound_receive(*pickup)
        card = json.dumps(card_for(hatch[4]), ensure_ascii=False)
        answers(server, card[:-1] + ",}")
        inbound_receive(*hatch)
        card = card_for(lease[4])
        answers(
            server,
            {
                **card,
                "budget_amount": "6 000 000",
                "budget_currency": "RUB",
                "needs_call_back": "yes",
            },
        )
        inbound_receive(*lease)
        # The first answer invents a phone; the retry gets a 502 and fails over to the rules
        # agent, which reads the card right.
        card = card_for(crossover[4])
        answers(server, {**card, "phones": ["+79000000000"]}, 502)
        inbound_receive(*crossover)


def calls_spread_over_week() -> None:
    """Every call above was made in the last minute; the dashboard shows seven days. So the
    recorded calls (and their dead letters) are backdated by a queryset update, each by a
    random 0 to 6 days and up to an hour (a fixed seed: the same spread every run), so the
    charts have a week to draw. Nothing but created_at changes."""
    from django.db import transaction

    from dlq.models import DeadLetter, StructuredCall

    days = random.Random(7)
    with transaction.atomic():
        for call in StructuredCall.objects.order_by("id"):
            shift = timedelta(days=days.choice([0, 1, 1, 2, 3, 3, 4, 5, 5, 6]), hours=days.random())
            created_at = call.created_at - shift
            StructuredCall.objects.filter(pk=call.pk).update(created_at=created_at)
            DeadLetter.objects.filter(call=call).update(created_at=created_at)


def dead_letters_review(manager: Any) -> int:
    """A manager discards one briefing letter with a reason and replays an inbound one (the
    rules agent reads it now, eagerly). Returns the replayed letter's id."""
    from django.db import transaction

    from dlq.models import DeadLetter
    from dlq.services import dead_letter_discard, dead_letter_replay_request

    open_letters = DeadLetter.objects.filter(status=DeadLetter.Status.OPEN).order_by("id")
    dead_letter_discard(
        dead_letter=open_letters.filter(source_kind="briefing_turn").first(),
        user=manager,
        reason="Клиент перезвонил, бриф заполнили по телефону.",
    )
    letter = open_letters.filter(source_kind="inbound_message").first()
    with transaction.atomic():
        dead_letter_replay_request(dead_letter=letter, user=manager)
    letter.refresh_from_db()
    assert letter.status == DeadLetter.Status.REPLAYED, letter.status
    return letter.pk


def demo_data_seed(manager: Any) -> dict[str, int]:
    """Everything the pages show. Returns the ids the screenshots need."""
    from django.db.models import Count

    from crm.models import InboundMessage, Lead
    from dlq.models import DeadLetter

    briefing = briefings_seed(manager)
    inbound_seed()
    model_trouble_seed(manager)
    calls_spread_over_week()
    replayed = dead_letters_review(manager)
    # Fail loudly when the app reads the demo differently from what the screenshots show.
    groups = DeadLetter.objects.filter(status=DeadLetter.Status.OPEN).values("error_signature")
    assert groups.distinct().count() == 3, list(groups.distinct())
    human = InboundMessage.objects.filter(status=InboundMessage.Status.HUMAN).count()
    assert human == 3, f"{human} messages in the human queue, expected 3"
    lead = Lead.objects.annotate(count=Count("messages")).order_by("-count", "id").first()
    assert lead.count == 2, "the message from a known phone did not extend its lead"
    return {
        "dead_letter": replayed,
        "lead": lead.pk,
        "briefing": briefing.pk,
        "client_token": briefing.client_token,
    }


# --- 3. the server and the browser -----------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def server_running(env: dict[str, str], log: Path) -> Iterator[str]:
    """`manage.py runserver` on a free port over the same SQLite file; yields its URL. Its
    output goes to `log`, printed when something goes wrong."""
    from django.db import connections

    connections.close_all()  # the server is the only one using the file from here on
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    command = [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"]
    with log.open("wb") as output:
        server = subprocess.Popen(  # noqa: S603
            command, cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT
        )
    try:
        deadline = time.monotonic() + SERVER_START_S
        while True:
            try:
                with urllib.request.urlopen(f"{url}/login/", timeout=2):  # noqa: S310
                    break
            except (urllib.error.URLError, ConnectionError):
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("runserver did not come up") from None
                time.sleep(0.2)  # polling a server that is starting: no event to wait on
        yield url
    except BaseException:
        print(log.read_text("utf-8", errors="replace")[-5000:], file=sys.stderr)
        raise
    finally:
        server.terminate()
        server.wait(timeout=10)


def screenshots_take(url: str, ids: dict[str, int]) -> list[Path]:
    """Log in as the manager in Chromium and save each page, full height."""
    from playwright.sync_api import sync_playwright

    executable = os.environ.get("CHROMIUM") or shutil.which("chromium")
    if not executable:
        raise SystemExit("Chromium not found (apt-get install chromium, or set CHROMIUM)")
    pages = [
        ("dashboard.png", "/", None),
        ("briefing.png", f"/briefings/{ids['briefing']}/", None),
        ("dead-letters.png", "/dlq/dead-letters/", None),
        ("dead-letter.png", f"/dlq/dead-letters/{ids['dead_letter']}/", None),
        ("quality.png", "/dlq/quality/", CHARTS_DRAWN),
        ("leads.png", "/crm/leads/", None),
        ("lead.png", f"/crm/leads/{ids['lead']}/", None),
        ("human-queue.png", "/crm/human/", None),
    ]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    saved = []
    from tests.e2e.conftest import CHROMIUM_ARGS  # the browser tests' flags

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        # The back office as a Russian-speaking manager sees it (the platform's default).
        page = browser.new_context(viewport=VIEWPORT, locale="ru-RU").new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{url}/login/")
        page.fill("input[name=username]", MANAGER[0])
        page.fill("input[name=password]", MANAGER[1])
        page.click("button[type=submit]")
        page.wait_for_url(f"{url}/")
        for filename, path, ready in pages:
            response = page.goto(f"{url}{path}")
            if response is None or response.status != 200 or "/login/" in page.url:
                raise RuntimeError(f"{path} did not open: {response and response.status}")
            if ready:
                page.wait_for_function(ready)
            target = SCREENSHOTS / filename
            page.screenshot(path=str(target), full_page=True)
            saved.append(target)
        # The Django admin, as a Russian superuser sees it.
        admin = browser.new_context(viewport=VIEWPORT, locale="ru-RU").new_page()
        admin.goto(f"{url}/admin/login/")
        admin.fill("input[name=username]", ADMIN[0])
        admin.fill("input[name=password]", ADMIN[1])
        admin.click("input[type=submit]")
        admin.wait_for_url(f"{url}/admin/")
        for filename, path in (
            ("admin-project.png", f"/admin/briefing/project/{ids['briefing']}/change/"),
            ("admin-events.png", "/admin/briefing/briefingevent/"),
            ("admin-dead-letters.png", "/admin/dlq/deadletter/"),
        ):
            response = admin.goto(f"{url}{path}")
            if response is None or response.status != 200:
                raise RuntimeError(f"{path} did not open: {response and response.status}")
            target = SCREENSHOTS / filename
            admin.screenshot(path=str(target), full_page=False)
            saved.append(target)
        # The client's page as a phone shows it, no account needed.
        phone = browser.new_context(viewport=PHONE, locale="ru-RU", is_mobile=True).new_page()
        phone.on("pageerror", lambda error: errors.append(str(error)))
        response = phone.goto(f"{url}/c/{ids['client_token']}/")
        if response is None or response.status != 200:
            raise RuntimeError(f"the client's page did not open: {response and response.status}")
        target = SCREENSHOTS / "client-chat.png"
        phone.screenshot(path=str(target), full_page=True)
        saved.append(target)
        browser.close()
    if errors:
        raise RuntimeError(f"JavaScript errors on the pages: {errors}")
    return saved


# --- 4. all of it ----------------------------------------------------------------------------


def main() -> None:
    folder = Path(tempfile.mkdtemp(prefix="briefing-screenshots-"))
    try:
        env = environment_prepare(folder)
        manager = database_create()
        ids = demo_data_seed(manager)
        with server_running(env, folder / "runserver.log") as url:
            for path in screenshots_take(url, ids):
                print(path.relative_to(ROOT))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
