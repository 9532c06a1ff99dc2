"""Memory's horizons as far as they are built: the client snapshot (gathered from earlier
briefings and works, byte-stable between rebuilds, in the prompt's cacheable prefix, kept
when a producer corrects it, gone when the client asks to be forgotten) and the session's
compact log of earlier tool calls once older turns are folded out."""

from __future__ import annotations

import datetime

import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone

from briefing.models import Project
from briefing.services import project_create, turn_receive
from briefing.stages.registry import stage_by_key
from briefing.turn.agents import StageCall, _tool_blocks
from briefing.turn.tool_use import TurnTools
from llmkit.tools import ToolSession
from studio.memory import (
    SNAPSHOT_HEAD,
    client_forget,
    company_key,
    memory_retrieve,
    retrieval_block,
    snapshot_correct,
    snapshot_for_profile,
    snapshots_rebuild,
)
from studio.models import ClientSnapshot, MemoryItem
from studio.services import studio_demo_load

pytestmark = pytest.mark.django_db
PROFILE = {
    "intro": {"clientName": "Олег Кравцов", "company": "Полярная Ягода",
              "contact": "oleg@polar-berry.ru"},
    "vision": {"productName": "Клюквенный Север", "tone": "тёплый, семейный"},
    "service": {"contentType": "Рекламный ролик."},
    "budget": {"budget": 650000, "currency": "RUB", "deadline": "2026-06-01"},
}  # fmt: skip


def completed(title: str, profile: dict, month: int = 5) -> Project:
    project = project_create(title=title, language="ru")
    when = datetime.datetime(2026, month, 3, tzinfo=datetime.UTC)
    Project.objects.filter(pk=project.pk).update(
        status=Project.Status.COMPLETED, completed_at=when, profile=profile
    )
    return project


def test_the_snapshot_gathers_briefs_and_works_and_renders_the_same_bytes_again():
    studio_demo_load(today=datetime.date(2026, 12, 1))
    completed("Весенний ролик", PROFILE)
    assert snapshots_rebuild() == {"written": 2, "unchanged": 0, "kept_corrected": 0}
    text = ClientSnapshot.objects.get(key=company_key("ООО «Полярная Ягода»")).text
    assert text == "\n".join([
        SNAPSHOT_HEAD,
        "- company: Полярная Ягода",
        "- people: Олег Кравцов",
        "- contacts: oleg@polar-berry.ru",
        "- products: Клюквенный Север",
        "- tone: тёплый, семейный",
        "- earlier brief: 2026-05 «Весенний ролик», Рекламный ролик, budget 650 000 RUB, "
        "deadline 2026-06-01",
        "- work made for them: 2025 «Клюквенный Север — весенняя кампания»",
    ])  # fmt: skip
    # Another day, no new data: nothing is written, the bytes are the same.
    assert snapshots_rebuild() == {"written": 0, "unchanged": 2, "kept_corrected": 0}
    assert ClientSnapshot.objects.get(key=company_key("полярная ягода")).text == text
    from crm.models import Lead

    lead = Lead.objects.create(
        last_message_at=timezone.now(), channel="mail", client_intent="quote_request",
        summary="Смета на осенний ролик", product_class="video", budget_amount=700000,
        budget_currency="RUB",
        emails=["oleg@polar-berry.ru"],
    )  # fmt: skip
    Lead.objects.filter(pk=lead.pk).update(
        created_at=datetime.datetime(2026, 8, 10, tzinfo=datetime.UTC)
    )
    snapshots_rebuild()
    by_contact = ClientSnapshot.objects.get(key="contact:oleg@polar-berry.ru").text
    assert by_contact.endswith(
        "- earlier request: 2026-08 Смета на осенний ролик (video, budget 700 000 RUB)"
    )
    assert ClientSnapshot.objects.get(key=company_key("Полярная Ягода")).text == by_contact
    completed("Осенний ролик", {**PROFILE, "service": {"contentType": "Клип"}}, month=9)
    assert snapshots_rebuild()["written"] == 2
    assert "2026-09 «Осенний ролик», Клип" in snapshot_for_profile(PROFILE)


