"""Model pools end to end: two local OpenAI-compatible servers stand in for a fast and a
strong pool; level 1's model, the route each turn takes, the caps and the cost ledger."""

from __future__ import annotations

import itertools
import json
import threading
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone

from briefing.models import BriefingEvent, Turn
from briefing.services import takeover_release, takeover_start
from dlq.ledger import ledger_by_day_and_pool, ledger_by_pool, ledger_for_briefing
from dlq.models import ClassifierDisagreement, ModelPrice, StructuredCall
from dlq.services import llm_chain, llm_pools
from llmkit.level1_llm import SYSTEM_PROMPT
from studio.services import studio_demo_load
from tests.briefing.conftest import FIXED_INTRO
from tests.llmkit.wire_servers import JsonReply, WireServer, openai_completion

pytestmark = pytest.mark.django_db

PATH = "/v1/chat/completions"
ASK_NAME = {"message": "Как вас зовут и из какой вы компании?", "introStatus": False}


def _value(name: str, schema: dict[str, Any]) -> Any:
    """A value every validator takes for one property of a stage's answer schema."""
    options = [o for o in schema.get("anyOf", [schema]) if o.get("type") != "null"]
    option = options[0]
    if "enum" in option:
        return option["enum"][0]
    kind = option.get("type")
    if kind == "boolean":
        return True
    if kind == "integer":
        return 7  # the client's message says 7
    if kind == "array":
        return ["ролик"]
    if name == "deadline":
        return "2027-03-15"
    if name == "contact":
        return "+79161234567"
    return "Зерно"


class Brain:
    """One server's model: answers level 1's prompt with the verdict a test set for the
    message, and a stage prompt with `stage_answer` (a dict, or "complete" for an answer
    that fills every field and closes the stage). Every answer reports distinct usage."""

    def __init__(self, server: WireServer) -> None:
        self.server = server
        self.counter = itertools.count(1)
        self.verdicts: dict[str, dict[str, str]] = {}
        self.stage_answer: dict[str, Any] | str = ASK_NAME
        self.reported: list[tuple[int, int, int]] = []
        self._lock = threading.Lock()
        server.route(PATH, self)

    def send(self, handler: Any, server: WireServer) -> None:
        request = server.requests_to(PATH)[-1].json()
        system = request["messages"][0]["content"]
        if system == SYSTEM_PROMPT:
            text = request["messages"][1]["content"].split("<<<\n", 1)[1].rsplit("\n>>>", 1)[0]
            answer: Any = {
                "intent": "answer", "risk": "none", "language": "ru", "complexity": "simple",
                **self.verdicts.get(text, {}),
            }  # fmt: skip
        elif "tools" in request:  # a tool step: the model answers without calling a tool
            answer = ASK_NAME if self.stage_answer == "complete" else self.stage_answer
        elif self.stage_answer == "complete":
            schema = request["response_format"]["json_schema"]["schema"]
            answer = {name: _value(name, prop) for name, prop in schema["properties"].items()}
            answer["message"] = "Готово"
        else:
            answer = self.stage_answer
        n = next(self.counter)
        usage = (100 + n, 10 * (n % 3), 20 + n)  # prompt, cached, completion
        with self._lock:
            self.reported.append(usage)
        body = openai_completion(
            json.dumps(answer, ensure_ascii=False),
            model=f"model-{server.port}",
            prompt_tokens=usage[0],
            cached_tokens=usage[1],
            completion_tokens=usage[2],
        )
        JsonReply(body).send(handler, server)

    def stage_requests(self) -> list[dict[str, Any]]:
        return [
            r.json()
            for r in self.server.requests_to(PATH)
            if r.json()["messages"][0]["content"] != SYSTEM_PROMPT
        ]

    def level1_requests(self) -> list[dict[str, Any]]:
        return [
            r.json()
            for r in self.server.requests_to(PATH)
            if r.json()["messages"][0]["content"] == SYSTEM_PROMPT
        ]


