"""Score the lead cards read from a folder of `.eml` files against the cards a manager
expects (`expected.yaml` beside them): per mail, per field and overall, with the reading a
worker would do (the rules agent when no model is configured). `manage.py crm_score DIR`
is its entry point; nothing is stored."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from crm.card import lead_card_model, lead_read, lead_validators
from crm.models import InboundMessage
from crm.services import inbound_from_mail, lead_call_for

FIELDS = (
    "client_intent",
    "client_name",
    "product_class",
    "budget",
    "urgency_days",
    "needs_call_back",
    "phones",
    "emails",
)


@dataclass(frozen=True)
class FieldScore:
    field: str
    expected: Any
    read: Any
    right: bool


@dataclass
class MailScore:
    name: str
    fields: list[FieldScore] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # the semantic checks' complaints

    @property
    def wrong(self) -> list[FieldScore]:
        return [score for score in self.fields if not score.right]

    @property
    def fully_right(self) -> bool:
        return not self.wrong and not self.refused


def _card_values(card: Mapping[str, Any]) -> dict[str, Any]:
    amount = card.get("budget_amount", card.get("budget_rub"))
    currency = card.get("budget_currency", "RUB" if amount is not None else None)
    return {
        **card,
        "budget": None if amount is None else [int(amount), currency],
    }


def _same_name(expected: list[str | None], read: str | None) -> bool:
    folded = " ".join((read or "").split()).casefold() or None
    return any(folded == (name.casefold() if name else None) for name in expected)


def _right(name: str, expected: Any, read: Any) -> bool:
    if name == "client_name":
        return _same_name(expected if isinstance(expected, list) else [expected], read)
    if name in ("phones", "emails"):
        return sorted(expected or []) == sorted(read or [])
    return expected == read


def mail_score(path: Path, expected: Mapping[str, Any]) -> MailScore:
    inbound = inbound_from_mail(path.read_bytes(), source=path.name)
    message = InboundMessage(
        channel=inbound.channel, sender=inbound.sender, sender_name=inbound.sender_name,
        subject=inbound.subject, body_text=inbound.body_text, received_at=inbound.received_at,
        attachments=inbound.attachments,
    )  # fmt: skip
    call = lead_call_for(message)
    raw = lead_read(
        call.full_text, today=call.today, language=call.language, catalogue=call.catalogue,
        sender=call.sender, sender_name=call.sender_name, attachment_names=call.attachment_names,
    )  # fmt: skip
    card = lead_card_model(call.catalogue).model_validate(raw)
    refused = [f"{e.path}: {e.message}" for e in lead_validators(call)(card, {})]
    values = _card_values(card.model_dump())
    score = MailScore(name=path.name, refused=refused)
    for name in FIELDS:
        score.fields.append(
            FieldScore(name, expected.get(name), values.get(name),
                       _right(name, expected.get(name), values.get(name)))
        )  # fmt: skip
    return score


def folder_score(folder: Path) -> list[MailScore]:
    expected_path = folder / "expected.yaml"
    with expected_path.open(encoding="utf-8") as handle:
        expected = yaml.safe_load(handle)
    if not isinstance(expected, Mapping):
        raise ValueError(f"{expected_path}: a mapping of file name to expected card is needed")
    missing = [name for name in expected if not (folder / name).is_file()]
    if missing:
        raise ValueError(f"{expected_path}: no such mail: {', '.join(missing)}")
    return [mail_score(folder / name, expected[name]) for name in sorted(expected)]


def score_line(scores: list[MailScore]) -> str:
    right = sum(s.fully_right for s in scores)
    fields = [f for s in scores for f in s.fields]
    good = sum(f.right for f in fields)
    share = 100 * good / len(fields) if fields else 0.0
    return f"{right}/{len(scores)} messages fully right; fields {good}/{len(fields)} ({share:.0f}%)"
