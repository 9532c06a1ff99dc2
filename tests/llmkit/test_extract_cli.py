"""`extract_all` and its command line, `python -m llmkit.extract`, run as a real process."""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmkit.extract import extract_all

ROOT = Path(__file__).resolve().parents[2]
TODAY = datetime.date(2026, 5, 20)
BRIEF = (
    "Бюджет около 500 тыс. руб., звоните 8 (900) 123-45-67, пишите Ivan@Example.com, "
    "сайт www.example.ru/brief. Нужно через 2 недели, финал до 15 марта."
)


def _run(
    stdin: bytes, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "llmkit.extract", *args],
        input=stdin,
        capture_output=True,
        cwd=ROOT,
        env=environment,
        timeout=60,
        check=False,
    )


def test_extract_all_has_exactly_the_five_keys_and_json_ready_findings() -> None:
    result = extract_all(BRIEF, today=TODAY)
    assert list(result) == ["money", "phones", "emails", "urls", "deadlines"]
    assert [m["value"] for m in result["money"]] == [500000]
    assert [p["value"] for p in result["phones"]] == ["+79001234567"]
    assert [e["value"] for e in result["emails"]] == ["ivan@example.com"]
    assert [u["value"] for u in result["urls"]] == ["https://www.example.ru/brief"]
    assert [(d["date"], d["kind"]) for d in result["deadlines"]] == [
        ("2026-06-03", "relative"),
        ("2027-03-15", "absolute"),
    ]
    json.dumps(result)  # nothing that JSON cannot hold
    for findings in result.values():
        for finding in findings:
            assert BRIEF[finding["start"] : finding["end"]] == finding["text"]


def test_extract_all_does_not_report_digits_of_a_phone_or_link_as_money() -> None:
    text = "тел +7 900 123-45-67, https://shop.example.com/item/500k"
    result = extract_all(text, today=TODAY)
    assert result["money"] == []
    assert len(result["phones"]) == 1
    assert len(result["urls"]) == 1


def test_extract_all_on_empty_text() -> None:
    assert extract_all("", today=TODAY) == {
        "money": [],
        "phones": [],
        "emails": [],
        "urls": [],
        "deadlines": [],
    }


def test_cli_prints_findings_as_json() -> None:
    completed = _run(BRIEF.encode(), "--today", "2026-05-20")
    assert completed.returncode == 0, completed.stderr
    output = completed.stdout.decode("utf-8")
    assert "тыс. руб" in output  # ensure_ascii=False: Cyrillic is written as is
    result = json.loads(output)
    assert result == extract_all(BRIEF, today=TODAY)


def test_cli_writes_utf8_whatever_the_locale() -> None:
    completed = _run(BRIEF.encode(), "--today", "2026-05-20", env={"LC_ALL": "C", "LANG": "C"})
    assert completed.returncode == 0
    assert json.loads(completed.stdout.decode("utf-8"))["money"][0]["value"] == 500000


def test_cli_counts_from_today_by_default() -> None:
    completed = _run("завтра".encode())
    assert completed.returncode == 0
    [deadline] = json.loads(completed.stdout)["deadlines"]
    tomorrow = datetime.date.fromisoformat(deadline["date"])
    assert abs((tomorrow - datetime.date.today()).days - 1) <= 1  # midnight may pass


def test_cli_reads_national_numbers_in_the_given_region() -> None:
    completed = _run(b"067 123 45 67", "--region", "ua", "--today", "2026-05-20")
    assert completed.returncode == 0
    assert json.loads(completed.stdout)["phones"][0]["value"] == "+380671234567"


def test_cli_replaces_invalid_utf8_and_warns() -> None:
    completed = _run(b"\xff\xfe 500 \xd1\x80\xd1\x83\xd0\xb1 \xc3", "--today", "2026-05-20")
    assert completed.returncode == 0
    assert b"not valid UTF-8" in completed.stderr
    result = json.loads(completed.stdout)
    assert [m["value"] for m in result["money"]] == [500]


def test_cli_drops_a_byte_order_mark() -> None:
    completed = _run("\ufeff500 руб".encode(), "--today", "2026-05-20")
    assert json.loads(completed.stdout)["money"][0]["start"] == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--today", "2026-13-01"], b"invalid date"),
        (["--today", "tomorrow"], b"invalid date"),
        (["--region", "XX"], b"unknown region"),
        (["--nonsense"], b"unrecognized arguments"),
    ],
)
def test_cli_rejects_bad_arguments_with_code_2(args: list[str], message: bytes) -> None:
    completed = _run("500 руб".encode(), *args)
    assert completed.returncode == 2
    assert message in completed.stderr
    assert completed.stdout == b""


_PIECES = [
    *"0123456789 ,.-+$€₽₴%@/:()\n\t\x00\x1b\u200f\u202e\u00a0😀",
    *["руб", "тыс", "млн", "k", "через", "дней", "до", "марта", "www.", ".ru", "٥", "８"],
]
_HOSTILE = st.one_of(
    st.text(),
    st.lists(st.sampled_from(_PIECES), max_size=60).map("".join),
    st.integers(min_value=0, max_value=10**80).map(lambda n: f"бюджет {n} млн руб, до {n}.03"),
)


@settings(max_examples=300)
@given(_HOSTILE, st.dates())
def test_extract_all_never_raises_on_hostile_text(text: str, today: datetime.date) -> None:
    result = extract_all(text, today=today)
    json.dumps(result, ensure_ascii=False)
    for findings in result.values():
        for finding in findings:
            assert text[finding["start"] : finding["end"]] == finding["text"]
