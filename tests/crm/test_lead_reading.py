"""Issue 29: a lead card a manager can trust. Invariants over generated mails (a quote never
gives the client's values, a refusal to be called always wins, a budget keeps its currency,
a date gone by is never urgency) and the measured figure on the held-out mails."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crm.card import lead_read
from crm.catalogue import builtin_catalogue
from crm.reading import budget_find, call_back_wanted, phones_find, urgency_days
from crm.reply import mail_parts

TODAY = datetime.date(2026, 12, 7)
STUDIO = builtin_catalogue("studio")
HOLDOUT = Path(__file__).resolve().parents[2] / "crm" / "examples" / "holdout"
QUICK = settings(
    max_examples=60, deadline=2000, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)  # fmt: skip

REQUESTS = [
    ("ru", "Добрый день! Нужен рекламный ролик для нашего кафе, 30 секунд."),
    ("uk", "Доброго дня! Потрібен рекламний ролик для нашої кав'ярні."),
    ("en", "Hi, we need a 30-second promo video for our cafe."),
]
# What the studio wrote earlier, quoted under the client's reply in each mail client's way.
ATTRIBUTIONS = [
    "03.12.2026, 14:20, Студия «Кадр» <hello@kadr.studio> пишет:",
    "On Thu, 3 Dec 2026 at 14:20, Kadr Studio <hello@kadr.studio> wrote:",
    "3 груд. 2026 р. о 14:20 Студія «Кадр» <hello@kadr.studio> написав:",
    "From: Kadr Studio <hello@kadr.studio>\nSent: Thursday, December 3, 2026 2:20 PM\n"
    "To: client@example.org\nSubject: Offer",
    "-----Original Message-----\nFrom: Kadr Studio <hello@kadr.studio>\nDate: 3 Dec 2026",
]
STUDIO_LINES = [
    "Звоните нам: +7 495 123-45-67 или пишите на info@kadr-studio.ru.",
    "Перезвоните, пожалуйста, до 10 декабря. Бюджет от 900 тыс. рублей.",
    "Please call us back on +44 20 7946 0001 by 12 December, budget $50k.",
]


# --- 1. the client's own words ------------------------------------------------------------------


@QUICK
@given(
    request=st.sampled_from(REQUESTS),
    attribution=st.sampled_from(ATTRIBUTIONS),
    quoted=st.lists(st.sampled_from(STUDIO_LINES), min_size=1, max_size=3),
    angle=st.booleans(),
)
def test_a_quote_never_gives_the_clients_contacts_call_back_budget_or_term(
    request, attribution, quoted, angle
):
    language, text = request
    body = "\n".join(f"> {line}" if angle else line for line in quoted)
    mail = f"{text}\n\nС уважением,\nОльга Семенова\n\n{attribution}\n{body}"
    alone = lead_read(f"{text}\n\nС уважением,\nОльга Семенова", today=TODAY,
                      language=language, catalogue=STUDIO)  # fmt: skip
    card = lead_read(mail, today=TODAY, language=language, catalogue=STUDIO)
    for name in ("phones", "emails", "needs_call_back", "budget_amount", "urgency_days"):
        assert card[name] == alone[name], name
    assert card["client_name"] == "Ольга Семенова"


def test_the_signature_is_told_apart_and_names_the_sender_over_an_introduction():
    parts = mail_parts(
        "Привет! Меня зовут Дима, хотим клип.\n\nЖду звонка!\n\n--\nДмитрий Орлов\n"
        "менеджер группы\n+7 903 777 00 12"
    )
    assert parts.signature.startswith("Дмитрий Орлов")
    assert "Жду звонка" in parts.new_text
    card = lead_read(parts.new_text + "\n\n--\n" + parts.signature, today=TODAY,
                     language="ru", catalogue=STUDIO)  # fmt: skip
    assert (card["client_name"], card["phones"]) == ("Дмитрий Орлов", ["+79037770012"])


def test_a_forwarded_request_keeps_its_body_but_not_its_header_lines():
    parts = mail_parts(
        "Пересылаю запрос клиента.\n\n---------- Forwarded message ---------\n"
        "From: Андрій <a@kyivfest.ua>\nDate: Mon, 7 Dec 2026\nSubject: Відео\n\n"
        "Потрібен анімаційний ролик на 60 секунд."
    )
    assert "анімаційний ролик" in parts.new_text
    assert "a@kyivfest.ua" not in parts.new_text


# --- 2. money in any currency ---------------------------------------------------------------------

CURRENCY_WORDS = {
    "RUB": ["{n} рублей", "{n} руб.", "{n} ₽"],
    "UAH": ["{n} гривень", "{n} грн"],
    "USD": ["${n}", "{n} USD", "{n} долларов"],
    "EUR": ["€{n}", "{n} евро"],
    "GBP": ["£{n}", "{n} GBP", "{n} pounds"],
}


@QUICK
@given(
    currency=st.sampled_from(sorted(CURRENCY_WORDS)),
    form=st.integers(0, 2),
    amount=st.integers(1, 900).map(lambda n: n * 1000),
    language=st.sampled_from(["ru", "uk", "en"]),
)
def test_a_budget_keeps_its_amount_and_its_currency(currency, form, amount, language):
    forms = CURRENCY_WORDS[currency]
    written = forms[form % len(forms)].format(n=f"{amount:,}".replace(",", " "))
    cue = {"ru": "Бюджет", "uk": "Бюджет", "en": "Our budget is"}[language]
    budget = budget_find(f"{cue} {written}.", language=language)
    assert budget is not None
    assert (budget.amount, budget.currency) == (amount, currency)


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        ("Бюджет — до 300к грн.", "uk", (300_000, "UAH")),
        ("We have about $8k set aside.", "en", (8_000, "USD")),
        ("Бюджет около полумиллиона.", "ru", (500_000, "RUB")),
        ("Our budget is around £6k.", "en", (6_000, "GBP")),
    ],
)
def test_slang_and_k_amounts_are_read_with_their_currency(text, language, expected):
    budget = budget_find(text, language=language)
    assert budget is not None
    assert (budget.amount, budget.currency) == expected


def test_a_price_or_a_figure_of_speech_is_no_budget():
    assert budget_find("Thanks a million, Jake", language="en") is None
    assert budget_find("Коробка стоит 900 рублей за штуку.", language="ru") is None


# --- 3. negation and politeness ------------------------------------------------------------------

REFUSALS = [
    "не звоните", "Не звоните мне, пожалуйста", "звонить не нужно", "только почта",
    "не дзвоніть", "телефонувати не треба", "лише пошта", "please don't call",
    "email only", "no calls please",
]  # fmt: skip
WISHES = [
    "перезвоните", "жду звонка", "буду благодарна за звонок", "позвоните мне",
    "зателефонуйте", "буду вдячна за дзвінок", "please call me", "give me a call",
]  # fmt: skip


@pytest.mark.parametrize("wish", WISHES)
def test_a_wish_to_be_called_is_read_in_each_language(wish):
    assert call_back_wanted(f"Нужен ролик. {wish.capitalize()}.")


@QUICK
@given(
    wishes=st.lists(st.sampled_from(WISHES), max_size=2),
    refusal=st.sampled_from(REFUSALS),
    filler=st.sampled_from(["Нужен ролик.", "We need a video.", "Потрібен ролик."]),
    refusal_first=st.booleans(),
)
def test_a_refusal_to_be_called_always_wins(wishes, refusal, filler, refusal_first):
    said = [f"{w.capitalize()}." for w in wishes]
    parts = [f"{refusal.capitalize()}.", *said] if refusal_first else [*said, f"{refusal}."]
    assert not call_back_wanted(" ".join([filler, *parts]))


# --- 4. product and intent by evidence ---------------------------------------------------------


def test_archive_photos_inside_a_film_request_are_a_detail():
    _, product = STUDIO.read(
        "Готуємо корпоративний фільм до 20-річчя компанії: інтерв'ю із засновниками, зйомки "
        "на полях, плюс хочемо використати архівні фото."
    )
    assert product == "video"


def test_a_suppliers_pitch_is_no_request_and_gives_no_term_or_call_back():
    card = lead_read(
        "I'm Priya from LensHire Pro. We rent cinema cameras and lighting kits to production "
        "studios. 25% off all bookings made before December 20! Book a call with our team.",
        today=TODAY, language="en", catalogue=STUDIO,
    )  # fmt: skip
    assert card["client_intent"] == "supplier"
    assert (card["urgency_days"], card["needs_call_back"], card["product_class"]) == (
        None, False, None,
    )  # fmt: skip


def test_spam_with_a_promotion_deadline_and_a_price_gives_no_urgency_or_budget():
    card = lead_read(
        "Продаём базы клиентов: 150 000 контактов всего за 9 900 руб. Акция до 15 декабря! "
        "Звоните: 8 800 555-35-35",
        today=TODAY, language="ru", catalogue=STUDIO,
    )  # fmt: skip
    assert card["client_intent"] == "spam"
    assert (card["budget_amount"], card["urgency_days"], card["needs_call_back"]) == (
        None, None, False,
    )  # fmt: skip


# --- 5. urgency from real future dates ---------------------------------------------------------


@QUICK
@given(days_ago=st.integers(1, 110), language=st.sampled_from(["ru", "en"]))
def test_a_date_gone_by_is_history_not_urgency(days_ago, language):
    day = TODAY - datetime.timedelta(days=days_ago)
    months = {"ru": ["января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа",
                     "сентября", "октября", "ноября", "декабря"],
              "en": ["January", "February", "March", "April", "May", "June", "July", "August",
                     "September", "October", "November", "December"]}  # fmt: skip
    written = f"{day.day} {months[language][day.month - 1]}"
    text = {"ru": f"Ролик, который вы сдали {written}, с ошибкой.",
            "en": f"The video you delivered on {written} has a typo."}[language]  # fmt: skip
    assert urgency_days(text, today=TODAY, language=language) is None


@QUICK
@given(ahead=st.integers(1, 80))
def test_a_date_ahead_counts_from_the_mails_day(ahead):
    day = TODAY + datetime.timedelta(days=ahead)
    text = f"Нужно к {day.strftime('%d.%m.%Y')}."
    assert urgency_days(text, today=TODAY, language="ru") == ahead


def test_by_friday_counts_from_the_mails_date_and_a_weekday_with_its_date_is_that_date():
    assert urgency_days("Пришлите смету к пятнице.", today=TODAY, language="ru") == 4
    tuesday = datetime.date(2026, 12, 8)
    text = "Перший випуск маємо записати до п'ятниці, 18 грудня."
    assert urgency_days(text, today=tuesday, language="uk") == 10


# --- 6. phones in local formats ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "language", "sender", "expected"),
    [
        ("Please call me on +44 7700 900412.", "en", "", "+447700900412"),
        ("Буду вдячна за дзвінок: 067 314 22 85.", "uk", "", "+380673142285"),
        ("Aoife Byrne\n087 123 4567", "en", "aoife@thelittlekettle.ie", "+353871234567"),
        ("Телефон: 095 123 45 67", "uk", "", "+380951234567"),
    ],
)
def test_a_local_number_is_read_in_the_senders_country(text, language, sender, expected):
    assert phones_find(text, language=language, sender=sender) == [expected]


# --- 7. the held-out mails ----------------------------------------------------------------------


@pytest.mark.django_db
def test_the_held_out_mails_are_scored_and_every_card_passes_its_checks():
    from crm.evaluation import folder_score, score_line

    scores = folder_score(HOLDOUT)
    assert len(scores) == 14
    assert not [s.name for s in scores if s.refused]
    # docs/crm.md records the figure; a change that loses a mail's card shows here.
    assert score_line(scores).startswith("14/14 messages fully right")
