"""Three ways to get word vectors from one corpus under one settings object, and a race between them.

Taught in: chapters/real_text.md ("Three ways to get vectors", "The book's code against gensim");
also run by ``benchmarks/real_text_race.py``.

Follows the comparison of count-based and predictive vectors under shared settings of
:cite:t:`levy2015improving`: the same tokens, the same vocabulary, the same window and dimension for

- PPMI-SVD (:func:`train_ppmi_svd`, :mod:`lib.ppmi`), with the window weighted like word2vec's dynamic
  window, context smoothing α = 0.75 and eigenvalue weighting p = 0.5 (their §3);
- the book's skip-gram with negative sampling (:func:`train_book_sgns`, :mod:`lib.sgns`);
- gensim's ``Word2Vec`` with ``sg=1`` (:func:`train_gensim`), the reference implementation of word2vec
  in Python.

Every method reads one :class:`Settings` object, passed whole, as nanoGPT :cite:p:`karpathy2022nanogpt` passes
its ``GPTConfig``: the predictive settings are the :class:`lib.sgns.SGNSConfig` it holds, which the book's
skip-gram trains with and whose values gensim receives, and PPMI-SVD reads its dimension and window from the
same config.
Each trainer returns a :class:`Trained` record with its wall time. :func:`run_race` times the three in one
process, interleaved, on the corpus repeated at several scales; :func:`summarise_race` gives medians and
speed ratios to gensim, :func:`paired_ratios` the ratio measured within each repeat (median and range), and
:func:`race_table` prints them.

Departures: times are wall-clock seconds on the machine that runs the race, ratios to gensim measured in
the same process (never absolute targets); the book's skip-gram shares its negatives within a block of
consecutive windows and sums the updates of a step (see :mod:`lib.sgns`), which gensim does not.
"""

from __future__ import annotations

import dataclasses
import io
import math
import sys
import time
from contextlib import contextmanager, redirect_stderr
from dataclasses import dataclass, field
from typing import Iterator, List, Optional, Sequence, Tuple

import numpy as np
from gensim.models import FastText, Word2Vec
from threadpoolctl import threadpool_limits

from lib import tables, validate
from lib.corpus import Vocabulary, check_sentences, describe_context, repeat_corpus
from lib.datasets import provenance_extra
from lib.evaluation import read_word_pairs, word_similarity
from lib.notebook import FIXED_POINT_LIMIT, exact, fmt, unlogged
from lib.ppmi import ppmi_svd_embedding
from lib.progress import progress
from lib.provenance import Provenance, for_corpus, software_versions, worker_threads
from lib.sgns import SGNSConfig, train_sgns

# --- the settings, passed whole ------------------------------------------------------------------------


def _default_sgns() -> SGNSConfig:
    return SGNSConfig(epochs=20)


@validate.known_fields
@dataclass(frozen=True)
class Settings:
    """The settings of the three methods, passed whole.

    ``sgns``: the :class:`lib.sgns.SGNSConfig` of the predictive methods: the book's skip-gram trains with
    it (its ``seed`` and ``workers`` are set per run), gensim receives the same dimension, window,
    negatives, epochs, subsampling threshold, learning rates and noise exponent (the blocks, the step
    size and the damping are the book's own), and PPMI-SVD reads its ``dim`` and ``window``. Default: word2vec's settings (D = 100, window 5, K = 5, sample 1e-3) but 20
    epochs instead of 5, for a corpus of 60,000 words. ``min_count``: the vocabulary's minimum count
    (:func:`vocabulary`). PPMI-SVD's own: ``ppmi_alpha`` (context smoothing α of :cite:t:`levy2015improving`,
    §3.2), ``svd_power`` (eigenvalue weighting p, §3.3) and ``weighting`` (``"linear"``: each pair weighted
    ``(window - d + 1) / window``, the expected weight of word2vec's dynamic window). Values are
    validated where they are used (:class:`lib.sgns.SGNSConfig` checks its own on creation); an unknown
    field is a ``TypeError`` naming the fields.
    """

    sgns: SGNSConfig = field(default_factory=_default_sgns)
    min_count: int = 2
    ppmi_alpha: float = 0.75
    svd_power: float = 0.5
    weighting: Optional[str] = "linear"

    def __post_init__(self):
        if not isinstance(self.sgns, SGNSConfig):  # the other values are checked where they are used
            raise TypeError(f"sgns must be a lib.sgns.SGNSConfig, got {type(self.sgns).__name__}")

    def replace(self, **changes) -> "Settings":
        """A copy with some values changed, by name: a field of this class (``min_count=3``) or of the
        :class:`lib.sgns.SGNSConfig` it holds (``window=2``). ``TypeError`` naming an unknown name and the
        known ones."""
        own = {f.name for f in dataclasses.fields(self)}
        known = [f.name for f in dataclasses.fields(self)] + [f.name for f in dataclasses.fields(SGNSConfig)]
        unknown = next((k for k in changes if k not in known), None)
        if unknown is not None:  # was SGNSConfig's own "__init__() got an unexpected keyword argument"
            raise TypeError(f"Settings.replace: unknown setting {unknown!r}; the settings are {', '.join(known)}")
        mine = {k: v for k, v in changes.items() if k in own}
        theirs = {k: v for k, v in changes.items() if k not in own}
        sgns = dataclasses.replace(mine.pop("sgns", self.sgns), **theirs)
        return dataclasses.replace(self, sgns=sgns, **mine)


