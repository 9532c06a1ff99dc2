"""The final brief: built from a project's profile, its published JSON Schema, and the markdown
summary written by code from the fields."""

from __future__ import annotations

import re

import jsonschema
import pytest
from markdown_it import MarkdownIt
from pydantic import ValidationError

from briefing.stages.registry import stages_for
from briefing.stages.summaries import THIN_SPACE
from briefing.turn.brief import Brief, brief_json_schema, brief_markdown, markdown_escape

STAGES = stages_for("production")

PROFILE = {
    "intro": {
        "message": "agent chatter is not part of the brief",
        "introStatus": True,
        "clientName": "Иван Петров",
        "contact": "+79161234567",
        "projectType": "промо-ролик",
    },
    "vision": {"coreIdea": "Утро начинается с чая", "goal": "продажи", "audience": "мамы"},
    "service": {
        "contentType": "рекламный ролик",
        "format": "30 с, 16:9",
        "deliverables": ["ролик", "3 тизера"],
        "creativeSession": True,
    },
    "budget": {"budget": 500000, "currency": "RUB", "deadline": "2027-03-15"},
    "extra": {"references": ["https://youtube.com/watch?v=1"]},
    "not_a_stage": {"x": 1},
}


def test_every_contact_is_in_its_typed_slot():
    profile = {
        **PROFILE,
        "intro": {
            **PROFILE["intro"],
            "contact": "+79161234567, anna@zerno.ru, @anna_k, t.me/zerno_bot, zerno.ru, "
            "+74951234567, после 18:00",
        },
    }
    contacts = Brief.from_profile(profile, language="ru").model_dump(mode="json")["contacts"]
    assert contacts == {
        "phones": ["+79161234567", "+74951234567"],
        "emails": ["anna@zerno.ru"],
        "messengers": ["@anna_k", "t.me/zerno_bot"],
        "websites": ["zerno.ru"],
        "other": ["после 18:00"],
    }
    # A brief stored before the slots existed still validates (they are empty).
    stored = Brief.from_profile(PROFILE, language="ru").model_dump(mode="json")
    del stored["contacts"]
    assert Brief.model_validate(stored).contacts.phones == []


def test_from_profile_keeps_the_stage_fields_only():
    brief = Brief.from_profile(PROFILE, language="ru")
    assert brief.language == "ru"
    assert brief.intro.clientName == "Иван Петров"
    assert brief.budget.budget == 500000
    assert brief.service.deliverables == ["ролик", "3 тизера"]
    dumped = brief.model_dump(mode="json")
    assert set(dumped) == {
        "intro",
        "vision",
        "service",
        "budget",
        "extra",
        "contacts",
        "language",
        "additionalRequests",
    }
    assert dumped["additionalRequests"] == []
    assert "message" not in dumped["intro"]
    assert "introStatus" not in dumped["intro"]


def test_round_trip_through_json():
    brief = Brief.from_profile(PROFILE, language="uk")
    again = Brief.model_validate_json(brief.model_dump_json())
    assert again == brief
    assert Brief.model_validate(brief.model_dump(mode="json")) == brief


def test_an_empty_profile_gives_an_empty_brief():
    brief = Brief.from_profile({}, language="en")
    assert brief.intro.clientName is None
    assert brief.service.deliverables == []
    assert brief.service.creativeSession is False


def test_a_wrongly_shaped_profile_value_fails_naming_the_field():
    with pytest.raises(ValidationError, match="budget"):
        Brief.from_profile({"budget": {"budget": "a lot"}}, language="ru")
    with pytest.raises(ValidationError, match="language"):
        Brief.from_profile({}, language="de")


def test_the_published_schema_validates_a_dumped_brief():
    schema = brief_json_schema()
    assert schema == Brief.model_json_schema()
    assert set(schema["properties"]) == {
        "intro",
        "vision",
        "service",
        "budget",
        "extra",
        "contacts",
        "language",
        "additionalRequests",
    }
    assert "language" in schema["required"]
    assert "additionalRequests" not in schema["required"]
    jsonschema.Draft202012Validator.check_schema(schema)
    dumped = Brief.from_profile(PROFILE, language="ru").model_dump(mode="json")
    jsonschema.validate(dumped, schema)
    bad = {**dumped, "budget": {**dumped["budget"], "budget": -1}}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)


def test_markdown_has_a_heading_and_a_section_per_stage():
    brief = Brief.from_profile(PROFILE, language="ru")
    text = brief_markdown(brief, title="Ромашка: ролик", language="ru", stage_specs=STAGES)
    lines = text.splitlines()
    assert lines[0] == "# Ромашка: ролик"
    headings = [line for line in lines if line.startswith("## ")]
    assert headings == [
        "## Знакомство",
        "## Идея проекта",
        "## Производство",
        "## Бюджет и сроки",
        "## Дополнительно",
    ]
    assert "- Клиент: Иван Петров" in lines
    assert f"- Бюджет: 500{THIN_SPACE}000 RUB, срок: 2027-03-15" in lines
    assert "- Креативная сессия: нужна" in lines
    assert "agent chatter" not in text


