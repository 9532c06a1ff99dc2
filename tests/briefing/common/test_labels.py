"""The one mapping from stage field keys and lock keys to human labels (briefing.common.labels)."""

from __future__ import annotations

import pytest
from django.template import Context, Template
from django.utils import translation

from briefing.common.labels import (
    FIELD_LABELS,
    field_label,
    field_labels,
    label_language,
    lock_label,
)
from briefing.stages.registry import BRIEFING_TYPES


@pytest.mark.parametrize("language", ["ru", "uk", "en"])
def test_every_stage_field_and_lock_has_a_label_in_each_language(language):
    for stages in BRIEFING_TYPES.values():
        for spec in stages:
            for name in spec.required:
                assert name in FIELD_LABELS[spec.key], f"{spec.key}.{name} has no labels"
                assert FIELD_LABELS[spec.key][name][language]
            for name, lock_key in spec.locks.items():
                assert lock_label(lock_key, language) == field_label(spec.key, name, language)


def test_field_keys_read_as_words_in_the_producers_language():
    assert field_label("vision", "coreIdea", "ru") == "Основная идея"
    assert field_label("vision", "coreIdea", "en-GB") == "Core idea"
    assert field_label("intro", "clientName", "uk") == "Ім'я клієнта"
    # A name two stages share keeps its stage's label; without a stage, the first one's.
    assert field_label("service", "goal", "ru") == "Задача контента"
    assert field_label("", "goal", "ru") == "Цель проекта"
    assert field_labels("budget", ["budget", "deadline"], "ru") == "Бюджет, Срок"


def test_lock_keys_read_as_the_field_they_hold():
    assert lock_label("client_name", "ru") == "Имя клиента"
    assert lock_label("product_name", "en") == "Product"
    assert lock_label("brand_tone", "ru") == "Тон бренда"
    # A lock a producer named by hand is spelled out, never shown as code.
    assert lock_label("studio_slogan", "ru") == "Studio slogan"
    assert field_label("vision", "someNewField", "ru") == "Some new field"


def test_the_label_language_is_the_active_one_by_default():
    with translation.override("ru"):
        assert label_language() == "ru"
        assert field_label("vision", "coreIdea") == "Основная идея"
    with translation.override("de"):
        assert label_language() == "en"
    assert label_language("pt-BR") == "en"


def test_the_template_filters_show_labels_and_stage_titles_in_the_active_language():
    template = Template(
        "{% load labels %}{{ 'coreIdea'|field_label:'vision' }} | {{ 'client_name'|lock_label }}"
        " | {{ names|field_labels:'intro' }} | {{ 'intro'|stage_title }} | {{ 'xyz'|stage_title }}"
    )
    context = Context({"names": ["clientName", "contact"]})
    with translation.override("ru"):
        assert template.render(context) == (
            "Основная идея | Имя клиента | Имя клиента, Контакт | Знакомство | xyz"
        )
    with translation.override("en"):
        assert template.render(context) == (
            "Core idea | Client name | Client name, Contact | Introduction | xyz"
        )


def test_field_values_read_as_words():
    template = Template(
        "{% load labels %}{{ a|field_value }}|{{ b|field_value }}|{{ c|field_value }}"
    )
    context = Context({"a": ["Instagram", "YouTube"], "b": True, "c": None})
    with translation.override("ru"):
        assert template.render(context) == "Instagram; YouTube|да|—"
