"""Terms counted from the mail's own date: a weekday ("к пятнице", "до наступного вівторка",
"by next Friday"), a term set before another date ("a week before the release on 12
February", "за тиждень до релізу") and the client's own absence, which is no term. Invariants
over every weekday a mail can be written on, in Russian, Ukrainian and English."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crm.reading import urgency_days
from crm.selectors import lead_deadline

QUICK = settings(
    max_examples=60, deadline=2000, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)  # fmt: skip
MAIL_DAYS = st.dates(datetime.date(2026, 1, 1), datetime.date(2028, 12, 31))

# Each weekday, Monday first, as "к …", "до следующего …" want it in each language.
BY_WEEKDAY = {
    "ru": ["к понедельнику", "ко вторнику", "к среде", "к четвергу", "к пятнице", "к субботе",
           "к воскресенью"],
    "uk": ["до понеділка", "до вівторка", "до середи", "до четверга", "до п'ятниці",
           "до суботи", "до неділі"],
    "en": ["by Monday", "by Tuesday", "by Wednesday", "by Thursday", "by Friday",
           "by Saturday", "by Sunday"],
}  # fmt: skip
BY_NEXT_WEEKDAY = {
    "ru": ["до следующего понедельника", "до следующего вторника", "до следующей среды",
           "до следующего четверга", "до следующей пятницы", "до следующей субботы",
           "до следующего воскресенья"],
    "uk": ["до наступного понеділка", "до наступного вівторка", "до наступної середи",
           "до наступного четверга", "до наступної п'ятниці", "до наступної суботи",
           "до наступної неділі"],
    "en": ["by next Monday", "by next Tuesday", "by next Wednesday", "by next Thursday",
           "by next Friday", "by next Saturday", "by next Sunday"],
}  # fmt: skip
ASK = {
    "ru": "Пришлите, пожалуйста, коммерческое предложение {term}.",
    "uk": "Надішліть, будь ласка, комерційну пропозицію {term}.",
    "en": "Could you send us a proposal {term}?",
}
MONTHS = {
    "ru": ["января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа",
           "сентября", "октября", "ноября", "декабря"],
    "uk": ["січня", "лютого", "березня", "квітня", "травня", "червня", "липня", "серпня",
           "вересня", "жовтня", "листопада", "грудня"],
    "en": ["January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December"],
}  # fmt: skip
# (language, text with {date}, days before that date)
BEFORE_A_DATE = [
    ("en", "We need the trailer a week before the release on {date}.", 7),
    ("en", "The launch is on {date} and the video must be out two weeks before the launch.", 14),
    ("ru", "Открытие {date}, ролик нужен за неделю до открытия.", 7),
    ("ru", "Нужно сдать за три дня до премьеры {date}.", 3),
    ("uk", "Реліз гри {date}, трейлер має вийти за тиждень до релізу.", 7),
    ("uk", "Відкриття {date}, ролик потрібен за два тижні до відкриття.", 14),
]
# (language, the client's absence with {date} or a weekday)
ABSENCES = [
    ("en", "I'm travelling until {date} and can't take calls."),
    ("en", "I'm out of the office until {date}."),
    ("en", "Please note I'm on holiday until {date}."),
    ("ru", "Я в отпуске до {date}, отвечу позже."),
    ("ru", "Меня не будет на месте до {date}."),
    ("ru", "Я в командировке до {date}."),
    ("uk", "Мене не буде до {date}, напишу після повернення."),
    ("uk", "Я у відпустці до {date}."),
]


def _written(day: datetime.date, language: str) -> str:
    return f"{day.day} {MONTHS[language][day.month - 1]}"


def _monday(day: datetime.date) -> datetime.date:
    return day - datetime.timedelta(days=day.weekday())


@QUICK
@given(today=MAIL_DAYS, weekday=st.integers(0, 6), language=st.sampled_from(["ru", "uk", "en"]))
def test_a_weekday_term_is_the_first_such_day_after_the_mails_date(today, weekday, language):
    text = ASK[language].format(term=BY_WEEKDAY[language][weekday])
    days = urgency_days(text, today=today, language=language)
    assert days is not None
    assert 1 <= days <= 7
    assert (today + datetime.timedelta(days=days)).weekday() == weekday


@QUICK
@given(today=MAIL_DAYS, weekday=st.integers(0, 6), language=st.sampled_from(["ru", "uk", "en"]))
def test_a_next_weekday_term_is_that_day_of_the_next_calendar_week(today, weekday, language):
    text = ASK[language].format(term=BY_NEXT_WEEKDAY[language][weekday])
    days = urgency_days(text, today=today, language=language)
    assert days is not None
    due = today + datetime.timedelta(days=days)
    assert due.weekday() == weekday
    assert _monday(due) == _monday(today) + datetime.timedelta(days=7)


@QUICK
@given(today=MAIL_DAYS, ahead=st.integers(20, 85), case=st.sampled_from(BEFORE_A_DATE))
def test_a_term_set_before_a_date_is_that_much_earlier(today, ahead, case):
    language, template, before = case
    event = today + datetime.timedelta(days=ahead)
    text = template.format(date=_written(event, language))
    assert urgency_days(text, today=today, language=language) == ahead - before


@QUICK
@given(today=MAIL_DAYS, ahead=st.integers(3, 60), case=st.sampled_from(ABSENCES))
def test_the_clients_own_absence_is_no_term(today, ahead, case):
    language, template = case
    back = _written(today + datetime.timedelta(days=ahead), language)
    assert urgency_days(template.format(date=back), today=today, language=language) is None


@QUICK
@given(today=MAIL_DAYS, ahead=st.integers(3, 40), case=st.sampled_from(ABSENCES))
def test_a_term_beside_an_absence_still_counts(today, ahead, case):
    language, template = case
    back = _written(today + datetime.timedelta(days=ahead), language)
    due = _written(today + datetime.timedelta(days=ahead + 5), language)
    term = {"ru": "Ролик нужен к {date}.", "uk": "Ролик потрібен до {date}.",
            "en": "We need the video by {date}."}[language]  # fmt: skip
    text = f"{template.format(date=back)} {term.format(date=due)}"
    assert urgency_days(text, today=today, language=language) == ahead + 5


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "Please keep everything on email - I'm travelling until mid-December."),
        ("ru", "Я в отпуске до 20-го, пишите на почту."),
        ("uk", "Мене не буде до понеділка, пишіть на пошту."),
        ("ru", "Меня не будет до пятницы."),
    ],
)
def test_an_absence_said_without_a_date_of_the_calendar_is_no_term(language, text):
    assert urgency_days(text, today=datetime.date(2026, 12, 2), language=language) is None


@pytest.mark.django_db
def test_the_lead_keeps_the_words_of_a_term_set_before_a_date_and_its_day(receive):
    received = timezone.make_aware(datetime.datetime(2026, 11, 30, 13, 15))
    message = receive(
        "Привіт! Шукаємо, хто зробить анімаційний трейлер на 60–90 секунд. Реліз гри 12 "
        "лютого, трейлер має вийти за тиждень до релізу. Пишіть: oleh@pixelforge.example",
        received_at=received,
    )
    lead = message.lead
    assert lead.urgency_days == 67
    assert lead.evidence["urgency_days"]["evidence"] == "12 лютого, трейлер має вийти за тиждень до"
    assert lead_deadline(lead, today=datetime.date(2026, 12, 1)) == "2027-02-05"