@dataclass(frozen=True)
class Trained:
    """One trained embedding: ``method`` name, ``vocab`` (rows in its order), ``vectors`` ``(V, D)``,
    ``seconds`` (wall time from token lists to vectors, vocabulary included, provenance excluded),
    ``n_words`` (in-vocabulary tokens processed: × epochs for the predictive methods, once for PPMI-SVD,
    which reads the corpus once) and ``provenance``."""

    method: str
    vocab: Vocabulary
    vectors: np.ndarray
    seconds: float
    n_words: int
    provenance: Provenance

    @property
    def words_per_second(self) -> float:
        return self.n_words / self.seconds


def vocabulary(docs, settings: Settings) -> Vocabulary:
    """The vocabulary every method uses: tokens seen ``settings.min_count`` times, by count (ties by
    token), unknown words skipped (dropped from the text, as word2vec does).

    >>> vocabulary([["a", "b", "a"], ["b", "c", "a"]], Settings(min_count=2)).tokens
    ('a', 'b')
    """
    return Vocabulary.from_sentences(docs, min_count=settings.min_count, order="count", unknown="skip")


# --- the three methods ------------------------------------------------------------------------------------


def train_ppmi_svd(
    docs, settings: Settings = Settings(), *, corpus: str = "Lee background corpus", data=("lee",)
) -> Trained:
    """PPMI-SVD (:mod:`lib.ppmi`): symmetric ``±window`` counts with ``settings.weighting``, PPMI with
    context smoothing ``ppmi_alpha``, truncated SVD to ``dim`` and vectors ``U·S^svd_power``. No
    subsampling and no randomness beyond the solver's seeded start. ``data`` names the shipped files
    whose hashes go into the provenance. Raises like the :mod:`lib.ppmi` functions.

    The SVD is PROPACK's (``truncated_svd(solver="propack")``): the same triplets as ARPACK to 1e-10 on
    the Lee corpus, and faster. It runs with BLAS on one thread (``threadpoolctl``, restored
    afterwards): the solver's many small products gain nothing from a second thread, and spinning BLAS
    threads lose much time when the cores are shared."""
    docs = check_sentences(docs, "docs")
    extra = provenance_extra(data)  # the files' hashes, for the record: outside the timed part
    start = time.perf_counter()
    vocab = vocabulary(docs, settings)
    with threadpool_limits(limits=1, user_api="blas"):
        result = ppmi_svd_embedding(
            docs, vocab, k=settings.sgns.dim, window=settings.sgns.window, weighting=settings.weighting,
            alpha=settings.ppmi_alpha, power=settings.svd_power, sparse=True, solver="propack", corpus=corpus,
            unit="document", extra=extra,
        )
    seconds = time.perf_counter() - start
    prov = result.provenance.replace(stopping_rule=result.provenance.stopping_rule + " (BLAS on one thread)")
    n_words = sum(1 for doc in docs for token in doc if token in vocab)
    return Trained("PPMI-SVD", vocab, result.vectors, seconds, n_words, prov)


def train_book_sgns(
    docs,
    settings: Settings = Settings(),
    *,
    seed: int = 0,
    workers: int = 1,
    corpus: str = "Lee background corpus",
    data=("lee",),
) -> Trained:
    """The book's skip-gram with negative sampling (:func:`lib.sgns.train_sgns`) with ``settings.sgns``,
    its seed and workers set to ``seed`` and ``workers``; ``workers=1`` is deterministic. Raises like
    :class:`lib.sgns.SGNSConfig`."""
    docs = check_sentences(docs, "docs")
    config = dataclasses.replace(settings.sgns, seed=seed, workers=workers)
    start = time.perf_counter()
    vocab = vocabulary(docs, settings)
    result = train_sgns(vocab.encode_sentences(docs), vocab.counts, config, desc="book SGNS")
    seconds = time.perf_counter() - start
    base = for_corpus(vocab, docs, corpus=corpus, extra=provenance_extra(data))
    prov = base.replace(**{k: v for k, v in result.provenance.as_dict().items() if v is not None and k != "extra"})
    return Trained("book SGNS", vocab, result.vectors, seconds, result.n_words, prov)