@pytest.fixture
def pools(monkeypatch, settings):
    """fast = the first server then the rules agent; strong = the second, then rules."""
    with WireServer() as fast_server, WireServer() as strong_server:
        for name, server in (("FAST", fast_server), ("STRONG", strong_server)):
            monkeypatch.setenv(f"OPENAI_{name}_BASE_URL", server.url("/v1"))
            monkeypatch.setenv(f"OPENAI_{name}_MODEL", f"model-{server.port}")
        monkeypatch.setenv("LLM_BREAKER_FAILURES", "1000")
        monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
        settings.LLM_POOLS = "fast=openai-fast,rules; strong=openai-strong,rules"
        settings.LLM_STREAM = False
        llm_chain.cache_clear()
        llm_pools.cache_clear()
        ModelPrice.objects.create(
            provider="openai-fast", prompt_per_million=100, cached_per_million=10,
            completion_per_million=300,
        )  # fmt: skip
        ModelPrice.objects.create(
            provider="openai-strong", prompt_per_million=1000, cached_per_million=100,
            completion_per_million=3000,
        )  # fmt: skip
        yield Brain(fast_server), Brain(strong_server)
    llm_pools.cache_clear()
    llm_chain.cache_clear()


def route_of(turn: Turn) -> dict[str, Any]:
    return turn.meta["route"]


def test_a_simple_message_goes_to_the_fast_pool(project, say, pools):
    fast, strong = pools
    turn = say(project, "Здравствуйте, хотим ролик")
    assert route_of(turn)["pool"] == "fast"
    assert route_of(turn)["reasons"] == ["complexity:simple"]
    assert len(fast.level1_requests()) == 1  # level 1 asked the cheapest model
    assert len(fast.stage_requests()) == 1
    assert strong.server.requests == []
    # The reply is the fast model's question; level 1's verdict came from the model.
    assert turn.replies.get().text == ASK_NAME["message"]
    assert turn.meta["level1"]["source"] == "model"
    call = StructuredCall.objects.get(source_kind="briefing_turn", source_id=str(turn.pk))
    assert (call.pool, call.provider, call.session) == (
        "fast",
        "openai-fast",
        f"briefing:{project.pk}",
    )


def test_a_complex_message_goes_to_the_strong_pool(project, say, pools):
    fast, strong = pools
    text = "Нам нужен большой проект: ролик, три версии для соцсетей и съёмка в двух городах"
    fast.verdicts[text] = {"complexity": "complex"}
    turn = say(project, text)
    assert route_of(turn)["pool"] == "strong"
    assert route_of(turn)["max_calls"] == 8
    assert len(fast.level1_requests()) == 1
    assert fast.stage_requests() == []
    assert len(strong.stage_requests()) == 1


def test_a_complaint_is_escalated_to_the_strong_pool(
    project, producer, say, pools, django_capture_on_commit_callbacks
):
    """A complaint first waits for the producer (level 1 flags it); handed back to the
    agent, its stage call goes to the strong pool."""
    fast, strong = pools
    text = "Сколько можно спрашивать одно и то же"
    fast.verdicts[text] = {"intent": "complaint", "complexity": "simple"}
    turn = say(project, text)
    assert turn.status == Turn.Status.WAITING_PRODUCER
    takeover_start(project=project, user=producer)
    with django_capture_on_commit_callbacks(execute=True):
        takeover_release(project=project, user=producer)
    turn.refresh_from_db()
    assert route_of(turn)["pool"] == "strong"
    assert route_of(turn)["reasons"] == ["complexity:simple", "complaint"]
    assert len(strong.stage_requests()) == 1
    assert fast.stage_requests() == []


def test_the_producers_switch_sends_every_turn_to_the_strong_pool(project, say, pools):
    _, strong = pools
    project.strong_model = True
    project.save(update_fields=["strong_model"])
    turn = say(project, "Привет")
    assert route_of(turn)["pool"] == "strong"
    assert route_of(turn)["reasons"] == ["complexity:simple", "producer_switch"]
    assert len(strong.stage_requests()) == 1


def test_a_stage_that_failed_its_gate_twice_is_escalated(project, say, pools):
    fast, strong = pools
    fast.stage_answer = "not json at all"
    first = say(project, "Привет")
    second = say(project, "Ещё раз привет")
    assert route_of(first)["pool"] == route_of(second)["pool"] == "fast"
    assert first.status == second.status == Turn.Status.FAILED
    strong.stage_answer = ASK_NAME
    third = say(project, "Алло")
    assert route_of(third)["pool"] == "strong"
    assert "gate_failed_twice" in route_of(third)["reasons"]
    assert third.replies.get().text == ASK_NAME["message"]


