"""Phones (E.164), e-mails and links: finders and one-value normalisers."""

from __future__ import annotations

import phonenumbers
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmkit.extract import (
    find_emails,
    find_phones,
    find_urls,
    normalise_email,
    normalise_phone,
)

# --- phones ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("звоните 8 (900) 123-45-67", ["+79001234567"]),
        ("тел. +7 916 123 45 67, спросить Ивана", ["+79161234567"]),
        ("89001234567", ["+79001234567"]),
        ("8-800-555-35-35 бесплатно", ["+78005553535"]),
        ("+7(495)123-45-67 или 8 916 765 43 21", ["+74951234567", "+79167654321"]),
        ("мій номер +380 67 123 4567", ["+380671234567"]),
        ("call me at +1 650-253-0000", ["+16502530000"]),
    ],
)
def test_find_phones(text: str, expected: list[str]) -> None:
    found = find_phones(text)
    assert [p.value for p in found] == expected
    assert all(text[p.start : p.end] == p.text for p in found)


def test_find_phones_reads_national_numbers_in_the_given_region() -> None:
    assert [p.value for p in find_phones("067 123 45 67", region="UA")] == ["+380671234567"]
    assert find_phones("12345", region="UA") == []


@pytest.mark.parametrize(
    "text",
    ["бюджет 500 000 руб", "15.03.2027", "2027-03-15", "через 2 недели", "123-45"],
)
def test_find_phones_ignores_numbers_that_are_not_phones(text: str) -> None:
    assert find_phones(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("8 (900) 123-45-67", "+79001234567"),
        ("+7 900 123 45 67", "+79001234567"),
        ("tel:+79001234567", "+79001234567"),
        ("мой номер 8 900 123 45 67", "+79001234567"),
        ("12345", None),
        ("not a phone", None),
        ("", None),
        ("+7 900 123", None),
    ],
)
def test_normalise_phone(text: str, expected: str | None) -> None:
    assert normalise_phone(text) == expected


def test_normalise_phone_with_an_unknown_region_still_reads_international_numbers() -> None:
    assert normalise_phone("+380 67 123 4567", region="nowhere") == "+380671234567"
    assert normalise_phone("067 123 45 67", region="UA") == "+380671234567"


_PROSE = st.lists(
    st.sampled_from(["Позвоните", "мне", "please", "call", "завтра", "дякую", "номер"]),
    max_size=5,
).map(" ".join)
_FORMATS = [
    "+7 ({a}) {b}-{c}-{d}",
    "8 ({a}) {b}-{c}-{d}",
    "8{a}{b}{c}{d}",
    "+7{a}{b}{c}{d}",
    "8 {a} {b} {c} {d}",
    "+7-{a}-{b}-{c}-{d}",
]


# Not every 9xx block is allocated ("+7 930 000-00-00" is not a valid number).
_RU_MOBILE = st.from_regex(r"9[0-9]{9}", fullmatch=True).filter(
    lambda digits: phonenumbers.is_valid_number(phonenumbers.parse("+7" + digits))
)


@given(
    _PROSE,
    _RU_MOBILE,
    st.sampled_from(_FORMATS),
    _PROSE,
)
def test_a_russian_mobile_in_prose_is_found(
    before: str, digits: str, layout: str, after: str
) -> None:
    written = layout.format(a=digits[:3], b=digits[3:6], c=digits[6:8], d=digits[8:])
    text = f"{before} {written} {after}"
    found = find_phones(text)
    assert [p.value for p in found] == [f"+7{digits}"]
    assert found[0].text == written


@settings(max_examples=300)
@given(st.text(alphabet="0123456789 +()-.,/x", max_size=60))
def test_phone_values_are_e164_and_evidence_matches_source(text: str) -> None:
    for phone in find_phones(text):
        assert phone.value.startswith("+")
        assert phone.value[1:].isdigit()
        assert text[phone.start : phone.end] == phone.text
    normalised = normalise_phone(text)
    assert normalised is None or normalised.startswith("+")


