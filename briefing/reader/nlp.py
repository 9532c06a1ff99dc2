"""The language models the reader uses, loaded once per process: natasha's Russian NER (its
wheel ships the navec embeddings and the slovnet model, so nothing is downloaded) and
pymorphy3's Russian and Ukrainian dictionaries."""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass

_lock = threading.Lock()


@dataclass(frozen=True)
class Span:
    type: str  # "PER", "ORG" or "LOC"
    text: str
    start: int
    end: int


@functools.cache
def _natasha():
    from natasha import NewsEmbedding, NewsNERTagger, Segmenter

    return Segmenter(), NewsNERTagger(NewsEmbedding())


def russian_entities(text: str) -> list[Span]:
    """PER / ORG / LOC spans of a Russian text (natasha's news NER)."""
    from natasha import Doc

    with _lock:  # the tagger's numpy buffers are not shared between threads
        segmenter, tagger = _natasha()
        doc = Doc(text)
        doc.segment(segmenter)
        doc.tag_ner(tagger)
    return [Span(s.type, s.text, s.start, s.stop) for s in doc.spans]


@functools.cache
def morph(language: str):
    """pymorphy3's analyser for "ru" or "uk" (Russian for anything else)."""
    import pymorphy3

    return pymorphy3.MorphAnalyzer(lang="uk" if language == "uk" else "ru")


def warm_up() -> None:
    """Load every model and index now (a Celery worker calls it as it starts, before it forks
    its processes, so no turn pays for it: natasha about 2 s, the places about 1 s)."""
    from briefing.reader import places

    russian_entities("Иван Петров из компании Ромашка")
    morph("ru").parse("тест")
    morph("uk").parse("тест")
    places.regions_named("from Dublin", "en")