def test_markdown_marks_a_stage_without_data():
    brief = Brief.from_profile({}, language="uk")
    text = brief_markdown(brief, title="Бриф", language="uk", stage_specs=STAGES[:1])
    assert text.splitlines() == ["# Бриф", "", "## Знайомство", "", "- Немає даних"]


HOSTILE = {
    "intro": {
        "clientName": "<script>alert(1)</script>",
        "projectType": "# heading\n## another\n===",
        "company": "[link](https://evil.example)",
        "role": "`code` **bold** ![img](x)",
    },
    "extra": {"notes": "line one\n- injected item\n> quote"},
}


def test_markdown_escapes_hostile_client_text():
    brief = Brief.from_profile(HOSTILE, language="en")
    text = brief_markdown(brief, title="# Evil <b>title</b>", language="en", stage_specs=STAGES)
    lines = text.splitlines()
    # No tag can open: every "<" before a letter or "/" is escaped.
    assert re.search(r"(?<!\\)<[A-Za-z/!?]", text) is None
    assert "\\<script>alert(1)\\</script>" in text
    assert "](" not in text.replace("\\](", "")
    assert "\\[link\\](https://evil.example)" in text
    assert "\\`code\\`" in text
    # Only the code's own headings start a line with "#", and no client text opens a block.
    assert [line for line in lines if line.startswith("#")] == [
        "# \\# Evil \\<b>title\\</b>",
        "## Introduction",
        "## Core vision",
        "## Production service",
        "## Budget and timeline",
        "## Extra information",
    ]
    assert all(line == "" or line.startswith(("#", "- ")) for line in lines)
    assert "- Notes: line one - injected item > quote" in lines
    rendered = MarkdownIt("commonmark").render(text)
    assert "<script" not in rendered
    assert "<b>" not in rendered
    assert "<a " not in rendered
    assert "<code>" not in rendered
    assert "<strong>" not in rendered
    assert "<em>" not in rendered
    assert rendered.count("<h1>") == 1
    assert "<blockquote>" not in rendered


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("# title", "\\# title"),
        ("- item", "\\- item"),
        ("1. first", "1\\. first"),
        ("a # b", "a # b"),
        ("a_b*c", "a_b\\*c"),
        ("_under_ snake_case", "\\_under\\_ snake_case"),
        ("back\\slash", "back\\slash"),
        ("back\\*slash", "back\\\\\\*slash"),
        ("x & y", "x & y"),
        ("R&D, &amp; and &#169;", "R&D, \\&amp; and \\&#169;"),
        ("a < b > c", "a < b > c"),
        ("<b>bold</b>", "\\<b>bold\\</b>"),
        ("> quote", "\\> quote"),
        (
            "https://example.com/some_path?a=1&b=2",
            "https://example.com/some_path?a=1&b=2",
        ),
    ],
)
def test_markdown_escape(text, expected):
    assert markdown_escape(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Референс: https://example.com/watch?v=1&t=30s_x",
        "R&D отдел, бюджет < 1 млн",
        "snake_case и __init__ и *звёздочки* и `код`",
        "[ссылка](https://evil.example) ![img](x) <i>курсив</i> &amp;",
        "\\ обратная \\* черта",
    ],
)
def test_escaped_text_renders_as_itself(text):
    """What a reader sees after rendering is exactly the client's text: nothing was lost
    to markup and no escape shows."""
    html = MarkdownIt("commonmark").renderInline(markdown_escape(text))
    expected = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    assert html == expected.replace('"', "&quot;")


def test_additional_requests_follow_the_stages_in_the_brief_and_its_markdown():
    requests = [
        {
            "text": "А субтитры? См. https://ex.com/a_b?x=1&y=2",
            "receivedAt": "2026-12-01T13:05:00+03:00",
        }
    ]
    brief = Brief.from_profile(PROFILE, language="ru", additional_requests=requests)
    assert brief.additionalRequests[0].text.startswith("А субтитры?")
    jsonschema.validate(brief.model_dump(mode="json"), brief_json_schema())
    lines = brief_markdown(brief, title="Бриф", language="ru", stage_specs=STAGES).splitlines()
    assert lines[-3:] == [
        "## Дополнительные запросы",
        "",
        "- 2026-12-01 13:05: А субтитры? См. https://ex.com/a_b?x=1&y=2",
    ]
    assert "additionalRequests" not in Brief.stage_keys()
