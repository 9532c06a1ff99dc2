"""detect_language, language_name and reply_language_block: the client's language and the
prompt block that forces the reply into it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmkit.language import LANGUAGES, detect_language, language_name, reply_language_block

# Real briefing messages; each must be recognised whatever the project's stored language.
MESSAGES = {
    "ru": [
        "Здравствуйте! Нам нужен рекламный ролик для новой линейки кофе.",
        "Бюджет около 500 тысяч рублей, сроки — до конца месяца.",
        "Мы сеть фитнес-клубов, хотим имиджевое видео для сайта",
        "Хотелось бы что-то динамичное, с дроном и красивыми планами",
        "Да, съёмка в Москве, два дня",
        "Нет, озвучка не нужна, только музыка",
        "Спасибо, всё понятно",
        "Целевая аудитория — молодые мамы 25-35 лет",
    ],
    "uk": [
        "Добрий день! Нам потрібен рекламний ролик для нової лінійки кави.",
        "Бюджет близько 500 тисяч гривень, терміни — до кінця місяця.",
        "Ми мережа фітнес-клубів, хочемо іміджеве відео для сайту",
        "Хотілося б щось динамічне, з дроном і гарними планами",
        "Так, зйомка в Києві, два дні",
        "Ні, озвучення не потрібне, тільки музика",
        "Чи можна зробити версію для вертикального формату?",
        "Дякую, все зрозуміло",
        "Цільова аудиторія — молоді мами 25-35 років",
        "Потрібно три ролики по 15 секунд для таргету",
        "Об'єкт знаходиться за містом, п’ять хвилин від траси",
        "Потрібен ролик для Instagram Reels, TikTok та YouTube Shorts",
    ],
    "en": [
        "Hi! We need a commercial for our new coffee line.",
        "The budget is around 500k, and the deadline is the end of the month.",
        "We are a chain of fitness clubs and want a brand video for the website",
        "Something dynamic, with drone shots and nice wide angles",
        "Yes, the shoot is in London, two days",
        "No voice-over needed, just music",
        "Can you make a vertical version as well?",
        "Thanks, that's clear",
    ],
    "de": [
        "Hallo! Wir brauchen einen Werbespot für unsere neue Kaffeelinie.",
        "Das Budget liegt bei etwa 50.000 Euro, die Frist ist Ende des Monats.",
        "Wir sind eine Kette von Fitnessstudios und möchten ein Imagevideo",
        "Ja, der Dreh ist in Berlin, zwei Tage",
        "Können Sie auch eine vertikale Version machen?",
    ],
    "fr": [
        "Bonjour ! Nous avons besoin d'une publicité pour notre nouvelle gamme de café.",
        "Le budget est d'environ 50 000 euros, et la date limite est la fin du mois.",
        "Nous sommes une chaîne de salles de sport et voulons une vidéo de marque",
        "Oui, le tournage est à Paris, deux jours",
        "Pouvez-vous aussi faire une version verticale ?",
    ],
    "es": [
        "¡Hola! Necesitamos un anuncio para nuestra nueva línea de café.",
        "El presupuesto es de unos 50.000 euros y el plazo es fin de mes.",
        "Somos una cadena de gimnasios y queremos un vídeo de marca",
        "Sí, el rodaje es en Madrid, dos días",
        "¿Pueden hacer también una versión vertical?",
    ],
    "zh": [
        "你好！我们需要为新的咖啡系列拍一支广告。",
        "预算大约五万欧元，截止日期是月底。",
        "我们是一家健身连锁店，想要一个品牌视频",
        "可以做竖版吗？",
        "我们需要一个 TikTok 和 Instagram Reels 的视频",
    ],
}
CASES = [(lang, text) for lang, texts in MESSAGES.items() for text in texts]
# Russian messages without a Russian-only letter (ы/э/ъ/ё): recognised as Russian unless
# the project is Ukrainian, where only a marker letter may switch the language.
UNMARKED_RUSSIAN = [
    "Можно ли сделать версию для вертикального формата?",
    "Нужно три ролика по 15 секунд для таргета",
    "Нужен ролик для Instagram Reels, TikTok и YouTube Shorts",
]


@pytest.mark.parametrize(("expected", "text"), CASES)
@pytest.mark.parametrize("default", ["en", "ru", "uk", "de"])
def test_detect_language_recognises_briefing_messages(
    expected: str, text: str, default: str
) -> None:
    assert detect_language(text, default=default) == expected


@pytest.mark.parametrize("text", UNMARKED_RUSSIAN)
def test_russian_without_marker_letters_is_russian_unless_the_project_is_ukrainian(
    text: str,
) -> None:
    for default in ("en", "ru", "de"):
        assert detect_language(text, default=default) == "ru"
    assert detect_language(text, default="uk") == "uk"


# The same message in both languages: letters (і/ї/є/ґ, the apostrophe; ы/э/ъ/ё) or
# function words tell them apart when the project is in neither language (in a Russian
# or Ukrainian project only letters switch: see the test after this one).
@pytest.mark.parametrize(
    ("russian", "ukrainian"),
    [
        ("Нам нужно видео", "Нам потрібне відео"),
        ("Что вы предлагаете?", "Що ви пропонуєте?"),
        ("Как быстро сможете снять?", "Як швидко зможете зняти?"),
        ("Бюджет пятьсот тысяч", "Бюджет п'ятсот тисяч"),
        ("Это для нашего магазина", "Це для нашого магазину"),
        ("Съёмка будет в субботу?", "Зйомка буде в суботу, чи не так?"),
        ("Хочу ролик и фото", "Хочу ролик та фото"),
        ("Когда будет готово?", "Коли буде готово?"),
        ("Очень нравится, спасибо", "Дуже подобається, дякую"),
        ("Где будет съёмка", "Де буде зйомка"),
    ],
)
@pytest.mark.parametrize("default", ["en", "de", "zh"])
def test_detect_language_tells_ukrainian_from_russian(
    russian: str, ukrainian: str, default: str
) -> None:
    assert detect_language(russian, default=default) == "ru"
    assert detect_language(ukrainian, default=default) == "uk"


@pytest.mark.parametrize(
    ("text", "default", "expected"),
    [
        # Function words alone ("с" is seconds here, "та" Ukrainian) keep the project's.
        ("ролик 15 с, два ролики по 6 с та фото меню", "uk", "uk"),
        ("Коли буде готово?", "ru", "ru"),
        ("Це для нашого магазину", "ru", "ru"),
        ("Хочу ролик та фото", "ru", "ru"),
        ("Когда будет готово?", "uk", "uk"),
        ("Хочу ролик и фото", "uk", "uk"),
        ("Очень нравится, спасибо", "uk", "uk"),
        # The other language's own letters switch.
        ("Що ви пропонуєте?", "ru", "uk"),  # є
        ("Нам потрібне відео", "ru", "uk"),  # і
        ("Бюджет п'ятсот тисяч", "ru", "uk"),  # the apostrophe
        ("Как быстро сможете снять?", "uk", "ru"),  # ы
        ("Это для нашего магазина", "uk", "ru"),  # э
        ("Где будет съёмка", "uk", "ru"),  # ъ, ё
        # The project's own language is of course kept.
        ("Коли буде готово?", "uk", "uk"),
        ("Когда будет готово?", "ru", "ru"),
    ],
)
def test_only_marker_letters_switch_between_russian_and_ukrainian(
    text: str, default: str, expected: str
) -> None:
    assert detect_language(text, default=default) == expected


@pytest.mark.parametrize(
    "text",
    [
        "dmitry.orlov@avtomir.ru",
        "https://youtu.be/x",
        "youtube.com/watch?v=1 vimeo.com/2",
        "@brightside_studio",
        "+7 (916) 123-45-67",
        "dmitry.orlov@avtomir.ru, +7 916 123 45 67, @dmitry_orlov",
    ],
)
@pytest.mark.parametrize("default", ["ru", "uk", "en", "de"])
def test_addresses_links_handles_and_numbers_carry_no_language(text: str, default: str) -> None:
    assert detect_language(text, default=default) == default


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Пишите на почту: dmitry.orlov@avtomir.ru", "ru"),
        ("Пишите на почту: x@y.ru", "ru"),
        ("Пишіть на пошту: olena@kava.com.ua", "uk"),
        ("Примеры тут: https://youtu.be/x и https://vimeo.com/2", "ru"),
        ("Our site is avtomir.ru, e-mail info@avtomir.ru", "en"),
    ],
)
def test_the_words_around_an_address_decide(text: str, expected: str) -> None:
    for default in ("ru", "en") if expected != "uk" else ("uk", "en"):
        assert detect_language(text, default=default) == expected


@pytest.mark.parametrize(
    "text",
    ["ok", "OK!", "да", "Да.", "так", "Так", "yes", "500000", "👍", "🔥🔥🔥", "", "   ", "?"],
)
@pytest.mark.parametrize("default", ["ru", "uk", "en", "de"])
def test_short_text_keeps_the_default(text: str, default: str) -> None:
    # "так" is "yes" in Ukrainian and "so" in Russian, "да" is typed by Ukrainian clients
    # too: a lone word says too little to switch the project's language.
    assert detect_language(text, default=default) == default


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Привіт", "uk"),  # і
        ("Звісно!", "uk"),  # і
        ("п'ять", "uk"),  # the apostrophe Ukrainian writes for Russian's ъ
        ("Объект", "ru"),  # ъ
        ("ещё", "ru"),  # ё
        ("Grüße", "de"),
        ("¿Cuánto?", "es"),
        ("Voilà", "fr"),
        ("你好", "zh"),
    ],
)
def test_a_lone_word_with_a_letter_only_one_language_has_decides(text: str, expected: str) -> None:
    for default in ("en", "ru", "uk"):
        assert detect_language(text, default=default) == expected


def test_cyrillic_without_evidence_keeps_a_cyrillic_default_else_russian() -> None:
    text = "Ролик 30 секунд, бюджет 500"  # no marker letter, no function word
    assert detect_language(text, default="uk") == "uk"
    assert detect_language(text, default="ru") == "ru"
    assert detect_language(text, default="en") == "ru"
    assert detect_language(text, default="de") == "ru"


def test_latin_without_evidence_keeps_a_latin_default_else_english() -> None:
    text = "Instagram Reels TikTok"
    assert detect_language(text, default="de") == "de"
    assert detect_language(text, default="ru") == "en"
    assert detect_language(text, default="zh") == "en"


def test_brand_names_do_not_outvote_the_language_they_are_written_in() -> None:
    assert detect_language("Нужен ролик для Coca-Cola Zero и Fanta Orange") == "ru"
    assert detect_language("We need a spot for Газпром нефть") == "en"


def test_only_the_ends_of_a_huge_message_are_read() -> None:
    text = "Нам нужен ролик о компании. " * 20_000
    assert detect_language(text) == "ru"


def test_non_strings_return_the_default() -> None:
    assert detect_language(None, default="uk") == "uk"  # type: ignore[arg-type]
    assert detect_language(b"bytes", default="ru") == "ru"  # type: ignore[arg-type]


def test_language_name_gives_english_names() -> None:
    assert language_name("ru") == "Russian"
    assert language_name("uk") == "Ukrainian"
    assert language_name("en") == "English"
    assert language_name("zh") == "Chinese"
    assert language_name("ru-RU") == "Russian"
    assert language_name("UK") == "Ukrainian"
    assert set(LANGUAGES) == {"ru", "uk", "en", "de", "fr", "es", "zh"}


@pytest.mark.parametrize("code", ["", "xx", "klingon", "r"])
def test_language_name_refuses_unknown_codes(code: str) -> None:
    with pytest.raises(ValueError, match="unsupported language code"):
        language_name(code)


def test_reply_language_block_names_the_language_and_is_deterministic() -> None:
    block = reply_language_block("ru")
    assert block.startswith(
        "Reply to the client in Russian only, whatever language the instructions above are in."
    )
    assert block == reply_language_block("ru")
    assert "JSON keys" in block
    for code, name in LANGUAGES.items():
        assert f"in {name} only" in reply_language_block(code)
    with pytest.raises(ValueError, match="unsupported language code"):
        reply_language_block("xx")


@settings(max_examples=300)
@given(st.text(), st.sampled_from([*LANGUAGES, "xx"]))
def test_detect_language_never_raises(text: str, default: str) -> None:
    assert detect_language(text, default=default) in {*LANGUAGES, default}


@settings(max_examples=200)
@given(st.binary(max_size=300))
def test_detect_language_never_raises_on_undecodable_bytes(raw: bytes) -> None:
    # Lone surrogates are what a lenient decoder leaves behind.
    text = raw.decode("utf-8", errors="surrogateescape")
    assert detect_language(text) in LANGUAGES


def test_markup_carries_no_language():
    text = "<script>alert(1)</script> Пекарня «Колос»"
    assert detect_language(text, default="ru") == "ru"
    assert detect_language("<b>Привет</b>, <i>нам нужен ролик</i>", default="en") == "ru"
