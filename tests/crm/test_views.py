"""The managers' pages of CRM intake: the lead list with its filters and call-back queue, one
lead with the evidence of each value, the human queue and "create lead by hand", one message
whole, starting a briefing, escaping of client text, and who may see any of it."""

from __future__ import annotations

import datetime
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from briefing.models import Project
from crm.mail import raw_content_hash
from crm.models import InboundMessage, Lead
from crm.services import inbound_mail_set_aside, inbound_store
from dlq.models import DeadLetter

pytestmark = pytest.mark.django_db

Status = InboundMessage.Status
HTMX = {"HTTP_HX_REQUEST": "true"}
NOW = timezone.now().replace(microsecond=0)
# The studio's vocabulary (CRM_LEAD_TYPE's default); until the lead catalogue these were
# the dealer's (purchase, service, info; a crossover, a sedan).
PURCHASE = (
    "Здравствуйте! Нужен рекламный ролик для нашей кофейни, бюджет 3 млн рублей, нужен в "
    "течение двух недель. Перезвоните, пожалуйста: +7 916 123-45-67. Меня зовут Иван"
)
GREETING = "Добрый день!"


# --- fixtures and helpers --------------------------------------------------------------------


def hours_ago(hours: float) -> datetime.datetime:
    return NOW - datetime.timedelta(hours=hours)


def make_lead(name: str, **fields) -> Lead:
    fields = {
        "client_name": name,
        "channel": InboundMessage.Channel.FORM,
        "client_intent": "new_project",
        "last_message_at": NOW,
        **fields,
    }
    return Lead.objects.create(**fields)


def listed(client, **params) -> list[int]:
    """The leads the list shows, in the order it shows them."""
    response = client.get(reverse("crm:leads"), params)
    assert response.status_code == 200
    return [int(pk) for pk in re.findall(r'data-lead="(\d+)"', response.content.decode())]


def is_fragment(response) -> bool:
    return b"<html" not in response.content and b"<main>" not in response.content


# --- who may see the pages -------------------------------------------------------------------


@pytest.fixture
def lead_and_message(receive):
    lead = make_lead("Иван", needs_call_back=True)
    message = receive(GREETING, sender="anna@example.ru")
    assert message.status == Status.HUMAN
    return lead, message


PAGES = [
    ("get", "crm:leads", None),
    ("get", "crm:lead_detail", "lead"),
    ("post", "crm:lead_start_briefing", "lead"),
    ("get", "crm:human_queue", None),
    ("get", "crm:message_detail", "message"),
    ("get", "crm:message_raw", "message"),
    ("post", "crm:message_create_lead", "message"),
]


def _url(name: str, arg: str | None, lead: Lead, message: InboundMessage) -> str:
    args = {"lead": [lead.pk], "message": [message.pk], None: []}[arg]
    return reverse(name, args=args)


@pytest.mark.parametrize(("method", "name", "arg"), PAGES)
def test_producers_are_refused_every_crm_page(
    client, producer, lead_and_message, method, name, arg
):
    lead, message = lead_and_message
    client.force_login(producer)
    data = {"client_intent": "info", "summary": "x"} if method == "post" else {}
    response = getattr(client, method)(_url(name, arg, lead, message), data)
    assert response.status_code == 403
    message.refresh_from_db()
    assert message.status == Status.HUMAN
    assert not Project.objects.exists()


@pytest.mark.parametrize(("method", "name", "arg"), PAGES)
def test_anonymous_users_are_sent_to_log_in(client, lead_and_message, method, name, arg):
    url = _url(name, arg, *lead_and_message)
    response = getattr(client, method)(url)
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('login')}?next={url}"


def test_managers_see_the_leads_link_and_producers_do_not(client, manager, producer):
    link = f'href="{reverse("crm:leads")}"'
    client.force_login(manager)
    assert link in client.get(reverse("dashboard")).content.decode()
    client.force_login(producer)
    assert link not in client.get(reverse("dashboard")).content.decode()


# --- the lead list -------------------------------------------------------------------------------


