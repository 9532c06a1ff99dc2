"""core.env: the one strict reader of settings, used by config, llmkit.config and crm.imap."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from core.env import (
    EnvError,
    env_bool,
    env_float,
    env_int,
    env_list,
    env_port,
    env_str,
    env_text,
)


def test_unset_and_blank_mean_the_default_and_values_are_stripped():
    environ = {"BLANK": "  ", "SET": "  value  "}
    assert env_text("MISSING", environ=environ) is None
    assert env_text("BLANK", environ=environ) is None
    assert env_str("BLANK", "fallback", environ=environ) == "fallback"
    assert env_str("SET", environ=environ) == "value"
    assert env_int("BLANK", 7, environ=environ) == 7
    assert env_list("BLANK", ["a"], environ=environ) == ["a"]


def test_a_required_value_without_a_default_names_the_variable():
    with pytest.raises(EnvError, match="SECRET_KEY must be set"):
        env_str("SECRET_KEY", environ={})


@pytest.mark.parametrize("value", ["yes", "1", "on", "TRUE!", "no"])
def test_a_bool_is_only_true_or_false(value):
    with pytest.raises(EnvError, match=f"FLAG must be 'true' or 'false', got '{value}'"):
        env_bool("FLAG", False, environ={"FLAG": value})


def test_true_and_false_in_any_case():
    assert env_bool("FLAG", False, environ={"FLAG": " True "}) is True
    assert env_bool("FLAG", True, environ={"FLAG": "FALSE"}) is False


def test_numbers_refuse_what_is_not_one_and_positive_refuses_zero():
    with pytest.raises(EnvError, match=re.escape("N must be an integer, got '2.5'")):
        env_int("N", 1, environ={"N": "2.5"})
    with pytest.raises(EnvError, match="N must be positive, got '0'"):
        env_int("N", 1, positive=True, environ={"N": "0"})
    with pytest.raises(EnvError, match="S must be a number, got 'soon'"):
        env_float("S", 1.0, environ={"S": "soon"})
    with pytest.raises(EnvError, match="S must be positive"):
        env_float("S", 1.0, positive=True, environ={"S": "-1"})
    assert env_float("S", 1.0, environ={"S": "2.5"}) == 2.5


@pytest.mark.parametrize("value", ["abc", "0", "65536", "-1", "99.5", "+80"])
def test_a_port_is_digits_from_1_to_65535(value):
    message = f"P must be a port number from 1 to 65535, got '{value}'"
    with pytest.raises(EnvError, match=re.escape(message)):
        env_port("P", 993, environ={"P": value})


def test_a_list_drops_blank_items():
    assert env_list("L", [], environ={"L": " a, ,b ,"}) == ["a", "b"]


def test_os_environ_is_read_when_no_mapping_is_given(monkeypatch):
    monkeypatch.setenv("CORE_ENV_PROBE", "42")
    assert env_int("CORE_ENV_PROBE", 0) == 42


def test_core_env_imports_no_django():
    probe = "import sys, core.env; print(sorted(m for m in sys.modules if 'django' in m))"
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=root, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"
