"""An inbound message as a dead letter's source: a manager's fix or a replay reads it into a
lead card, once."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.urls import reverse
from django.utils.translation import gettext_lazy as _lazy

from core.errors import ApplicationError, ErrorCode
from crm.card import lead_validators
from crm.models import InboundMessage
from crm.services import lead_call_for, message_answer_apply, message_replay
from dlq.fix_form import AnswerForm
from dlq.models import DeadLetter
from dlq.sources import ReplaySettle, SourceLink
from llmkit.parse import ParseOutcome, parse


def _message(letter: DeadLetter) -> InboundMessage:
    message = (
        InboundMessage.objects.filter(pk=letter.source_id).first()
        if letter.source_id.isdigit()
        else None
    )
    if message is None:
        raise ApplicationError(
            "the inbound message of this dead letter no longer exists", code=ErrorCode.NOT_FOUND
        )
    return message


class InboundMessageSource:
    label = _lazy("inbound message")

    def link(self, letter: DeadLetter) -> SourceLink | None:
        try:
            message = _message(letter)
        except ApplicationError:
            return None
        return SourceLink(str(message), reverse("crm:message_detail", args=[message.pk]))

    def links(self, letters: Sequence[DeadLetter]) -> dict[int, SourceLink]:
        """A page of letters' messages in one query."""
        ids = {int(letter.source_id) for letter in letters if letter.source_id.isdigit()}
        messages = InboundMessage.objects.in_bulk(ids)
        return {
            letter.pk: SourceLink(str(message), reverse("crm:message_detail", args=[message.pk]))
            for letter in letters
            if letter.source_id.isdigit()
            and (message := messages.get(int(letter.source_id))) is not None
        }

    def answer_form(self, letter: DeadLetter) -> AnswerForm:
        """The lead card under the labels the lead's page uses, its intent and product chosen
        from the lead type's by their names."""
        from crm.card import lead_card_model
        from crm.views import CARD_FIELDS

        catalogue = lead_call_for(_message(letter)).catalogue
        return AnswerForm(
            model=lead_card_model(catalogue),
            labels={name: str(label) for name, label in CARD_FIELDS},
            choice_labels={
                "client_intent": dict(catalogue.intent_choices()),
                "product_class": dict(catalogue.product_choices()),
            },
        )

    def answer_check(self, letter: DeadLetter, raw: str) -> ParseOutcome:
        from crm.card import lead_card_model

        call = lead_call_for(_message(letter))
        target = lead_card_model(call.catalogue)  # today's lead type, as a replay reads
        return parse(raw, target, validators=[lead_validators(call)])

    def answer_apply(self, letter: DeadLetter, outcome: ParseOutcome, call: Any) -> None:
        message_answer_apply(message=_message(letter), card=outcome.value)

    def replay(self, letter: DeadLetter, settle: ReplaySettle) -> None:
        message_replay(message=_message(letter), settle=settle)
