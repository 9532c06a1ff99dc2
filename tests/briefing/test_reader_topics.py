"""Statements a client volunteers are filed under the free-text field their words speak of
(briefing/reader/topics.py): the audience, the goal, the format, the deliverables, the idea;
and the dialogue then does not ask for them. Frames × values × languages, not the sentences
of any conversation set."""

from __future__ import annotations

import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from briefing.models import Turn
from briefing.reader import message_read
from briefing.reader.statements import labelled_statements
from briefing.services import project_create

TODAY = datetime.date(2026, 12, 3)
BOUNDED = settings(max_examples=60, deadline=2000, derandomize=True)


def _topics(text: str, language: str, asked=("contact",)) -> dict[str, object]:
    reading = message_read(text, language=language, today=TODAY, asked=asked)
    return {f.field: f.value for f in reading.findings}


PEOPLE = {
    "ru": ["студенты", "молодые пары", "семьи с детьми", "туристы", "айтишники", "мамы"],
    "uk": ["студенти", "молоді пари", "родини з дітьми", "туристи", "айтішники", "мами"],
    "en": ["students", "young couples", "families", "tourists", "professionals", "parents"],
}


@BOUNDED
@given(
    language=st.sampled_from(["ru", "uk", "en"]),
    data=st.data(),
    low=st.integers(16, 35),
    span=st.integers(5, 30),
)
def test_people_and_their_ages_are_the_audience(language, data, low, span):
    first, second = data.draw(
        st.lists(st.sampled_from(PEOPLE[language]), min_size=2, max_size=2, unique=True)
    )
    text = f"{first}, {second} {low}–{low + span}"
    assert "audience" in _topics(text, language)


@BOUNDED
@given(
    frame=st.sampled_from([
        ("ru", "Хотим, чтобы {who} {verb} через сайт", ["гости", "люди"],
         ["бронировали", "покупали", "записывались"]),
        ("uk", "Нам треба, щоб {who} {verb} онлайн", ["гості", "люди"],
         ["бронювали", "купували", "записувалися"]),
        ("en", "We want {who} to {verb} online", ["people", "guests"], ["book", "buy", "sign up"]),
    ]),
    data=st.data(),
)  # fmt: skip
def test_what_viewers_should_do_is_the_goal(frame, data):
    language, template, whos, verbs = frame
    text = template.format(
        who=data.draw(st.sampled_from(whos)), verb=data.draw(st.sampled_from(verbs))
    )
    assert "goal" in _topics(text, language)


@BOUNDED
@given(
    frame=st.sampled_from([
        ("ru", "Один ролик на {n} {unit}, вертикальный", ["секунд", "сек"]),
        ("uk", "Один ролик на {n} {unit}, вертикальний", ["секунд", "сек"]),
        ("en", "One {n}-{unit} film, vertical", ["second"]),
    ]),
    n=st.integers(6, 120),
    data=st.data(),
)  # fmt: skip
def test_length_and_orientation_are_the_format_and_pieces_the_deliverables(frame, n, data):
    language, template, units = frame
    found = _topics(template.format(n=n, unit=data.draw(st.sampled_from(units))), language)
    assert "format" in found
    assert "deliverables" in found


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("ну идея такая мороз кругом снег а человек сидит в горячей воде", "ru"),
        ("Ідея проста: показати, як народжується хліб", "uk"),
        ("We want to show how the lettuce grows thirty metres from the shop", "en"),
    ],
)
def test_the_idea_told_in_its_own_words(text, language):
    assert "coreIdea" in _topics(text, language)


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Бюджет 300 тысяч, ролик на минуту для студентов 18–25", "ru"),  # a budget's sentence
        ("Для кого ролик на минуту — для студентов?", "ru"),  # a question
        ("Звоните +7 916 123-45-67, лучше вечером", "ru"),
        ("The weather was lovely in June", "en"),
    ],
)
def test_facts_questions_and_other_talk_are_filed_under_no_topic(text, language):
    found = _topics(text, language)
    assert not {"audience", "goal", "format", "deliverables", "coreIdea"} & set(found)


def test_a_reply_to_a_free_text_question_is_that_answer_only():
    """To "what should the project achieve?", "Аудитория канала и спонсоры" is the goal:
    the topics of a reply to a free-text question are not told apart."""
    assert "audience" not in _topics(
        "Аудитория канала и спонсоры для второго сезона", "ru", ("goal",)
    )
    assert "audience" in _topics("Аудитория канала и спонсоры для второго сезона", "ru")


@pytest.mark.django_db
def test_a_client_who_volunteers_idea_audience_and_format_is_not_asked_for_them(producer, say):
    project = project_create(title="Банный чан", language="ru", producer=producer)
    for text in [
        "Здравствуйте, я Ростислав Безруких, банный комплекс «Кедровый Пар», хотим ролик про "
        "наш новый «Сибирский чан».",
        "Идея такая: мороз, снег, человек сидит в горячем чане. Хотим, чтобы бронировали "
        "через сайт. Аудитория в основном пары 30–50 лет. Один ролик на минуту и три "
        "вертикальных для рилсов.",
        "+7 912 923-41-76",
    ]:
        say(project, text)
    asked = {
        name
        for turn in project.turns.filter(role=Turn.Role.AGENT)
        for name in (turn.meta or {}).get("asked_fields") or ()
    }
    assert asked, "the agent asked something"
    assert not asked & {"coreIdea", "goal", "audience", "format", "deliverables"}


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("60 sec + shorts", "en"),
        ("і ще шортси", "uk"),
        ("deadlien 5 february plz", "en"),
        ("один ролик и три коротких", "ru"),
        ("чтобы люди бронировали", "ru"),
    ],
)
def test_a_reply_that_speaks_of_something_else_names_no_product(text, language):
    """Where the product's name is asked, a length, pieces, a purpose, a date or a reply that
    goes on from the last one is no name ("60 sec + shorts" was stored as the product)."""
    reading = message_read(text, language=language, today=TODAY, asked=("productName",))
    assert reading.get("productName") is None


@pytest.mark.parametrize("text", ["Stack Bar", "«Ледовая миля»", "Kilt in a Box", "Рейс домой"])
def test_a_name_said_alone_is_still_the_product(text):
    reading = message_read(text, language="ru", today=TODAY, asked=("productName",))
    assert reading.get("productName") is not None


@pytest.mark.parametrize(
    ("text", "field", "statement"),
    [
        ("формат два ролики по хвилині і кілька коротких для тікток", "format",
         "два ролики по хвилині і кілька коротких для тікток"),
        ("цель чтоб регистрировались на турнир", "goal", "чтоб регистрировались на турнир"),
        ("идея такая что зима это не повод сидеть дома", "coreIdea",
         "зима это не повод сидеть дома"),
    ],
)  # fmt: skip
def test_a_label_opening_an_unpunctuated_voice_message_labels_it(text, field, statement):
    assert [(name, value) for name, value, _, _ in labelled_statements(text)][:1] == [
        (field, statement)
    ]


def test_a_label_word_in_a_punctuated_sentence_needs_its_colon():
    assert labelled_statements("Формат нам не важен, главное — смысл.") == []