@pytest.fixture
def five_leads():
    """Known leads, newest first: e, a, b, c, d."""
    return {
        "e": make_lead("e", urgency_days=30, needs_call_back=True, last_message_at=hours_ago(0.5)),
        "a": make_lead("a", urgency_days=3, needs_call_back=True, last_message_at=hours_ago(1)),
        "b": make_lead(
            "b",
            client_intent="quote_request",
            product_class="photo",
            urgency_days=10,
            channel="email",
            status=Lead.Status.IN_PROGRESS,
            last_message_at=hours_ago(2),
        ),
        "c": make_lead(
            "c",
            client_intent="complaint",
            needs_call_back=True,
            channel="messenger",
            status=Lead.Status.CLOSED,
            last_message_at=hours_ago(3),
        ),
        "d": make_lead(
            "d",
            client_intent="question",
            urgency_days=1,
            channel="email",
            status=Lead.Status.BRIEFING,
            last_message_at=hours_ago(4),
        ),
    }


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({}, "eabcd"),
        ({"intent": "new_project"}, "ea"),
        ({"intent": "complaint"}, "c"),
        ({"urgency": "3"}, "ad"),
        ({"urgency": "10"}, "abd"),
        ({"call_back": "yes"}, "eac"),
        ({"call_back": "no"}, "bd"),
        ({"channel": "email"}, "bd"),
        ({"channel": "messenger"}, "c"),
        ({"status": "closed"}, "c"),
        ({"status": "new"}, "ea"),
        ({"intent": "new_project", "urgency": "7"}, "a"),
        ({"product": "photo"}, "b"),
        ({"product": "sedan"}, "eabcd"),  # not one of the studio's products: ignored
        ({"intent": "nonsense", "urgency": "soon"}, "eabcd"),  # unknown values are ignored
    ],
)
def test_the_lead_list_filters_newest_first(manager_client, five_leads, params, expected):
    assert listed(manager_client, **params) == [five_leads[key].pk for key in expected]


def test_the_call_back_queue_is_sorted_by_urgency_then_newest(manager_client):
    soon_new = make_lead(
        "soon new", needs_call_back=True, urgency_days=3, last_message_at=hours_ago(1)
    )
    soon_old = make_lead(
        "soon old", needs_call_back=True, urgency_days=3, last_message_at=hours_ago(5)
    )
    later = make_lead(
        "later", needs_call_back=True, urgency_days=30, last_message_at=hours_ago(0.5)
    )
    no_term = make_lead("no term", needs_call_back=True, last_message_at=hours_ago(0.1))
    make_lead("closed", needs_call_back=True, urgency_days=1, status=Lead.Status.CLOSED)
    make_lead("no call", needs_call_back=False, urgency_days=1)
    assert listed(manager_client, queue="call_back") == [
        soon_new.pk, soon_old.pk, later.pk, no_term.pk,
    ]  # fmt: skip
    # Filters still apply inside the queue.
    assert listed(manager_client, queue="call_back", urgency="5") == [soon_new.pk, soon_old.pk]


def test_the_lead_list_page_and_its_htmx_table(manager_client, five_leads, receive):
    receive(GREETING, sender="one@example.ru")
    receive("Здравствуйте", sender="two@example.ru")
    page = manager_client.get(reverse("crm:leads"))
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="lead-table"' in html
    assert 'hx-get="/crm/leads/"' in html
    assert 'hx-push-url="true"' in html
    assert f'href="{reverse("crm:human_queue")}" id="human-queue-link">Human queue (2)' in html

    fragment = manager_client.get(reverse("crm:leads"), {"intent": "new_project"}, **HTMX)
    assert fragment.status_code == 200
    assert is_fragment(fragment)
    assert fragment.content.decode().count('class="lead-row"') == 2


def test_the_lead_list_pages_by_fifty(manager_client):
    Lead.objects.bulk_create(
        Lead(client_name=f"lead {i}", channel="form", client_intent="question",
             last_message_at=hours_ago(i))
        for i in range(51)
    )  # fmt: skip
    first, second = listed(manager_client), listed(manager_client, page="2")
    assert len(first) == 50
    assert second == [Lead.objects.get(client_name="lead 50").pk]


# --- one lead ------------------------------------------------------------------------------


def test_the_lead_page_shows_each_value_with_its_evidence_and_every_message(
    manager_client, receive
):
    first = receive(PURCHASE, received_at=hours_ago(2))
    second = receive("Ещё вопрос: можно ли в кредит? +7 916 123-45-67", received_at=hours_ago(1))
    assert second.lead_id == first.lead_id
    InboundMessage.objects.filter(pk=second.pk).update(
        model_input_note="the message is 9000 characters; the last 1000 were cut for the model"
    )
    response = manager_client.get(reverse("crm:lead_detail", args=[first.lead_id]))
    assert response.status_code == 200
    html = response.content.decode()
    budget = html[html.index('id="field-budget_amount"') : html.index('id="field-urgency_days"')]
    assert "3000000" in budget
    assert "<mark>3 млн рублей</mark>" in budget
    assert f'href="{reverse("crm:message_detail", args=[first.pk])}"' in budget
    assert "by rules" in budget
    phones = html[html.index('id="field-phones"') : html.index('id="field-emails"')]
    assert "<mark>+7 916 123-45-67</mark>" in phones
    assert "+79161234567" in phones
    # Both messages, oldest first, with what was read from each.
    assert html.index(f'id="message-{first.pk}"') < html.index(f'id="message-{second.pk}"')
    assert "Меня зовут Иван</pre>" in html
    assert "the last 1000 were cut for the model" in html
    assert "<dt>budget</dt><dd>3000000</dd>" in html
    assert "Start a briefing" in html


