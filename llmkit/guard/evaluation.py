"""Development evaluation of the level-0 guard: `python -m llmkit.guard --eval DIR`."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from llmkit.guard.engine import guard_check


def load_corpus(directory: Path) -> dict[str, list[tuple[str, str]]]:
    """The development corpus as {file name: [(expected kind, text), ...]}; the expected
    kind is "prompt_extraction", "capabilities" or "benign".

    ru_uk_dev.txt: a label (ATTACK or BENIGN), a TAB, the text; the garak JSON: {category:
    [attack, ...]}; the CLINC files: one benign message or capability question per line.
    A missing file is left out.
    """
    corpus: dict[str, list[tuple[str, str]]] = {}
    ru_uk = directory / "ru_uk_dev.txt"
    if ru_uk.exists():
        rows = []
        for line in ru_uk.read_text(encoding="utf-8").splitlines():
            label, _, text = line.partition("\t")
            if text:
                expected = "prompt_extraction" if label.strip() == "ATTACK" else "benign"
                rows.append((expected, text))
        corpus[ru_uk.name] = rows
    garak = directory / "garak_sysprompt_extraction_attacks.json"
    if garak.exists():
        data = json.loads(garak.read_text(encoding="utf-8"))
        corpus[garak.name] = [
            ("prompt_extraction", text) for texts in data.values() for text in texts
        ]
    for name, expected in (
        ("clinc_train_benign_en.txt", "benign"),
        ("clinc_train_capability_questions_en.txt", "capabilities"),
    ):
        path = directory / name
        if path.exists():
            lines = path.read_text(encoding="utf-8").splitlines()
            corpus[name] = [(expected, line) for line in lines if line.strip()]
    return corpus


def evaluate(directory: Path, misses: list[str] | None = None) -> dict[str, dict[str, float]]:
    """Figures on the development corpus: per file and expected kind the number of rows and
    the recall (for benign rows the false-positive rate of the extraction rules and the share
    answered with the capabilities reply), and over all files the precision of each kind.
    Rows the guard got wrong are appended to `misses` when given.

    For development, not a pass/fail measure: the rules were written while looking at it.
    """
    figures: dict[str, dict[str, float]] = {}
    fired: dict[str, list[bool]] = {"prompt_extraction": [], "capabilities": []}
    for source, rows in load_corpus(directory).items():
        groups: dict[str, list[tuple[str, str | None]]] = {}
        for expected, text in rows:
            verdict = guard_check(text)
            got = verdict.kind if verdict else None
            groups.setdefault(expected, []).append((text, got))
            if got is not None:
                fired[got].append(got == expected)
        for expected, outcomes in groups.items():
            n = len(outcomes)
            if expected == "benign":
                # A benign message answered with the capabilities reply is not refused (and
                # a question about the assistant, "are you a bot?", should be): counted apart.
                wrong = [(text, got) for text, got in outcomes if got == "prompt_extraction"]
                taken = [(text, got) for text, got in outcomes if got == "capabilities"]
                figures[f"{source} [benign]"] = {
                    "n": n,
                    "false-positive rate": len(wrong) / n,
                    "capabilities rate": len(taken) / n,
                }
                wrong += taken
            else:
                wrong = [(text, got) for text, got in outcomes if got != expected]
                figures[f"{source} [{expected}]"] = {"n": n, "recall": 1 - len(wrong) / n}
            if misses is not None:
                misses.extend(f"{source}: {got or 'benign'} <- {text}" for text, got in wrong)
    for kind, outcomes in fired.items():
        figures[f"all files: {kind}"] = {
            "fired": len(outcomes),
            "precision": sum(outcomes) / len(outcomes) if outcomes else 1.0,
        }
    return figures


def _main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m llmkit.guard",
        description="Run the level-0 guard on a message, or evaluate it on a corpus folder.",
    )
    parser.add_argument("text", nargs="?", help="a message to check (default: stdin)")
    parser.add_argument("--eval", metavar="DIR", type=Path, help="evaluate on a corpus folder")
    parser.add_argument("--misses", action="store_true", help="with --eval: list every miss")
    args = parser.parse_args(argv)
    if args.eval is not None:
        if not args.eval.is_dir():
            parser.error(f"not a folder: {args.eval}")
        misses: list[str] = []
        started = time.perf_counter()
        figures = evaluate(args.eval, misses)
        elapsed = time.perf_counter() - started
        for name, values in figures.items():
            shown = ", ".join(
                f"{key} {value:.3f}" if isinstance(value, float) else f"{key} {value}"
                for key, value in values.items()
            )
            print(f"{name}: {shown}")
        total = sum(int(values.get("n", 0)) for values in figures.values())
        print(f"{total} messages in {elapsed * 1000:.0f} ms")
        if args.misses:
            for miss in misses:
                print(f"  miss: {miss}")
        return 0
    text = args.text if args.text is not None else sys.stdin.read()
    verdict = guard_check(text)
    print(json.dumps(verdict.as_dict() if verdict else None, ensure_ascii=False))
    return 0
