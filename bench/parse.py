"""Benchmark: our parse pipeline against plain `json.loads` and `json_repair.loads`.

    python -m bench.parse [--repeat 15]

Reads bench/corpus/*.jsonl (real SmolLM2 answers plus hand-made cases), and prints, per
category, the share of answers each contender turns into a schema-valid object, then the
median and p95 microseconds per answer. Every contender is judged by the same rule: its
output counts as recovered only if the schema's pydantic model validates it.

Then the outside corpus, bench/corpus/json_repair_tests (json_repair's own broken object
cases, where our quick paths mostly do not apply): how many answers each of json_repair
and the pipeline reads to the expected object, how many it returns as a different object,
and the time per answer of both, run in turns on each answer (target: the pipeline within
1.1x of json_repair alone).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import json_repair
from pydantic import BaseModel, ConfigDict, ValidationError

import llmkit.parse.repair as repair_module
from bench.schemas import SCHEMAS
from llmkit.parse import parse

CORPUS_DIR = Path(__file__).resolve().parent / "corpus"
OUTSIDE_DIR = CORPUS_DIR / "json_repair_tests"
OUTSIDE_TARGET_RATIO = 1.1


class AnyObject(BaseModel):
    """The outside corpus's schema: any object; what is judged is the reading itself."""

    model_config = ConfigDict(extra="allow")


