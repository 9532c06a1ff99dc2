"""The level-0 guard's engine: which rules a message's words let run, and the verdict."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Literal

from llmkit.guard import chinese, english, french, german, russian, spanish, ukrainian
from llmkit.guard.blocks import _CLIENT_OWNED, _LAST_WORD, _MEDIA, _PREFIX, _Rule
from llmkit.guard.capabilities import _capability_rule
from llmkit.guard.normalise import normalise

GuardKind = Literal["prompt_extraction", "capabilities"]


@dataclass(frozen=True, slots=True)
class GuardVerdict:
    """What the guard caught: the kind of message and the rule that fired (for the event)."""

    kind: GuardKind
    matched: str

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


# The order is the order the rules are tried in; the first that fires names the verdict.
_RULES: tuple[_Rule, ...] = (
    *english.RULES,
    *german.RULES,
    *french.RULES,
    *spanish.RULES,
    *russian.RULES,
    *ukrainian.RULES,
)
_RULES_HAN: tuple[_Rule, ...] = chinese.RULES
_HAS_HAN = re.compile(r"[\u3400-\u9fff]")
_TOKEN = re.compile(r"[^\W\d_]+")


def _owned_by_client(text: str, start: int) -> bool:
    before = _LAST_WORD.search(text, 0, start)
    return bool(before and _CLIENT_OWNED.fullmatch(before.group(1)))


def _about_the_video(text: str, match: re.Match[str]) -> bool:
    """Whether the sentence of the match talks about the film or a print medium."""
    start = max(text.rfind(mark, 0, match.start()) for mark in ".!?;\n") + 1
    ends = [text.find(mark, match.end()) for mark in ".!?;\n"]
    end = min((e for e in ends if e >= 0), default=len(text))
    return bool(_MEDIA.search(text, start, end))


def _first_hit(rules: Iterable[_Rule], text: str) -> str | None:
    for rule in rules:
        for match in rule.pattern.finditer(text):
            if rule.owner_check and "t" in rule.pattern.groupindex:
                start = match.start("t")
                if start >= 0 and _owned_by_client(text, start):
                    continue
            if rule.media_check and _about_the_video(text, match):
                continue
            return rule.name
    return None


def _extraction_rule(text: str, prefixes: set[str]) -> str | None:
    rules = (
        rule
        for rule in _RULES
        if not rule.gate.isdisjoint(prefixes)
        and (not rule.verbs or not rule.verbs.isdisjoint(prefixes))
    )
    hit = _first_hit(rules, text)
    if hit is None and _HAS_HAN.search(text) and chinese.GATE.search(text):
        hit = _first_hit(_RULES_HAN, text)
    return hit


def guard_check(text: str) -> GuardVerdict | None:
    """The guard's verdict on one client message, or None when it is an ordinary one.

    Never raises: anything that is not a string, and any string at all, gets an answer.
    """
    if not isinstance(text, str) or not text:
        return None
    try:
        normalised = normalise(text)
    except (ValueError, MemoryError):  # pragma: no cover - NFKC on pathological input
        return None
    prefixes = {word[:_PREFIX] for word in _TOKEN.findall(normalised)}
    if "<" in normalised:  # <system_prompt> tags: the word inside is gate enough
        prefixes.add("<")
    rule = _extraction_rule(normalised, prefixes)
    if rule:
        return GuardVerdict("prompt_extraction", rule)
    rule = _capability_rule(normalised, prefixes)
    if rule:
        return GuardVerdict("capabilities", rule)
    return None
