"""The shipped level-1 risk classifier: loads its weights from the repository and scores text.

Character 2-5-grams across word boundaries (hashed, so no vocabulary is stored) weighted
by the training set's IDF, L2-normalised, and a multinomial logistic regression over
"none" and the attack kinds.
The weights are plain numpy arrays in `llmkit/data/level1/risk.npz`, read with
`allow_pickle=False` after their SHA-256 is checked against `manifest.json`: nothing in
the file can run code. `python -m llmkit.level1_train` writes both files.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

DATA_DIR = Path(__file__).resolve().parent / "data" / "level1"
WEIGHTS = DATA_DIR / "risk.npz"
MANIFEST = DATA_DIR / "manifest.json"

# One place for the featurisation, used by training and by inference alike.
N_FEATURES = 2**18
NGRAM_RANGE = (2, 5)
# Only the head and the tail of a long message are read: n-grams cost time per character,
# and an instruction sits at either end of a paste (level 0 reads its own, longer window).
HEAD_CHARS = 400
TAIL_CHARS = 112


class Level1ModelError(RuntimeError):
    """The shipped weights are missing or do not match their manifest."""


def featurise_text(text: str) -> str:
    """The text the n-grams are read from: level 0's normal form (NFKC, case-folded,
    invisible characters dropped), the head and tail of a long paste."""
    from llmkit.guard import normalise

    if len(text) > HEAD_CHARS + TAIL_CHARS:
        text = text[:HEAD_CHARS] + "\n" + text[-TAIL_CHARS:]
    return normalise(text)


def make_vectorizer():  # -> sklearn HashingVectorizer (imported lazily: start-up cost)
    from sklearn.feature_extraction.text import HashingVectorizer

    return HashingVectorizer(
        analyzer="char",
        ngram_range=NGRAM_RANGE,
        n_features=N_FEATURES,
        alternate_sign=False,
        norm=None,
        lowercase=False,
        dtype=np.float32,
    )


@dataclass(frozen=True)
class RiskModel:
    classes: tuple[str, ...]
    idf: np.ndarray  # (N_FEATURES,) float32
    coef: np.ndarray  # (n_classes, N_FEATURES) float32
    intercept: np.ndarray  # (n_classes,) float32
    threshold: float  # attack probability at or above which a message is an attack

    def probabilities(self, text: str) -> np.ndarray:
        counts = _vectorizer().transform([featurise_text(text)])
        indices = counts.indices
        if indices.size == 0:
            logits = self.intercept.astype(np.float64)
        else:
            # sublinear tf, idf, l2 norm: the same as TfidfTransformer(sublinear_tf=True)
            values = (1.0 + np.log(counts.data)) * self.idf[indices]
            values /= np.sqrt(np.dot(values, values))
            logits = self.coef[:, indices] @ values + self.intercept
        logits = logits - logits.max()
        exp = np.exp(logits)
        return exp / exp.sum()


_lock = threading.Lock()


@cache
def _vectorizer():
    return make_vectorizer()


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@cache
def load_model() -> RiskModel:
    """The shipped weights, checked against the manifest's hash; loaded once."""
    with _lock:
        if not WEIGHTS.exists() or not MANIFEST.exists():
            raise Level1ModelError(f"level-1 weights missing: {WEIGHTS}")
        manifest = json.loads(MANIFEST.read_text(encoding="utf-8"))
        digest = sha256_of(WEIGHTS)
        if digest != manifest["weights_sha256"]:
            raise Level1ModelError(
                f"{WEIGHTS.name} has sha256 {digest}, the manifest says "
                f"{manifest['weights_sha256']}: retrain with python -m llmkit.level1_train"
            )
        with np.load(WEIGHTS, allow_pickle=False) as arrays:
            return RiskModel(
                classes=tuple(str(name) for name in arrays["classes"]),
                idf=arrays["idf"].astype(np.float32),
                coef=np.ascontiguousarray(arrays["coef"].astype(np.float32)),
                intercept=arrays["intercept"].astype(np.float32),
                threshold=float(manifest["threshold"]),
            )


def attack_scores(text: str) -> tuple[str, float, float]:
    """(risk, attack probability, threshold): the risk is "none" below the threshold, else
    the most probable attack kind."""
    if not WEIGHTS.exists():  # an install without the data files: level 0's opinion only
        from llmkit.guard import guard_check

        verdict = guard_check(text)
        fired = verdict is not None and verdict.kind == "prompt_extraction"
        return ("prompt_extraction", 1.0, 0.5) if fired else ("none", 0.0, 0.5)
    model = load_model()
    probabilities = model.probabilities(text)
    none_index = model.classes.index("none")
    attack = float(1.0 - probabilities[none_index])
    if attack < model.threshold:
        return "none", attack, model.threshold
    ranked = np.argsort(-probabilities)
    kind = next(model.classes[i] for i in ranked if i != none_index)
    return kind, attack, model.threshold