def load_corpus() -> list[dict[str, Any]]:
    cases = []
    for path in sorted(CORPUS_DIR.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                cases.append(json.loads(line))
    return cases


def _validated(data: Any, model: type[BaseModel]) -> bool:
    try:
        model.model_validate(data)
    except ValidationError:
        return False
    return True


def json_loads_then_validate(raw: str, model: type[BaseModel]) -> bool:
    try:
        data = json.loads(raw)
    except ValueError:
        return False
    return _validated(data, model)


def json_repair_then_validate(raw: str, model: type[BaseModel]) -> bool:
    try:
        data = json_repair.loads(raw)
    except Exception:  # a contender's crash counts as not recovered
        return False
    return _validated(data, model)


def pipeline(raw: str, model: type[BaseModel]) -> bool:
    return parse(raw, model).ok


def json_loads_only(raw: str, model: type[BaseModel]) -> bool:
    try:
        json.loads(raw)
    except ValueError:
        return False
    return True


CONTENDERS: dict[str, Callable[[str, type[BaseModel]], bool]] = {
    "json.loads": json_loads_then_validate,
    "json_repair": json_repair_then_validate,
    "pipeline": pipeline,
}


def time_us(fn: Callable[[str, type[BaseModel]], bool], raw: str, model, repeat: int) -> float:
    """Median of `repeat` runs, in microseconds: robust to the noise of a shared machine."""
    samples = []
    for _ in range(repeat):
        started = time.perf_counter_ns()
        fn(raw, model)
        samples.append(time.perf_counter_ns() - started)
    return statistics.median(samples) / 1000


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def load_outside_corpus() -> list[dict[str, Any]]:
    lines = (OUTSIDE_DIR / "cases.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def json_repair_object(raw: str) -> Any:
    """json_repair alone, validated like every contender; None when it reads no object."""
    try:
        data = json_repair.loads(raw)
    except Exception:  # a contender's crash counts as not recovered
        return None
    if not isinstance(data, dict):
        return None
    AnyObject.model_validate(data)
    return data


def pipeline_object(raw: str) -> Any:
    outcome = parse(raw, AnyObject)
    return outcome.data if outcome.ok else None


OUTSIDE_CONTENDERS: dict[str, Callable[[str], Any]] = {
    "json_repair": json_repair_object,
    "pipeline": pipeline_object,
}


def time_in_turns_us(fns: dict[str, Callable[[str], Any]], raw: str, repeat: int) -> dict:
    """Median microseconds of each function on `raw`, run in turns so that a busy spell
    of a shared machine slows every contender alike."""
    samples: dict[str, list[int]] = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            started = time.perf_counter_ns()
            fn(raw)
            samples[name].append(time.perf_counter_ns() - started)
    return {name: statistics.median(values) / 1000 for name, values in samples.items()}


def outside_report(repeat: int) -> None:
    cases = load_outside_corpus()
    # Which answers reach json-repair in the pipeline: there no quick path applied.
    repaired_raws: set[str] = set()
    original = repair_module._repair
    current: list[str] = []

    def counting_repair(text: str) -> Any:
        repaired_raws.add(current[0])
        return original(text)

    verdicts: dict[str, dict[str, int]] = {
        name: {"expected": 0, "wrong": 0, "failed": 0} for name in OUTSIDE_CONTENDERS
    }
    repair_module._repair = counting_repair
    try:
        for case in cases:
            current[:] = [case["raw"]]
            for name, fn in OUTSIDE_CONTENDERS.items():
                got = fn(case["raw"])
                verdict = "failed" if got is None else "expected"
                if got is not None and got != case["expected"]:
                    verdict = "wrong"
                verdicts[name][verdict] += 1
    finally:
        repair_module._repair = original

    source = OUTSIDE_DIR.relative_to(Path.cwd())
    print(f"\nOutside corpus: {len(cases)} broken object answers from {source}")
    print("(json_repair's own test suite; counted: read to the expected object, read to a")
    print("different object and returned as a success, not read)")
    print(f"{'contender':<16}{'expected':>10}{'wrong':>8}{'failed':>8}")
    for name, counts in verdicts.items():
        print(f"{name:<16}{counts['expected']:>10}{counts['wrong']:>8}{counts['failed']:>8}")

    times: dict[str, list[float]] = defaultdict(list)
    only_repair: dict[str, list[float]] = defaultdict(list)
    for case in cases:
        measured = time_in_turns_us(OUTSIDE_CONTENDERS, case["raw"], repeat)
        for name, elapsed in measured.items():
            times[name].append(elapsed)
            if case["raw"] in repaired_raws:
                only_repair[name].append(elapsed)

    def ratio_line(title: str, table: dict[str, list[float]], *, target: bool) -> None:
        print(f"\n{title} (n={len(table['pipeline'])}, contenders run in turns)")
        print(f"{'contender':<28}{'median µs':>12}{'p95 µs':>12}{'total µs':>12}")
        for name, values in table.items():
            print(
                f"{name:<28}{statistics.median(values):>12.1f}{p95(values):>12.1f}"
                f"{sum(values):>12.0f}"
            )
        median_ratio = statistics.median(table["pipeline"]) / statistics.median(
            table["json_repair"]
        )
        total_ratio = sum(table["pipeline"]) / sum(table["json_repair"])
        line = f"pipeline / json_repair alone: {median_ratio:.2f}x median, {total_ratio:.2f}x total"
        if target:
            met = max(median_ratio, total_ratio) <= OUTSIDE_TARGET_RATIO
            line += f" (target <= {OUTSIDE_TARGET_RATIO}x: {'met' if met else 'MISSED'})"
        print(line)

    ratio_line("Time per answer, outside corpus", times, target=True)
    if only_repair["pipeline"]:
        # Information, not a target: what the strict read, the checks that rule the quick
        # paths out (or the quick paths tried) and the validation cost on top of json-repair.
        ratio_line(
            "Time per answer, outside answers no quick path could read", only_repair, target=False
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15, help="timed runs per answer")
    args = parser.parse_args(argv)

    cases = load_corpus()
    recovered: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    totals: dict[str, int] = defaultdict(int)
    timings: dict[str, list[float]] = defaultdict(list)
    clean_times: dict[str, list[float]] = defaultdict(list)
    repaired_times: dict[str, list[float]] = defaultdict(list)

    for case in cases:
        model = SCHEMAS[case["schema"]]
        raw, category = case["raw"], case["category"]
        totals[category] += 1
        layer = parse(raw, model).layer
        for name, fn in (*CONTENDERS.items(), ("json.loads (no validation)", json_loads_only)):
            if name in CONTENDERS and fn(raw, model):
                recovered[category][name] += 1
            elapsed = time_us(fn, raw, model, args.repeat)
            timings[name].append(elapsed)
            if category == "clean":
                clean_times[name].append(elapsed)
            if layer == "repaired":
                repaired_times[name].append(elapsed)

    names = list(CONTENDERS)
    print(f"Corpus: {len(cases)} answers from {CORPUS_DIR.relative_to(Path.cwd())}")
    print("\nShare recovered to a schema-valid object")
    print(f"{'category':<18}{'n':>5}" + "".join(f"{n:>14}" for n in names))
    all_recovered = defaultdict(int)
    for category in sorted(totals):
        row = f"{category:<18}{totals[category]:>5}"
        for name in names:
            count = recovered[category][name]
            all_recovered[name] += count
            row += f"{100 * count / totals[category]:>13.1f}%"
        print(row)
    total = sum(totals.values())
    print(
        f"{'all':<18}{total:>5}"
        + "".join(f"{100 * all_recovered[n] / total:>13.1f}%" for n in names)
    )

    def timing_table(title: str, table: dict[str, list[float]]) -> None:
        if not table:
            return
        print(f"\n{title} (n={len(next(iter(table.values())))})")
        print(f"{'contender':<28}{'median µs':>12}{'p95 µs':>12}")
        for name, values in table.items():
            print(f"{name:<28}{statistics.median(values):>12.1f}{p95(values):>12.1f}")

    timing_table("Time per answer, all answers", timings)
    timing_table("Time per answer, clean answers", clean_times)
    timing_table("Time per answer, answers our pipeline repaired", repaired_times)
    if clean_times:
        ours = statistics.median(clean_times["pipeline"])
        with_validation = statistics.median(clean_times["json.loads"])
        alone = statistics.median(clean_times["json.loads (no validation)"])
        print("\nclean answers, pipeline median / json.loads median:")
        print(f"  against json.loads + validation: {ours / with_validation:.2f}x")
        print(f"  against json.loads alone:        {ours / alone:.2f}x")
    if repaired_times:
        ratio = statistics.median(repaired_times["pipeline"]) / statistics.median(
            repaired_times["json_repair"]
        )
        print(f"repaired answers, pipeline median / json_repair median: {ratio:.2f}x")

    outside_report(args.repeat)


if __name__ == "__main__":
    main()
