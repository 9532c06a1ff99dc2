"""Retrains level 1's shipped classifiers and reports them on the held-out split.

    python -m llmkit.level1_train         # retrain: llmkit/data/level1/{risk,capability}.npz
    python -m llmkit.level1_train --eval  # the shipped weights on the held-out split
    python -m llmkit.level1_train --eval --eval-dir tests/corpora/guard-dev  # and outside
    python -m llmkit.level1_train --triggers  # the attack words the model leans on most

Data (all in the repository, so a clone alone retrains): `training/injection-train.jsonl.xz`
(the team's injection corpus, its sources' licences beside it) and our own files
(`training/README.md` says what each holds): `own_examples.jsonl`, `own_hard_negatives.jsonl`
(benign text full of attack words, in ru/uk/en), `own_assistant_questions.jsonl` (questions
about the assistant, "what can you do?" in many wordings, and briefing look-alikes),
`own_extraction_attacks.jsonl`.

The split is grouped: a group is a source file and the first two words of a message (or,
in our files, a sentence and its variants), so a template family (HiveTraceRed's wrappers,
one of our phrasings) lands wholly in training or wholly in the held-out fifth. A group's
fold is a hash of its name, so adding data never reshuffles the split.

Four logistic regressions over the hashed features of `level1_model`:

* attack or not, in two stages (binary). The first reads every training message; the
  second only those the first gives an out-of-fold attack probability of SECOND_STAGE_FROM
  or more (attacks and the benign text that talks like them); a message's attack
  probability is the geometric mean of the two. In both, each feature is scaled by the
  magnitude of its naive-Bayes log-count ratio between attacks and benign text (NB-LR): an
  n-gram as common in benign text as in attacks starts near zero instead of being one the
  regression can lean on. Hard negatives weigh HARD_NEGATIVE_WEIGHT times an ordinary
  example; in the first stage benign messages weigh NONE_WEIGHT times more.
* which attack kind (multinomial, attacks only): names the risk of a message already judged
  an attack, for the event and the figures.
* capability question or not (binary), on the messages level 0's capabilities rule would
  ask it about when its patterns are silent.

Thresholds come from out-of-fold predictions of the training part (grouped 4-fold), never
from the held-out fifth: for attacks, the lowest probability at which benign false alarms
stay within FP_BUDGET on ordinary text and HARD_NEGATIVE_BUDGET on hard negatives, and not
below ATTACK_THRESHOLD_FLOOR; for capability questions, the lowest at which, among the
messages level 0 would ask the model about, CAPABILITY_FP_BUDGET of the benign ones and
CAPABILITY_LOOK_ALIKE_BUDGET of the briefing look-alikes would be taken.
Same data and seed give byte-identical weights (fixed seed, deterministic solver, a zip
written with fixed timestamps).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import lzma
import math
import re
import sys
import time
import zipfile
import zlib
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from llmkit.level1 import RISKS
from llmkit.level1_model import (
    CAPABILITY_WEIGHTS,
    DATA_DIR,
    MANIFEST,
    N_FEATURES,
    NGRAM_RANGE,
    WEIGHTS,
    WORD_NGRAM_RANGE,
    feature_counts,
    sha256_of,
)

TRAINING_DIR = DATA_DIR / "training"
CORPUS = TRAINING_DIR / "injection-train.jsonl.xz"
OWN_FILES = tuple(
    TRAINING_DIR / name
    for name in (
        "own_examples.jsonl",
        "own_hard_negatives.jsonl",
        "own_assistant_questions.jsonl",
        "own_extraction_attacks.jsonl",
        "own_attack_families.jsonl",
    )
)
SEED = 13
N_FOLDS = 5  # one fold held out, four for training and the thresholds' cross-validation
C = 8.0
# Benign messages weigh this much more than the class balance gives them: a false alarm
# refuses a real client.
NONE_WEIGHT = 4.0
# Benign text that talks like an attack (our hard negatives, the corpus's, questions about
# the assistant) weighs twice an ordinary example: it is what the model must learn from.
HARD_NEGATIVE_WEIGHT = 2.0
HARD_KINDS = frozenset(
    {"hard_negative", "to_assistant", "capability", "identity", "personal", "about_assistant"}
    | {"not_capability", "polite_request"}
)
# False alarms the threshold may spend out of fold: on ordinary text, under the 0.3%
# target with a margin for the held-out fifth's noise; on hard negatives, half the 10%.
FP_BUDGET = 0.0015
HARD_NEGATIVE_BUDGET = 0.05
# ... and never below even odds: a client is not refused on a message the model finds more
# likely benign (the budgets alone went to 0.46, where a phone number in a briefing example
# sat just above the line).
ATTACK_THRESHOLD_FLOOR = 0.5
# Weights smaller than this are stored as zero: the file stays small and scores move by
# less than 1e-3 (checked by the held-out figures, which are of the pruned weights).
PRUNE_BELOW = 0.02
# Attack kinds the contract (level1's Risk) names; model_fingerprinting ("which model are
# you?") is a client's fair question in a chat, labelled attack by its source only, so it
# trains as none.
ATTACK_KINDS = tuple(risk for risk in RISKS if risk != "none")
CLASSES = ("none", *ATTACK_KINDS)
# The capability model reads short messages only: level 0 asks it about a whole message
# that is one question, never about a paragraph. Its false takes are budgeted among the
# messages level 0 asks it about: benign ones, and briefing look-alikes apart.
CAPABILITY_MAX_CHARS = 160
# The second stage learns from the training messages the first stage gives at least this
# attack probability out of fold: attacks and the benign text that looks like them.
SECOND_STAGE_FROM = 0.05
CAPABILITY_C = 4.0
CAPABILITY_FP_BUDGET = 0.005
CAPABILITY_LOOK_ALIKE_BUDGET = 0.03


@dataclass(frozen=True)
class Example:
    text: str
    label: str  # attack | benign
    lang: str
    kind: str
    source: str
    capability: bool = False  # a question the capabilities reply answers
    family: str = ""  # our variants of one sentence ("group" in the file) split together

    @property
    def risk(self) -> str:
        if self.label == "benign" or self.kind not in ATTACK_KINDS:
            return "none"
        return self.kind

    @property
    def group(self) -> str:
        if self.family:
            return self.family
        words = re.findall(r"\w+", self.text.casefold())[:2]
        return f"{self.source}|{' '.join(words)}"

    @property
    def stratum(self) -> str:
        return f"{self.label}|{self.kind}|{self.lang}"

    @property
    def category(self) -> str:
        """What the figures count it as: attack, ordinary (the corpus's benign text),
        hard_negative, assistant_question (ours: identity, capability, about the chat),
        briefing (ours: client messages, polite requests, capability look-alikes)."""
        if self.risk != "none":
            return "attack"
        if self.kind == "hard_negative":
            return "hard_negative"
        if not self.source.startswith("own/"):
            return "ordinary"
        if self.kind in {"to_assistant", "capability", "identity", "personal", "about_assistant"}:
            return "assistant_question"
        return "briefing"


def load_examples() -> list[Example]:
    """Every training example, in file order (the corpus, then ours)."""
    lines = lzma.decompress(CORPUS.read_bytes()).decode("utf-8").split("\n")
    for path in OWN_FILES:
        lines += path.read_text(encoding="utf-8").split("\n")
    examples = []
    for line in lines:
        if line.strip():
            row = json.loads(line)
            examples.append(
                Example(
                    row["text"],
                    row["label"],
                    row["lang"],
                    row["kind"],
                    row["source"],
                    bool(row.get("capability", False)),
                    row.get("group", ""),
                )
            )
    return examples


def data_sha256() -> str:
    digest = hashlib.sha256()
    for path in (CORPUS, *OWN_FILES):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def fold_of(group: str) -> int:
    """A group's fold, from its name alone: adding data never moves a message to the other
    side of the split, so figures before and after a change are comparable."""
    return zlib.crc32(f"{SEED}|{group}".encode()) % N_FOLDS


def split(examples: list[Example]) -> tuple[list[int], list[int], np.ndarray]:
    """(training indices, held-out indices, the training part's fold of each training row)."""
    folds = np.array([fold_of(example.group) for example in examples], dtype=np.int64)
    held_out = [i for i in range(len(examples)) if folds[i] == 0]
    training = [i for i in range(len(examples)) if folds[i] != 0]
    return training, held_out, folds[training]


# ---------------------------------------------------------------------------------------
# Fitting.
# ---------------------------------------------------------------------------------------


def count_matrix(texts: Iterable[str]):
    """The feature counts of each text as a CSR matrix (rows: texts)."""
    from scipy.sparse import csr_matrix

    rows = [feature_counts(text) for text in texts]
    indptr = np.cumsum([0] + [len(indices) for indices, _ in rows])
    indices = np.concatenate([indices for indices, _ in rows]) if rows else np.zeros(0)
    counts = np.concatenate([counts for _, counts in rows]) if rows else np.zeros(0)
    return csr_matrix(
        (counts.astype(np.float64), indices.astype(np.int64), indptr),
        shape=(len(rows), N_FEATURES),
    )


def fit_idf(counts) -> np.ndarray:
    """Smoothed IDF, as scikit-learn's TfidfTransformer computes it."""
    document_frequency = np.bincount(counts.indices, minlength=N_FEATURES)
    n = counts.shape[0]
    return (np.log((1.0 + n) / (1.0 + document_frequency)) + 1.0).astype(np.float32)


def tfidf(counts, idf: np.ndarray):
    """Sublinear tf times idf, rows L2-normalised: level1_model.feature_values per row."""
    from scipy.sparse import diags

    matrix = counts.copy()
    matrix.data = (1.0 + np.log(matrix.data)) * idf[matrix.indices]
    norms = np.sqrt(np.asarray(matrix.multiply(matrix).sum(axis=1)).ravel())
    norms[norms == 0] = 1.0
    return diags(1.0 / norms) @ matrix


def nb_scale(matrix, positive: np.ndarray) -> np.ndarray:
    """|log-count ratio| of each feature between the positive rows and the others."""
    present = matrix.copy()
    present.data[:] = 1.0
    with_positive = np.asarray(present[positive].sum(axis=0)).ravel() + 1.0
    with_negative = np.asarray(present[~positive].sum(axis=0)).ravel() + 1.0
    ratio = np.log(with_positive / with_positive.sum()) - np.log(
        with_negative / with_negative.sum()
    )
    return np.abs(ratio).astype(np.float32)


def _fit_binary(matrix, positive: np.ndarray, *, c: float, negative_weight: float, weights):
    """(coef over the features, intercept) of an NB-scaled binary logistic regression; the
    NB scale is folded into the coefficients, so inference multiplies plain tf-idf values."""
    from scipy.sparse import diags
    from sklearn.linear_model import LogisticRegression

    scale = nb_scale(matrix, positive)
    n_positive = int(positive.sum())
    n_negative = len(positive) - n_positive
    class_weight = {
        0: len(positive) / (2 * n_negative) * negative_weight,
        1: len(positive) / (2 * n_positive),
    }
    model = LogisticRegression(C=c, max_iter=3000, class_weight=class_weight, random_state=SEED)
    model.fit(matrix @ diags(scale), positive.astype(np.int64), sample_weight=weights)
    return (model.coef_[0] * scale).astype(np.float32), np.float32(model.intercept_[0])


def _fit_kinds(matrix, kinds: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(coef (features, attack kinds), intercept) of the multinomial kind model."""
    from sklearn.linear_model import LogisticRegression

    y = np.array([ATTACK_KINDS.index(kind) for kind in kinds])
    model = LogisticRegression(C=C, max_iter=2000, class_weight="balanced", random_state=SEED)
    model.fit(matrix, y)
    coef = np.zeros((N_FEATURES, len(ATTACK_KINDS)), dtype=np.float32)
    intercept = np.full(len(ATTACK_KINDS), -30.0, dtype=np.float32)  # a kind never seen
    if len(model.classes_) == 1:
        intercept[model.classes_[0]] = 0.0
    else:
        columns = model.coef_ if len(model.classes_) > 2 else np.vstack([-model.coef_, model.coef_])
        coef[:, model.classes_] = columns.T
        intercepts = (
            model.intercept_
            if len(model.classes_) > 2
            else np.array([-model.intercept_[0], model.intercept_[0]])
        )
        intercept[model.classes_] = intercepts
    return coef, intercept


def _prune(coef: np.ndarray) -> np.ndarray:
    coef = coef.copy()
    coef[np.abs(coef) < PRUNE_BELOW] = 0.0
    return coef.astype(np.float16)


def _sample_weights(examples: list[Example]) -> np.ndarray:
    return np.array(
        [
            HARD_NEGATIVE_WEIGHT
            if example.label == "benign" and example.kind in HARD_KINDS
            else 1.0
            for example in examples
        ]
    )


def fit_first_stage(examples: list[Example], counts=None) -> dict[str, np.ndarray]:
    """The first stage alone (attack or not over every example), unpruned: what the
    out-of-fold pass scores to find the messages the second stage learns from."""
    counts = count_matrix(example.text for example in examples) if counts is None else counts
    idf = fit_idf(counts)
    attack = np.array([example.risk != "none" for example in examples])
    coef, intercept = _fit_binary(
        tfidf(counts, idf),
        attack,
        c=C,
        negative_weight=NONE_WEIGHT,
        weights=_sample_weights(examples),
    )
    return {
        "classes": np.array(["attack"]),
        "idf": idf,
        "coef": coef[:, None],
        "intercept": np.array([intercept], dtype=np.float32),
    }


def fit(
    examples: list[Example],
    counts=None,
    confusable: np.ndarray | None = None,
    first: dict[str, np.ndarray] | None = None,
) -> dict[str, np.ndarray]:
    """The arrays risk.npz holds, fitted on these examples. Columns of `coef`: the first
    stage's attack logit, the second stage's (fitted on the `confusable` examples only, all
    when None) and the attack kinds'. `first`: this data's fit_first_stage, if computed."""
    counts = count_matrix(example.text for example in examples) if counts is None else counts
    first = fit_first_stage(examples, counts) if first is None else first
    idf = first["idf"]
    matrix = tfidf(counts, idf)
    attack = np.array([example.risk != "none" for example in examples])
    rows = np.ones(len(examples), dtype=bool) if confusable is None else confusable
    second, second_intercept = _fit_binary(
        matrix[rows],
        attack[rows],
        c=C,
        negative_weight=1.0,
        weights=_sample_weights(examples)[rows],
    )
    kind_coef, kind_intercept = _fit_kinds(
        matrix[attack], [example.risk for example in examples if example.risk != "none"]
    )
    return {
        "classes": np.array(("attack", "attack_second_stage", *ATTACK_KINDS)),
        "idf": idf.astype(np.float16),
        "coef": _prune(np.column_stack([first["coef"][:, 0], second, kind_coef])),
        "intercept": np.concatenate(
            [first["intercept"], [second_intercept], kind_intercept]
        ).astype(np.float32),
    }


def capability_rows(examples: list[Example]) -> list[int]:
    """The examples the capability model learns from: the messages level 0 would ask it
    about (short single questions that speak to the assistant, no figures: see
    llmkit.guard.capabilities), labelled for it (own_examples' questions to the assistant
    were written before the capability label and mix both sides, so they stay out)."""
    from llmkit.guard.capabilities import learned_model_reads

    return [
        i
        for i, example in enumerate(examples)
        if len(example.text) <= CAPABILITY_MAX_CHARS
        and example.kind != "to_assistant"
        and learned_model_reads(example.text)
    ]


def fit_capability(examples: list[Example], counts=None) -> dict[str, np.ndarray]:
    """The arrays capability.npz holds (one column: the capability-question logit)."""
    counts = count_matrix(example.text for example in examples) if counts is None else counts
    idf = fit_idf(counts)
    positive = np.array([example.capability for example in examples])
    coef, intercept = _fit_binary(
        tfidf(counts, idf), positive, c=CAPABILITY_C, negative_weight=1.0, weights=None
    )
    return {
        "classes": np.array(["capability"]),
        "idf": idf.astype(np.float16),
        "coef": _prune(coef[:, None]),
        "intercept": np.array([intercept], dtype=np.float32),
    }


def _model(arrays: dict[str, np.ndarray], threshold: float = 0.5):
    from llmkit.level1_model import linear_model_of

    return linear_model_of(arrays, threshold)


def first_column_probabilities(arrays: dict[str, np.ndarray], texts: list[str]) -> np.ndarray:
    """P(positive) of the first column for each text, computed as the shipped model does."""
    model = _model(arrays)
    return np.array([model.probability(text) for text in texts])


def attack_probabilities(arrays: dict[str, np.ndarray], texts: list[str]) -> np.ndarray:
    """The two-stage attack probability of each text, as level1_model.attack_scores reads
    risk.npz."""
    from llmkit.level1_model import read_whole

    model = _model(arrays)
    # Every window is read (no early stop at a threshold not chosen yet): the highest.
    return np.array([read_whole(model, text, stop_at=math.inf)[0] for text in texts])


def lowest_threshold(probabilities: np.ndarray, budgets: list[tuple[np.ndarray, float]]) -> float:
    """The lowest threshold at which, for each (mask, budget), at most `budget` of the
    masked (negative) rows score at or above it."""
    threshold = 0.0
    for mask, budget in budgets:
        scores = np.sort(probabilities[mask])[::-1]
        allowed = int(np.floor(budget * len(scores)))
        if allowed < len(scores):
            threshold = max(threshold, float(scores[allowed]) + 1e-6)
    return round(min(threshold, 0.99), 4)


def _out_of_fold(
    examples: list[Example],
    counts,
    folds: np.ndarray,
    fitter: Callable[[list[Example], object], dict[str, np.ndarray]],
    log: Callable[[str], object],
) -> np.ndarray:
    scores = np.zeros(len(examples))
    for fold in sorted(set(folds.tolist())):
        inside = np.flatnonzero(folds != fold)
        outside = np.flatnonzero(folds == fold)
        arrays = fitter([examples[k] for k in inside], counts[inside])
        scores[outside] = first_column_probabilities(arrays, [examples[k].text for k in outside])
        log(f"  fold {fold}: {len(outside)} scored out of fold")
    return scores


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


def _rates(scores: np.ndarray, mask: np.ndarray, threshold: float) -> float:
    return round(float((scores[mask] >= threshold).mean()), 5) if mask.any() else 0.0


def train(*, log=print) -> dict:
    started = time.perf_counter()
    examples = load_examples()
    training, held_out, folds = split(examples)
    rows = [examples[i] for i in training]
    log(f"{len(examples)} examples: {len(training)} training, {len(held_out)} held out")
    counts = count_matrix(example.text for example in rows)

    # First stage out of fold; the messages it finds at all suspicious (SECOND_STAGE_FROM)
    # are what the second stage learns from, and its fold models are reused below.
    first_oof = np.zeros(len(rows))
    firsts = {}
    for fold in sorted(set(folds.tolist())):
        inside = np.flatnonzero(folds != fold)
        outside = np.flatnonzero(folds == fold)
        firsts[fold] = fit_first_stage([rows[k] for k in inside], counts[inside])
        texts = [rows[k].text for k in outside]
        first_oof[outside] = first_column_probabilities(firsts[fold], texts)
        log(f"  fold {fold}: first stage scored {len(outside)} out of fold")
    confusable = first_oof >= SECOND_STAGE_FROM
    log(f"second stage learns from {int(confusable.sum())} messages")
    attack_oof = np.zeros(len(rows))
    for fold in sorted(set(folds.tolist())):
        inside = np.flatnonzero(folds != fold)
        outside = np.flatnonzero(folds == fold)
        arrays = fit(
            [rows[k] for k in inside], counts[inside], confusable[inside], first=firsts[fold]
        )
        attack_oof[outside] = attack_probabilities(arrays, [rows[k].text for k in outside])
        log(f"  fold {fold}: both stages scored {len(outside)} out of fold")
    categories = np.array([example.category for example in rows])
    is_attack = categories == "attack"
    threshold = max(
        ATTACK_THRESHOLD_FLOOR,
        lowest_threshold(
            attack_oof,
            [
                (categories == "ordinary", FP_BUDGET),
                (categories == "hard_negative", HARD_NEGATIVE_BUDGET),
            ],
        ),
    )
    recall = _rates(attack_oof, is_attack, threshold)
    log(f"attack threshold {threshold}: out-of-fold recall {recall}")
    _write_weights(fit(rows, counts, confusable), WEIGHTS)

    short = np.array(capability_rows(rows))
    short_rows = [rows[k] for k in short]
    capability_oof = _out_of_fold(short_rows, counts[short], folds[short], fit_capability, log)
    positive = np.array([example.capability for example in short_rows])
    kinds = np.array([example.kind for example in short_rows])
    # Questions about the conversation ("are you still there?") may get either answer;
    # briefing look-alikes ("what can you do for 500k?") have a budget of their own.
    # An attack answered with the capabilities reply is answered safely (level 0's
    # extraction rules run first), so attacks spend no budget.
    look_alike = kinds == "not_capability"
    attacks = np.array([example.risk != "none" for example in short_rows])
    others = ~positive & ~look_alike & ~attacks & (kinds != "about_assistant")
    capability_threshold = lowest_threshold(
        capability_oof,
        [(others, CAPABILITY_FP_BUDGET), (look_alike, CAPABILITY_LOOK_ALIKE_BUDGET)],
    )
    log(
        f"capability threshold {capability_threshold}: out-of-fold recall "
        f"{_rates(capability_oof, positive, capability_threshold)}"
    )
    _write_weights(fit_capability(short_rows, counts[short]), CAPABILITY_WEIGHTS)

    manifest = {
        "about": "level-1 classifiers; written by python -m llmkit.level1_train",
        "data_sha256": data_sha256(),
        "weights_sha256": sha256_of(WEIGHTS),
        "threshold": threshold,
        "threshold_rule": (
            f"lowest with out-of-fold false alarms <= {FP_BUDGET} on ordinary text and "
            f"<= {HARD_NEGATIVE_BUDGET} on hard negatives, at least {ATTACK_THRESHOLD_FLOOR}"
        ),
        "out_of_fold": {
            str(point): {
                "attack_recall": _rates(attack_oof, is_attack, point),
                "ordinary_fp": _rates(attack_oof, categories == "ordinary", point),
                "hard_negative_fp": _rates(attack_oof, categories == "hard_negative", point),
            }
            for point in sorted({0.3, 0.5, 0.7, threshold})
        },
        "capability": {
            "weights_sha256": sha256_of(CAPABILITY_WEIGHTS),
            "threshold": capability_threshold,
            "threshold_rule": (
                f"lowest with out-of-fold false takes <= {CAPABILITY_FP_BUDGET} of the messages "
                f"level 0 asks it about and <= {CAPABILITY_LOOK_ALIKE_BUDGET} of briefing "
                "look-alikes among them"
            ),
            "out_of_fold_recall": _rates(capability_oof, positive, capability_threshold),
            "C": CAPABILITY_C,
        },
        "features": {
            "char_ngrams": list(NGRAM_RANGE),
            "word_ngrams": list(WORD_NGRAM_RANGE),
            "n_features": N_FEATURES,
            "tf": "sublinear",
            "prune_below": PRUNE_BELOW,
        },
        "model": {
            "attack": (
                "sqrt(P1 * P2): LogisticRegression on NB-scaled tf-idf (P1), and another on "
                f"the training messages with out-of-fold P1 >= {SECOND_STAGE_FROM} (P2)"
            ),
            "kind": "LogisticRegression (multinomial) over attacks",
            "C": C,
            "class_weight": f"balanced, none x{NONE_WEIGHT}",
            "hard_negative_weight": HARD_NEGATIVE_WEIGHT,
        },
        "seed": SEED,
        "examples": {"training": len(training), "held_out": len(held_out)},
    }
    MANIFEST.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    log(
        f"wrote {WEIGHTS.name} ({WEIGHTS.stat().st_size} bytes), {CAPABILITY_WEIGHTS.name} "
        f"({CAPABILITY_WEIGHTS.stat().st_size} bytes) in {time.perf_counter() - started:.0f} s"
    )
    return manifest


# ---------------------------------------------------------------------------------------
# Evaluation of the shipped weights: what a turn does with each message.
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """One evaluated message: its text, category (see Example.category), language, the
    attack kind it is labelled with ("" for benign) and whether the capabilities reply
    should answer it."""

    text: str
    category: str
    lang: str
    kind: str = ""
    capability: bool = False


def turn_outcome(text: str) -> str:
    """What a turn does with the message: "refused" (level 0's extraction rules, then level
    1), "capabilities" (level 0's capabilities reply) or "read" (the stage agent)."""
    from llmkit.guard import guard_check
    from llmkit.level1_model import attack_scores

    verdict = guard_check(text)
    if verdict is not None:
        return "refused" if verdict.kind == "prompt_extraction" else "capabilities"
    return "refused" if attack_scores(text)[0] != "none" else "read"


def evaluate(rows: list[Row]) -> dict[str, dict[str, float]]:
    """Rates by category and language: attack recall, false alarms on benign text,
    capability recall and false takes; and the level-1 cost per message."""
    from llmkit.level1 import classify

    hits: dict[str, list[bool]] = defaultdict(list)
    timings = []
    for row in rows:
        outcome = turn_outcome(row.text)
        started = time.perf_counter()
        classify(row.text)
        timings.append(time.perf_counter() - started)
        langs = ("all", row.lang) if row.lang in {"ru", "uk", "en"} else ("all",)
        for lang in langs:
            if row.category == "attack":
                hits[f"attack recall / {lang}"].append(outcome == "refused")
                if row.kind == "prompt_extraction":
                    hits[f"prompt-extraction recall / {lang}"].append(outcome == "refused")
            else:
                hits[f"{row.category} refused / {lang}"].append(outcome == "refused")
            if row.capability:
                hits[f"capability recall / {lang}"].append(outcome == "capabilities")
            elif row.category != "attack":
                hits[f"{row.category} taken for a capability question / {lang}"].append(
                    outcome == "capabilities"
                )
    figures: dict[str, dict[str, float]] = {
        name: {"n": len(values), "hits": sum(values), "rate": sum(values) / len(values)}
        for name, values in sorted(hits.items())
    }
    ordered = np.sort(np.array(timings)) * 1000
    figures["latency ms"] = {
        "n": len(ordered),
        "p50": float(np.percentile(ordered, 50)),
        "p99": float(np.percentile(ordered, 99)),
        "max": float(ordered[-1]),
    }
    return figures


# Sources of own_attack_families.jsonl: the held-out figures are also printed without
# them, comparable with the figures from before they were written.
FAMILY_SOURCES = ("own/atk_", "own/look_")


@cache
def held_out_rows(*, without_families: bool = False) -> list[Row]:
    examples = load_examples()
    _, held_out, _ = split(examples)
    if without_families:
        held_out = [i for i in held_out if not examples[i].source.startswith(FAMILY_SOURCES)]
    return [
        Row(
            examples[i].text,
            examples[i].category,
            examples[i].lang,
            examples[i].risk if examples[i].risk != "none" else "",
            examples[i].capability,
        )
        for i in held_out
    ]


def briefing_example_rows(directory: Path) -> list[Row]:
    """Client turns of the briefing examples (never trained on): benign briefing messages
    unless the example expects the guard to answer that turn. An example lists them as
    `turns` (each with its `client` message) or as a plain `client` list."""
    import yaml

    rows = []
    for path in sorted(directory.rglob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        for turn in data.get("turns") or data.get("client") or []:
            text = turn.get("client") if isinstance(turn, dict) else turn
            if isinstance(text, str) and text.strip():
                attack = re.search(r"system prompt|instructions", text, re.IGNORECASE)
                if attack and "ignore all previous" in text.lower():
                    rows.append(Row(text, "attack", data.get("language", "?"), "prompt_extraction"))
                else:
                    rows.append(Row(text, "briefing", data.get("language", "?")))
    return rows


def outside_rows(directory: Path) -> list[Row]:
    """A folder in the guard's development format (see llmkit.guard.load_corpus)."""
    from llmkit.guard import load_corpus
    from llmkit.language import detect_language

    rows = []
    for name, pairs in load_corpus(directory).items():
        for expected, text in pairs:
            lang = detect_language(text, default="en")
            if expected == "prompt_extraction":
                rows.append(Row(text, "attack", lang, "prompt_extraction"))
            else:
                rows.append(Row(text, name, lang, capability=expected == "capabilities"))
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


# Neutral frames a word is scored in, alone: a word that makes its frame an attack is one
# the model leans on (PIGuard's trigger words), and benign text using it is what to add.
TRIGGER_FRAMES = {
    "en": ("Could you tell me more about the {}?", "We need a video that mentions {}."),
    "ru": ("Расскажите подробнее про {}.", "Нужен ролик, где упоминается {}."),
    "uk": ("Розкажіть докладніше про {}.", "Потрібен ролик, де згадується {}."),
}


def trigger_words(examples: list[Example], top: int = 25) -> dict[str, list[tuple[str, float]]]:
    """Per language, the words far more frequent in attacks than in benign text that push
    a neutral frame furthest towards an attack with the shipped weights (the scan behind
    own_hard_negatives' trigger_mix families)."""
    from llmkit.language import detect_language
    from llmkit.level1_model import attack_scores

    in_attacks: dict[str, int] = defaultdict(int)
    in_benign: dict[str, int] = defaultdict(int)
    for example in examples:
        counter = in_attacks if example.risk != "none" else in_benign
        for word in set(re.findall(r"[^\W\d_]{4,}", example.text.casefold())):
            counter[word] += 1
    scored: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for word, count in in_attacks.items():
        if count < 8 or count < 2 * (in_benign[word] + 1):
            continue
        lang = detect_language(word, default="en" if word.isascii() else "ru")
        frames = TRIGGER_FRAMES.get(lang)
        if frames is None:
            continue
        score = max(attack_scores(frame.format(word))[1] for frame in frames)
        scored[lang].append((word, round(score, 3)))
    return {lang: sorted(words, key=lambda item: -item[1])[:top] for lang, words in scored.items()}


def print_figures(title: str, figures: dict[str, dict[str, float]]) -> None:
    print(f"== {title}")
    for name, values in figures.items():
        if name == "latency ms":
            print(
                f"  level 1 (classify) per message: p50 {values['p50']:.3f} ms, "
                f"p99 {values['p99']:.3f} ms, max {values['max']:.3f} ms over {values['n']}"
            )
            continue
        hits, n = int(values["hits"]), int(values["n"])
        print(f"  {name}: {hits / n:.4f} ({hits}/{n})")


def _main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m llmkit.level1_train", description=__doc__)
    parser.add_argument("--eval", action="store_true", help="report the shipped weights")
    parser.add_argument("--eval-dir", type=Path, help="also a folder in the guard's format")
    parser.add_argument(
        "--examples",
        type=Path,
        action="append",
        help="folders of example conversations whose client turns must be read "
        "(briefing/examples unless given; repeat for more)",
    )
    parser.add_argument(
        "--triggers", action="store_true", help="the attack words the shipped model leans on"
    )
    args = parser.parse_args(argv)
    if args.triggers:
        for lang, words in trigger_words(load_examples()).items():
            print(f"{lang}: " + ", ".join(f"{word} {score:.2f}" for word, score in words))
        return 0
    if not args.eval and args.eval_dir is None:
        train()
        return 0
    from llmkit.level1_model import load_capability_model, load_model

    manifest = json.loads(MANIFEST.read_text(encoding="utf-8"))
    load_model()
    load_capability_model()
    print(f"attack threshold {manifest['threshold']} ({manifest['threshold_rule']})")
    capability = manifest["capability"]
    print(f"capability threshold {capability['threshold']} ({capability['threshold_rule']})")
    if manifest["data_sha256"] != data_sha256():
        print("warning: the training data changed since the weights were written")
    print_figures("held-out split (never trained on)", evaluate(held_out_rows()))
    print_figures(
        "held-out split without own_attack_families (comparable with earlier figures)",
        evaluate(held_out_rows(without_families=True)),
    )
    for directory in args.examples or [Path("briefing/examples")]:
        if not directory.is_dir():
            continue
        rows = briefing_example_rows(directory)
        print_figures(f"{directory} client turns", evaluate(rows))
        for row in rows:
            if row.category == "briefing" and turn_outcome(row.text) == "refused":
                print(f"  refused: {row.text[:160]!r}")
        flagged = escalation_figures([row.text for row in rows])
        print(f"  flagged for the producer by intent: {flagged}")
    if args.eval_dir is not None:
        print_figures(f"{args.eval_dir}", evaluate(outside_rows(args.eval_dir)))
    return 0


if __name__ == "__main__":
    sys.exit(_main())
