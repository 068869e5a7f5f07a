"""The chapter "Embeddings from real text" (chapters/real_text.md): its study of quality on the Lee corpus.

Concepts used: :mod:`lib.datasets` (the corpus and benchmarks), :mod:`lib.corpus`, :mod:`lib.race` (the
three methods under one :class:`lib.race.Settings`, and the race against gensim), :mod:`lib.evaluation`
(word similarity, analogies, frequency strata) and :mod:`lib.geometry` (neighbours and their agreement).

:func:`run_study` trains the three methods on one worker each, so that every run is reproducible, for
several seeds, scores them, and trains them again on nested fractions of the corpus for a learning curve.
:func:`chapter_study` is that study with the chapter's settings, computed once per process and shared by
the chapter and its figures (``lib.figures.real_text``). The other functions summarise a study: scores
by method, WordSim-353 by frequency stratum, neighbour agreement between seeds, and the tables the
chapter shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Sequence, Tuple

import numpy as np

from lib import tables, validate
from lib.corpus import check_sentences, corpus_fraction
from lib.datasets import load_corpus
from lib.evaluation import (
    AnalogyResult,
    SimilarityResult,
    analogy_accuracy,
    read_analogies,
    read_word_pairs,
    similarity_by_frequency,
    word_similarity,
)
from lib.geometry import named_neighbours, neighbour_overlap
from lib.notebook import fmt
from lib.progress import progress
from lib.race import METHODS, Settings, Trained, train

#: Seeds of the chapter's repeated runs, the corpus fractions of its learning curve, the strata of
#: the rarer word's count for WordSim-353, the frequency bands for neighbour agreement, and the
#: frequent words whose neighbours it shows.
CHAPTER_SEEDS = (0, 1, 2)
CHAPTER_FRACTIONS = (0.125, 0.25, 0.5, 1.0)
STRATA_EDGES = (2, 4, 8, float("inf"))
FREQUENCY_BANDS = (2, 5, 20, 100, float("inf"))
NEIGHBOUR_WORDS = ("police", "fire", "government", "afghanistan")
METRICS = ("wordsim", "simlex", "analogies")


@dataclass(frozen=True)
class Scores:
    """One model's intrinsic scores: WordSim-353 and SimLex-999 (:class:`lib.evaluation.SimilarityResult`)
    and the analogy questions (:class:`lib.evaluation.AnalogyResult`)."""

    method: str
    seed: int
    wordsim: SimilarityResult
    simlex: SimilarityResult
    analogies: AnalogyResult

    def value(self, metric: str) -> float:
        """Spearman's ρ for ``"wordsim"`` or ``"simlex"``, accuracy for ``"analogies"``."""
        validate.choice(metric, "metric", METRICS)
        return self.analogies.accuracy if metric == "analogies" else getattr(self, metric).rho


def evaluate(trained: Trained, seed: int = 0) -> Scores:
    """Score ``trained`` on the three shipped benchmarks (:mod:`lib.evaluation`). Raises like them."""
    return Scores(
        trained.method,
        int(seed),
        word_similarity(trained.vectors, trained.vocab, read_word_pairs("wordsim353")),
        word_similarity(trained.vectors, trained.vocab, read_word_pairs("simlex999")),
        analogy_accuracy(trained.vectors, trained.vocab, read_analogies("analogies")),
    )


@dataclass(frozen=True)
class CurvePoint:
    """One point of the learning curve: corpus ``fraction``, its in-vocabulary ``n_tokens`` and
    ``vocab_size``, the ``method`` and its WordSim-353 result (``rho``, pairs used)."""

    fraction: float
    n_tokens: int
    vocab_size: int
    method: str
    wordsim: SimilarityResult


@dataclass(frozen=True)
class Study:
    """Everything the chapter shows about quality: ``models[(method, seed)]`` (:class:`lib.race.Trained`,
    one seed for PPMI-SVD, which has no randomness), ``scores`` (:class:`Scores`, same keys) and ``curve``
    (:class:`CurvePoint` list, seed 0)."""

    settings: Settings
    models: Dict[Tuple[str, int], Trained]
    scores: Dict[Tuple[str, int], Scores]
    curve: List[CurvePoint]


