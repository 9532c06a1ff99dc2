"""The human queue's "Create lead by hand" form puts the sender's address in the field it fits
and accepts its own prefilled values: a messenger id was put in the e-mail field, which the
same form then refused."""

from __future__ import annotations

import html as html_lib
import re

import pytest
from django.urls import reverse

from crm.models import InboundMessage, Lead

pytestmark = pytest.mark.django_db

GREETING = "Добрый день!"


def prefilled(client, message) -> dict[str, str]:
    """The values the queue's form for `message` shows, as the browser would post them."""
    page = client.get(reverse("crm:human_queue")).content.decode()
    form = page[page.index(f'id="lead-form-{message.pk}"') :]
    form = form[: form.index("</form>")]
    values = {
        name: html_lib.unescape(value)
        for name, value in re.findall(r'name="(\w+)" value="([^"]*)"', form)
    }
    for name, value in re.findall(r'name="(\w+)" rows="\d+">([^<]*)</textarea>', form):
        values[name] = html_lib.unescape(value)
    selected = re.search(r'name="client_intent">.*?value="(\w+)" selected', form, re.S)
    values["client_intent"] = selected.group(1)
    values.pop("csrfmiddlewaretoken", None)
    return values


@pytest.mark.parametrize(
    ("sender", "phones", "emails"),
    [
        ("telegram:77001", "", ""),
        ("whatsapp:+7 916 123-45-67", "+79161234567", ""),
        ("anna@example.ru", "", "anna@example.ru"),
    ],
)
def test_the_sender_lands_in_the_field_it_fits_and_the_form_takes_it(
    manager_client, receive, sender, phones, emails
):
    message = receive(GREETING, channel=InboundMessage.Channel.MESSENGER, sender=sender)
    values = prefilled(manager_client, message)
    assert values["phones"] == phones
    assert values["emails"] == emails
    response = manager_client.post(reverse("crm:message_create_lead", args=[message.pk]), values)
    assert response.status_code == 302, response.content.decode()[:2000]
    lead = Lead.objects.get()
    assert lead.phones == ([phones] if phones else [])
    assert lead.emails == ([emails] if emails else [])
