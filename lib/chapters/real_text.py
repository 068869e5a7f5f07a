"""The chapter chapters/real_text.md: its study of quality on the Lee corpus.

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

from dataclasses import dataclass, field
from typing import Dict, List, Sequence, Tuple

import numpy as np

from lib import tables, validate
from lib.corpus import check_sentences, corpus_fraction, keep_probability
from lib.datasets import load_corpus
from lib.evaluation import (
    AnalogyResult,
    Interval,
    SimilarityResult,
    analogy_accuracy,
    pair_cosines,
    read_analogies,
    read_word_pairs,
    similarity_by_frequency,
    spearman_interval,
    word_similarity,
)
from lib.geometry import named_neighbours, neighbour_overlap
from lib.notebook import argmax, fmt
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
    ``vocab_size``, the ``method`` and its WordSim-353 result (``rho``, pairs used), with the cosines
    and human scores of the pairs used (``(m,) float64`` each, :func:`lib.evaluation.pair_cosines`) for
    paired bootstrap intervals (:func:`curve_leads`)."""

    fraction: float
    n_tokens: int
    vocab_size: int
    method: str
    wordsim: SimilarityResult
    cosine: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False, compare=False)
    human: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False, compare=False)


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
            cosine, human, _ = pair_cosines(trained.vectors, trained.vocab, pairs)
            n_tokens = int(trained.vocab.counts.sum())
            curve.append(CurvePoint(float(fraction), n_tokens, len(trained.vocab), method, score, cosine, human))
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
    3CosAdd accuracy, each as mean (min to max) over the seeds, with the pairs or questions covered (counts
    with thousands separators, ``766 of 19,544``).

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
            method, str(n), cells[0], f"{ws.n_used:,} of {ws.n_total:,}", cells[1], f"{sl.n_used:,} of {sl.n_total:,}",
            cells[2], f"{an.attempted:,} of {an.total:,}",
        ])
    return tables.markdown(header, rows)


# --- uncertainty: paired bootstrap intervals of Spearman's rho ------------------------------------------

#: The similarity benchmarks by metric name, as :func:`lib.evaluation.read_word_pairs` knows them: ``wordsim``
#: is ``wordsim353`` (WordSim-353) and ``simlex`` is ``simlex999`` (SimLex-999).
#:
#: :meta hide-value:
SIMILARITY_FILES = {"wordsim": "wordsim353", "simlex": "simlex999"}


def _pairs(metric: str):
    validate.choice(metric, "metric", tuple(SIMILARITY_FILES))
    return read_word_pairs(SIMILARITY_FILES[metric])


def rho_interval(trained: Trained, metric: str = "wordsim", **bootstrap) -> Interval:
    """Spearman's ρ of ``trained`` on ``metric`` (``"wordsim"`` or ``"simlex"``) over the pairs its
    vocabulary covers, with a bootstrap interval over those pairs (:func:`lib.evaluation.spearman_interval`;
    ``bootstrap`` are its keywords: ``confidence``, ``n_resamples``, ``seed``). Raises ``ValueError`` for
    an unknown metric and like :func:`lib.evaluation.pair_cosines`."""
    cosine, human, _ = pair_cosines(trained.vectors, trained.vocab, _pairs(metric))
    return spearman_interval(cosine, human, **bootstrap)


def stratum_interval(trained: Trained, low: float, high: float = float("inf"), metric: str = "wordsim",
                     **bootstrap) -> Interval:
    """Spearman's ρ of ``trained`` over the pairs of ``metric`` whose rarer word occurs ``low <= count <
    high`` times in the corpus, with a bootstrap interval over those pairs
    (:func:`lib.evaluation.spearman_interval`): how uncertain one bar of a frequency stratum is. Raises
    ``ValueError`` for fewer than 3 such pairs, a ``low`` that is not a finite number >= 0 or a ``high``
    that is not a number above ``low`` (infinity allowed), and like :func:`rho_interval`; ``TypeError``
    for a ``low`` or ``high`` that is not a number (a string, ``None``, a ``bool``)."""
    low = validate.number(low, "low", ge=0)
    high_value = validate.real(high, "high")
    if not high_value > low:  # NaN too
        raise ValueError(f"high must be a number > low ({low!r}) or inf, got {high!r}")
    high = high_value
    pairs = _pairs(metric)
    index, counts = trained.vocab.index, trained.vocab.counts
    chosen = [(a, b, h) for a, b, h in pairs if a in index and b in index
              and low <= min(counts[index[a]], counts[index[b]]) < high]
    if len(chosen) < 3:
        raise ValueError(f"only {len(chosen)} pairs have a rarer word with a count in [{low}, {high})")
    cosine, human, _ = pair_cosines(trained.vectors, trained.vocab, chosen)
    return spearman_interval(cosine, human, **bootstrap)


