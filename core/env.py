"""Strict helpers that read settings from the environment and refuse anything ambiguous.

The one implementation for `config/settings.py`, `llmkit.config` (the provider chain) and
`crm.imap` (the mailbox). Imports no Django, so llmkit may use it. Each helper reads
`os.environ` unless given another mapping (`environ=`: llmkit and the IMAP settings are
built from a mapping the caller passes, which is what their tests give them).

Rules, the same for every helper: a value is stripped of surrounding whitespace; an unset
or blank variable means the default; anything else that is not exactly the expected form
raises `EnvError` (a ValueError) naming the variable and the value it got. `env_bool`
accepts only "true" and "false" (any case): "yes", "1" and "on" are mistakes, not truths.
"""

from __future__ import annotations

import os
from collections.abc import Mapping


class EnvError(ValueError):
    """A setting in the environment is missing or malformed."""


def env_text(name: str, *, environ: Mapping[str, str] | None = None) -> str | None:
    """The variable's value stripped, or None when it is unset or blank."""
    value = (os.environ if environ is None else environ).get(name)
    if value is None:
        return None
    return value.strip() or None


def env_str(
    name: str, default: str | None = None, *, environ: Mapping[str, str] | None = None
) -> str:
    """The variable's value; `default` when unset or blank; EnvError when there is no default."""
    value = env_text(name, environ=environ)
    if value is None:
        if default is None:
            raise EnvError(f"{name} must be set")
        return default
    return value


def env_bool(name: str, default: bool, *, environ: Mapping[str, str] | None = None) -> bool:
    value = env_text(name, environ=environ)
    if value is None:
        return default
    lowered = value.lower()
    if lowered == "true":
        return True
    if lowered == "false":
        return False
    raise EnvError(f"{name} must be 'true' or 'false', got {value!r}")


def env_int(
    name: str,
    default: int,
    *,
    positive: bool = False,
    environ: Mapping[str, str] | None = None,
) -> int:
    value = env_text(name, environ=environ)
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        raise EnvError(f"{name} must be an integer, got {value!r}") from None
    if positive and number <= 0:
        raise EnvError(f"{name} must be positive, got {value!r}")
    return number


def env_float(
    name: str,
    default: float,
    *,
    positive: bool = False,
    environ: Mapping[str, str] | None = None,
) -> float:
    value = env_text(name, environ=environ)
    if value is None:
        return default
    try:
        number = float(value)
    except ValueError:
        raise EnvError(f"{name} must be a number, got {value!r}") from None
    if positive and not number > 0:  # "not >" also refuses "nan"
        raise EnvError(f"{name} must be positive, got {value!r}")
    return number


def env_port(name: str, default: int, *, environ: Mapping[str, str] | None = None) -> int:
    """A TCP port: digits only, from 1 to 65535."""
    value = env_text(name, environ=environ)
    if value is None:
        return default
    if not value.isdigit() or not 1 <= int(value) <= 65535:
        raise EnvError(f"{name} must be a port number from 1 to 65535, got {value!r}")
    return int(value)


def env_list(
    name: str, default: list[str], *, environ: Mapping[str, str] | None = None
) -> list[str]:
    """A comma-separated list, items stripped and blank ones dropped."""
    value = env_text(name, environ=environ)
    if value is None:
        return list(default)
    return [item.strip() for item in value.split(",") if item.strip()]


def currency_rates(text: str, *, name: str) -> dict[str, float]:
    """ "USD=92.5, EUR=99" → {"USD": 92.5, "EUR": 99.0}: ISO 4217 codes and positive rates;
    anything else is an error naming the variable (a wrong rate would sort money wrongly)."""
    rates: dict[str, float] = {}
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        code, _, rate = item.partition("=")
        code = code.strip().upper()
        try:
            value = float(rate)
        except ValueError:
            value = 0.0
        if len(code) != 3 or not code.isalpha() or not (value > 0 and value < float("inf")):
            raise EnvError(f"{name}: {item!r} is not CODE=RATE (e.g. USD=92.5)")
        rates[code] = value
    return rates