GENSIM_MINUS_ONE = "Exception ignored in: 'gensim.models.word2vec_inner.our_dot_float'"


@contextmanager
def _gensim_minus_one_notices() -> Iterator[dict]:
    """Count, instead of printing, gensim's notices that a dot product came out as exactly -1.

    Where the BLAS's ``dsdot`` does not return a double (OpenBLAS's oldest kernels, chosen on CPUs of the
    Core 2 era or with ``OPENBLAS_CORETYPE=Prescott``), gensim's inner loop uses ``sdot``, which gensim
    declares ``except -1``: a dot product of exactly -1.0 is then mistaken for an error, taken as 0, and
    reported on stderr as ``Exception ignored in: ...our_dot_float``, once each time. Inside the block such
    lines are counted (``notices["count"]``) and kept out of stderr; anything else written to stderr is
    passed on. :func:`train_gensim` records the count in the provenance.
    """
    notices = {"count": 0}
    captured = io.StringIO()
    try:
        with redirect_stderr(captured):
            yield notices
    finally:
        other = []
        for line in captured.getvalue().splitlines(keepends=True):
            if line.strip() == GENSIM_MINUS_ONE:
                notices["count"] += 1
            else:
                other.append(line)
        if other:
            sys.stderr.write("".join(other))


def _gensim_settings(settings, seed, workers) -> Tuple[SGNSConfig, int, int]:
    """``(settings.sgns, seed, workers)`` for gensim, after the checks :class:`lib.sgns.SGNSConfig` makes of the
    book's own: gensim takes a negative or absurd thread count or seed without a word, or fails inside."""
    if not isinstance(settings, Settings):
        raise TypeError(f"settings must be a lib.race.Settings, got {type(settings).__name__}")
    workers = validate.workers(workers, "workers")
    return settings.sgns, validate.seed(seed), workers


def train_gensim(
    docs,
    settings: Settings = Settings(),
    *,
    seed: int = 0,
    workers: int = 1,
    corpus: str = "Lee background corpus",
    data=("lee",),
) -> Trained:
    """gensim's ``Word2Vec`` with ``sg=1`` (skip-gram), negative sampling and the values of
    ``settings.sgns``; its vectors are returned in the rows of the book's vocabulary (same tokens: both
    keep words seen ``min_count`` times). ``workers=1`` makes gensim deterministic for a seed. Raises
    ``TypeError`` for ``settings`` that are not :class:`Settings`, ``TypeError`` / ``ValueError`` for a ``seed``
    that is not an integer >= 0 or ``workers`` outside ``[1, lib.validate.MAX_WORKERS]`` (gensim would start that
    many threads), and ``RuntimeError`` if gensim's vocabulary differs from the book's."""
    docs = check_sentences(docs, "docs")
    config, seed, workers = _gensim_settings(settings, seed, workers)
    start = time.perf_counter()
    vocab = vocabulary(docs, settings)
    with _gensim_minus_one_notices() as notices:
        model = Word2Vec(
            sentences=docs,
            vector_size=config.dim,
            window=config.window,
            negative=config.negatives,
            hs=0,
            sg=1,
            epochs=config.epochs,
            sample=config.sample,
            min_count=settings.min_count,
            alpha=config.alpha,
            min_alpha=config.min_alpha,
            ns_exponent=config.power,
            shrink_windows=config.dynamic_window,
            workers=workers,
            seed=seed,
        )
    seconds = time.perf_counter() - start
    if set(model.wv.key_to_index) != set(vocab.tokens):
        raise RuntimeError("gensim's vocabulary differs from the book's; the two min-count rules disagree")
    vectors = model.wv.vectors[[model.wv.key_to_index[t] for t in vocab.tokens]]
    n_words = int(vocab.counts.sum()) * config.epochs
    extra = dict(provenance_extra(data))
    if notices["count"]:
        extra["gensim: dot products of exactly -1 taken as 0"] = str(notices["count"])
    prov = for_corpus(
        vocab,
        docs,
        corpus=corpus,
        context=describe_context(config.window, unit="document", dynamic=config.dynamic_window)
        + " (gensim shrink_windows)",
        subsampling=f"τ = {exact(config.sample)}, word2vec.c formula",
        n_pairs=None,
        objective="skip-gram, negative sampling (gensim Word2Vec sg=1, hs=0)",
        negatives=config.negatives,
        noise_distribution=f"unigram^{config.power} (cumulative table)",
        negative_policy="left out",
        dimension=config.dim,
        initialisation="gensim default (uniform ±0.5/d input, zero output)",
        optimiser="SGD (gensim's Cython loop)",
        learning_rate=float(config.alpha),
        batch=f"one pair at a time, {worker_threads(workers)}",
        stopping_rule=f"fixed number of epochs ({config.epochs})",
        seed=int(seed),
        vectors="input table (wv), rows reordered to the book's vocabulary",
        normalisation="none",
        dtype="float32",
        software=software_versions("gensim", "numpy"),
        extra=extra,
    )
    return Trained("gensim", vocab, vectors, seconds, n_words, prov)