def paired_difference(first: Trained, second: Trained, metric: str = "wordsim", **bootstrap) -> Interval:
    """ρ(first) − ρ(second) on ``metric`` over the same pairs, with a *paired* bootstrap interval: each
    resample draws pairs and keeps both models' cosines of a pair together
    (:func:`lib.evaluation.spearman_interval` with ``baseline``), so that what the two models share (the
    pairs that happen to be easy) cancels. An interval that contains 0 does not tell the models apart.

    Both models must cover the same pairs (the same vocabulary, as every method of :mod:`lib.race` trained
    on the same corpus has); ``ValueError`` otherwise, and for an unknown metric."""
    pairs = _pairs(metric)
    cos_a, human, used_a = pair_cosines(first.vectors, first.vocab, pairs)
    cos_b, _, used_b = pair_cosines(second.vectors, second.vocab, pairs)
    if not np.array_equal(used_a, used_b):
        raise ValueError(
            f"the two models cover different pairs ({int(used_a.sum())} and {int(used_b.sum())}): "
            "a paired difference needs the same vocabulary"
        )
    return spearman_interval(cos_a, human, baseline=cos_b, **bootstrap)


@dataclass(frozen=True)
class Difference:
    """``first`` − ``second`` (``(method, seed)`` keys of a :class:`Study`) with a paired interval per
    metric: ``intervals[metric]`` is a :class:`lib.evaluation.Interval`."""

    first: Tuple[str, int]
    second: Tuple[str, int]
    intervals: Dict[str, Interval]


def method_differences(study: Study, metrics: Sequence[str] = ("wordsim", "simlex"), **bootstrap) -> List[Difference]:
    """Every comparison the chapter makes between methods, with paired bootstrap intervals
    (:func:`paired_difference`): PPMI-SVD against each seed of the two skip-grams, then the book's
    skip-gram against gensim's with the same seed. Raises like :func:`paired_difference`."""
    seeds = sorted({s for m, s in study.models if m == "book SGNS"})
    ppmi = next(k for k in study.models if k[0] == "PPMI-SVD")
    keys = [(ppmi, ("book SGNS", s)) for s in seeds] + [(ppmi, ("gensim", s)) for s in seeds]
    keys += [(("book SGNS", s), ("gensim", s)) for s in seeds if ("gensim", s) in study.models]
    return [
        Difference(a, b, {m: paired_difference(study.models[a], study.models[b], m, **bootstrap) for m in metrics})
        for a, b in progress(keys, desc="intervals")
    ]


def format_interval(interval: Interval, decimals: int = 2, end_decimals: int = 1) -> str:
    """``"0.12 (0.0 to 0.2)"``: the statistic at ``decimals`` and the ends of its interval at
    ``end_decimals`` (:func:`lib.notebook.fmt`). The ends get one decimal: a BCa end from 2,000 resamples
    carries a Monte Carlo error of about 0.01, so its second decimal could not be defended.

    ``decimals`` and ``end_decimals`` are integers in [0, 12]: ``TypeError`` for another type (``2.7``,
    ``"2"``: no silent truncation), ``ValueError`` naming the argument for one out of range. ``interval``
    is an :class:`lib.evaluation.Interval` whose statistic and ends are finite numbers (``ValueError``
    otherwise: an interval built by hand with NaN would print ``nan``); ``TypeError`` for anything else.

    >>> format_interval(Interval(0.123, -0.0049, 0.2461, 0.95, 133, 2000))
    '0.12 (0.0 to 0.2)'
    """
    interval = _finite_interval(interval)
    decimals = validate.integer(decimals, "decimals", low=0, high=12)
    end_decimals = validate.integer(end_decimals, "end_decimals", low=0, high=12)
    spec, end = f".{decimals}f", f".{end_decimals}f"
    return f"{fmt(interval.statistic, spec)} ({fmt(interval.low, end)} to {fmt(interval.high, end)})"