def test_the_lead_page_fragment_is_its_briefing_part(manager_client):
    lead = make_lead("Иван")
    response = manager_client.get(reverse("crm:lead_detail", args=[lead.pk]), **HTMX)
    assert response.status_code == 200
    assert is_fragment(response)
    assert 'id="lead-briefing"' in response.content.decode()
    assert reverse("crm:lead_start_briefing", args=[lead.pk]) in response.content.decode()


def test_a_long_body_is_folded(manager_client, receive):
    body = "Хочу заказать клип, перезвоните +7 916 123-45-67. " + "Подробности. " * 200
    message = receive(body)
    html = manager_client.get(reverse("crm:lead_detail", args=[message.lead_id])).content.decode()
    folded = html[html.index('<details class="message-body">') : html.index("</details>")]
    assert "Подробности. Подробности." in folded
    assert folded.count("<pre") == 1


# --- starting a briefing -------------------------------------------------------------------


def test_starting_a_briefing_twice_gives_one_project_with_the_clients_details(
    manager_client, receive
):
    message = receive(
        "Hello, we need a product video for our shop. Please call me back at +7 903 111 22 33. "
        "My name is John",
        sender="john@example.com",
    )
    lead = message.lead
    assert lead.language == "en"
    url = reverse("crm:lead_start_briefing", args=[lead.pk])
    first = manager_client.post(url)
    second = manager_client.post(url, **HTMX)
    project = Project.objects.get()
    project_url = reverse("project_detail", args=[project.pk])
    assert (first.status_code, first["Location"]) == (302, project_url)
    assert (second.status_code, second["HX-Redirect"]) == (200, project_url)
    assert (project.client_name, project.client_contact, project.language) == (
        "John",
        "+79031112233",
        "en",
    )
    lead.refresh_from_db()
    assert (lead.project_id, lead.status) == (project.pk, Lead.Status.BRIEFING)
    html = manager_client.get(reverse("crm:lead_detail", args=[lead.pk])).content.decode()
    assert f'href="{project_url}"' in html
    assert "Start a briefing" not in html
    assert manager_client.get(project_url).status_code == 200


def test_starting_a_briefing_needs_post(manager_client):
    lead = make_lead("Иван")
    response = manager_client.get(reverse("crm:lead_start_briefing", args=[lead.pk]))
    assert response.status_code == 405
    assert not Project.objects.exists()


# --- the human queue -----------------------------------------------------------------------


def test_the_human_queue_lists_waiting_messages_oldest_first_with_a_prefilled_form(
    manager_client, receive
):
    newer = receive(
        GREETING, sender="anna@example.ru", sender_name="Анна", received_at=hours_ago(1)
    )
    older = receive(
        "", subject="Прайс", received_at=hours_ago(3),
        attachments=[{"filename": "price.pdf", "content_type": "application/pdf", "size": 2048}],
    )  # fmt: skip
    receive(PURCHASE)  # read into a lead: not in the queue
    response = manager_client.get(reverse("crm:human_queue"))
    assert response.status_code == 200
    html = response.content.decode()
    assert html.count('class="card queue-item"') == 2
    assert html.index(f'id="human-message-{older.pk}"') < html.index(
        f'id="human-message-{newer.pk}"'
    )
    assert "attachments only (price.pdf)" in html
    assert "nothing to act on" in html
    assert "Анна &lt;anna@example.ru&gt;" in html
    # The form starts from what was read: the greeting's intent and summary, the sender's name.
    form = html[html.index(f'id="lead-form-{newer.pk}"') :]
    form = form[: form.index("</form>")]
    assert f'action="{reverse("crm:message_create_lead", args=[newer.pk])}"' in form
    assert 'value="question" selected' in form
    assert f'name="summary" value="{GREETING}"' in form
    assert 'name="client_name" value="Анна"' in form
    assert "Create lead by hand" in form

    fragment = manager_client.get(reverse("crm:human_queue"), **HTMX)
    assert fragment.status_code == 200
    assert is_fragment(fragment)
    assert fragment.content.decode().count('class="card queue-item"') == 2