# --- e-mails -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("пишите на Ivan.Petrov@Example.COM.", ["ivan.petrov@example.com"]),
        ("a@b.ru, c+tag@mail.example.org", ["a@b.ru", "c+tag@mail.example.org"]),
        ("mailto:info@studio.io", ["info@studio.io"]),
        ("<sales@company.com.ua>", ["sales@company.com.ua"]),
        ("почта@пример.рф", ["почта@пример.рф"]),
        ("no address @ here, nor a@b", []),
    ],
)
def test_find_emails(text: str, expected: list[str]) -> None:
    found = find_emails(text)
    assert [e.value for e in found] == expected
    assert all(text[e.start : e.end] == e.text for e in found)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Ivan@Example.com", "ivan@example.com"),
        ("  mailto:<Ivan@Example.com> ", "ivan@example.com"),
        ("пишите: ivan@example.com", "ivan@example.com"),
        ("a@b.ru или c@d.ru", None),
        ("not an email", None),
        ("ivan@", None),
    ],
)
def test_normalise_email(text: str, expected: str | None) -> None:
    assert normalise_email(text) == expected


_LOCAL = st.from_regex(r"[a-zA-Z][a-zA-Z0-9_+-]{0,10}(\.[a-zA-Z0-9]{1,5})?", fullmatch=True)
_DOMAIN = st.from_regex(r"[a-z][a-z0-9-]{0,8}[a-z0-9]\.(com|ru|org|ua)", fullmatch=True)


@given(_PROSE, _LOCAL, _DOMAIN, _PROSE)
def test_an_email_in_prose_is_found(before: str, local: str, domain: str, after: str) -> None:
    address = f"{local}@{domain}"
    text = f"{before} {address}, {after}"
    assert [e.value for e in find_emails(text)] == [address.lower()]
    assert normalise_email(address) == address.lower()


# --- links -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("see https://example.com/path?q=1.", [("https://example.com/path?q=1", None)]),
        (
            "(https://ru.wikipedia.org/wiki/Foo_(bar))",
            [("https://ru.wikipedia.org/wiki/Foo_(bar)", None)],
        ),
        (
            "сайт example.ru, и www.test.io/x!",
            [("https://example.ru", "example.ru"), ("https://www.test.io/x", "www.test.io/x")],
        ),
        ("HTTP://Example.COM/Path", [("http://example.com/Path", None)]),
        ("наш сайт пример.рф", [("https://пример.рф", None)]),
        ("«https://example.com»", [("https://example.com", None)]),
        ("www.anything.travel", [("https://www.anything.travel", None)]),
    ],
)
def test_find_urls(text: str, expected: list[tuple[str, str | None]]) -> None:
    found = find_urls(text)
    assert [u.value for u in found] == [value for value, _ in expected]
    for url, (_, written) in zip(found, expected, strict=True):
        assert text[url.start : url.end] == url.text
        if written is not None:
            assert url.text == written


@pytest.mark.parametrize(
    "text",
    [
        "Node.js and file.pdf",
        "т.е. всё",
        "e.g. this",
        "sentence.Next",
        "ivan@example.com",
        "http://",
        "1.5 млн",
    ],
)
def test_find_urls_ignores_what_is_not_a_link(text: str) -> None:
    assert find_urls(text) == []


# --- robustness --------------------------------------------------------------------------

_HOSTILE = st.one_of(
    st.text(),
    st.text(alphabet="@.-_+abc:/ wх\u200f\u202e😀\x00\x1f\t\n", max_size=80),
    st.just("a" * 5000 + "@"),
    st.just("." * 5000),
    st.just("a." * 3000),
)


@settings(max_examples=300)
@given(_HOSTILE)
def test_contact_finders_never_raise_and_evidence_matches_source(text: str) -> None:
    for finding in [*find_phones(text), *find_emails(text), *find_urls(text)]:
        assert text[finding.start : finding.end] == finding.text
    for email in find_emails(text):
        assert email.value == email.value.lower()
    normalise_email(text)
    normalise_phone(text)