def test_a_model_that_closes_every_stage_still_costs_one_stage_call_a_turn(project, say, pools):
    """A model that closes every stage it is asked about used to run the briefing on in one
    turn until the cap stopped it with the holding reply; the next stage's opening question
    is written by code now, so the turn makes one stage call and the client gets the next
    question."""
    fast, strong = pools
    fast.stage_answer = "complete"
    turn = say(project, "Анна, компания Зерно, +7 916 123-45-67, ролик 7 секунд")
    route = route_of(turn)
    assert route["max_calls"] == 4
    assert (route["calls"], route["capped"]) == (2, None)  # level 1, the intro's answer
    assert len(fast.stage_requests()) == 1
    assert not strong.server.requests
    assert not BriefingEvent.objects.filter(
        project=project, kind=BriefingEvent.Kind.TURN_CAPPED
    ).exists()
    closed = BriefingEvent.objects.filter(
        project=project, kind=BriefingEvent.Kind.STAGE_CLOSED, data__by="agent"
    )
    assert "intro" in closed.values_list("stage_key", flat=True)
    reply = turn.replies.order_by("seq").last()
    assert reply.stage_key != "intro"
    assert not reply.text.startswith("Спасибо! Мне нужно немного времени")


def test_with_studio_tools_a_turn_that_closes_a_stage_gets_the_next_question_in_its_cap(
    project, say, pools
):
    """Pools, the demo studio data (so the tools are offered) and a model that can call
    tools: level 1, the tool step and the stage answer fit the simple level's 4 calls, and
    the next stage's question is the reply (it used to be the holding reply)."""
    studio_demo_load(today=timezone.localdate())
    fast, _ = pools
    fast.stage_answer = FIXED_INTRO
    turn = say(project, "Анна из «Зерна», +7 916 123-45-67, нужен ролик")
    route = route_of(turn)
    # Level 1 and one stage request, which offered the tools: its answer in text was the
    # stage's answer, not thrown away and asked for again.
    assert (route["calls"], route["capped"], route["max_calls"]) == (2, None, 4)
    [asked] = fast.stage_requests()
    assert "tools" in asked
    call = StructuredCall.objects.get(
        source_kind="briefing_turn", source_id=str(turn.pk), provider="openai-fast"
    )
    assert call.outcome != "failed"
    assert call.prompt_tokens > 0  # the tool step's reported usage is in the ledger
    reply = turn.replies.order_by("seq").last()
    assert reply.stage_key == "vision"
    assert not reply.text.startswith("Спасибо! Мне нужно немного времени")
    assert not BriefingEvent.objects.filter(
        project=project, kind=BriefingEvent.Kind.TURN_CAPPED
    ).exists()


def test_a_tool_step_answer_that_does_not_validate_gets_one_retry_within_the_cap(
    project, say, pools
):
    studio_demo_load(today=timezone.localdate())
    fast, _ = pools
    fast.stage_answer = "not json"
    turn = say(project, "Анна из «Зерна», +7 916 123-45-67, нужен ролик")
    route = route_of(turn)
    assert (route["calls"], route["capped"]) == (3, None)  # level 1, the tool step, the retry
    first, retry = fast.stage_requests()
    assert "tools" in first
    assert "tools" not in retry
    assert BriefingEvent.objects.filter(
        project=project, kind=BriefingEvent.Kind.RETRY_USED
    ).exists()


def test_the_call_cap_ends_a_turn_with_the_holding_reply(project, say, pools, settings):
    """A cap that leaves no room for a stage answer and its retry after level 1's call: no
    stage request, the holding reply, the reason in the route."""
    fast, _ = pools
    settings.LLM_TURN_CALL_CAPS = "simple=2"
    llm_pools.cache_clear()
    turn = say(project, "Анна, компания Зерно, +7 916 123-45-67, ролик 7 секунд")
    route = route_of(turn)
    assert (route["calls"], route["capped"]) == (1, "calls")
    assert fast.stage_requests() == []
    event = BriefingEvent.objects.get(project=project, kind=BriefingEvent.Kind.TURN_CAPPED)
    assert event.data["cap"] == "calls"
    replies = list(turn.replies.order_by("seq").values_list("text", flat=True))
    assert replies[-1].startswith("Спасибо! Мне нужно немного времени")


