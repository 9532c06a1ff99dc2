"""Benchmark of the guard in front of every client turn: what level 0 (the patterns,
`guard_check`) and level 1 (the learned classifiers, `classify`) cost per message.

    python -m bench.guard [--rounds N]

Over every client message of the example conversations (`briefing/examples`, ru/uk/en,
briefing answers of every length) plus the attacks of `tests/corpora/guard-dev`: each
message checked once to warm the caches, then N rounds; p50, p99 and the mean in
microseconds, CPU time per call (the machine is shared: wall-clock p99 is printed beside
it). No database, no Django settings.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import yaml

from bench.django_setup import percentile

ROOT = Path(__file__).resolve().parents[1]


def _messages() -> list[str]:
    texts = []
    for path in sorted((ROOT / "briefing" / "examples").rglob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        for item in data.get("client") or data.get("turns") or []:
            text = item.get("client") if isinstance(item, dict) else item
            if isinstance(text, str) and text.strip():
                texts.append(text)
    for path in sorted((ROOT / "tests" / "corpora" / "guard-dev").glob("*.txt")):
        texts += [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return texts


def _timed(check, messages: list[str], rounds: int) -> tuple[list[float], list[float]]:
    for text in messages:  # warm-up: compiled patterns, loaded weights, first-call costs
        check(text)
    cpu, wall = [], []
    for _ in range(rounds):
        for text in messages:
            started_cpu, started_wall = time.process_time(), time.perf_counter()
            check(text)
            cpu.append(time.process_time() - started_cpu)
            wall.append(time.perf_counter() - started_wall)
    return cpu, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    rounds = parser.parse_args().rounds
    from llmkit.guard import guard_check
    from llmkit.level1 import classify

    messages = _messages()
    print(f"{len(messages)} messages, {rounds} rounds each")
    for name, check in (("level 0 (guard_check)", guard_check), ("level 1 (classify)", classify)):
        cpu, wall = _timed(check, messages, rounds)
        micro = [value * 1e6 for value in cpu]
        print(
            f"{name}: CPU p50 {percentile(micro, 0.5):.0f} µs, p99 {percentile(micro, 0.99):.0f}"
            f" µs, mean {statistics.fmean(micro):.0f} µs; wall-clock p99 "
            f"{percentile(wall, 0.99) * 1e6:.0f} µs"
        )


if __name__ == "__main__":
    main()
