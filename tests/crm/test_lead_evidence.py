"""The intent and the product by evidence: every candidate the catalogue's words find, with the
words it came from and why the winner won, kept with the lead and shown on its page as
"other readings"; a product mentioned as already done or not wanted is a detail, not the
product (invariants over wordings in Russian, Ukrainian and English)."""

from __future__ import annotations

import pytest
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crm.candidates import (
    ASIDE,
    EARLIER_NAMED,
    FIRST_NAMED,
    LESS_SPECIFIC,
    MOST_SPECIFIC,
    OTHERS_ASIDE,
    catalogue_reading,
)
from crm.card import lead_read
from crm.catalogue import builtin_catalogue

STUDIO = builtin_catalogue("studio")
QUICK = settings(
    max_examples=40, deadline=2000, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)  # fmt: skip

# (language, a product mentioned as done or not wanted, {aside} and {wanted} the products'
# words): the wanted one is the product, whichever the catalogue lists first.
SET_ASIDE = [
    ("en", "{aside} already done, we need {wanted}."),
    ("en", "We had the {aside} done in September, so it's purely the {wanted} we need."),
    ("en", "Management decided to do the {aside} in-house, so please quote for {wanted}."),
    ("en", "Please drop the {aside}: we'd like to go ahead with {wanted} only."),
    ("en", "We don't need {aside} any more; we need {wanted}."),
    ("ru", "{aside} уже есть, нужно {wanted}."),
    ("ru", "{aside} мы делали своими силами, от вас нужно {wanted}."),
    ("ru", "{aside} нам не нужно, хотим заказать {wanted}."),
    ("uk", "{aside} вже є, потрібно {wanted}."),
    ("uk", "{aside} зробимо власними силами, від вас потрібно {wanted}."),
    ("uk", "{aside} нам не потрібно, хочемо замовити {wanted}."),
]
WORDS = {
    "photo": {"en": "photos", "ru": "фото", "uk": "фото"},
    "video": {"en": "video", "ru": "видео", "uk": "відео"},
    "live_stream": {"en": "live stream", "ru": "трансляцию", "uk": "трансляцію"},
    "animation": {"en": "animation", "ru": "анимацию", "uk": "анімацію"},
}
PAIRS = [(a, w) for a in WORDS for w in WORDS if a != w]


@QUICK
@given(case=st.sampled_from(SET_ASIDE), pair=st.sampled_from(PAIRS))
def test_a_product_mentioned_as_done_or_not_wanted_is_a_detail(case, pair):
    language, template = case
    aside, wanted = pair
    text = template.format(aside=WORDS[aside][language], wanted=WORDS[wanted][language])
    text = text[0].upper() + text[1:]
    reading = catalogue_reading(STUDIO, text)
    assert reading.product.code == wanted
    assert reading.product.why == OTHERS_ASIDE
    (other,) = reading.product.others
    assert other.code == aside
    assert other.why == ASIDE
    assert WORDS[aside][language].split()[-1] in other.snippet.lower()


def test_the_most_specific_product_wins_and_the_other_is_kept_with_its_words():
    reading = catalogue_reading(STUDIO, "Хотим заказать съёмку конференции и короткий ролик.")
    assert reading.product.code == "event_filming"
    assert reading.product.why == MOST_SPECIFIC
    assert reading.product.winner.mentions[0].words == "конференции"
    (video,) = [c for c in reading.product.others if c.code == "video"]
    assert video.why == LESS_SPECIFIC
    assert [m.words for m in video.mentions] == ["съёмку", "ролик"]


def test_every_intent_named_is_a_candidate_and_the_first_in_order_wins():
    reading = catalogue_reading(STUDIO, "Хотим заказать ролик. Сколько стоит такой ролик?")
    assert reading.intent.code == "quote_request"
    assert reading.intent.why == FIRST_NAMED
    (project,) = reading.intent.others
    assert (project.code, project.why) == ("new_project", EARLIER_NAMED)
    assert project.snippet == "Хотим заказать ролик."


def test_the_rules_agent_reads_the_wanted_product_of_a_reply():
    text = (
        "Hi Andriy,\n\nthanks for the proposal. Management has decided to do the product photos "
        "in-house after all, so could you please send a revised quote for the video part only? "
        "Our budget for that is EUR 7.5k.\n\nBest regards,\nJonas"
    )
    card = lead_read(text, today=__import__("datetime").date(2026, 12, 1), language="en")
    assert card["product_class"] == "video"


MAIL = (
    "Hello,\n\nWe'd like a short series of recruitment videos for next year's intake. We had "
    "new headshots and office photography done in September, so it's purely the video we "
    "need. Could you send us a quote?\n\nHarriet Cole"
)


@pytest.mark.django_db
def test_the_lead_keeps_each_candidate_with_its_words_and_why(receive):
    lead = receive(MAIL, sender="h.cole@firm.example.co.uk").lead
    assert lead.product_class == "video"
    product = lead.evidence["product_class"]
    assert product["why"] == OTHERS_ASIDE
    assert product["words"] == "videos"
    assert "recruitment videos" in product["evidence"]
    assert product["others"] == [
        {
            "code": "photo",
            "evidence": "We had new headshots and office photography done in September, so "
            "it's purely the video we need.",
            "words": "headshots",
            "why": ASIDE,
        }
    ]
    intent = lead.evidence["client_intent"]
    assert intent["why"] == FIRST_NAMED
    assert [o["code"] for o in intent["others"]] == ["new_project"]


@pytest.mark.django_db
def test_a_later_thanks_keeps_the_evidence_of_the_intent_and_product(receive):
    first = receive(MAIL, sender="h.cole@firm.example.co.uk")
    receive("Thank you!", sender="h.cole@firm.example.co.uk")
    first.lead.refresh_from_db()
    assert first.lead.evidence["client_intent"]["message"] == first.pk
    assert first.lead.evidence["product_class"]["message"] == first.pk


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "heading", "aside", "label"),
    [
        ("ru", "Другие прочтения", "упомянуто как уже сделанное или ненужное", "Фотосъёмка"),
        ("uk", "Інші прочитання", "згадано як уже зроблене або непотрібне", "Фотозйомка"),
        ("en", "Other readings", "mentioned as already done or not wanted", "Photo shoot"),
    ],
)
def test_the_lead_page_lists_the_other_readings_in_the_managers_language(
    manager_client, receive, language, heading, aside, label
):
    lead = receive(MAIL, sender="h.cole@firm.example.co.uk").lead
    html = manager_client.get(
        reverse("crm:lead_detail", args=[lead.pk]), HTTP_ACCEPT_LANGUAGE=language
    ).content.decode()
    product = html[html.index('id="field-product_class"') : html.index('id="field-budget_amount"')]
    assert heading in product
    assert label in product
    assert aside in product
    assert "office photography done in September" in product
