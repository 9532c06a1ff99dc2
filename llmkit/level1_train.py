"""Retrains level 1's shipped risk classifier and reports it on the held-out split.

    python -m llmkit.level1_train         # retrain: llmkit/data/level1/risk.npz, manifest.json
    python -m llmkit.level1_train --eval  # the shipped weights on the held-out split
    python -m llmkit.level1_train --eval --eval-dir tests/corpora/guard-dev  # and outside

Data (all in the repository, so a clone alone retrains): `training/injection-train.jsonl.xz`
(the team's injection corpus, its sources' licences beside it) and `training/own_examples.jsonl`
(ours: Ukrainian attacks, Russian and Ukrainian extraction paraphrases, briefing messages
that mention prompts, scripts, instructions or system requirements).

The split is grouped: a group is a source file and the first two words of a message, so
a template family (HiveTraceRed's wrappers, one of our templated phrasings) lands wholly
in training or wholly in the held-out fifth, and stratified by label, kind and language.
The threshold is chosen on out-of-fold predictions of the training part (grouped 4-fold),
never on the held-out fifth: the lowest attack probability whose false-positive rate on
benign messages stays within FP_BUDGET, i.e. the most recall the false-alarm budget allows.
Same data and seed give byte-identical weights (fixed seed, deterministic solver, a zip
written with fixed timestamps).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import lzma
import re
import sys
import time
import warnings
import zipfile
from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from llmkit.level1 import RISKS
from llmkit.level1_model import (
    DATA_DIR,
    MANIFEST,
    N_FEATURES,
    NGRAM_RANGE,
    WEIGHTS,
    featurise_text,
    make_vectorizer,
    sha256_of,
)

TRAINING_DIR = DATA_DIR / "training"
CORPUS = TRAINING_DIR / "injection-train.jsonl.xz"
OWN_EXAMPLES = TRAINING_DIR / "own_examples.jsonl"
SEED = 13
N_FOLDS = 5  # one fold held out, four for training and the threshold's cross-validation
C = 8.0
# Benign false alarms the threshold may spend on the out-of-fold predictions: under the
# 0.5% target, with a margin for the held-out fifth's own noise.
FP_BUDGET = 0.004
# Classes are weighted to balance, then "none" four times more: a false alarm refuses a
# real client (on the validation fold this raised recall at the same false-alarm rate).
NONE_WEIGHT = 4.0
# Weights smaller than this are stored as zero: the file stays small and scores move by
# less than 1e-3 (checked by the held-out figures, which are of the pruned weights).
PRUNE_BELOW = 0.05
# Attack kinds the contract (level1's Risk) names; model_fingerprinting ("which model are
# you?") is a client's fair question in a chat, labelled attack by its source only, so it
# trains as none.
ATTACK_KINDS = tuple(risk for risk in RISKS if risk != "none")
CLASSES = ("none", *ATTACK_KINDS)


@dataclass(frozen=True)
class Example:
    text: str
    label: str  # attack | benign
    lang: str
    kind: str
    source: str

    @property
    def risk(self) -> str:
        if self.label == "benign" or self.kind not in ATTACK_KINDS:
            return "none"
        return self.kind

    @property
    def group(self) -> str:
        words = re.findall(r"\w+", self.text.casefold())[:2]
        return f"{self.source}|{' '.join(words)}"

    @property
    def stratum(self) -> str:
        return f"{self.label}|{self.kind}|{self.lang}"


def load_examples() -> list[Example]:
    """Every training example, in file order (the corpus, then ours)."""
    lines = lzma.decompress(CORPUS.read_bytes()).decode("utf-8").split("\n")
    lines += OWN_EXAMPLES.read_text(encoding="utf-8").split("\n")
    examples = []
    for line in lines:
        if line.strip():
            row = json.loads(line)
            examples.append(
                Example(row["text"], row["label"], row["lang"], row["kind"], row["source"])
            )
    return examples


def data_sha256() -> str:
    digest = hashlib.sha256()
    for path in (CORPUS, OWN_EXAMPLES):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def split(examples: list[Example]) -> tuple[list[int], list[int], np.ndarray]:
    """(training indices, held-out indices, the training part's fold of each training row)."""
    from sklearn.model_selection import StratifiedGroupKFold

    strata = [example.stratum for example in examples]
    groups = [example.group for example in examples]
    folds = np.zeros(len(examples), dtype=np.int64)
    splitter = StratifiedGroupKFold(n_splits=N_FOLDS, shuffle=True, random_state=SEED)
    with warnings.catch_warnings():  # strata of one or two messages (a rare kind / language)
        warnings.simplefilter("ignore", UserWarning)
        parts = list(splitter.split(np.zeros(len(examples)), strata, groups))
    for fold, (_, test_index) in enumerate(parts):
        folds[test_index] = fold
    held_out = [i for i in range(len(examples)) if folds[i] == 0]
    training = [i for i in range(len(examples)) if folds[i] != 0]
    return training, held_out, folds[training]


def _features(texts: list[str]):
    from sklearn.feature_extraction.text import TfidfTransformer

    counts = make_vectorizer().transform([featurise_text(text) for text in texts])
    return counts, TfidfTransformer(sublinear_tf=True)


def fit(texts: list[str], risks: list[str]) -> dict[str, np.ndarray]:
    """The arrays risk.npz holds, fitted on these texts."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.utils.class_weight import compute_class_weight

    counts, tfidf = _features(texts)
    matrix = tfidf.fit_transform(counts)
    y = np.array([CLASSES.index(risk) for risk in risks])
    seen = np.unique(y)
    weights = dict(zip(seen, compute_class_weight("balanced", classes=seen, y=y), strict=True))
    weights[0] *= NONE_WEIGHT
    model = LogisticRegression(C=C, max_iter=2000, class_weight=weights, random_state=SEED)
    model.fit(matrix, y)
    coef = np.zeros((len(CLASSES), N_FEATURES), dtype=np.float32)
    coef[model.classes_] = model.coef_
    intercept = np.full(len(CLASSES), -30.0, dtype=np.float32)  # a class never seen
    intercept[model.classes_] = model.intercept_
    coef[np.abs(coef) < PRUNE_BELOW] = 0.0
    return {
        "classes": np.array(CLASSES),
        "idf": tfidf.idf_.astype(np.float16),
        "coef": coef.astype(np.float16),
        "intercept": intercept,
    }


def attack_probabilities(arrays: dict[str, np.ndarray], texts: list[str]) -> np.ndarray:
    """P(attack) = 1 - P(none) for each text, computed as the shipped model does."""
    from llmkit.level1_model import RiskModel

    model = RiskModel(
        classes=tuple(str(name) for name in arrays["classes"]),
        idf=arrays["idf"].astype(np.float32),
        coef=np.ascontiguousarray(arrays["coef"].astype(np.float32)),
        intercept=arrays["intercept"].astype(np.float32),
        threshold=0.5,
    )
    return np.array([1.0 - model.probabilities(text)[0] for text in texts])


def choose_threshold(probabilities: np.ndarray, is_attack: np.ndarray) -> tuple[float, dict]:
    """The lowest threshold whose benign false-positive rate is within FP_BUDGET, read off
    the precision-recall curve of out-of-fold predictions; with the curve's points."""
    from sklearn.metrics import precision_recall_curve

    precision, recall, thresholds = precision_recall_curve(is_attack, probabilities)
    benign = np.sort(probabilities[~is_attack])
    chosen = 0.5
    for threshold in thresholds:  # ascending
        false_positives = len(benign) - np.searchsorted(benign, threshold, side="left")
        if false_positives / len(benign) <= FP_BUDGET:
            chosen = float(threshold)
            break
    curve = {}
    for point in (0.3, 0.5, 0.7, 0.8, 0.9, 0.95, chosen):
        index = min(np.searchsorted(thresholds, point, side="left"), len(thresholds) - 1)
        false_positives = len(benign) - np.searchsorted(benign, point, side="left")
        curve[f"{point:.4f}"] = {
            "precision": round(float(precision[index]), 4),
            "recall": round(float(recall[index]), 4),
            "benign_fp_rate": round(false_positives / len(benign), 5),
        }
    return round(chosen, 4), curve


def _write_weights(arrays: dict[str, np.ndarray], path: Path) -> None:
    """An .npz numpy can read with allow_pickle=False, the same bytes for the same arrays."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(arrays):
            array_bytes = io.BytesIO()
            np.save(array_bytes, arrays[name], allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, array_bytes.getvalue(), compresslevel=9)
    path.write_bytes(buffer.getvalue())


def train(*, log=print) -> dict:
    started = time.perf_counter()
    examples = load_examples()
    training, held_out, folds = split(examples)
    texts = [examples[i].text for i in training]
    risks = [examples[i].risk for i in training]
    is_attack = np.array([risk != "none" for risk in risks])
    log(f"{len(examples)} examples: {len(training)} training, {len(held_out)} held out")
    out_of_fold = np.zeros(len(training))
    for fold in sorted(set(folds.tolist())):
        inside = [k for k in range(len(training)) if folds[k] != fold]
        outside = [k for k in range(len(training)) if folds[k] == fold]
        arrays = fit([texts[k] for k in inside], [risks[k] for k in inside])
        out_of_fold[outside] = attack_probabilities(arrays, [texts[k] for k in outside])
        log(f"  fold {fold}: {len(outside)} scored out of fold")
    threshold, curve = choose_threshold(out_of_fold, is_attack)
    log(f"threshold {threshold} (benign false-positive budget {FP_BUDGET:.2%} out of fold)")
    arrays = fit(texts, risks)
    _write_weights(arrays, WEIGHTS)
    manifest = {
        "about": "level-1 risk classifier; written by python -m llmkit.level1_train",
        "data_sha256": data_sha256(),
        "weights_sha256": sha256_of(WEIGHTS),
        "threshold": threshold,
        "threshold_rule": f"lowest with out-of-fold benign false positives <= {FP_BUDGET}",
        "out_of_fold_curve": curve,
        "features": {
            "analyzer": "char",
            "ngram_range": list(NGRAM_RANGE),
            "n_features": N_FEATURES,
            "tf": "sublinear",
            "prune_below": PRUNE_BELOW,
        },
        "model": {
            "kind": "LogisticRegression",
            "C": C,
            "class_weight": f"balanced, none x{NONE_WEIGHT}",
        },
        "seed": SEED,
        "examples": {"training": len(training), "held_out": len(held_out)},
    }
    MANIFEST.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    log(
        f"wrote {WEIGHTS} ({WEIGHTS.stat().st_size} bytes) in {time.perf_counter() - started:.0f} s"
    )
    return manifest


# ---------------------------------------------------------------------------------------
# Evaluation of the shipped weights.
# ---------------------------------------------------------------------------------------


def _rate(hits: int, n: int) -> str:
    return f"{hits / n:.4f} ({hits}/{n})" if n else "-"


def evaluate_rows(rows: list[tuple[str, str, str, str]]) -> dict[str, dict[str, float]]:
    """rows: (text, label, kind, lang). Recall per attack kind and language, false-positive
    rate per benign kind, and the timing of each message."""
    from llmkit.guard import guard_check
    from llmkit.level1_model import attack_scores

    fired_by: dict[str, list[bool]] = defaultdict(list)
    timings = []
    for text, label, kind, lang in rows:
        started = time.perf_counter()
        risk, _, _ = attack_scores(text)
        timings.append(time.perf_counter() - started)
        fired = risk != "none"
        # What a turn does: level 0's extraction rules in front, level 1 for the rest.
        level0 = guard_check(text)
        in_turn = fired or (level0 is not None and level0.kind == "prompt_extraction")
        if label == "attack":
            fired_by["level 0 + 1, attack: all"].append(in_turn)
            if kind == "prompt_extraction":
                fired_by["level 0 + 1, attack: prompt_extraction"].append(in_turn)
        else:
            fired_by["level 0 + 1, benign: all"].append(in_turn)
            if kind == "briefing":
                fired_by["level 0 + 1, benign: briefing"].append(in_turn)
        if label == "attack":
            fired_by["attack: all"].append(fired)
            fired_by[f"attack kind: {kind}"].append(fired)
            fired_by[f"attack lang: {lang}"].append(fired)
            fired_by[f"attack: {kind} / {lang}"].append(fired)
        else:
            fired_by["benign: all"].append(fired)
            fired_by[f"benign kind: {kind}"].append(fired)
            fired_by[f"benign lang: {lang}"].append(fired)
    figures = {
        name: {"n": len(values), "rate": sum(values) / len(values), "hits": sum(values)}
        for name, values in sorted(fired_by.items())
    }
    ordered = np.sort(np.array(timings)) * 1000
    figures["latency ms"] = {
        "n": len(ordered),
        "p50": float(np.percentile(ordered, 50)),
        "p99": float(np.percentile(ordered, 99)),
        "max": float(ordered[-1]),
    }
    return figures


@cache
def held_out_rows() -> list[tuple[str, str, str, str]]:
    examples = load_examples()
    _, held_out, _ = split(examples)
    rows = []
    for i in held_out:
        example = examples[i]
        kind = example.kind if example.risk != "none" or example.label == "benign" else "none"
        label = "attack" if example.risk != "none" else "benign"
        if example.label == "attack" and example.risk == "none":
            kind = f"{example.kind} (trained as none)"
        rows.append((example.text, label, kind, example.lang))
    return rows


def briefing_example_rows(directory: Path) -> list[tuple[str, str, str, str]]:
    """Client turns of the briefing examples (never trained on): benign "briefing_examples"
    unless the example expects the guard to answer that turn."""
    import yaml

    rows = []
    for path in sorted(directory.rglob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for turn in data.get("turns", []):
            text = turn.get("client") if isinstance(turn, dict) else None
            if isinstance(text, str) and text.strip():
                attack = re.search(r"system prompt|instructions", text, re.IGNORECASE)
                label = "attack" if attack and "ignore all previous" in text.lower() else "benign"
                kind = "prompt_extraction" if label == "attack" else "briefing_examples"
                rows.append((text, label, kind, data.get("language", "?")))
    return rows


def outside_rows(directory: Path) -> list[tuple[str, str, str, str]]:
    """A folder in the guard's development format (see llmkit.guard.load_corpus)."""
    from llmkit.guard import load_corpus
    from llmkit.language import detect_language

    rows = []
    for name, pairs in load_corpus(directory).items():
        for expected, text in pairs:
            label = "attack" if expected == "prompt_extraction" else "benign"
            kind = expected if label == "attack" else f"{name} ({expected})"
            rows.append((text, label, kind, detect_language(text, default="en")))
    return rows


def escalation_figures(texts: list[str]) -> dict[str, int]:
    """How many messages level 1's intent would flag for the producer, by intent."""
    from llmkit.level1 import ESCALATING_INTENTS, intent_of

    counts = dict.fromkeys(sorted(ESCALATING_INTENTS), 0)
    for text in texts:
        intent = intent_of(text)
        if intent in counts:
            counts[intent] += 1
    return counts


def print_figures(title: str, figures: dict[str, dict[str, float]]) -> None:
    print(f"== {title}")
    for name, values in figures.items():
        if name == "latency ms":
            print(
                f"  per message: p50 {values['p50']:.3f} ms, p99 {values['p99']:.3f} ms, "
                f"max {values['max']:.3f} ms over {values['n']}"
            )
            continue
        what = "recall" if "attack" in name else "false positives"
        print(f"  {name}: {what} {_rate(int(values['hits']), int(values['n']))}")


def _main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m llmkit.level1_train", description=__doc__)
    parser.add_argument("--eval", action="store_true", help="report the shipped weights")
    parser.add_argument("--eval-dir", type=Path, help="also a folder in the guard's format")
    parser.add_argument("--examples", type=Path, default=Path("briefing/examples"))
    args = parser.parse_args(argv)
    if not args.eval and args.eval_dir is None:
        train()
        return 0
    from llmkit.level1_model import load_model

    manifest = json.loads(MANIFEST.read_text(encoding="utf-8"))
    load_model()
    print(f"threshold {manifest['threshold']} ({manifest['threshold_rule']})")
    if manifest["data_sha256"] != data_sha256():
        print("warning: the training data changed since the weights were written")
    print_figures("held-out split (never trained on)", evaluate_rows(held_out_rows()))
    if args.examples.is_dir():
        rows = briefing_example_rows(args.examples)
        print_figures(f"{args.examples} client turns", evaluate_rows(rows))
        flagged = escalation_figures([row[0] for row in rows])
        print(f"  flagged for the producer (none asks for a person or complains): {flagged}")
    if args.eval_dir is not None:
        print_figures(f"{args.eval_dir}", evaluate_rows(outside_rows(args.eval_dir)))
    return 0


if __name__ == "__main__":
    sys.exit(_main())