#: fastText's character n-gram lengths, 3 to 6 characters :cite:p:`bojanowski2017enriching{§3.2}`, and the
#: number of hash buckets the n-grams share (fastText's and gensim's default).
FASTTEXT_MIN_N = 3
FASTTEXT_MAX_N = 6
FASTTEXT_BUCKETS = 2_000_000


def train_fasttext(
    docs,
    settings: Settings = Settings(),
    *,
    seed: int = 0,
    workers: int = 1,
    min_n: int = FASTTEXT_MIN_N,
    max_n: int = FASTTEXT_MAX_N,
    bucket: int = FASTTEXT_BUCKETS,
    corpus: str = "Lee background corpus",
    data=("lee",),
) -> Tuple[Trained, object]:
    """gensim's ``FastText`` (skip-gram, negative sampling) with the values of ``settings.sgns``, as
    :func:`train_gensim` trains ``Word2Vec``: the subword vectors of :cite:t:`bojanowski2017enriching`, a word
    represented by its own vector and the vectors of its character n-grams of ``min_n`` to ``max_n``
    characters (the word wrapped in ``<`` and ``>``), hashed into ``bucket`` shared rows.

    Taught in: chapters/tokenization.md. Returns ``(trained, keyed_vectors)``: ``trained.vectors`` are the
    in-vocabulary words' vectors ``(V, D) float32`` in the rows of the book's vocabulary, and
    ``keyed_vectors[word]`` (gensim's ``FastTextKeyedVectors``) builds a vector for any word, from its
    n-grams when it has no row (their mean: gensim's rule; the paper sums). ``workers=1`` makes it
    deterministic for a seed. Raises ``TypeError`` / ``ValueError`` unless ``1 <= min_n <= max_n`` and
    ``bucket`` in ``[1, lib.validate.MAX_SIZE]`` are integers (and ``bucket · dim`` at most ``MAX_SIZE``), for
    ``settings``, ``seed`` and ``workers`` as :func:`train_gensim`, and ``RuntimeError`` if gensim's vocabulary
    differs from the book's.
    """
    docs = check_sentences(docs, "docs")
    min_n = validate.integer(min_n, "min_n", low=1)
    max_n = validate.integer(max_n, "max_n", low=min_n, hint="at least min_n")
    bucket = validate.size(bucket, "bucket")
    config, seed, workers = _gensim_settings(settings, seed, workers)
    validate.entries((bucket, config.dim), "bucket and dim (the n-gram table)")
    start = time.perf_counter()
    vocab = vocabulary(docs, settings)
    with _gensim_minus_one_notices() as notices:
        model = FastText(
            sentences=docs, vector_size=config.dim, window=config.window, negative=config.negatives, hs=0, sg=1,
            epochs=config.epochs, sample=config.sample, min_count=settings.min_count, alpha=config.alpha,
            min_alpha=config.min_alpha, ns_exponent=config.power, shrink_windows=config.dynamic_window,
            workers=workers, seed=seed, min_n=min_n, max_n=max_n, bucket=bucket,
        )
    seconds = time.perf_counter() - start
    if set(model.wv.key_to_index) != set(vocab.tokens):
        raise RuntimeError("gensim's vocabulary differs from the book's; the two min-count rules disagree")
    vectors = model.wv.vectors[[model.wv.key_to_index[t] for t in vocab.tokens]]
    extra = dict(provenance_extra(data))
    if notices["count"]:
        extra["gensim: dot products of exactly -1 taken as 0"] = str(notices["count"])
    prov = for_corpus(
        vocab,
        docs,
        corpus=corpus,
        context=describe_context(config.window, unit="document", dynamic=config.dynamic_window)
        + " (gensim shrink_windows)",
        subsampling=f"τ = {exact(config.sample)}, word2vec.c formula",
        objective=f"skip-gram, negative sampling, over word and character {min_n}-{max_n}-gram vectors "
        f"(gensim FastText sg=1, {bucket:,} hash buckets)",
        negatives=config.negatives,
        noise_distribution=f"unigram^{config.power} (cumulative table)",
        dimension=config.dim,
        initialisation="gensim default",
        optimiser="SGD (gensim's Cython loop)",
        learning_rate=float(config.alpha),
        batch=f"one pair at a time, {worker_threads(workers)}",
        stopping_rule=f"fixed number of epochs ({config.epochs})",
        seed=int(seed),
        vectors="word vector plus its n-gram vectors, averaged (gensim wv)",
        normalisation="none",
        dtype="float32",
        software=software_versions("gensim", "numpy"),
        extra=extra,
    )
    n_words = int(vocab.counts.sum()) * config.epochs
    return Trained("gensim fastText", vocab, vectors, seconds, n_words, prov), model.wv


