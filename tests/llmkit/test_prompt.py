"""Prompt blocks: order, byte-stable rendering, the cacheable prefix."""

import pytest

from llmkit.prompt import PromptBlock, build_prompt, estimate_tokens, stable_json


def _prompt(tail: str):
    return build_prompt(
        [
            PromptBlock("core", "Core rules.", cacheable=True),
            PromptBlock("stage", "Stage: budget. Schema: " + stable_json({"b": 1, "a": [2]}), True),
            PromptBlock("turns", tail, cacheable=False),
            PromptBlock("language", "Reply in Russian only.", cacheable=False),
        ]
    )


def test_cacheable_blocks_form_the_system_message_and_the_language_block_comes_last():
    messages = _prompt("Client: привет").messages()
    assert [m.role for m in messages] == ["system", "user"]
    assert messages[0].content == 'Core rules.\n\nStage: budget. Schema: {"a": [2], "b": 1}'
    assert messages[1].content.endswith("Reply in Russian only.")


def test_rendering_is_byte_stable_and_the_prefix_does_not_depend_on_the_tail():
    first, again, other = _prompt("Client: a"), _prompt("Client: a"), _prompt("Client: b")
    assert first.messages() == again.messages()
    assert first.messages()[0] == other.messages()[0]


def test_a_cacheable_block_after_a_volatile_one_is_refused():
    with pytest.raises(ValueError, match="after a volatile one"):
        build_prompt([PromptBlock("t", "x", False), PromptBlock("c", "y", True)])


def test_token_estimate_splits_prefix_and_total():
    cacheable, total = _prompt("Client: one two three").token_estimate()
    assert 0 < cacheable < total
    assert estimate_tokens("Бюджет 500 000, ok?") == 6
