"""The weekly parse-quality digest for managers: built from the recorded calls and dead
letters, rendered as plain text, and e-mailed to the Managers group."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from django.conf import settings
from django.core.mail import EmailMessage, get_connection
from django.db.models import Count, Max
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from dlq.error_labels import error_label
from dlq.managers import manager_addresses
from dlq.models import DeadLetter
from dlq.selectors import OUTCOMES, local_day_start, parse_quality

TOP_SIGNATURES = 5
SNIPPET_CHARS = 200
# Translated when the digest is written (gettext_noop only marks it for makemessages).
REWRITE_ADVICE = gettext_noop("rewrite the prompt rather than patch it")


def _retry_share_alert() -> float:
    return float(getattr(settings, "DLQ_RETRY_SHARE_ALERT", 0.2))


def _snippet(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= SNIPPET_CHARS else text[: SNIPPET_CHARS - 1] + "…"


def _example(letter: DeadLetter) -> dict[str, str]:
    raw = letter.raw_responses[-1] if letter.raw_responses else ""
    error = letter.errors[0] if letter.errors else {}
    message = error.get("message", "") if isinstance(error, dict) else str(error)
    path = error.get("path", "") if isinstance(error, dict) else ""
    return {
        "raw_response": _snippet(raw),
        "error_message": f"{path}: {message}" if path else message,
        # What the office reads; the message above is the pipeline's own (English) wording.
        "error_label": error_label(error),
    }


def weekly_digest_build(*, week_ending: date) -> dict[str, Any]:
    """The figures of the seven days ending with `week_ending` (inclusive, local time)."""
    week_start = week_ending - timedelta(days=6)
    since = local_day_start(week_start)
    until = local_day_start(week_ending + timedelta(days=1))
    quality = parse_quality(since=since, until=until)

    letters = DeadLetter.objects.filter(created_at__gte=since, created_at__lt=until).order_by()
    top = list(
        letters.values("error_signature")
        .annotate(count=Count("id"), newest=Max("created_at"))
        .order_by("-count", "-newest", "error_signature")[:TOP_SIGNATURES]
    )
    signatures = []
    for group in top:
        example = (
            letters.filter(error_signature=group["error_signature"])
            .order_by("-created_at", "-id")
            .first()
        )
        signatures.append(
            {
                "error_signature": group["error_signature"],
                "count": group["count"],
                "example": _example(example),
            }
        )

    threshold = _retry_share_alert()
    retry_per_schema = {
        name: {"total": row["total"], "retry_share": row["retry_share"]}
        for name, row in quality["per_schema"].items()
    }
    retry_per_provider = {
        name: {"total": row["total"], "retry_share": row["retry_share"]}
        for name, row in quality["per_provider"].items()
    }
    alerts = [
        {"schema_name": name, "retry_share": row["retry_share"], "advice": REWRITE_ADVICE}
        for name, row in sorted(retry_per_schema.items(), key=lambda kv: -kv[1]["retry_share"])
        if row["retry_share"] > threshold
    ]
    return {
        "week_start": week_start,
        "week_ending": week_ending,
        "total": quality["total"],
        "outcomes": quality["outcomes"],
        "retry_share": quality["retry_share"],
        "top_signatures": signatures,
        "retry_per_schema": retry_per_schema,
        "retry_per_provider": retry_per_provider,
        "retry_share_alert": threshold,
        "alerts": alerts,
    }


def _percent(share: float) -> str:
    return f"{share * 100:.1f}%"


def render_digest_text(digest: dict[str, Any]) -> str:
    """The digest as a plain-text e-mail body, in the active language."""
    week = {"start": f"{digest['week_start']:%Y-%m-%d}", "end": f"{digest['week_ending']:%Y-%m-%d}"}
    lines = [
        _("Parse quality, %(start)s to %(end)s") % week,
        "",
        _("Structured calls: %(total)s") % {"total": digest["total"]},
    ]
    for outcome in OUTCOMES:
        figures = digest["outcomes"][outcome]
        lines.append(f"  {outcome}: {figures['count']} ({_percent(figures['share'])})")
    lines.append(_("Retry share: %(share)s") % {"share": _percent(digest["retry_share"])})

    lines += ["", _("Top error signatures:")]
    if not digest["top_signatures"]:
        lines.append("  " + _("none"))
    for group in digest["top_signatures"]:
        lines.append(f"  {group['count']} × {group['error_signature']}")
        example = group["example"]
        lines.append("    " + _("error: %(text)s") % {"text": example["error_label"]})
        lines.append("    " + _("technical detail: %(text)s") % {"text": example["error_message"]})
        lines.append("    " + _("answer: %(text)s") % {"text": group["example"]["raw_response"]})

    for title, key in (
        (_("Retry share per schema:"), "retry_per_schema"),
        (_("Retry share per provider:"), "retry_per_provider"),
    ):
        lines += ["", title]
        if not digest[key]:
            lines.append("  " + _("none"))
        for name, row in digest[key].items():
            share = {"share": _percent(row["retry_share"]), "total": row["total"]}
            lines.append(f"  {name or '-'}: " + _("%(share)s of %(total)s") % share)

    alert = {"share": _percent(digest["retry_share_alert"])}
    lines += ["", _("Schemas retried more than %(share)s of calls:") % alert]
    if not digest["alerts"]:
        lines.append("  " + _("none"))
    for alert in digest["alerts"]:
        lines.append(
            f"  {alert['schema_name']}: {_percent(alert['retry_share'])}: {_(alert['advice'])}"
        )
    return "\n".join(lines) + "\n"


def weekly_digest_send(*, week_ending: date) -> int:
    """E-mail the digest to every active manager with an address; returns how many were sent."""
    recipients = manager_addresses()
    if not recipients:
        return 0
    # Written in the back office's language (LANGUAGE_CODE): no request says a manager's.
    with translation.override(settings.LANGUAGE_CODE):
        body = render_digest_text(weekly_digest_build(week_ending=week_ending))
        subject = _("Parse quality digest, week ending %(date)s") % {
            "date": f"{week_ending:%Y-%m-%d}"
        }
    # One message per manager: no manager sees the others' addresses.
    messages = [
        EmailMessage(subject=subject, body=body, from_email=settings.DEFAULT_FROM_EMAIL, to=[to])
        for to in recipients
    ]
    return get_connection().send_messages(messages) or 0