def difference_table(differences: Sequence[Difference], decimals: int = 2) -> str:
    """A Markdown table of :func:`method_differences`: one row per comparison, for each metric the
    difference in ρ with its paired 95 % interval (:func:`format_interval`) and whether the interval
    excludes 0."""
    names = {"wordsim": "WordSim-353", "simlex": "SimLex-999"}
    metrics = list(differences[0].intervals) if differences else []
    header = ["difference in rho", "seed"]
    for m in metrics:
        header += [f"{names.get(m, m)} (95 % interval)", "excludes 0"]
    rows = []
    for d in differences:
        seed = str(d.second[1]) if d.first[0] == "PPMI-SVD" else f"{d.first[1]} and {d.second[1]}"
        row = [f"{d.first[0]} − {d.second[0]}", seed]
        for m in metrics:
            iv = d.intervals[m]
            row += [format_interval(iv, decimals), "yes" if excludes_zero(iv) else "no"]
        rows.append(row)
    return tables.markdown(header, rows, align=["<", "<"] + ["<", "<"] * len(metrics))


def excludes_zero(interval: Interval, decimals: int = 1) -> bool:
    """Whether the interval, as shown to ``decimals``, lies wholly above or wholly below 0 (an end that
    rounds to 0 counts as touching it). ``decimals`` is an integer in [0, 12] (``TypeError`` for another
    type, ``1.9`` or ``"1"``: no silent truncation; ``ValueError`` for one out of range); ``interval`` as
    in :func:`format_interval` (``ValueError`` for a NaN end: no answer would be right).

    >>> touching = Interval(0.1, 0.04, 0.2, 0.95, 100, 1000)
    >>> above = Interval(0.1, 0.06, 0.2, 0.95, 100, 1000)
    >>> excludes_zero(touching), excludes_zero(above)
    (False, True)
    """
    interval = _finite_interval(interval)
    decimals = validate.integer(decimals, "decimals", low=0, high=12)
    # rounded, not formatted: only an end rounding across 0 changes the answer, so the end's distance to
    # other rounding boundaries (which lib.notebook.fmt would log as a printed number) does not matter
    low, high = (round(float(x), decimals) for x in (interval.low, interval.high))
    return low > 0 or high < 0


def how_many(count, singular: str, plural: str) -> str:
    """A count as the words that open a clause, with its verb: ``"none has"``, ``"one has"``, ``"3 have"``.

    For the prose that counts the intervals that exclude 0, so that a count of 0 reads "none of them has ...",
    not "0 have ...". ``count`` is an integer ≥ 0 (``TypeError`` for another type, ``ValueError`` for a
    negative one); ``singular`` and ``plural`` are the verb (phrase) after one and after several
    (``TypeError`` for a non-string).

    >>> [how_many(n, "has", "have") for n in (0, 1, 1200)]
    ['none has', 'one has', '1,200 have']
    """
    count = validate.integer(count, "count", low=0)
    for name, verb in (("singular", singular), ("plural", plural)):
        if not isinstance(verb, str):
            raise TypeError(f"{name} must be a string, got {type(verb).__name__}")
    if count == 0:
        return f"none {singular}"
    if count == 1:
        return f"one {singular}"
    return f"{count:,} {plural}"


def _finite_interval(interval) -> Interval:
    """``interval`` after checking that it is an :class:`lib.evaluation.Interval` whose statistic and ends
    are finite numbers: ``TypeError`` for anything else, ``ValueError`` naming the field otherwise."""
    if not isinstance(interval, Interval):
        raise TypeError(f"interval must be an Interval (lib.evaluation), got {type(interval).__name__}")
    for field in ("statistic", "low", "high"):
        validate.number(getattr(interval, field), f"interval.{field}")
    return interval


@dataclass(frozen=True)
class Lead:
    """PPMI-SVD's lead in WordSim-353 ρ over the skip-gram ``rival`` at one corpus ``fraction`` of the
    learning curve (seed 0), with its paired bootstrap interval over the ``interval.n`` pairs covered."""

    fraction: float
    n_tokens: int
    rival: str
    interval: Interval


