"""Property-based fuzzing of the REST API against its own generated OpenAPI schema
(schemathesis): for generated requests, valid and not, no 500s and every response matches
the schema (status code documented, body of the documented shape)."""

from __future__ import annotations

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from django.utils import timezone
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from api.models import SCOPES, ApiToken
from briefing.services import project_create
from crm.services import Inbound, inbound_store
from dlq.models import DeadLetter

schema = schemathesis.openapi.from_wsgi("/api/v1/schema/?format=json", get_wsgi_application())


@pytest.fixture(autouse=True)
def keep_the_test_connection():
    """The WSGI handler closes the database connection when a request ends; in a test that
    is the connection holding the test's transaction (Django's test client disconnects
    the same signal handlers)."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def token(db, django_capture_on_commit_callbacks) -> str:
    """A token with every scope, and an object of each kind for it to find."""
    api_token = ApiToken(name="fuzz", scopes=list(SCOPES))
    secret = api_token.issue()
    api_token.save()
    project = project_create(title="Fuzzed", language="ru")
    api_token.projects.create(project=project)
    with django_capture_on_commit_callbacks(execute=True):
        inbound_store(
            Inbound(channel="form", body_text="Куплю седан, +7 916 123-45-67",
                    received_at=timezone.now())
        )  # fmt: skip
    DeadLetter.objects.create(schema_name="LeadCard", error_signature="$: no_json")
    return secret


@pytest.mark.filterwarnings("ignore")
@schema.parametrize()
@settings(
    # The suite's profile replays the same examples every run (a landing must not depend on
    # luck); HYPOTHESIS_PROFILE=explore draws new ones. One request through the whole stack:
    max_examples=50,
    deadline=5_000,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_the_api_keeps_its_schema(case, token):
    # Given to the call, so the auth checks know it and try the request without it too.
    excluded = [positive_data_acceptance] if _ends_before_it_starts(case) else []
    case.call_and_validate(headers={"Authorization": f"Bearer {token}"}, excluded_checks=excluded)


def _ends_before_it_starts(case) -> bool:
    """A calendar period ending before it starts is valid for the schema (OpenAPI cannot say
    "after another field") and rightly refused by the API; only such a body skips the check
    that schema-valid data is accepted."""
    body = case.body if isinstance(case.body, dict) else {}
    ends, starts = body.get("ends_on"), body.get("starts_on")
    return (
        case.method == "POST"
        and case.path == "/api/v1/studio/calendar/"
        and isinstance(ends, str)
        and isinstance(starts, str)
        and ends < starts  # ISO dates compare as text
    )
