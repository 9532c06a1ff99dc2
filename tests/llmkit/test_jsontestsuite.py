"""JSON robustness against JSONTestSuite (tests/corpora/JSONTestSuite/test_parsing, vendored)."""

import json
import threading
from pathlib import Path

import pytest

from llmkit.parse import parse
from llmkit.parse.fast import JsonRejected, check_limits, loads_strict

CORPUS = Path(__file__).resolve().parents[1] / "corpora" / "JSONTestSuite" / "test_parsing"
FILES = sorted(CORPUS.glob("*.json")) if CORPUS.is_dir() else []
# Any JSON value parses into this schema, so every file exercises the whole pipeline.
ANYTHING = {"type": "object"}


def _ids(paths):
    return [p.name for p in paths]


def _decoded(path: Path) -> str:
    return path.read_bytes().decode("utf-8", errors="surrogatepass")


def test_corpus_is_present():
    assert len(FILES) > 300, f"JSONTestSuite corpus not found at {CORPUS}"


ACCEPTED = [p for p in FILES if p.name.startswith("y_")]


@pytest.mark.parametrize("path", ACCEPTED, ids=_ids(ACCEPTED))
def test_y_files_parse_to_the_same_value_as_json_loads(path):
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("utf-16") if raw[:2] in (b"\xff\xfe", b"\xfe\xff") else raw.decode()
    check_limits(text)
    assert loads_strict(text) == json.loads(text)


OTHERS = [p for p in FILES if not p.name.startswith("y_")]


@pytest.mark.parametrize("path", OTHERS, ids=_ids(OTHERS))
def test_n_and_i_files_never_raise_or_hang(path):
    raw = path.read_bytes()
    finished = threading.Event()
    outcome, raised = [], []

    def run():
        try:
            outcome.append(parse(raw, ANYTHING))
        except BaseException as error:  # re-raised below, in the test's own thread
            raised.append(error)
        finished.set()

    threading.Thread(target=run, daemon=True).start()
    assert finished.wait(10), f"{path.name} hung the pipeline"
    if raised:
        raise raised[0]
    assert outcome[0].ok is (not outcome[0].errors)
    # The strict layer refuses every file the JSON grammar refuses, NaN and Infinity included.
    if path.name.startswith("n_"):
        text = raw.decode("utf-8", errors="replace")

        def strict_load() -> None:
            check_limits(text)
            loads_strict(text)

        with pytest.raises(JsonRejected):
            strict_load()
