"""Pydantic models of the three answer shapes the benchmark corpus asks the model for.

Keys that carry the point of the answer (`client_intent`, `summary`, `message`) are
required; keys with a natural "nothing yet" value (null, [], false, "") default to it, so a
model that leaves out an empty field is not failed for it, while a wrong type or an
out-of-range value still is. Extra keys are ignored: small models add them freely and they
carry nothing the platform reads.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from llmkit.fields import EmailAddress, PhoneE164, StructuredModel

# The answer schemas use llmkit's field types, as the apps do: phones must be E.164 (the
# pipeline's normaliser turns "8 (916) 123-45-67" into "+79161234567" before validation)
# and e-mails are checked with a deliberately loose pattern.
_Answer = StructuredModel


class LeadCard(_Answer):
    """CRM card extracted from one inbound customer message."""

    client_intent: Literal["purchase", "service", "info", "complaint"]
    product_class: str | None = None
    budget_rub: int | None = Field(default=None, ge=0)
    urgency_days: int | None = Field(default=None, ge=1, le=90)
    needs_call_back: bool = False
    phones: list[PhoneE164] = Field(default_factory=list)
    emails: list[EmailAddress] = Field(default_factory=list)
    summary: str = Field(max_length=200)


class ServiceStage(_Answer):
    """Output of the production-service stage of a briefing (exact keys from DESIGN.md)."""

    message: str
    # camelCase because that is the wire format the stage agents speak (DESIGN.md).
    contentType: str = ""
    goal: str = ""
    format: str = ""
    deliverables: list[str] = Field(default_factory=list)
    creativeSession: bool = False
    serviceStatus: bool = False


class BudgetStage(_Answer):
    """Output of the budget & timeline stage of a briefing."""

    message: str
    budget: int | None = Field(default=None, ge=0)
    currency: str | None = None
    deadline: str | None = None
    flexible: bool = False


SCHEMAS: dict[str, type[_Answer]] = {
    "lead": LeadCard,
    "service": ServiceStage,
    "budget": BudgetStage,
}
