"""What the API reads and writes. Everything shown is stored data; nothing is computed from
a model's narration."""

from __future__ import annotations

from django.core.validators import ProhibitNullCharactersValidator, RegexValidator
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from briefing.models import LANGUAGE_CHOICES, BriefingEvent, Project, StageRun, Turn
from briefing.services import MAX_CLIENT_TEXT
from briefing.stages.registry import BRIEFING_TYPES
from core.input import date_problem, id_problem
from crm.models import Lead
from dlq.models import DeadLetter

# Something besides spaces (the schema says so as a pattern, so clients know before sending).
NOT_BLANK = RegexValidator(r"\S", "must not be blank")


class TextField(serializers.CharField):
    """Text only: a number or a boolean where text belongs is an error, not coerced. NUL
    characters are dropped, as the services drop them (no database text column holds one)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.validators = [
            v for v in self.validators if not isinstance(v, ProhibitNullCharactersValidator)
        ]

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data.replace("\x00", ""))


class IdField(TextField):
    """Another system's identifier: text without control characters (refused, not dropped:
    "c\\u00001" must not become "c1" and overwrite another record)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        # The schema's pattern (read by drf-spectacular, beside maxLength); the check itself
        # is made before TextField drops NULs.
        self.validators.append(RegexValidator(r"^[^\x00-\x1f\x7f]*$", "control characters"))

    def to_internal_value(self, data):
        if isinstance(data, str) and id_problem(data):
            raise serializers.ValidationError(id_problem(data))
        return super().to_internal_value(data)


@extend_schema_field(
    {"type": "string", "format": "date", "pattern": "^(19[7-9][0-9]|20[0-9][0-9]|2100)-"}
)
class SaneDateField(serializers.DateField):
    """A date a person means: 1970-2100 (core.input.date_problem)."""

    def to_internal_value(self, value):
        parsed = super().to_internal_value(value)
        if date_problem(parsed):
            raise serializers.ValidationError(date_problem(parsed))
        return parsed


class BriefingSerializer(serializers.ModelSerializer):
    class Meta:
        model = Project
        fields = [
            "id", "title", "client_name", "client_contact", "briefing_type", "language",
            "status", "created_at", "updated_at", "completed_at",
        ]  # fmt: skip
        read_only_fields = ["status", "created_at", "updated_at", "completed_at"]


class BriefingCreateSerializer(serializers.Serializer):
    title = TextField(max_length=200, validators=[NOT_BLANK])
    client_name = TextField(max_length=200, required=False, allow_blank=True)
    client_contact = TextField(max_length=200, required=False, allow_blank=True)
    language = serializers.ChoiceField(choices=LANGUAGE_CHOICES, default="ru")
    briefing_type = serializers.ChoiceField(choices=sorted(BRIEFING_TYPES), default="production")


class MessageCreateSerializer(serializers.Serializer):
    text = TextField(max_length=MAX_CLIENT_TEXT, trim_whitespace=False, validators=[NOT_BLANK])


class TurnSerializer(serializers.ModelSerializer):
    class Meta:
        model = Turn
        fields = ["id", "seq", "role", "text", "stage_key", "status", "created_at", "reply_to"]


class StageSerializer(serializers.ModelSerializer):
    class Meta:
        model = StageRun
        fields = ["key", "order", "status", "fields", "summary", "closed_by", "closed_at"]


class EventSerializer(serializers.ModelSerializer):
    class Meta:
        model = BriefingEvent
        fields = ["id", "kind", "stage_key", "turn", "data", "created_at"]


class EventPageSerializer(serializers.Serializer):
    results = EventSerializer(many=True)
    next_after = serializers.IntegerField(help_text="Pass as ?after= to get what comes next")
    has_more = serializers.BooleanField()


class BriefSummarySerializer(serializers.ModelSerializer):
    class Meta:
        model = Project
        fields = ["id", "title", "client_name", "language", "completed_at"]


class BriefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    title = serializers.CharField()
    completed_at = serializers.DateTimeField()
    brief = serializers.JSONField(help_text="Valid against the Brief JSON Schema")
    summary_markdown = serializers.CharField()
    schema = serializers.URLField()


class LeadSerializer(serializers.ModelSerializer):
    class Meta:
        model = Lead
        fields = [
            "id", "status", "channel", "client_name", "language", "client_intent",
            "product_class", "budget_amount", "budget_currency", "urgency_days",
            "needs_call_back", "phones", "emails", "summary", "created_at", "last_message_at",
            "project",
        ]  # fmt: skip


class DeadLetterSerializer(serializers.ModelSerializer):
    class Meta:
        model = DeadLetter
        fields = [
            "id", "created_at", "status", "source_kind", "source_id", "schema_name",
            "provider", "model", "error_signature", "errors", "raw_input", "raw_responses",
            "resolved_at", "replay_of",
        ]  # fmt: skip
