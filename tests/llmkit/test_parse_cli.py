"""`python -m llmkit.parse --schema-file S.json`: debug one raw model answer from stdin."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = {
    "title": "Lead",
    "type": "object",
    "properties": {
        "budget_rub": {"type": ["integer", "null"]},
        "needs_call_back": {"type": "boolean"},
        "phones": {"type": "array", "items": {"type": "string", "x-normalise": "phone"}},
    },
    "required": ["budget_rub", "needs_call_back"],
}


@pytest.fixture
def schema_file(tmp_path):
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(SCHEMA), encoding="utf-8")
    return path


def run_cli(args, stdin: bytes):
    return subprocess.run(
        [sys.executable, "-m", "llmkit.parse", *args],
        input=stdin,
        capture_output=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )


def test_coerces_a_messy_answer_and_says_how(schema_file):
    raw = (
        'Sure!\n```json\n{"budget_rub": "около 500 тыс", "needs_call_back": "да", '
        '"phones": "8 916 123 45 67",}\n```'
    )
    done = run_cli(["--schema-file", str(schema_file)], raw.encode())
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] is True
    assert report["layer"] == "coerced"
    assert report["value"] == {
        "budget_rub": 500000,
        "needs_call_back": True,
        "phones": ["+79161234567"],
    }
    assert {c["kind"] for c in report["coercions"]} >= {"number_text", "bool_text", "wrap_list"}
    assert report["errors"] == []


def test_reports_field_errors_with_exit_code_1(schema_file):
    done = run_cli(["--schema-file", str(schema_file)], b'{"budget_rub": "later"}')
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert report["ok"] is False
    assert report["value"] is None
    assert {(e["path"], e["kind"]) for e in report["errors"]} >= {("needs_call_back", "missing")}


def test_binary_garbage_on_stdin_is_a_clean_failure(schema_file):
    done = run_cli(["--schema-file", str(schema_file)], bytes(range(256)) * 10)
    assert done.returncode == 1
    assert json.loads(done.stdout)["errors"][0]["kind"] in {"no_json", "json_invalid"}


def test_bad_schema_file_is_a_usage_error(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"type": 12}', encoding="utf-8")
    for path in (bad, tmp_path / "missing.json"):
        done = run_cli(["--schema-file", str(path)], b"{}")
        assert done.returncode == 2
        assert "cannot use schema file" in done.stderr.decode()
