"""The pipeline on an outside corpus: the broken object answers of json_repair's own test
suite (bench/corpus/json_repair_tests), each with the object its authors expect."""

import json
from pathlib import Path

import json_repair
import pytest

from llmkit.parse import SchemaTarget, parse

CORPUS = Path(__file__).resolve().parents[2] / "bench" / "corpus" / "json_repair_tests"
CASES = [
    json.loads(line)
    for line in (CORPUS / "cases.jsonl").read_text(encoding="utf-8").splitlines()
    if line.strip()
]
# Every object fits, so what is judged is the reading of the text, not a schema.
ANY_OBJECT = SchemaTarget({"type": "object"})


def _pipeline_reads(case: dict) -> bool:
    outcome = parse(case["raw"], ANY_OBJECT)
    return outcome.ok and outcome.data == case["expected"]


def _json_repair_reads(case: dict) -> bool:
    try:
        return json_repair.loads(case["raw"]) == case["expected"]
    except Exception:  # json-repair giving up counts as not read
        return False


def test_corpus_is_vendored_with_its_licence():
    assert len(CASES) >= 100
    assert all(isinstance(case["expected"], dict) for case in CASES)
    assert "MIT License" in (CORPUS / "LICENSE").read_text(encoding="utf-8")
    assert "mangiucugna/json_repair" in (CORPUS / "NOTICE.md").read_text(encoding="utf-8")


def test_every_case_is_broken_json():
    for case in CASES:
        with pytest.raises(json.JSONDecodeError):
            json.loads(case["raw"])


def test_recovers_at_least_as_many_as_json_repair_alone():
    ours = sum(_pipeline_reads(case) for case in CASES)
    theirs = sum(_json_repair_reads(case) for case in CASES)
    assert ours >= theirs


@pytest.mark.parametrize(
    "case", CASES, ids=[f"{n}-{case['source'].split('::')[1]}" for n, case in enumerate(CASES)]
)
def test_a_broken_answer_is_read_as_expected_or_fails(case):
    outcome = parse(case["raw"], ANY_OBJECT)
    assert outcome.ok is (not outcome.errors)
    if outcome.ok:  # a success is never a different object than the expected one
        assert outcome.data == case["expected"]