def curve_leads(study: Study, rival: str = "gensim", **bootstrap) -> List[Lead]:
    """:class:`Lead` at every fraction of the study's learning curve: ρ(PPMI-SVD) − ρ(``rival``), with a
    paired interval (:func:`lib.evaluation.spearman_interval` with ``baseline``). The rival is named, not
    chosen as the better skip-gram at each fraction: the two skip-grams can tie to a few 1e-4, and a
    choice between them would then depend on float rounding. Raises ``ValueError`` for an unknown rival."""
    validate.choice(rival, "rival", tuple(m for m in METHODS if m != "PPMI-SVD"))
    leads = []
    for fraction in sorted({p.fraction for p in study.curve}):
        points = {p.method: p for p in study.curve if p.fraction == fraction}
        ppmi, other = points["PPMI-SVD"], points[rival]
        interval = spearman_interval(ppmi.cosine, ppmi.human, baseline=other.cosine, **bootstrap)
        leads.append(Lead(fraction, ppmi.n_tokens, rival, interval))
    return leads


def largest_lead(leads: Sequence[Lead]) -> Lead:
    """The :class:`Lead` with the largest difference in ρ (:func:`lib.notebook.argmax`, which records how
    close the runner-up came). Raises ``ValueError`` for no leads."""
    return leads[argmax([lead.interval.statistic for lead in leads], "fraction with PPMI-SVD's largest lead")]


def lead_table(leads_by_rival: Dict[str, Sequence[Lead]], decimals: int = 2) -> str:
    """A Markdown table of the learning curve's leads: one row per corpus fraction (per cent, in-vocabulary
    tokens, WordSim-353 pairs covered), one column per rival with ρ(PPMI-SVD) − ρ(rival) and its paired
    95 % interval (:func:`format_interval`)."""
    rivals = list(leads_by_rival)
    first = leads_by_rival[rivals[0]]
    header = ["corpus", "tokens in its vocabulary", "pairs"] + [f"PPMI-SVD − {r} (95 % interval)" for r in rivals]
    rows = []
    for k, lead in enumerate(first):
        rows.append([f"{fmt(100 * lead.fraction, '.1f')} %", f"{lead.n_tokens:,}", str(lead.interval.n)]
                    + [format_interval(leads_by_rival[r][k].interval, decimals) for r in rivals])
    return tables.markdown(header, rows, align=[">", ">", ">"] + ["<"] * len(rivals))

def method_overlap(study: Study, first: Tuple[str, int], second: Tuple[str, int], k: int = 10) -> float:
    """Mean share, over every word of the vocabulary, of the ``k`` nearest neighbours on which two models
    of the study (``(method, seed)`` keys) agree (:func:`lib.geometry.neighbour_overlap`), in [0, 1].
    Raises ``KeyError`` for a model the study lacks and ``ValueError`` like ``neighbour_overlap``."""
    a, b = study.models[first], study.models[second]
    ids = np.arange(len(a.vocab))
    return float(neighbour_overlap([a.vectors, b.vectors], ids, k).mean())


def subsampling_table(vocab, t: float, n: int = 5) -> str:
    """A Markdown table of the keep probability of the ``n`` most frequent words under both subsampling
    formulas of :func:`lib.corpus.keep_probability` at threshold ``t``: the paper's ``min(1, sqrt(t/f))``
    and word2vec.c's ``min(1, (sqrt(f/t) + 1) t/f)``, four decimals, with each word's count and relative
    frequency ``f``. ``vocab`` is a :class:`lib.corpus.Vocabulary` ordered by count. Raises like
    ``keep_probability``."""
    n = validate.integer(n, "n", low=1, high=len(vocab))
    paper = keep_probability(vocab.counts, t, formula="paper")
    c_tool = keep_probability(vocab.counts, t, formula="word2vec")
    total = float(np.sum(vocab.counts))
    rows = [
        [vocab.tokens[i], f"{int(vocab.counts[i]):,}", fmt(vocab.counts[i] / total, ".4f"), fmt(paper[i], ".4f"),
         fmt(c_tool[i], ".4f")]
        for i in range(n)
    ]
    header = ["word", "count", "f", "keep, paper: sqrt(τ/f)", "keep, word2vec.c: (sqrt(f/τ) + 1) τ/f"]
    return tables.markdown(header, rows, align="<>>>>")


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
    "Difference",
    "Lead",
    "SIMILARITY_FILES",
    "Scores",
    "Study",
    "chapter_study",
    "curve_leads",
    "difference_table",
    "evaluate",
    "excludes_zero",
    "format_interval",
    "how_many",
    "largest_lead",
    "lead_table",
    "method_differences",
    "paired_difference",
    "rho_interval",
    "median_rarer_count",
    "method_overlap",
    "neighbour_table",
    "run_study",
    "score_summary",
    "scores_table",
    "seed_agreement",
    "strata_scores",
    "stratum_interval",
    "subsampling_table",
]
