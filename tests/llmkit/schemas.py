"""Answer schemas used across the llmkit tests (the lead card of the dealer case)."""

from typing import Literal

from pydantic import Field

from llmkit.fields import EmailAddress, PhoneE164, StructuredModel


class LeadCard(StructuredModel):
    client_intent: Literal["purchase", "service", "info", "complaint"] = Field(
        json_schema_extra={"x-synonyms": {"purchase": ["buy", "покупка", "купить"]}}
    )
    product_class: str | None = None
    budget_rub: int | None = None
    urgency_days: int | None = Field(default=None, ge=1, le=90)
    needs_call_back: bool = False
    phones: list[PhoneE164] = []
    emails: list[EmailAddress] = []
    summary: str = Field(default="", max_length=200)
