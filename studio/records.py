"""What a client did before, as the apps that hold it tell studio: its memory and the
`client_history` tool read earlier briefings (the briefing app) and leads (the CRM) through
readers those apps register when Django starts, so studio imports neither of them."""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class PastBriefing:
    """A completed briefing, as memory reads it."""

    pk: int
    title: str
    profile: Mapping[str, Any]
    completed_at: datetime.datetime | None
    created_at: datetime.datetime


@dataclass(frozen=True)
class PastLead:
    """A lead, as memory reads it."""

    pk: int
    summary: str
    product_class: str
    client_intent: str
    budget_amount: int | None
    budget_currency: str  # ISO 4217, "" when the client named none
    created_at: datetime.datetime
    emails: tuple[str, ...]
    phones: tuple[str, ...]


class BriefingRecords(Protocol):
    def completed(self) -> Iterable[PastBriefing]:
        """Every completed briefing, oldest first."""

    def completed_of(
        self, *, company: str, contact: str, exclude: int | None, limit: int
    ) -> list[PastBriefing]:
        """The client's completed briefings, newest first: the company case-insensitively
        (in any script) or the very contact."""

    def client_erase(
        self, *, company: str, contact: str, actor: Any = None
    ) -> tuple[int, set[str]]:
        """Erase the client with this company or contact (compared as memory keys) from every
        briefing of theirs, whatever its status, leaving a record of the erasure; returns how
        many briefings were erased and every memory key their client was known by."""


class LeadRecords(Protocol):
    def all(self) -> Iterable[PastLead]:
        """Every lead, oldest first."""

    def with_contact(self, contact: str, *, limit: int) -> list[PastLead]:
        """The leads naming this e-mail or phone exactly, the latest first."""


class _NoBriefings:
    def completed(self) -> Iterable[PastBriefing]:
        return ()

    def completed_of(
        self, *, company: str, contact: str, exclude: int | None, limit: int
    ) -> list[PastBriefing]:
        return []

    def client_erase(
        self, *, company: str, contact: str, actor: Any = None
    ) -> tuple[int, set[str]]:
        return 0, set()  # no briefing app: no briefings to erase the client from


class _NoLeads:
    def all(self) -> Iterable[PastLead]:
        return ()

    def with_contact(self, contact: str, *, limit: int) -> list[PastLead]:
        return []


_records: dict[str, Any] = {"briefings": _NoBriefings(), "leads": _NoLeads()}


def records_register(
    *, briefings: BriefingRecords | None = None, leads: LeadRecords | None = None
) -> None:
    """Called from an app's `ready()`: where studio reads earlier briefings or leads."""
    if briefings is not None:
        _records["briefings"] = briefings
    if leads is not None:
        _records["leads"] = leads


def past_briefings() -> BriefingRecords:
    return _records["briefings"]


def past_leads() -> LeadRecords:
    return _records["leads"]
