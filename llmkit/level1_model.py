"""The shipped level-1 classifiers: load their weights from the repository and score text.

Two linear models read the same features of a message:

* the risk model (`attack_scores`, what `llmkit.level1.classify` reports): two binary
  logistic regressions, attack or not, whose probabilities are combined (see
  `attack_probability`), and a multinomial one that names the kind of an attack;
* the capability model, a binary logistic regression that tells a short question about the
  assistant ("what can you do?", "are you a bot?", "з чим ви можете допомогти?") from a
  briefing message (`capability_probability`; level 0's capabilities rule asks it when its
  own patterns are silent).

Features: character 2-5-grams across word boundaries and word 1-2-grams of level 0's normal
form, hashed into 2^18 slots by a fixed 64-bit mix written here (numpy integer arithmetic,
so every machine and numpy version gets the same slots; no vocabulary is stored), then
sublinear tf, the training set's IDF and an L2 norm. Scoring a message is a few numpy
operations on arrays of its length: no scikit-learn at inference, which cost most of a
millisecond per call in validation alone.

The weights are plain numpy arrays in `llmkit/data/level1/` (`risk.npz`, `capability.npz`),
read with `allow_pickle=False` after their SHA-256 is checked against `manifest.json`:
nothing in the files can run code. `python -m llmkit.level1_train` writes all three.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import re
import threading
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

DATA_DIR = Path(__file__).resolve().parent / "data" / "level1"
WEIGHTS = DATA_DIR / "risk.npz"
CAPABILITY_WEIGHTS = DATA_DIR / "capability.npz"
MANIFEST = DATA_DIR / "manifest.json"

# One place for the featurisation, used by training and by inference alike.
N_FEATURES = 2**18
NGRAM_RANGE = (2, 5)
WORD_NGRAM_RANGE = (1, 2)
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


# The hash: a polynomial over code points (FNV's 64-bit prime) grown one character at a
# time, a salt per n-gram length, then splitmix64's finaliser so the low bits are mixed.
_PRIME = np.uint64(0x100000001B3)
_SALTS = tuple(np.uint64((n * 0x9E3779B97F4A7C15) % 2**64) for n in range(8))
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_SHIFTS = (np.uint64(30), np.uint64(27), np.uint64(31))
_MASK = np.uint64(N_FEATURES - 1)
_WORD_SALT = np.uint64(1 << 40)
_WORD = re.compile(r"\w+")


def _mix(hashes: np.ndarray) -> np.ndarray:
    hashes = (hashes ^ (hashes >> _SHIFTS[0])) * _MIX1
    hashes = (hashes ^ (hashes >> _SHIFTS[1])) * _MIX2
    return hashes ^ (hashes >> _SHIFTS[2])


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _hashes(normal: str) -> list[np.ndarray]:
    # "surrogatepass": a lone surrogate (undecodable bytes read with surrogateescape) is a
    # code point like any other, never an exception.
    encoded = normal.encode("utf-32-le", "surrogatepass")
    code_points = np.frombuffer(encoded, dtype=np.uint32).astype(np.uint64)
    parts = []
    grams = code_points
    low, high = NGRAM_RANGE
    for n in range(2, high + 1):
        if len(grams) < 2:
            break
        grams = grams[:-1] * _PRIME + code_points[n - 1 :]  # n-grams from the (n-1)-grams
        if n >= low:
            parts.append(grams + _SALTS[n])
    words = _WORD.findall(normal)
    if words:
        # crc32 is stable across machines; bigrams get a different salt from unigrams.
        unigrams = [zlib.crc32(_utf8(word)) for word in words]
        bigrams = [zlib.crc32(_utf8(f"{a} {b}")) | (1 << 32) for a, b in itertools.pairwise(words)]
        parts.append(np.array(unigrams + bigrams, dtype=np.uint64) + _WORD_SALT)
    return parts


def feature_counts(text: str) -> tuple[np.ndarray, np.ndarray]:
    """(feature indices, ascending; how often each occurs) of one message."""
    parts = _hashes(featurise_text(text))
    if not parts:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.float32)
    slots = (_mix(np.concatenate(parts)) & _MASK).astype(np.intp)
    indices, counts = np.unique(slots, return_counts=True)
    return indices, counts.astype(np.float32)


def feature_values(indices: np.ndarray, counts: np.ndarray, idf: np.ndarray) -> np.ndarray:
    """Sublinear tf times idf, L2-normalised: the values the weights multiply."""
    values = (1.0 + np.log(counts)) * idf[indices]
    norm = float(np.sqrt(np.dot(values, values)))
    return values / norm if norm > 0 else values


@dataclass(frozen=True)
class LinearModel:
    """Logistic regressions over the hashed features, one column each: column 0 is a binary
    decision (attack, capability question), read as a sigmoid; any further columns are a
    softmax over the kinds of a positive message (the attack kinds)."""

    classes: tuple[str, ...]  # the columns' names: ("attack", *kinds) or ("capability",)
    idf: np.ndarray  # (N_FEATURES,) float32
    coef: np.ndarray  # (N_FEATURES, n_columns) float32: a message's rows are gathered
    intercept: np.ndarray  # (n_columns,) float32
    threshold: float  # column 0's probability at or above which the message is positive

    def logits(self, text: str) -> np.ndarray:
        indices, counts = feature_counts(text)
        if indices.size == 0:
            return self.intercept.astype(np.float64)
        values = feature_values(indices, counts, self.idf)
        return values @ self.coef[indices] + self.intercept

    def probability(self, text: str) -> float:
        """Column 0's probability: the message is an attack / a capability question."""
        return _sigmoid(float(self.logits(text)[0]))