def test_the_snapshot_is_in_the_cacheable_system_message_of_a_stage_call(
    scripted_model, django_capture_on_commit_callbacks
):
    completed("Весенний ролик", PROFILE)
    snapshots_rebuild()
    project = project_create(title="Новый", language="ru")
    stage = project.stages.get(key="intro")
    stage.fields = {"company": "Полярная Ягода"}
    stage.save()
    scripted_model.answers({"message": "Как вас зовут?", "introStatus": False})
    with django_capture_on_commit_callbacks(execute=True):
        turn_receive(project=project, text="Здравствуйте!")
    system = scripted_model.requests[-1]["messages"][0]
    assert system["role"] == "system"
    assert snapshot_for_profile(PROFILE) in system["content"]
    # Before the per-turn state: the prefix up to it is the same on every turn.
    assert system["content"].index(SNAPSHOT_HEAD) < system["content"].index("Locked entities (use")


def test_a_producers_correction_is_kept_by_the_rebuild():
    completed("Весенний ролик", PROFILE)
    snapshots_rebuild()
    key = company_key("Полярная Ягода")
    snapshot_correct(key=key, facts={"company": "Полярная Ягода", "tones": ["строгий"]})
    assert snapshots_rebuild()["kept_corrected"] == 1
    assert "- tone: строгий" in ClientSnapshot.objects.get(key=key).text


def test_a_forgotten_client_leaves_nothing_behind():
    project = completed("Весенний ролик", PROFILE)
    other = completed("Чужой", {"intro": {"company": "Автомир", "contact": "a@avtomir.ru"}})
    snapshots_rebuild()
    removed = client_forget(company="Полярная Ягода", contact="oleg@polar-berry.ru")
    assert removed["snapshots"] == 2
    assert removed["briefings_unlinked"] == 1
    snapshots_rebuild()  # the next rebuild does not find them again
    keys = set(ClientSnapshot.objects.values_list("key", flat=True))
    assert keys == {company_key("Автомир"), "contact:a@avtomir.ru"}
    project.refresh_from_db()
    assert "Полярная Ягода" not in str(project.profile)
    assert "oleg@polar-berry.ru" not in str(project.profile)
    assert "Автомир" in str(Project.objects.get(pk=other.pk).profile)
    assert snapshot_for_profile(PROFILE) == ""


def test_the_rebuild_runs_daily_on_the_beat():
    entry = next(e for e in settings.CELERY_BEAT_SCHEDULE.values()
                 if e["task"] == "studio.tasks.client_snapshots_rebuild")  # fmt: skip
    assert entry["schedule"] == 24 * 3600


def test_earlier_tool_calls_are_logged_once_older_turns_are_folded():
    tools = TurnTools(
        ToolSession([]),
        "ru",
        earlier_calls=lambda: ('rate_card_quote({"query": "ролик"}) → 281 chars',),
    )
    call = StageCall(spec=stage_by_key("production", "intro"), known={}, locks={}, summaries=(),
                     turns=(), language="ru", opening=False, tools=tools)  # fmt: skip
    assert _tool_blocks(call) == ""  # nothing folded: the turns themselves are shown
    folded = _tool_blocks(StageCall(**{**call.__dict__, "omitted_turns": 4}))
    assert folded == ("Earlier tool calls in this conversation (results not repeated):\n"
                      '- rate_card_quote({"query": "ролик"}) → 281 chars')  # fmt: skip


def test_per_turn_retrieval_finds_the_clients_items_for_the_message():
    studio_demo_load(today=datetime.date(2026, 12, 1))
    completed("Весенний ролик", PROFILE)
    completed("Чужой", {"intro": {"company": "Автомир"}, "vision": {"productName": "Ролики"}})
    snapshots_rebuild()
    message = "Хотим продолжение роликов про Клюквенный Север"
    found = memory_retrieve(profile=PROFILE, message=message, language="ru")
    assert "products: Клюквенный Север" in found  # Russian stemming: "роликов" finds "ролик"
    assert all("Автомир" not in line for line in found)  # another client's items never
    assert len(found) <= 3
    assert memory_retrieve(profile=PROFILE, message="Добрый день", language="ru") == []
    block = retrieval_block(profile=PROFILE, message=message, language="ru")
    assert block.startswith("Possibly relevant from earlier work with this client")