def test_the_output_token_cap_ends_a_turn(project, say, pools, settings):
    fast, _ = pools
    fast.stage_answer = "complete"
    settings.LLM_TURN_TOKEN_CAPS = "simple=80"  # the servers report 20+ tokens per answer
    settings.LLM_TURN_CALL_CAPS = "simple=50"
    llm_pools.cache_clear()
    turn = say(project, "Анна, компания Зерно, +7 916 123-45-67, ролик 7 секунд")
    route = route_of(turn)
    # Level 1's answer reported 21 output tokens: the 59 left cannot hold a stage answer.
    assert route["capped"] == "output_tokens"
    assert route["output_tokens"] == 21
    assert fast.stage_requests() == []


def test_the_ledger_totals_equal_what_the_servers_reported(project, say, pools):
    fast, strong = pools
    text = "Очень длинный и сложный запрос с тремя вопросами?"
    fast.verdicts[text] = {"complexity": "complex"}
    say(project, "Здравствуйте, хотим ролик")
    say(project, text)
    fast.stage_answer = "not json"
    say(project, "Алло")  # a retry: two requests in one recorded call
    reported = fast.reported + strong.reported
    totals = ledger_for_briefing(project_id=project.pk)
    assert totals.prompt_tokens == sum(u[0] for u in reported)
    assert totals.cached_tokens == sum(u[1] for u in reported)
    assert totals.completion_tokens == sum(u[2] for u in reported)

    def money(usage, rates):
        prompt, cached, completion = usage
        return Decimal(
            (prompt - cached) * rates[0] + cached * rates[1] + completion * rates[2]
        ) / Decimal(1_000_000)

    expected = sum(money(u, (100, 10, 300)) for u in fast.reported) + sum(
        money(u, (1000, 100, 3000)) for u in strong.reported
    )
    assert totals.cost == expected.quantize(Decimal("0.000001"))
    now = timezone.now()
    rows = ledger_by_day_and_pool(since=now - timedelta(hours=1), until=now)
    by_pool = {row.pool: row for row in ledger_by_pool(rows)}
    assert by_pool["strong"].prompt_tokens == sum(u[0] for u in strong.reported)
    assert by_pool["fast"].completion_tokens == sum(u[2] for u in fast.reported)
    assert by_pool["fast"].turns == 2
    assert by_pool["strong"].turns == 1


def test_a_disagreement_between_model_and_classifier_is_recorded(project, say, pools):
    fast, _ = pools
    text = "Хотим ролик"
    fast.verdicts[text] = {"intent": "off_topic"}
    turn = say(project, text)
    disagreement = ClassifierDisagreement.objects.get(source_id=str(turn.pk))
    assert "intent" in disagreement.fields
    assert disagreement.model_verdict["intent"] == "off_topic"
    assert disagreement.classifier_verdict["intent"] != "off_topic"
    assert disagreement.call.source_kind == "level1"


def test_level1_falls_back_to_the_classifier_when_the_model_fails(project, say, pools):
    fast, _ = pools
    fast.server.route(PATH, JsonReply({"error": "down"}, status=503))
    turn = say(project, "Здравствуйте")
    assert turn.meta["level1"]["source"] == "classifier"
    assert route_of(turn)["pool"] == "fast"  # the rules agent answered in the fast pool
    assert turn.replies.exists()
    assert not ClassifierDisagreement.objects.exists()


def test_a_briefing_over_its_cost_budget_is_flagged_once(project, say, pools, settings):
    settings.BRIEFING_COST_BUDGET = 0.00001
    say(project, "Здравствуйте")
    say(project, "Алло")
    flags = BriefingEvent.objects.filter(
        project=project, kind=BriefingEvent.Kind.COST_BUDGET_EXCEEDED
    )
    assert flags.count() == 1
    assert Decimal(flags.get().data["cost"]) > Decimal("0.00001")


