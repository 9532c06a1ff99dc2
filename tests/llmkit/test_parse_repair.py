"""Syntax repair through json-repair, under a size cap and a time limit."""

import pytest

from llmkit.parse import repair as repair_module
from llmkit.parse.repair import RepairFailed, repair


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1, "b": 2,}', {"a": 1, "b": 2}),
        ("{'a': 'x', 'b': [1, 2,],}", {"a": "x", "b": [1, 2]}),
        ('{"a": 1, // a comment\n "b": 2}', {"a": 1, "b": 2}),
        ('{"a": 1, /* block */ "b": 2}', {"a": 1, "b": 2}),
        ('{a: 1, b: "two"}', {"a": 1, "b": "two"}),
        ('{"a": 1, "list": [1, 2', {"a": 1, "list": [1, 2]}),
        ('{"message": "Здравствуйте, расскаж', {"message": "Здравствуйте, расскаж"}),
    ],
)
def test_repairs_common_model_mistakes(text, expected):
    assert repair(text) == expected


def test_size_cap_is_enforced():
    with pytest.raises(RepairFailed) as error:
        repair("{" + " " * 100, max_chars=50)
    assert error.value.kind == "too_large"


def test_time_limit_stops_waiting_for_a_slow_repair(monkeypatch):
    import threading

    release = threading.Event()

    def slow(text):
        release.wait(5)
        return {}

    monkeypatch.setattr(repair_module, "_repair", slow)
    big = "{" + '"a": 1, ' * 5000 + "}"
    with pytest.raises(RepairFailed) as error:
        repair(big, time_limit_s=0.05)
    release.set()
    assert error.value.kind == "repair_timeout"


def test_large_input_repairs_in_the_worker_thread():
    big = "{" + ", ".join(f'"k{i}": {i}' for i in range(3000)) + ",}"
    assert len(big) > repair_module.INLINE_CHARS
    assert repair(big)["k2999"] == 2999