sqlite_only = pytest.mark.skipif(
    connection.vendor != "sqlite", reason="the FTS5 index exists on SQLite only"
)


def _fts5_rows(sql: str, params=()) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _fts5_index_bytes() -> bytes:
    """The index's segments as stored (the shadow table FTS5 keeps them in)."""
    return b"".join(
        row[0] or b"" for row in _fts5_rows("SELECT block FROM studio_memoryitem_fts_data")
    )


@sqlite_only
def test_on_sqlite_retrieval_is_an_fts5_search_ranked_by_bm25():
    completed("Весенний ролик", PROFILE)
    snapshots_rebuild()
    # Every memory item is in the index, written by the table's triggers.
    indexed = _fts5_rows("SELECT rowid, text, key FROM studio_memoryitem_fts ORDER BY rowid")
    assert indexed == list(MemoryItem.objects.order_by("id").values_list("id", "text", "key"))
    # Inflected words find their items by the stem they share; the ranking is FTS5's.
    found = memory_retrieve(profile=PROFILE, message="А тон опять тёплый?", language="ru")
    assert found[0] == "tone: тёплый, семейный"
    found = memory_retrieve(profile=PROFILE, message="Про Клюквенного Севера", language="ru")
    assert found[0] == "products: Клюквенный Север"
    # A client's words are never FTS5 syntax.
    assert memory_retrieve(profile=PROFILE, message='NEAR(" text: OR *', language="ru") == []


@sqlite_only
def test_on_sqlite_a_forgotten_client_leaves_nothing_in_the_fts5_index():
    completed("Весенний ролик", PROFILE)
    completed("Чужой", {"intro": {"company": "Автомир", "contact": "a@avtomir.ru"}})
    snapshots_rebuild()
    raw = _fts5_index_bytes()
    # Terms are prefix-compressed in the index: look for a tail no other term shares.
    assert "люквенный".encode() in raw

    client_forget(company="Полярная Ягода", contact="oleg@polar-berry.ru")

    assert not memory_retrieve(profile=PROFILE, message="Клюквенный Север", language="ru")
    texts = [row[0] for row in _fts5_rows("SELECT text FROM studio_memoryitem_fts")]
    assert texts
    assert all("Ягода" not in text and "Олег" not in text for text in texts)
    _fts5_rows(
        "CREATE VIRTUAL TABLE temp.memory_vocab USING fts5vocab(main, studio_memoryitem_fts, row)"
    )
    vocabulary = {row[0] for row in _fts5_rows("SELECT term FROM temp.memory_vocab")}
    assert "автомир" in vocabulary
    assert not vocabulary & {"клюквенный", "полярная", "ягода", "олег", "кравцов"}
    raw = _fts5_index_bytes()
    for word in ("люквенный", "олярная", "кравцов", "polar-berry"):
        assert word.encode() not in raw, word
    content = _fts5_rows("SELECT c0 FROM studio_memoryitem_fts_content")
    assert all("Ягода" not in row[0] for row in content)
    assert "автомир".encode() in raw  # the other client is still found


def test_forgetting_removes_the_retrieval_items_too():
    completed("Весенний ролик", PROFILE)
    snapshots_rebuild()
    assert MemoryItem.objects.exists()
    removed = client_forget(company="Полярная Ягода", contact="oleg@polar-berry.ru")
    assert removed["items"] > 0
    snapshots_rebuild()
    assert not MemoryItem.objects.exists()
    assert not ClientSnapshot.objects.exists()