def run_study(
    docs,
    settings: Settings = Settings(),
    *,
    seeds: Sequence[int] = CHAPTER_SEEDS,
    fractions: Sequence[float] = CHAPTER_FRACTIONS,
) -> Study:
    """Train the three methods (one worker each, so every run is reproducible) on ``docs`` for every seed
    (PPMI-SVD once: it has no seed), score them, and train them again on nested corpus fractions
    (:func:`lib.corpus.corpus_fraction`, seed 0) for the learning curve; the fraction 1.0 reuses the
    seed-0 models. Raises like the trainers and :func:`evaluate`."""
    docs = check_sentences(docs, "docs")
    seeds = [int(s) for s in seeds]
    jobs = [("PPMI-SVD", seeds[0])] + [(m, s) for s in seeds for m in ("book SGNS", "gensim")]
    models, scores = {}, {}
    for method, seed in progress(jobs, desc="seeds"):
        models[(method, seed)] = train(method, docs, settings, seed=seed, workers=1)
        scores[(method, seed)] = evaluate(models[(method, seed)], seed)
    pairs = read_word_pairs("wordsim353")
    curve = []
    for fraction in progress(list(fractions), desc="fractions"):
        part = docs if fraction == 1.0 else corpus_fraction(docs, fraction, seed=0)
        for method in METHODS:
            key = (method, seeds[0])
            reuse = fraction == 1.0 and key in models
            trained = models[key] if reuse else train(method, part, settings, seed=seeds[0], workers=1)
            score = word_similarity(trained.vectors, trained.vocab, pairs)
            n_tokens = int(trained.vocab.counts.sum())
            curve.append(CurvePoint(float(fraction), n_tokens, len(trained.vocab), method, score))
    return Study(settings, models, scores, curve)


_CHAPTER_STUDY: Dict[str, Study] = {}


def chapter_study() -> Study:
    """The chapter's :class:`Study` on the Lee corpus with the default :class:`lib.race.Settings`, computed
    once per process and kept (the chapter and its figures share it)."""
    if "lee" not in _CHAPTER_STUDY:
        _CHAPTER_STUDY["lee"] = run_study(load_corpus("lee"))
    return _CHAPTER_STUDY["lee"]


# --- summaries of a study -------------------------------------------------------------------------------


def _range(values: Sequence[float]) -> Tuple[float, float, float]:
    v = np.asarray(values, dtype=np.float64)
    return float(v.mean()), float(v.min()), float(v.max())


def score_summary(study: Study, method: str, metric: str) -> Tuple[float, float, float, int]:
    """``(mean, min, max, n_runs)`` of one metric over a method's seeds: ``metric`` is ``"wordsim"``,
    ``"simlex"`` (Spearman ρ) or ``"analogies"`` (accuracy). Raises ``ValueError`` for an unknown
    method or metric."""
    validate.choice(metric, "metric", METRICS)
    values = [sc.value(metric) for (m, _), sc in study.scores.items() if m == method]
    if not values:
        raise ValueError(f"no runs of method {method!r}; known: {sorted({m for m, _ in study.scores})}")
    return _range(values) + (len(values),)


def strata_scores(
    study: Study, edges: Sequence[float] = STRATA_EDGES
) -> Dict[str, List[Tuple[str, float, float, float, int]]]:
    """WordSim-353 ρ by stratum of the rarer word's count (:func:`lib.evaluation.similarity_by_frequency`)
    for each method: ``{method: [(label, mean, min, max, pairs), ...]}`` over the method's seeds."""
    pairs = read_word_pairs("wordsim353")
    out: Dict[str, List[Tuple[str, float, float, float, int]]] = {}
    for method in METHODS:
        runs = [
            similarity_by_frequency(t.vectors, t.vocab, t.vocab.counts, pairs, edges)
            for (m, _), t in study.models.items()
            if m == method
        ]
        out[method] = [
            (label, *_range([run[k][1].rho for run in runs]), first.n_used) for k, (label, first) in enumerate(runs[0])
        ]
    return out