def _sigmoid(logit: float) -> float:
    if logit >= 0:
        return 1.0 / (1.0 + math.exp(-logit))
    exp = math.exp(logit)
    return exp / (1.0 + exp)


_lock = threading.Lock()


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _manifest() -> dict:
    if not MANIFEST.exists():
        raise Level1ModelError(f"level-1 manifest missing: {MANIFEST}")
    return json.loads(MANIFEST.read_text(encoding="utf-8"))


def _load(path: Path, expected_sha256: str, threshold: float) -> LinearModel:
    if not path.exists():
        raise Level1ModelError(f"level-1 weights missing: {path}")
    digest = sha256_of(path)
    if digest != expected_sha256:
        raise Level1ModelError(
            f"{path.name} has sha256 {digest}, the manifest says {expected_sha256}: "
            "retrain with python -m llmkit.level1_train"
        )
    with np.load(path, allow_pickle=False) as arrays:
        return linear_model_of(arrays, threshold)


def linear_model_of(arrays: Mapping[str, np.ndarray], threshold: float) -> LinearModel:
    """The model the arrays of a weights file (or of a fit, before it is written) make."""
    return LinearModel(
        classes=tuple(str(name) for name in arrays["classes"]),
        idf=arrays["idf"].astype(np.float32),
        coef=np.ascontiguousarray(arrays["coef"].astype(np.float32)),
        intercept=arrays["intercept"].astype(np.float32),
        threshold=threshold,
    )


@cache
def load_model() -> LinearModel:
    """The shipped risk weights, checked against the manifest's hash; loaded once."""
    with _lock:
        manifest = _manifest()
        return _load(WEIGHTS, manifest["weights_sha256"], float(manifest["threshold"]))


@cache
def load_capability_model() -> LinearModel:
    """The shipped capability weights, checked against the manifest's hash; loaded once."""
    with _lock:
        capability = _manifest()["capability"]
        return _load(
            CAPABILITY_WEIGHTS, capability["weights_sha256"], float(capability["threshold"])
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
    logits = model.logits(text)
    attack = attack_probability(logits)
    if attack < model.threshold:
        return "none", attack, model.threshold
    return model.classes[2 + int(np.argmax(logits[2:]))], attack, model.threshold


def attack_probability(logits: np.ndarray) -> float:
    """The risk model's attack probability from its logits: the geometric mean of the first
    stage's (every message) and the second stage's (trained on the messages the first stage
    finds at all suspicious, so it learns the boundary between attacks and benign text full
    of attack words)."""
    return math.sqrt(_sigmoid(float(logits[0])) * _sigmoid(float(logits[1])))


def capability_probability(text: str) -> float:
    """How likely a short message is a question about the assistant itself (what it can do,
    who or what it is); 0.0 on an install without the data files."""
    if not CAPABILITY_WEIGHTS.exists():
        return 0.0
    return load_capability_model().probability(text)


def is_capability_question(text: str) -> bool:
    """Whether the capability model takes the message for a question about the assistant."""
    if not CAPABILITY_WEIGHTS.exists():
        return False
    model = load_capability_model()
    return model.probability(text) >= model.threshold