CARD = {
    "client_intent": "new_project",
    "client_name": "Анна",
    "product_class": "video",
    "budget_amount": "1 500 000",
    "budget_currency": "RUB",
    "urgency_days": "7",
    "needs_call_back": "on",
    "phones": "8 916 111-22-33,\n+7 903 111 22 33",
    "emails": "",
    "summary": "Wants a promo video within a week",
}


def test_creating_a_lead_by_hand_reads_the_form_into_a_lead(manager_client, manager, receive):
    message = receive(GREETING, sender="anna@example.ru")
    response = manager_client.post(reverse("crm:message_create_lead", args=[message.pk]), CARD)
    lead = Lead.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("crm:lead_detail", args=[lead.pk])
    assert (lead.client_intent, lead.client_name, lead.product_class) == (
        "new_project",
        "Анна",
        "video",
    )
    assert (lead.budget_amount, lead.urgency_days, lead.needs_call_back) == (1_500_000, 7, True)
    assert lead.phones == ["+79161112233", "+79031112233"]
    assert lead.emails == ["anna@example.ru"]  # the sender's address
    assert lead.created_by == manager
    message.refresh_from_db()
    assert (message.status, message.lead_id) == (Status.LEAD, lead.pk)
    html = manager_client.get(response["Location"]).content.decode()
    assert "by manager boss" in html


def test_creating_a_lead_by_hand_with_htmx_replaces_the_queue_item(manager_client, receive):
    message = receive(GREETING)
    data = {"client_intent": "question", "client_name": "", "summary": "", "needs_call_back": "on"}
    response = manager_client.post(
        reverse("crm:message_create_lead", args=[message.pk]), data, **HTMX
    )
    lead = Lead.objects.get()
    assert response.status_code == 200
    assert response["HX-Retarget"] == f"#human-message-{message.pk}"
    assert response["HX-Reswap"] == "outerHTML"
    assert is_fragment(response)
    html = response.content.decode()
    assert f'id="human-message-{message.pk}"' in html
    assert f"Lead #{lead.pk} created" in html
    assert (lead.client_name, lead.needs_call_back) == ("", True)


@pytest.mark.parametrize("htmx", [False, True])
def test_an_invalid_card_comes_back_with_errors_at_their_fields(manager_client, receive, htmx):
    message = receive(GREETING)
    data = {**CARD, "phones": "+7 916 111-22-33\n12345", "budget_amount": "a lot"}
    response = manager_client.post(
        reverse("crm:message_create_lead", args=[message.pk]), data, **(HTMX if htmx else {})
    )
    assert response.status_code == 400
    assert is_fragment(response) is htmx
    html = response.content.decode()
    phones = html[
        html.index(f'id="f-{message.pk}-phones"') : html.index(f'id="f-{message.pk}-emails"')
    ]
    assert "12345: not a phone number" in phones
    budget = html[
        html.index(f'id="f-{message.pk}-budget_amount"') : html.index(
            f'id="f-{message.pk}-urgency_days"'
        )
    ]
    assert '<span class="error" role="alert">' in budget
    assert 'value="a lot"' in budget  # what was typed stays
    assert not Lead.objects.exists()
    message.refresh_from_db()
    assert message.status == Status.HUMAN


def test_a_message_is_read_by_hand_once(manager_client, receive):
    message = receive(GREETING)
    url = reverse("crm:message_create_lead", args=[message.pk])
    assert manager_client.post(url, CARD).status_code == 302
    again = manager_client.post(url, {**CARD, "client_name": "Someone else"}, **HTMX)
    assert again.status_code == 400
    assert "only a message in the human queue can be read by hand" in again.content.decode()
    assert Lead.objects.get().client_name == "Анна"


# --- one message ---------------------------------------------------------------------------


