"""The stage prompt's layout for the prefix cache: the cacheable prefix (the first bytes of the
system message) holds only what is byte-identical across a briefing's calls of a stage; the
per-turn state (locks, closed stages, known and missing fields) is in the volatile tail after
it, the user message is the conversation, and the reply language comes last."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from briefing.stages.registry import stages_for
from briefing.turn import context
from llmkit.language import reply_language_block
from llmkit.prompt import estimate_tokens

SPEC = next(spec for spec in stages_for("production") if spec.key == "intro")
STATE_LINES = (
    "Locked entities (use exactly as written):",
    "Closed stages:",
    "Known so far in this stage",
    "Still missing",
    "Left for the producer",
    "Already known from the client",
)

texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)
turn_states = st.fixed_dictionaries(
    {
        "locks": st.dictionaries(st.sampled_from(["client_name", "company"]), texts, max_size=2),
        "summaries": st.lists(texts, max_size=2),
        "known": st.dictionaries(st.sampled_from(list(SPEC.fields)), texts, max_size=3),
        "turns": st.lists(st.tuples(st.sampled_from(["client", "agent"]), texts), max_size=4),
        "omitted_turns": st.integers(0, 5),
        "opening": st.booleans(),
        "profile": st.just({"vision": {"productName": "Клюквенный Север"}}),
        "dialogue": st.dictionaries(
            st.sampled_from(list(SPEC.required)),
            st.fixed_dictionaries({"asked": st.integers(0, 2)}),
            max_size=2,
        ),
    }
)


def _prompt(state, memory="Client memory: returning client «Полярная Ягода»."):
    return context.stage_prompt(spec=SPEC, language="ru", memory=memory, **state)


@settings(deadline=2000, max_examples=60)  # ms per example: two prompts are string work
@given(turn_states, turn_states)
def test_the_cacheable_prefix_is_the_same_whatever_the_turn_changed(first, second):
    one, other = _prompt(first), _prompt(second)
    assert one.cacheable_text == other.cacheable_text
    for prompt in (one, other):
        system, user = prompt.messages()
        assert system.content.startswith(prompt.cacheable_text + "\n\n")  # then the state
        assert user.content.endswith(reply_language_block("ru"))  # language forced last


def test_the_per_turn_state_is_in_the_volatile_tail_not_the_prefix():
    prompt = _prompt(
        {
            "locks": {"client_name": "Анна"},
            "summaries": ["Введение: Анна, ролик"],
            "known": {"clientName": "Анна"},
            "turns": [("client", "Здравствуйте, я Анна")],
            "omitted_turns": 0,
            "opening": False,
            "profile": {"vision": {"productName": "Клюквенный Север"}},
            "dialogue": {"contact": {"asked": 2, "state": "left"}},
        }
    )
    system, user = prompt.messages()
    for line in STATE_LINES:
        assert line not in prompt.cacheable_text, line
        assert line in prompt.volatile_text, line
        # Still instructions: after the prefix in the system message, not in the user's turn
        # (the rules agent reads the client's values from the user message).
        assert line in system.content.removeprefix(prompt.cacheable_text), line
        assert line not in user.content, line
    assert [b.name for b in prompt.blocks if b.cacheable] == ["core", "stage", "memory"]
    assert user.content.startswith("Conversation in this stage")
    prompt_tokens = prompt.token_estimate()
    assert prompt_tokens[0] < prompt_tokens[1]


def _known_line(messages):
    [line] = [
        line for m in messages for line in m["content"].splitlines()
        if line.startswith("Known so far in this stage")
    ]  # fmt: skip
    return line


def test_two_turns_of_a_briefing_start_with_the_same_cacheable_prefix(project, say, scripted_model):
    from dlq.models import StructuredCall

    scripted_model.answers({"message": "Как вас зовут?", "introStatus": False})
    say(project, "Здравствуйте, нужен рекламный ролик")
    scripted_model.answers({"message": "Спасибо, Анна! Ваш телефон?", "clientName": "Анна",
                            "introStatus": False})  # fmt: skip
    say(project, "Меня зовут Анна")
    first, second = (request["messages"] for request in scripted_model.requests[-2:])
    assert first[0]["role"] == "system"
    assert "Stage: Introduction" in first[0]["content"]
    # The prefix the calls share, byte for byte, reaches the end of the cacheable blocks:
    # the per-turn state comes after it.
    head = first[0]["content"].split("Locked entities (use")[0]
    assert second[0]["content"].startswith(head)
    assert _known_line(first) != _known_line(second)  # the state did change
    assert "Анна" in _known_line(second)
    # What the ledger counts as cacheable is exactly that shared prefix.
    calls = list(StructuredCall.objects.order_by("id"))[-2:]
    assert [c.cacheable_tokens_estimate for c in calls] == [estimate_tokens(head.rstrip())] * 2


def test_volatile_instructions_cannot_follow_the_users_turn():
    from llmkit.prompt import PromptBlock, build_prompt

    state = PromptBlock("state", "Known so far", cacheable=False, instructions=True)
    with pytest.raises(ValueError, match="after the user's blocks"):
        build_prompt([PromptBlock("turns", "Client: hi", cacheable=False), state])
    with pytest.raises(ValueError, match="after a volatile one"):
        build_prompt([state, PromptBlock("core", "Rules", cacheable=True)])