#: The three methods, by display name: ``"PPMI-SVD"`` (:func:`train_ppmi_svd`), ``"book SGNS"``
#: (:func:`train_book_sgns`) and ``"gensim"`` (:func:`train_gensim`).
#:
#: :meta hide-value:
METHODS = {"PPMI-SVD": train_ppmi_svd, "book SGNS": train_book_sgns, "gensim": train_gensim}


def train(method: str, docs, settings: Settings = Settings(), *, seed: int = 0, workers: int = 1) -> Trained:
    """Train one of :data:`METHODS` by name; PPMI-SVD has no seed or workers and ignores them. Raises
    ``ValueError`` for an unknown method and like the trainers."""
    validate.choice(method, "method", tuple(METHODS))
    if method == "PPMI-SVD":
        return train_ppmi_svd(docs, settings)
    return METHODS[method](docs, settings, seed=seed, workers=workers)


# --- the race: the three methods timed in one process ---------------------------------------------------


#: the wall times a :class:`RaceRun` accepts, in seconds: a nanosecond to 10**9 s
SECONDS_RANGE = (1e-9, 10**9)


@dataclass(frozen=True)
class RaceRun:
    """One timed training: ``method``, corpus ``scale`` (repetitions of the corpus), ``repeat`` index
    (also the seed), wall ``seconds``, ``n_words`` processed, ``rho`` (WordSim-353) and ``pairs_used``.

    Checked on creation, so that a summary or a ratio never divides by zero or prints NaN: ``method`` one of
    :data:`METHODS`, ``scale`` an integer >= 1, ``repeat`` >= 0, ``seconds`` a number in ``SECONDS_RANGE``
    (from a nanosecond, the unit of ``time.perf_counter_ns``, to 10**9 s, about 32 years), ``n_words`` an
    integer in ``[1, 2**53]`` (exact in float64), ``rho`` a finite number in [-1, 1] and ``pairs_used`` an
    integer >= 2 (a correlation needs two pairs); ``TypeError`` for a value of the wrong type, ``ValueError``
    for one out of range. Within these ranges every rate, ratio and cost of :func:`summarise_race` and
    :func:`paired_ratios` is a finite nonzero float64 (a run of 5e-324 s made words per second infinite)."""

    method: str
    scale: int
    repeat: int
    seconds: float
    n_words: int
    rho: float
    pairs_used: int

    def __post_init__(self):
        validate.choice(self.method, "method", tuple(METHODS))
        validate.integer(self.scale, "scale", low=1)
        validate.integer(self.repeat, "repeat", low=0)
        validate.number(self.seconds, "seconds", ge=SECONDS_RANGE[0], le=SECONDS_RANGE[1],
                        hint="a measured wall time, from a nanosecond to about 32 years")
        validate.integer(self.n_words, "n_words", low=1, high=2**53, hint="exact in float64")
        validate.number(self.rho, "rho", ge=-1, le=1, hint="a Spearman correlation")
        validate.integer(self.pairs_used, "pairs_used", low=2)


#: the most repeats :func:`run_race` allows: far more than a median needs (the benchmark runs 6), and a bound, so
#: that ``repeats=10**6`` is refused by name instead of training for days
MAX_REPEATS = 100
#: the largest corpus scale :func:`run_race` allows: the corpus repeated 1000 times (60 million tokens for the
#: Lee corpus, which the benchmark takes to 16), so that ``scales=[10**6]`` is refused before it fills the memory
MAX_SCALE = 1000


