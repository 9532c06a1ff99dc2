"""Settings that are derived rather than set: the claim leases follow the model budgets."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
READ = (
    "from config import settings as s; "
    "print(s.LLM_CALL_BUDGET_S, s.BRIEFING_TURN_BUDGET_S, s.BRIEFING_TURN_LEASE_S, "
    "s.CRM_MESSAGE_LEASE_S)"
)


def _settings(tmp_path: Path, **environ: str) -> subprocess.CompletedProcess:
    names = ("LLM_", "BRIEFING_", "CRM_", "CELERY_TASK_")
    clean = {k: v for k, v in os.environ.items() if not k.startswith(names)}
    env = {**clean, "SECRET_KEY": "x", "VAR_DIR": str(tmp_path), **environ}
    return subprocess.run(
        [sys.executable, "-c", READ], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip


def test_the_leases_are_the_budgets_plus_the_margin(tmp_path):
    default = _settings(tmp_path)
    assert default.stdout.split() == ["100.0", "100.0", "130", "130"], default.stderr
    tuned = _settings(
        tmp_path, LLM_CALL_BUDGET_S="40", BRIEFING_TURN_BUDGET_S="70", LLM_LEASE_MARGIN_S="15"
    )
    assert tuned.stdout.split() == ["40.0", "70.0", "85", "55"], tuned.stderr


def test_a_lease_set_by_hand_or_one_a_task_cannot_hold_is_refused(tmp_path):
    by_hand = _settings(tmp_path, BRIEFING_TURN_LEASE_S="3")
    assert by_hand.returncode != 0
    assert "BRIEFING_TURN_LEASE_S is derived" in by_hand.stderr
    too_long = _settings(tmp_path, BRIEFING_TURN_BUDGET_S="300")
    assert too_long.returncode != 0
    assert "CELERY_TASK_SOFT_TIME_LIMIT (240 s) must exceed" in too_long.stderr


def test_a_bad_pool_setting_stops_the_start(tmp_path):
    good = _settings(tmp_path, LLM_POOLS="fast=openai-fast; strong=gigachat-max")
    assert good.returncode == 0, good.stderr
    for name, value, message in (
        ("LLM_POOLS", "fast=mistral", "unknown provider 'mistral'"),
        ("LLM_POOL_ROUTES", "complex=huge", "LLM_POOLS lacks"),
        ("LLM_TURN_CALL_CAPS", "simple=0", "simple must be at least 1"),
    ):
        environ = {"LLM_POOLS": "fast=openai-fast; strong=gigachat-max", name: value}
        bad = _settings(tmp_path, **environ)
        assert bad.returncode != 0
        assert message in bad.stderr