def test_the_message_page_shows_it_whole_with_its_dead_letters(manager_client, receive):
    message = receive(
        "", channel="email", sender="ops@example.ru", subject="Скан", external_id="<m1@example.ru>",
        charset_notes=["body: declared koi8-r, decoded as cp1251"],
        attachments=[{"filename": "scan.pdf", "content_type": "application/pdf", "size": 2048}],
    )  # fmt: skip
    mine = DeadLetter.objects.create(
        source_kind="inbound_message", source_id=str(message.pk), schema_name="LeadCard",
        error_signature="budget_rub: int_parsing", errors=[],
    )  # fmt: skip
    other = DeadLetter.objects.create(
        source_kind="inbound_message", source_id=str(message.pk + 100), schema_name="LeadCard",
        error_signature="phones.0: not_in_source", errors=[],
    )  # fmt: skip
    response = manager_client.get(reverse("crm:message_detail", args=[message.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "scan.pdf" in html
    assert "2.0\xa0KB" in html
    assert "declared koi8-r, decoded as cp1251" in html
    assert "attachments only (scan.pdf)" in html
    assert "&lt;m1@example.ru&gt;" in html
    assert f'href="{reverse("dlq:dead_letter_detail", args=[mine.pk])}"' in html
    assert f'href="{reverse("dlq:dead_letter_detail", args=[other.pk])}"' not in html
    # Waiting for a person: the same create-lead form as in the queue.
    assert f'id="lead-form-{message.pk}"' in html

    fragment = manager_client.get(reverse("crm:message_detail", args=[message.pk]), **HTMX)
    assert fragment.status_code == 200
    assert is_fragment(fragment)
    assert 'id="message-outcome"' in fragment.content.decode()


def test_a_message_read_into_a_lead_links_it_and_has_no_form(manager_client, receive):
    message = receive(PURCHASE)
    html = manager_client.get(reverse("crm:message_detail", args=[message.pk])).content.decode()
    assert f'href="{reverse("crm:lead_detail", args=[message.lead_id])}"' in html
    assert "<dt>within, days</dt><dd>14</dd>" in html
    assert "lead-form-" not in html


# --- client text is text -------------------------------------------------------------------


def test_hostile_html_in_a_message_is_shown_as_text_on_every_page(manager_client, receive):
    hostile = "<script>alert('x')</script><img src=x onerror=alert(1)>"
    queued = receive(hostile, subject="<b>hi</b>", sender_name="<i>Eve</i>")
    lead_message = receive(
        f"Хочу заказать ролик, перезвоните +7 916 123-45-67. {hostile}", sender_name="<i>Eve</i>"
    )
    pages = [
        reverse("crm:leads"),
        reverse("crm:lead_detail", args=[lead_message.lead_id]),
        reverse("crm:human_queue"),
        reverse("crm:message_detail", args=[queued.pk]),
        reverse("crm:message_detail", args=[lead_message.pk]),
    ]
    for url in pages:
        html = manager_client.get(url).content.decode()
        assert "<script>alert" not in html, url
        assert "<img src=x" not in html, url
        assert "<i>Eve</i>" not in html, url
        assert "&lt;i&gt;Eve&lt;/i&gt;" in html, url
    body_pages = pages[1:]
    for url in body_pages:
        assert (
            "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;"
            in manager_client.get(url).content.decode()
        ), url


@pytest.mark.parametrize("field", ["client_name", "product_class", "summary", "phones"])
def test_a_nul_typed_into_the_card_is_an_error_at_its_field(manager_client, receive, field):
    message = receive(GREETING)
    data = {**CARD, field: "Ан\x00на"}
    response = manager_client.post(reverse("crm:message_create_lead", args=[message.pk]), data)
    assert response.status_code == 400
    html = response.content.decode()
    assert "must not contain NUL characters" in html
    assert not Lead.objects.exists()
    message.refresh_from_db()
    assert message.status == Status.HUMAN


def test_a_mail_set_aside_unread_can_be_downloaded_whole(manager_client, receive):
    raw = b"From: anna@example.ru\r\nSubject: huge\r\n\r\n" + b"x" * 1000
    inbound = inbound_mail_set_aside(raw, source="imap:INBOX", received_at=NOW, reason="over")
    message, _ = inbound_store(inbound)
    assert message.content_hash == raw_content_hash(raw)

    response = manager_client.get(reverse("crm:message_raw", args=[message.pk]))

    assert (response.status_code, response["Content-Type"]) == (200, "message/rfc822")
    assert response["Content-Disposition"] == f'attachment; filename="message-{message.pk}.eml"'
    assert response.content == raw
    form_message = receive(GREETING)  # a form's message has no raw form
    assert manager_client.get(reverse("crm:message_raw", args=[form_message.pk])).status_code == 404


def test_the_lead_page_says_which_country_a_phone_was_read_as(manager_client, receive):
    """A local number is read in the sender's country; the manager sees which one, in the
    page's language (issue 29, item 6)."""
    message = receive("Добрий день! Потрібне відео, дзвоніть 067 314 22 85. Оксана")
    lead = message.lead
    assert lead.phones == ["+380673142285"]
    page = manager_client.get(
        reverse("crm:lead_detail", args=[lead.pk]), HTTP_ACCEPT_LANGUAGE="ru"
    ).content.decode()
    assert "Украина" in page
    english = manager_client.get(
        reverse("crm:lead_detail", args=[lead.pk]), HTTP_ACCEPT_LANGUAGE="en"
    ).content.decode()
    assert "read as a number of: Ukraine" in english