def run_race(
    docs,
    settings: Settings = Settings(),
    *,
    scales: Sequence[int] = (1,),
    repeats: int = 3,
    workers: int = 2,
    methods: Sequence[str] = ("gensim", "book SGNS", "PPMI-SVD"),
    progress_desc: str | None = None,
) -> List[RaceRun]:
    """Train every method on the same corpus with the same ``settings`` in this process, ``repeats``
    times per corpus scale, and time each run (:class:`Trained` ``seconds``).

    The corpus at scale ``s`` is ``docs`` repeated ``s`` times (:func:`lib.corpus.repeat_corpus`) with the
    minimum count multiplied by ``s``, so the vocabulary and the word frequencies stay those of ``docs``
    and only the amount of text grows. Runs are interleaved (repeat by repeat, the method order rotating)
    so that a change in the machine's load falls on every method alike. Repeat ``r`` uses seed ``r``;
    the predictive methods use ``workers`` threads (gensim's ``workers`` and the book's Hogwild workers).
    Each run is scored on WordSim-353. Raises ``ValueError`` for an unknown method, a method named twice, no
    method, ``repeats`` outside ``[1, MAX_REPEATS]`` (100), a scale outside ``[1, MAX_SCALE]`` (1000) or
    ``workers`` outside ``[1, lib.validate.MAX_WORKERS]``, each before anything is trained, and ``TypeError``
    for ``methods`` or ``scales`` that is not a collection (one string, one int) or a value of the wrong type.
    """
    docs = check_sentences(docs, "docs")
    methods = validate.collection(methods, "methods", "a sequence of method names")
    for m in methods:
        validate.choice(m, "method", tuple(METHODS))
    if not methods:
        raise ValueError(f"methods must name at least one of {tuple(METHODS)}, got none")
    twice = next((m for i, m in enumerate(methods) if m in methods[:i]), None)
    if twice is not None:  # its runs would be taken for one method's repeats
        raise ValueError(f"methods must name each method once, got {twice!r} twice")
    repeats = validate.integer(repeats, "repeats", low=1, high=MAX_REPEATS)
    scales = [validate.integer(s, f"scales[{i}]", low=1, high=MAX_SCALE, hint="times the corpus is repeated")
              for i, s in enumerate(validate.collection(scales, "scales", "a collection of integers"))]
    workers = validate.workers(workers, "workers")
    pairs = read_word_pairs("wordsim353")
    runs: List[RaceRun] = []
    jobs = [(s, r, k) for s in scales for r in range(repeats) for k in range(len(methods))]
    corpora = {}
    for s, r, k in progress(jobs, desc=progress_desc or "race"):
        if s not in corpora:
            corpora = {s: repeat_corpus(docs, s)}  # keep one scale in memory at a time
        method = methods[(k + r) % len(methods)]
        # with several workers the results differ from run to run: the race is timed, not compared
        with unlogged():
            trained = train(method, corpora[s], settings.replace(min_count=settings.min_count * s), seed=r,
                            workers=workers)
            score = word_similarity(trained.vectors, trained.vocab, pairs)
        runs.append(RaceRun(method, s, r, trained.seconds, trained.n_words, score.rho, score.n_used))
    return runs


@dataclass(frozen=True)
class RaceSummary:
    """Medians over the repeats of one (method, scale): ``seconds`` (median, min, max),
    ``words_per_second`` (median), ``speed_ratio`` (gensim's median time ÷ this method's: above 1 is
    faster than gensim; for the predictive methods it equals the ratio of words per second),
    ``us_per_word`` (median µs per word processed), ``rho`` (mean, min, max) and ``repeats``."""

    method: str
    scale: int
    seconds: Tuple[float, float, float]
    words_per_second: float
    speed_ratio: float
    us_per_word: float
    rho: Tuple[float, float, float]
    repeats: int


def summarise_race(runs: Sequence[RaceRun]) -> List[RaceSummary]:
    """One :class:`RaceSummary` per (method, scale), in the order first seen. Raises ``ValueError`` when a
    scale has no gensim run (the ratio needs it) or ``runs`` is empty.

    >>> runs = [RaceRun("gensim", 1, 0, 2.0, 100, 0.5, 9),
    ...         RaceRun("PPMI-SVD", 1, 0, 1.0, 100, 0.4, 9)]
    >>> [(s.method, s.speed_ratio, s.us_per_word) for s in summarise_race(runs)]
    [('gensim', 1.0, 20000.0), ('PPMI-SVD', 2.0, 10000.0)]
    """
    if not runs:
        raise ValueError("no runs to summarise")
    keys = list(dict.fromkeys((r.method, r.scale) for r in runs))
    gensim_median = {}
    for scale in {k[1] for k in keys}:
        times = [r.seconds for r in runs if r.method == "gensim" and r.scale == scale]
        if not times:
            raise ValueError(f"scale {scale} has no gensim run to compare with")
        gensim_median[scale] = float(np.median(times))
    out = []
    for method, scale in keys:
        mine = [r for r in runs if r.method == method and r.scale == scale]
        t = np.array([r.seconds for r in mine])
        w = np.array([r.n_words for r in mine], dtype=np.float64)
        rho = np.array([r.rho for r in mine])
        out.append(
            RaceSummary(
                method,
                scale,
                (float(np.median(t)), float(t.min()), float(t.max())),
                float(np.median(w / t)),
                gensim_median[scale] / float(np.median(t)),
                float(np.median(t / w)) * 1e6,
                (float(rho.mean()), float(rho.min()), float(rho.max())),
                len(mine),
            )
        )
    return out


