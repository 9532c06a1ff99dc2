"""The quality page's figures about turns, tools and the providers' caches, computed from
known rows; and dead-letter replays and CRM lead readings going through the model pools
like client turns, recorded under their pool."""

from __future__ import annotations

import json
import re
from datetime import date

import pytest
from django.urls import reverse
from django.utils import timezone

from briefing.models import BriefingEvent, Project, Turn
from briefing.services import project_create, turn_receive
from crm.models import InboundMessage
from crm.selectors import SOURCE_KIND as LEAD_SOURCE
from crm.services import Inbound, inbound_store
from dlq.models import DeadLetter, StructuredCall
from dlq.rollups import call_rollups_fold
from dlq.services import dead_letter_replay_request, llm_chain, llm_pools
from tests.briefing.conftest import FIXED_INTRO
from tests.dlq.test_selectors import at, make_call
from tests.llmkit.wire_servers import JsonReply, WireServer, openai_completion

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.dlq.urls")]

MONDAY = date(2025, 3, 10)
TUESDAY = date(2025, 3, 11)
RANGE = {"since": "2025-03-10", "until": "2025-03-10"}
PATH = "/v1/chat/completions"
Kind = BriefingEvent.Kind


# --- the figures ----------------------------------------------------------------------------


def _turn(project, seq: int, *, day: date = MONDAY, **fields) -> Turn:
    fields = {"role": Turn.Role.CLIENT, "status": Turn.Status.DONE, "text": "…", **fields}
    turn = Turn.objects.create(project=project, seq=seq, **fields)
    Turn.objects.filter(pk=turn.pk).update(created_at=at(day, 9 + seq))
    return turn


def _tool_called(turn: Turn, *, cached: bool) -> None:
    BriefingEvent.objects.create(
        project=turn.project, turn=turn, kind=Kind.TOOL_CALLED, stage_key="budget",
        data={"name": "rate_card_quote", "arguments": {}, "size": 120, "cached": cached,
              "truncated": False, "shown": None, "total": None, "error": "", "via": "model"},
    )  # fmt: skip


def _route(calls: int, pool: str = "fast") -> dict:
    return {"route": {"pool": pool, "complexity": "simple", "reasons": ["complexity:simple"],
                      "max_calls": 4, "max_output_tokens": 1200, "calls": calls,
                      "output_tokens": 100 * calls, "capped": None}}  # fmt: skip


@pytest.fixture
def known_rows(producer):
    """Monday's client messages: five processed, with 2, 3, 4 and 6 model calls as routed
    and one the guard answered (no route: no model call); tool calls on two of them, one of
    the three answered from the message's cache. Calls of three providers and pools, one of
    the one chain, the rules agent's and two without reported usage; half of them already
    folded into the rollups."""
    project = project_create(title="Promo", language="ru", producer=producer)
    with_tools = _turn(project, 1, meta=_route(3))
    _tool_called(with_tools, cached=False)
    _tool_called(with_tools, cached=True)
    other = _turn(project, 2, meta=_route(4, "strong"))
    _tool_called(other, cached=False)
    _turn(project, 3, meta=_route(2))
    _turn(project, 4, meta=_route(6), status=Turn.Status.FAILED)
    _turn(project, 5, meta={"guard": "prompt_extraction"})
    # Not counted: the agent's reply, a message not processed yet, and Tuesday's message.
    _turn(project, 6, role=Turn.Role.AGENT, meta=_route(9))
    _turn(project, 7, status=Turn.Status.RECEIVED, meta=_route(9))
    late = _turn(project, 8, day=TUESDAY, meta=_route(9))
    _tool_called(late, cached=True)

    monday = at(MONDAY)
    fast = {"provider": "openai-fast", "pool": "fast", "created_at": monday}
    make_call(**fast, prompt_tokens=1000, cached_tokens=400, completion_tokens=50)
    make_call(**fast, schema_name="BriefCard", prompt_tokens=1000, cached_tokens=200)
    make_call(created_at=monday, provider="gigachat-max", pool="strong", prompt_tokens=500,
              cached_tokens=500)  # fmt: skip
    call_rollups_fold()
    # A stream closed before its usage: priced from our estimate, no tokens reported.
    make_call(**fast, cost_estimated=True, prompt_tokens_estimate=900)
    make_call(created_at=monday, provider="openai", cost_estimated=True,
              prompt_tokens_estimate=700)  # fmt: skip
    make_call(created_at=monday, provider="rules", pool="fast", prompt_tokens_estimate=800)
    make_call(created_at=at(TUESDAY), provider="openai-fast", pool="fast", prompt_tokens=1000)


def _figure(page: str, key: str) -> str:
    match = re.search(rf'<dd id="figure-{key}">([^<]*)</dd>', page)
    assert match, f"no figure {key}"
    return match.group(1).strip()


