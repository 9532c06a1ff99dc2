"""The pipeline on our own corpus (bench/corpus: real SmolLM2 answers and hand-made broken
ones): in every category it recovers at least what json_repair alone does."""

from collections import Counter

from bench.parse import json_repair_then_validate, load_corpus
from bench.schemas import SCHEMAS
from llmkit.parse import parse

CASES = load_corpus()


def test_corpus_is_present():
    assert len(CASES) >= 300
    assert {"truncated", "several_objects", "smollm2"} <= {case["category"] for case in CASES}


def test_every_category_recovers_at_least_what_json_repair_does():
    ours: Counter[str] = Counter()
    theirs: Counter[str] = Counter()
    for case in CASES:
        model = SCHEMAS[case["schema"]]
        ours[case["category"]] += parse(case["raw"], model).ok
        theirs[case["category"]] += json_repair_then_validate(case["raw"], model)
    behind = {category: (ours[category], theirs[category]) for category in theirs}
    assert all(us >= them for us, them in behind.values()), behind