@dataclass(frozen=True)
class PairedRatio:
    """Speed of ``method`` against gensim at one ``scale``, measured repeat by repeat: ``ratios`` (one per
    repeat, gensim's seconds ÷ the method's within that repeat, so above 1 is faster), their ``median``,
    ``low`` and ``high`` (the range). A ratio taken within one repeat sees the same load on both methods,
    so its spread over repeats says how far the machine's load moved it."""

    method: str
    scale: int
    ratios: Tuple[float, ...]
    median: float
    low: float
    high: float


def paired_ratios(runs: Sequence[RaceRun], method: str = "book SGNS") -> List[PairedRatio]:
    """One :class:`PairedRatio` per scale, in the order first seen: for every repeat that has both a gensim
    run and a ``method`` run at that scale, gensim's seconds ÷ the method's. For the predictive methods
    (same words processed) it is the ratio of words per second. Raises ``ValueError`` when a scale has no
    repeat with both, or ``runs`` is empty.

    >>> times = {"gensim": [3.0, 2.0, 5.0], "book SGNS": [1.0, 1.0, 2.0]}
    >>> runs = [RaceRun(m, 1, seed, t[seed], 100, 0.2, 9)
    ...         for seed in range(3) for m, t in times.items()]
    >>> r = paired_ratios(runs)[0]
    >>> r.ratios, (r.median, r.low, r.high)
    ((3.0, 2.0, 2.5), (2.5, 2.0, 3.0))
    """
    validate.choice(method, "method", tuple(METHODS))
    if not runs:
        raise ValueError("no runs to compare")
    out = []
    for scale in dict.fromkeys(r.scale for r in runs):
        by = {(r.method, r.repeat): r.seconds for r in runs if r.scale == scale}
        repeats = sorted({rep for m, rep in by if m == method and ("gensim", rep) in by})
        if not repeats:
            raise ValueError(f"scale {scale} has no repeat with both a gensim run and a {method} run")
        ratios = np.array([by[("gensim", rep)] / by[(method, rep)] for rep in repeats])
        out.append(
            PairedRatio(method, scale, tuple(float(x) for x in ratios), float(np.median(ratios)),
                        float(ratios.min()), float(ratios.max()))
        )
    return out


# --- measured values, in the forms tests/nbval_sanitize.cfg masks ----------------------------------------


#: the measured values the ``format_`` functions write with two decimals; one outside, and not 0, is written
#: with three significant digits in exponent form: below 0.005 two decimals would write ``0.00``, and from
#: 1e16 on they would write more digits than float64 holds (up to 309 of them)
FIXED_RANGE = (0.005, FIXED_POINT_LIMIT)


def _fixed(value: float, shift: int = 0) -> str:
    """``value · 10**-shift`` (``shift`` an int >= 0: 6 writes words per second in millions) with two decimals
    by :func:`lib.notebook.fmt` (``-0.0`` is ``0.00``), or in exponent form with three significant digits
    (``4.00e-03``, ``1.18e+21``) when it is not 0 and lies outside ``FIXED_RANGE``, where two decimals would
    hide it; logging nothing: measured values differ from run to run by design. The exponent form is
    ``value``'s own, its exponent lowered by ``shift``: exact, where the float64 quotient ``value / 10**shift``
    of a tiny value would lose digits or be 0 (``5e-324 / 1e6``), and a nonzero value would read as none."""
    with unlogged():
        scaled = value / 10**shift if shift else value
        if value != 0 and not FIXED_RANGE[0] <= abs(scaled) < FIXED_RANGE[1]:
            mantissa, exponent = fmt(value, ".2e").split("e")
            return f"{mantissa}e{int(exponent) - shift:+03d}"
        return fmt(scaled, ".2f")


def _measured(value, name: str, *, positive: bool = False) -> float:
    """``value`` as a ``float`` (:func:`lib.validate.real`), with ``ValueError`` for NaN, infinity and a
    negative value (0 too where ``positive``): a duration, a rate, a cost or a speed ratio is never any of
    these, and a table must not print ``nan s``, ``inf×`` or ``-1.00 s``."""
    value = validate.real(value, name)
    if value != value:
        raise ValueError(f"{name} must be a number, got nan (a measurement is never NaN)")
    if math.isinf(value) or value < 0 or (positive and value == 0):
        allowed = "> 0" if positive else ">= 0"
        raise ValueError(f"{name} must be a finite number {allowed} (a measurement), got {value!r}")
    return value