def test_without_pools_turns_are_not_routed(project, say):
    turn = say(project, "Здравствуйте")
    assert "route" not in turn.meta
    call = StructuredCall.objects.get(source_kind="briefing_turn", source_id=str(turn.pk))
    assert call.session == f"briefing:{project.pk}"
    assert call.pool == ""


# --- the briefing page ------------------------------------------------------------------------


def switch(client, project, action, **headers):
    url = reverse("project_action", args=[project.pk])
    return client.post(url, {"action": action}, **headers)


def test_the_page_shows_each_turns_pool_and_why(producer_client, project, say, pools):
    fast, _ = pools
    text = "Ролик, три версии и съёмка в двух городах"
    fast.verdicts[text] = {"complexity": "complex"}
    say(project, text)
    page = producer_client.get(reverse("project_detail", args=[project.pk]))
    html = page.content.decode()
    assert "pool strong" in html
    assert "complexity:complex" in html
    assert "Use the strong model" in html
    spent = ledger_for_briefing(project_id=project.pk).cost
    assert f"Spent {spent} on 2 model calls" in html
    # The turn's cost: its level 1 call and its stage call, both on this one turn.
    assert f"· cost {spent}</span>" in html
    fragment = producer_client.get(
        reverse("project_detail", args=[project.pk]), HTTP_HX_REQUEST="true"
    ).content.decode()
    assert "pool strong" in fragment
    assert "<html" not in fragment


def test_the_producer_switches_the_strong_model_on_and_off(producer_client, project, pools):
    response = switch(producer_client, project, "strong_model_on", HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert "Route by complexity again" in response.content.decode()
    project.refresh_from_db()
    assert project.strong_model
    event = BriefingEvent.objects.get(project=project, kind=BriefingEvent.Kind.STRONG_MODEL_SET)
    assert event.data == {"old": False, "new": True}
    assert event.actor.get_username() == "producer"
    again = switch(producer_client, project, "strong_model_on", HTTP_HX_REQUEST="true")
    assert again.status_code == 400
    assert "already on" in again.content.decode()
    off = switch(producer_client, project, "strong_model_off")  # without htmx: redirect
    assert off.status_code == 302
    project.refresh_from_db()
    assert not project.strong_model


def test_an_outsider_cannot_switch_the_strong_model(client, project, pools):
    from django.contrib.auth import get_user_model

    client.force_login(get_user_model().objects.create_user("nobody", password="pw"))
    assert switch(client, project, "strong_model_on").status_code in (403, 404)
    project.refresh_from_db()
    assert not project.strong_model


def test_one_chain_without_pools_is_capped_too(project, say, scripted_model, settings):
    """LLM_PROVIDERS with a model and no LLM_POOLS: the turn runs on the one chain, under
    the same caps (no level 1 model call there)."""
    brain = Brain(scripted_model.server)
    brain.stage_answer = "complete"
    turn = say(project, "Анна, компания Зерно, +7 916 123-45-67, ролик 7 секунд")
    route = route_of(turn)
    assert route["pool"] == ""
    assert (route["calls"], route["capped"]) == (1, None)
    assert len(brain.stage_requests()) == 1
    assert brain.level1_requests() == []
    call = StructuredCall.objects.filter(source_kind="briefing_turn").first()
    assert call.pool == ""
    settings.LLM_TURN_CALL_CAPS = "simple=1"
    llm_pools.cache_clear()
    capped = say(project, "Бюджет 500 тысяч рублей")
    assert route_of(capped)["capped"] == "calls"
    assert len(brain.stage_requests()) == 1


def test_level1_models_verdict_decides_the_turn_and_is_asked_once(project, say, pools):
    """The model sees a request for a person the shipped classifier does not: the turn waits
    for the producer on the model's word, and the router did not ask the model again."""
    fast, strong = pools
    text = "Хотим ролик к маю"
    fast.verdicts[text] = {"intent": "human_request"}
    turn = say(project, text)
    assert turn.status == Turn.Status.WAITING_PRODUCER
    assert turn.meta["level1"]["source"] == "model"
    assert len(fast.level1_requests()) == 1
    assert fast.stage_requests() == []
    assert strong.server.requests == []
    disagreement = ClassifierDisagreement.objects.get(source_id=str(turn.pk))
    assert disagreement.fields == ["intent"]