def test_the_retrieved_items_are_a_volatile_block_of_the_stage_prompt():
    from briefing.turn.agents import _retrieved
    from briefing.turn.context import stage_prompt

    completed("Весенний ролик", PROFILE)
    snapshots_rebuild()
    call = StageCall(spec=stage_by_key("production", "intro"), known={}, locks={}, summaries=(),
                     turns=(("client", "Снова про Клюквенный Север"),), language="ru",
                     opening=False, profile=PROFILE)  # fmt: skip
    retrieved = _retrieved(call)
    assert "- products: Клюквенный Север" in retrieved
    prompt = stage_prompt(spec=call.spec, locks={}, summaries=(), known={}, turns=call.turns,
                          language="ru", opening=False, retrieved=retrieved)  # fmt: skip
    assert retrieved not in prompt.cacheable_text
    assert retrieved in prompt.volatile_text
    assert _retrieved(StageCall(**{**call.__dict__, "opening": True})) == ""


def test_a_returning_client_is_recognised_by_their_contact_and_not_asked_again(
    monkeypatch, django_capture_on_commit_callbacks
):
    from briefing.models import BriefingEvent, Turn
    from dlq.services import llm_chain

    monkeypatch.setenv("LLM_PROVIDERS", "rules")
    llm_chain.cache_clear()
    completed("Весенний ролик", PROFILE)
    snapshots_rebuild()
    project = project_create(title="Новый", language="ru")
    with django_capture_on_commit_callbacks(execute=True):
        turn_receive(
            project=project, text="Здравствуйте! Пишу с oleg@polar-berry.ru, мы у вас уже снимали."
        )
    llm_chain.cache_clear()
    reply = project.turns.filter(role=Turn.Role.AGENT).order_by("-seq").first()
    filled = {e.data["field"]: e.data["value"]
              for e in project.events.filter(kind=BriefingEvent.Kind.PREFILL_FILLED)
              if e.data.get("source") == "memory"}  # fmt: skip
    assert filled == {"clientName": "Олег Кравцов", "company": "Полярная Ягода"}
    assert "Как вас зовут" not in reply.text
    assert reply.text.startswith("Да, вижу вашу историю у нас: бриф «Весенний ролик» (2026)")
    # A company name alone is no proof of who writes: nothing is filled from it.
    stranger = project_create(title="Другой", language="ru")
    with django_capture_on_commit_callbacks(execute=True):
        turn_receive(project=stranger, text="Мы из компании «Полярная Ягода».")
    assert not stranger.events.filter(kind=BriefingEvent.Kind.PREFILL_FILLED,
                                      data__source="memory").exists()  # fmt: skip


def test_folded_turns_leave_a_summary_of_what_they_settled():
    from briefing.turn.context import stage_prompt

    spec = stage_by_key("production", "service")
    args = {"spec": spec, "locks": {}, "summaries": (), "turns": (("client", "Да"),),
            "language": "ru", "opening": False}  # fmt: skip
    known = {"contentType": "Рекламный ролик", "format": "30 секунд"}
    shown = stage_prompt(known=known, **args).volatile_text
    assert "Earlier in this conversation" not in shown  # nothing folded, nothing summarised
    folded = stage_prompt(known=known, omitted_turns=6, **args).volatile_text
    assert "[6 earlier turns of this stage not shown]" in folded
    assert ("Earlier in this conversation: the client gave contentType, format; "
            "still missing: deliverables.") in folded  # fmt: skip


def test_an_operator_forgets_a_client_from_the_command_line(capsys):
    from django.core.management import CommandError, call_command

    project = completed("Весенний ролик", PROFILE)
    snapshots_rebuild()
    with pytest.raises(CommandError, match="name the client"):
        call_command("client_forget", "--yes")
    call_command("client_forget", "--company", "Полярная Ягода", "--yes")
    assert "Erased: 1 briefing(s)" in capsys.readouterr().out
    project.refresh_from_db()
    assert project.archived_at is not None
    assert "Полярная Ягода" not in str(project.brief)
    # The snapshot under the company's e-mail told the same story: it went too, for good.
    assert not ClientSnapshot.objects.exists()
    snapshots_rebuild()
    assert not ClientSnapshot.objects.filter(text__contains="Полярная Ягода").exists()