def _table(page: str, table_id: str) -> list[list[str]]:
    match = re.search(rf'<table id="{table_id}">(.*?)</table>', page, re.S)
    assert match, f"no table {table_id}"
    rows = re.findall(r"<tr>(.*?)</tr>", match.group(1), re.S)
    return [
        [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<t[hd][^>]*>.*?</t[hd]>", r)]
        for r in rows
    ]


def test_the_page_shows_the_turn_tool_and_cache_figures_of_the_known_rows(
    manager_client, known_rows
):
    page = manager_client.get(reverse("dlq:quality"), RANGE).content.decode()
    # Calls per processed client message: 0 (the guard's), 2, 3, 4, 6 → the median is 3.
    assert _figure(page, "turn_calls_median") == "3"
    # Three of the five messages called no tool.
    assert _figure(page, "turns_without_tools") == "60.0% (3 of 5)"
    # One of Monday's three tool calls came from the message's cache.
    assert _figure(page, "tool_cache_hits") == "33.3% (1 of 3)"
    assert _table(page, "cached-input-tokens") == [
        ["provider", "pool", "calls", "calls without reported usage", "input tokens",
         "cached input tokens", "cached share"],
        ["gigachat-max", "strong", "1", "0", "500", "500", "100.0%"],
        ["openai", "one chain", "1", "1", "0", "0", "–"],
        ["openai-fast", "fast", "3", "1", "2000", "600", "30.0%"],
    ]  # fmt: skip


def test_the_htmx_part_and_the_json_carry_the_same_figures(manager_client, known_rows):
    part = manager_client.get(reverse("dlq:quality"), RANGE, HTTP_HX_REQUEST="true")
    part = part.content.decode()
    assert "<html" not in part
    assert _figure(part, "turn_calls_median") == "3"
    body = manager_client.get(reverse("dlq:quality_json"), RANGE).json()
    assert body["turns"] == {
        "turns": 5, "calls_median": 3, "without_tools": 3, "without_tools_share": 0.6,
        "tool_calls": 3, "tool_cache_hits": 1, "tool_cache_hit_share": pytest.approx(1 / 3),
    }  # fmt: skip
    assert body["cached_input"][-1] == {
        "provider": "openai-fast", "pool": "fast", "calls": 3, "calls_without_usage": 1,
        "prompt_tokens": 2000, "cached_tokens": 600, "cached_share": 0.3,
    }  # fmt: skip


def test_an_even_number_of_turns_has_the_middle_two_as_median(manager_client, producer):
    project = project_create(title="Promo", language="ru", producer=producer)
    _turn(project, 1, meta=_route(2))
    _turn(project, 2, meta=_route(3))
    page = manager_client.get(reverse("dlq:quality"), RANGE).content.decode()
    assert _figure(page, "turn_calls_median") == "2.5"
    assert _figure(page, "tool_cache_hits") == "–"


# --- replays and lead readings through the pools --------------------------------------------


@pytest.fixture
def pools(monkeypatch, settings):
    """fast = the first server then the rules agent; strong = the second, then rules; the
    one chain (LLM_PROVIDERS) is the rules agent. Level 1 is the shipped classifier."""
    with WireServer() as fast, WireServer() as strong:
        for name, server in (("FAST", fast), ("STRONG", strong)):
            monkeypatch.setenv(f"OPENAI_{name}_BASE_URL", server.url("/v1"))
            monkeypatch.setenv(f"OPENAI_{name}_MODEL", f"model-{name.lower()}")
        monkeypatch.setenv("LLM_PROVIDERS", "rules")
        monkeypatch.setenv("LLM_BREAKER_FAILURES", "1000")
        monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
        settings.LLM_POOLS = "fast=openai-fast,rules; strong=openai-strong,rules"
        settings.LLM_LEVEL1_MODEL = False
        settings.LLM_STREAM = False
        llm_chain.cache_clear()
        llm_pools.cache_clear()
        yield fast, strong
    llm_pools.cache_clear()
    llm_chain.cache_clear()


def _answers(server: WireServer, *answers) -> None:
    server.route(
        PATH,
        *(
            JsonReply(openai_completion(a if isinstance(a, str) else json.dumps(a)))
            for a in answers
        ),
    )


@pytest.fixture
def dead_lettered(producer, django_capture_on_commit_callbacks):
    """A client turn whose pool's model answered prose twice: (turn, its dead letter)."""

    def make(server: WireServer, **project_fields):
        project = project_create(title="Promo", language="ru", producer=producer)
        if project_fields:
            Project.objects.filter(pk=project.pk).update(**project_fields)
        _answers(server, "I am not sure what you mean.")
        with django_capture_on_commit_callbacks(execute=True):
            turn = turn_receive(project=project, text="Анна, +7 916 123-45-67, нужен ролик")
        turn.refresh_from_db()
        assert turn.status == Turn.Status.FAILED
        return turn, DeadLetter.objects.get(source_id=str(turn.pk))

    return make


def _replay(letter: DeadLetter, user, capture) -> DeadLetter:
    with capture(execute=True):
        dead_letter_replay_request(dead_letter=letter, user=user)
    letter.refresh_from_db()
    return letter


def _replayed_call(letter: DeadLetter) -> StructuredCall:
    """The call the replay made (a closed stage's next question follows it, by code)."""
    return StructuredCall.objects.get(pk=letter.actions.get(kind="replayed").data["call"])


def _last_call(source_kind: str, source_id: int) -> StructuredCall:
    return StructuredCall.objects.filter(source_kind=source_kind, source_id=str(source_id)).latest(
        "id"
    )


def test_a_replay_goes_to_the_pool_of_the_turns_route(
    pools, dead_lettered, manager, django_capture_on_commit_callbacks
):
    fast, strong = pools
    turn, letter = dead_lettered(fast)
    sent_before = len(fast.requests_to(PATH))
    _answers(fast, FIXED_INTRO)
    letter = _replay(letter, manager, django_capture_on_commit_callbacks)
    assert letter.status == DeadLetter.Status.REPLAYED
    assert letter.actions.get(kind="replayed").data["applied"] is True
    call = _replayed_call(letter)
    assert (call.source_kind, call.source_id) == ("briefing_turn", str(turn.pk))
    assert call.pk != letter.call_id
    assert (call.pool, call.provider, call.session) == (
        "fast",
        "openai-fast",
        f"briefing:{turn.project_id}",
    )
    assert len(fast.requests_to(PATH)) == sent_before + 1
    assert strong.requests == []
    turn.refresh_from_db()
    assert turn.status == Turn.Status.DONE
    assert turn.meta["route"]["pool"] == "fast"


def test_a_replay_of_a_briefing_on_the_strong_model_goes_to_the_strong_pool(
    pools, dead_lettered, manager, django_capture_on_commit_callbacks
):
    fast, strong = pools
    turn, letter = dead_lettered(strong, strong_model=True)
    _answers(strong, FIXED_INTRO)
    letter = _replay(letter, manager, django_capture_on_commit_callbacks)
    call = _replayed_call(letter)
    assert (letter.status, call.source_id, call.pool, call.provider) == (
        DeadLetter.Status.REPLAYED,
        str(turn.pk),
        "strong",
        "openai-strong",
    )
    assert fast.requests == []


CARD = {
    "client_intent": "new_project",
    "product_class": "video",
    "budget_amount": 3_000_000,
    "budget_currency": "RUB",
    "urgency_days": None,
    "needs_call_back": True,
    "phones": ["+79161234567"],
    "emails": [],
    "summary": "Wants a promo video for 3 mln",
}
PURCHASE = "Нужен промо-ролик, бюджет 3 млн рублей. Перезвоните: +7 916 123-45-67. Иван"


def _receive(text: str, capture) -> InboundMessage:
    with capture(execute=True):
        message, _ = inbound_store(
            Inbound(body_text=text, channel=InboundMessage.Channel.FORM, received_at=timezone.now())
        )
    message.refresh_from_db()
    return message


def test_a_lead_reading_and_its_replay_go_to_the_simple_routes_pool(
    pools, manager, django_capture_on_commit_callbacks
):
    fast, strong = pools
    _answers(fast, CARD)
    message = _receive(PURCHASE, django_capture_on_commit_callbacks)
    assert message.status == InboundMessage.Status.LEAD
    call = _last_call(LEAD_SOURCE, message.pk)
    assert (call.pool, call.provider) == ("fast", "openai-fast")
    assert len(fast.requests_to(PATH)) == 1

    _answers(fast, "Sure! The client wants a video.")
    failed = _receive("Хотим ролик про кофе, бюджет 2 млн", django_capture_on_commit_callbacks)
    assert failed.status == InboundMessage.Status.DEAD_LETTERED
    letter = DeadLetter.objects.get(source_kind=LEAD_SOURCE, source_id=str(failed.pk))
    assert (letter.call.pool, letter.provider) == ("fast", "openai-fast")
    _answers(
        fast,
        {
            **CARD,
            "budget_amount": 2_000_000,
            "budget_currency": "RUB",
            "needs_call_back": False,
            "phones": [],
        },
    )
    letter = _replay(letter, manager, django_capture_on_commit_callbacks)
    assert letter.status == DeadLetter.Status.REPLAYED
    replayed = _replayed_call(letter)
    assert (replayed.pool, replayed.provider) == ("fast", "openai-fast")
    assert strong.requests == []