def format_seconds(seconds: float) -> str:
    """A measured duration as ``"2.41 s"``. ``TypeError`` for a non-number, ``ValueError`` for NaN, infinity,
    a negative value or one beyond float64 (:func:`lib.validate.real`); so for the other ``format_``
    functions (a ratio must also be above 0), which print two decimals (``-0.0`` as ``"0.00"``), or three
    significant digits in exponent form for a value that two decimals would hide (below 0.005, or 1e16 and
    above: ``FIXED_RANGE``).

    >>> format_seconds(2.414), format_seconds(0.004)
    ('2.41 s', '4.00e-03 s')
    """
    seconds = _measured(seconds, "seconds")
    return f"{_fixed(seconds)} s"


def format_ratio(ratio: float) -> str:
    """A measured ratio as ``"1.43×"``.

    >>> format_ratio(1.4321)
    '1.43×'
    """
    ratio = _measured(ratio, "ratio", positive=True)
    return f"{_fixed(ratio)}×"


def format_rate(words_per_second: float) -> str:
    """A measured throughput as ``"0.49 M words/s"`` (in millions; a rate below 5,000 words/s, down to the
    smallest float64, in exponent form: never ``0.00`` for a nonzero rate).

    >>> format_rate(487_000), format_rate(5e-324)
    ('0.49 M words/s', '4.94e-330 M words/s')
    """
    words_per_second = _measured(words_per_second, "words_per_second")
    return f"{_fixed(words_per_second, 6)} M words/s"


def format_cost(us_per_word: float) -> str:
    """A measured cost per word as ``"2.05 µs/word"``.

    >>> format_cost(2.049)
    '2.05 µs/word'
    """
    us_per_word = _measured(us_per_word, "us_per_word")
    return f"{_fixed(us_per_word)} µs/word"


def race_table(summaries: Sequence[RaceSummary], *, markdown: bool = True, compact: bool = False) -> str:
    """The race as a table, one row per (scale, method): wall time (median and range, each written as
    :func:`format_seconds` writes it), words per second,
    speed ratio to gensim, cost per word, WordSim-353 ρ (mean and range over the repeats). Markdown by
    default, aligned plain text with ``markdown=False`` (:mod:`lib.tables`). ``compact=True`` keeps the
    corpus, method, median wall time, words per second and speed ratio: the measured columns only, every
    one printed in the form the book marks as measured, so that a re-run may print other values (the
    chapter's version). ``TypeError`` for a ``markdown`` or ``compact`` that is not ``True`` or ``False`` and
    for ``summaries`` that is not a collection of :class:`RaceSummary`; ``ValueError`` for none (a table of
    no row)."""
    markdown, compact = validate.flag(markdown, "markdown"), validate.flag(compact, "compact")
    summaries = validate.collection(summaries, "summaries", "a collection of RaceSummary (summarise_race)")
    odd = next((s for s in summaries if not isinstance(s, RaceSummary)), None)
    if odd is not None:
        raise TypeError(f"summaries must hold RaceSummary records (summarise_race), got {type(odd).__name__}")
    if not summaries:
        raise ValueError("summaries must hold at least one RaceSummary (summarise_race), got none")
    header = ["corpus", "method", "wall time (median, min-max)", "words/s", "speed (× gensim's)", "cost per word"]
    header.append("WordSim-353 rho (mean, min-max)")
    if compact:
        header = ["corpus", "method", "wall time", "words/s", "speed (× gensim's)"]
    order = list(METHODS)
    rows = []
    for s in sorted(summaries, key=lambda s: (s.scale, order.index(s.method) if s.method in order else len(order))):
        t, r = s.seconds, s.rho
        row = [f"{s.scale}x", s.method, format_seconds(t[0])]
        row += [format_rate(s.words_per_second), format_ratio(s.speed_ratio)]
        if not compact:
            row[2] += f" ({_fixed(t[1])} to {_fixed(t[2])})"
            row += [format_cost(s.us_per_word), f"{fmt(r[0], '.2f')} ({fmt(r[1], '.2f')} to {fmt(r[2], '.2f')})"]
        rows.append(row)
    return tables.markdown(header, rows) if markdown else tables.text(header, rows)


__all__ = [
    "FASTTEXT_BUCKETS",
    "FASTTEXT_MAX_N",
    "FASTTEXT_MIN_N",
    "FIXED_RANGE",
    "MAX_REPEATS",
    "MAX_SCALE",
    "METHODS",
    "PairedRatio",
    "RaceRun",
    "RaceSummary",
    "SECONDS_RANGE",
    "Settings",
    "Trained",
    "format_cost",
    "format_rate",
    "format_ratio",
    "format_seconds",
    "paired_ratios",
    "race_table",
    "run_race",
    "summarise_race",
    "train",
    "train_book_sgns",
    "train_fasttext",
    "train_gensim",
    "train_ppmi_svd",
    "vocabulary",
]