def seed_agreement(
    study: Study, bands: Sequence[float] = FREQUENCY_BANDS, k: int = 10
) -> Dict[str, List[Tuple[str, float, int]]]:
    """How far two seeds of a predictive method agree on a word's ``k`` nearest neighbours, by frequency
    band of the word: ``{method: [(label, mean overlap in [0, 1], words), ...]}`` between the first two
    seeds (:func:`lib.geometry.neighbour_overlap`). Raises ``ValueError`` with fewer than two seeds."""
    out: Dict[str, List[Tuple[str, float, int]]] = {}
    for method in ("book SGNS", "gensim"):
        seeds = sorted(s for m, s in study.models if m == method)
        if len(seeds) < 2:
            raise ValueError(f"seed agreement needs two seeds of {method!r}, got {seeds}")
        a, b = study.models[(method, seeds[0])], study.models[(method, seeds[1])]
        counts = a.vocab.counts
        rows = []
        for lo, hi in zip(bands, bands[1:]):
            ids = np.flatnonzero((counts >= lo) & (counts < hi))
            label = f"{int(lo)}+" if hi == float("inf") else f"{int(lo)}-{int(hi) - 1}"
            rows.append((label, float(neighbour_overlap([a.vectors, b.vectors], ids, k).mean()), int(ids.shape[0])))
        out[method] = rows
    return out


def neighbour_table(study: Study, words: Sequence[str] = NEIGHBOUR_WORDS, k: int = 5, seed: int | None = None) -> str:
    """A Markdown table of each word's ``k`` nearest neighbours (cosine) for the three methods side by side
    (seed ``seed``, default the study's first). Raises ``ValueError`` for a word without a row."""
    seed = min(s for _, s in study.models) if seed is None else seed
    methods = list(METHODS)
    rows = []
    for word in words:
        cells = []
        for method in methods:
            trained = study.models[(method, seed)]
            cells.append(", ".join(w for w, _ in named_neighbours(trained.vectors, trained.vocab, word, k)))
        vocab = study.models[(methods[0], seed)].vocab
        rows.append([f"{word} ({int(vocab.counts[vocab.id(word)])})"] + cells)
    return tables.markdown(["word (count)"] + methods, rows)


def scores_table(study: Study, rho_decimals: int = 2, accuracy_decimals: int = 4) -> str:
    """A Markdown table of the study's scores by method: Spearman ρ on WordSim-353 and SimLex-999 and
    3CosAdd accuracy, each as mean (min to max) over the seeds, with the pairs or questions covered.

    ρ is shown to ``rho_decimals`` (2: over a hundred-odd pairs its bootstrap interval is about ±0.17, and
    the float32 training of the predictive methods gives ρ values that differ between CPU code paths by a
    few 1e-4); an accuracy, a ratio of counts, to ``accuracy_decimals``."""
    header = [
        "method", "runs", "WordSim-353 rho", "pairs used", "SimLex-999 rho", "pairs used", "analogy accuracy",
        "questions covered",
    ]
    rows = []
    for method in METHODS:
        first = next(sc for (m, _), sc in study.scores.items() if m == method)
        cells = []
        for metric in METRICS:
            mean, lo, hi, n = score_summary(study, method, metric)
            spec = f".{accuracy_decimals if metric == 'analogies' else rho_decimals}f"
            cells.append(f"{fmt(mean, spec)} ({fmt(lo, spec)} to {fmt(hi, spec)})" if n > 1 else fmt(mean, spec))
        ws, sl, an = first.wordsim, first.simlex, first.analogies
        rows.append([
            method, str(n), cells[0], f"{ws.n_used} of {ws.n_total}", cells[1], f"{sl.n_used} of {sl.n_total}",
            cells[2], f"{an.attempted} of {an.total}",
        ])
    return tables.markdown(header, rows)


def median_rarer_count(study: Study) -> float:
    """Median count, in the corpus, of the rarer word of the WordSim-353 pairs the vocabulary covers."""
    trained = next(iter(study.models.values()))
    index, counts = trained.vocab.index, trained.vocab.counts
    pairs = [(a, b) for a, b, _ in read_word_pairs("wordsim353") if a in index and b in index]
    rarer = [min(counts[index[a]], counts[index[b]]) for a, b in pairs]
    return float(np.median(rarer))


__all__ = [
    "CHAPTER_FRACTIONS",
    "CHAPTER_SEEDS",
    "FREQUENCY_BANDS",
    "METRICS",
    "NEIGHBOUR_WORDS",
    "STRATA_EDGES",
    "CurvePoint",
    "Scores",
    "Study",
    "chapter_study",
    "evaluate",
    "median_rarer_count",
    "neighbour_table",
    "run_study",
    "score_summary",
    "scores_table",
    "seed_agreement",
    "strata_scores",
]
