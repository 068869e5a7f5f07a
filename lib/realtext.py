"""Real text that arrives with a pinned package: gensim's shipped test data, tokenised and identified.

The "real text" chapter needs a corpus and three evaluation sets without any download at run time.
gensim's wheel (pinned ``gensim==4.4.0`` in ``requirements.txt``) ships them as test data in
``gensim/test/test_data/``:

- ``lee_background.cor``: the Lee background corpus, 300 short news documents (one per line, about
  60 000 words) from the Australian Broadcasting Corporation's news mail service, around 2000–2001,
  collected by Lee, Pincombe & Welsh (2005) and given to gensim by M. D. Lee;
- ``wordsim353.tsv``: WordSim-353, 353 word pairs with mean human relatedness scores on 0–10
  (Finkelstein et al. 2002);
- ``simlex999.txt``: SimLex-999, 999 pairs scored for similarity (not relatedness) on 0–10
  (Hill, Reichart & Korhonen 2015);
- ``questions-words.txt``: the word2vec analogy questions, 19 544 questions in 14 sections
  (Mikolov et al. 2013a, §4.1).

This module finds them through the installed package (:func:`data_path`: without importing gensim,
which takes a second), says what is missing and how to get it when they are absent
(:class:`MissingDataError`), hashes them (:func:`sha256_file`, :func:`dataset_hashes`) so that a
provenance record names the exact bytes, and turns the corpus into token lists (:func:`tokenize`,
:func:`load_corpus`), with the subsets and repetitions the learning curve and the benchmark need
(:func:`corpus_fraction`, :func:`repeat_corpus`).

Licences, as far as they are known (the chapter repeats them): gensim is LGPL-2.1; the Lee corpus is
news text whose copyright stays with its publisher, redistributed in gensim's test data with no
separate licence; WordSim-353 and SimLex-999 are published on their authors' web pages (the header line
of each file names the page), and the copies in gensim carry no licence text; the analogy questions come
with the word2vec tool, released under the Apache License 2.0.
"""

from __future__ import annotations

import hashlib
import importlib.util
import io
import re
import sys
from contextlib import contextmanager, redirect_stderr
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Sequence, Tuple

import numpy as np

from lib.notebook import exact, fmt, unlogged

GENSIM_PIN = "gensim==4.4.0"


@dataclass(frozen=True)
class DataFile:
    """One shipped data file: its ``filename`` in gensim's test data, a ``title``, what it ``contains``,
    the ``source`` to cite (a key of ``references.bib``) and its ``licence`` as far as it is known."""

    filename: str
    title: str
    contains: str
    source: str
    licence: str


#: The four files the chapter uses, by short name.
DATA_FILES: Dict[str, DataFile] = {
    "lee": DataFile(
        "lee_background.cor",
        "Lee background corpus",
        "300 news documents, one per line, from the Australian Broadcasting Corporation's news mail "
        "service (about 2000-2001)",
        "lee2005empirical",
        "news text, copyright of its publisher; redistributed in gensim's test data (gensim: LGPL-2.1) "
        "with no separate licence",
    ),
    "wordsim353": DataFile(
        "wordsim353.tsv",
        "WordSim-353",
        "353 word pairs with mean human relatedness judgements on a 0-10 scale",
        "finkelstein2002placing",
        "published on its authors' web page (named in the file's header); no licence text in the copy",
    ),
    "simlex999": DataFile(
        "simlex999.txt",
        "SimLex-999",
        "999 word pairs with mean human similarity (not relatedness) judgements on a 0-10 scale",
        "hill2015simlex",
        "published on its authors' web page (named in the file's header); no licence text in the copy",
    ),
    "analogies": DataFile(
        "questions-words.txt",
        "word2vec analogy questions",
        "19,544 questions 'a is to b as c is to d' in 14 sections (5 semantic, 9 syntactic)",
        "mikolov2013efficient",
        "from the word2vec tool, released under the Apache License 2.0",
    ),
}


class MissingDataError(FileNotFoundError):
    """A shipped data file (or gensim itself) is not where it should be; the message says how to fix it."""


def _resolve(name: str) -> DataFile:
    if not isinstance(name, str):
        raise TypeError(f"data file name must be a str, got {type(name).__name__}")
    if name in DATA_FILES:
        return DATA_FILES[name]
    for entry in DATA_FILES.values():
        if entry.filename == name:
            return entry
    known = ", ".join(f"{k!r} ({v.filename})" for k, v in DATA_FILES.items())
    raise ValueError(f"unknown data file {name!r}; known: {known}")


def gensim_test_data_dir() -> Path:
    """The folder ``gensim/test/test_data`` of the installed gensim, found without importing gensim.

    Raises :class:`MissingDataError` (a ``FileNotFoundError``) when gensim is not installed or its wheel
    has no test data folder, with the install command in the message.
    """
    spec = importlib.util.find_spec("gensim")
    if spec is None or not spec.submodule_search_locations:
        raise MissingDataError(
            f"gensim is not installed, and the corpus and benchmarks of this chapter ship inside it: "
            f"pip install {GENSIM_PIN}"
        )
    folder = Path(next(iter(spec.submodule_search_locations))) / "test" / "test_data"
    if not folder.is_dir():
        raise MissingDataError(
            f"gensim is installed at {folder.parents[1]} but has no test data folder {folder}; "
            f"reinstall it from the wheel: pip install --force-reinstall {GENSIM_PIN}"
        )
    return folder


def data_path(name: str) -> Path:
    """Path of a shipped data file, by short name (``"lee"``, ``"wordsim353"``, ``"simlex999"``,
    ``"analogies"``) or by file name (``"lee_background.cor"``).

    Raises ``ValueError`` for a name that is not one of :data:`DATA_FILES`, ``TypeError`` for a
    non-string, and :class:`MissingDataError` naming the file and the folder searched when it is absent.
    """
    entry = _resolve(name)
    folder = gensim_test_data_dir()
    path = folder / entry.filename
    if not path.is_file():
        raise MissingDataError(
            f"{entry.title} ({entry.filename}) is missing from {folder}; it ships with gensim's wheel: "
            f"pip install --force-reinstall {GENSIM_PIN}"
        )
    return path


def sha256_file(path) -> str:
    """SHA-256 of a file's bytes, 64 hex digits. Raises ``FileNotFoundError`` for a missing file."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def dataset_hashes(names: Iterable[str] = tuple(DATA_FILES)) -> Dict[str, str]:
    """``{file name: SHA-256}`` of the named shipped files (default all four), for provenance records.

    Raises like :func:`data_path`.
    """
    return {_resolve(n).filename: sha256_file(data_path(n)) for n in names}


def provenance_extra(names: Iterable[str] = tuple(DATA_FILES)) -> Dict[str, str]:
    """Entries for :class:`lib.provenance.Provenance` ``extra``: ``{"data file <name>": "sha256 <hex>"}``
    plus the gensim version the files came from. Raises like :func:`data_path`."""
    from importlib import metadata

    out = {f"data file {fname}": f"sha256 {digest}" for fname, digest in dataset_hashes(names).items()}
    out["data files from"] = f"gensim {metadata.version('gensim')} test data"
    return out


# --- tokenisation ----------------------------------------------------------------------------------

#: A token is a run of ASCII letters, possibly with internal apostrophes ("don't", "year's").
TOKEN_PATTERN = re.compile(r"[a-z]+(?:'[a-z]+)*")


def tokenize(text: str) -> List[str]:
    """Lower-case ``text`` and return its tokens: runs of letters ``a-z`` with internal apostrophes.

    The policy, stated because every count depends on it: letters are lower-cased; digits, punctuation
    and hyphens separate tokens and are dropped (``"south-west"`` gives ``south``, ``west``; ``"4:00pm"``
    gives ``pm``); an apostrophe between letters stays inside the token (``"year's"``); typographic
    apostrophes are first mapped to ``'``. Raises ``TypeError`` for a non-string.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return TOKEN_PATTERN.findall(text.lower().replace("\u2019", "'"))


def read_documents(name: str = "lee") -> List[str]:
    """The documents of a corpus file: one ``str`` per non-empty line, in file order (UTF-8).

    Raises like :func:`data_path`.
    """
    with open(data_path(name), encoding="utf-8") as handle:
        return [line.strip() for line in handle if line.strip()]


def load_corpus(name: str = "lee") -> List[List[str]]:
    """The corpus as token lists, one per document (:func:`tokenize` of :func:`read_documents`)."""
    return [tokenize(doc) for doc in read_documents(name)]


def _check_docs(docs) -> List[List[str]]:
    if isinstance(docs, (str, bytes)):
        raise TypeError("docs must be a sequence of token lists, got a single string")
    out = [list(d) for d in docs]
    for k, d in enumerate(out):
        if any(not isinstance(t, str) for t in d):
            raise TypeError(f"docs[{k}] must be a sequence of str tokens")
    if not out:
        raise ValueError("docs must contain at least one document")
    return out


def corpus_fraction(docs: Sequence[Sequence[str]], fraction: float, *, seed: int = 0) -> List[List[str]]:
    """A random subset of whole documents holding about ``fraction`` of them: ``round(fraction · D)``
    documents (at least one), in their original order.

    The documents are ranked once by a permutation drawn with ``numpy.random.default_rng(seed)`` and the
    first ones kept, so for one seed the subsets are nested (the 25 % subset lies inside the 50 % one),
    which is what a learning curve needs. Raises ``ValueError`` for ``fraction`` outside ``(0, 1]`` or
    an empty corpus, ``TypeError`` for malformed documents.
    """
    docs = _check_docs(docs)
    if isinstance(fraction, bool) or not isinstance(fraction, (int, float, np.integer, np.floating)):
        raise TypeError(f"fraction must be a number, got {type(fraction).__name__}")
    fraction = float(fraction)
    if not (0.0 < fraction <= 1.0):
        raise ValueError(f"fraction must lie in (0, 1], got {fraction!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    n = max(1, int(round(fraction * len(docs))))
    keep = np.sort(np.random.default_rng(int(seed)).permutation(len(docs))[:n])
    return [docs[i] for i in keep]


def repeat_corpus(docs: Sequence[Sequence[str]], times: int) -> List[List[str]]:
    """The corpus repeated ``times`` times in a row (``times · D`` documents), for measuring how cost
    grows with corpus size on text with the same statistics. Raises ``ValueError`` for ``times < 1``."""
    docs = _check_docs(docs)
    if isinstance(times, bool) or not isinstance(times, (int, np.integer)) or times < 1:
        raise ValueError(f"times must be a positive integer, got {times!r}")
    return [list(d) for _ in range(int(times)) for d in docs]


# --- the three methods under one set of settings ------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    """The settings the three methods share, as in the issue's race: ``dim`` (D), ``window`` (largest
    distance), ``negatives`` (K), ``epochs``, ``sample`` (subsampling threshold), ``min_count``,
    ``alpha``/``min_alpha`` (first/last SGD learning rate); and PPMI-SVD's own: ``ppmi_alpha`` (context
    smoothing α of Levy et al. 2015, §3.2), ``svd_power`` (eigenvalue weighting p, §3.3) and
    ``weighting`` (``"linear"``: each pair weighted ``(window - d + 1) / window``, the expected weight of
    word2vec's dynamic window). Defaults are the issue's: D = 100, window 5, K = 5, 20 epochs, sample
    1e-3, min-count 2. Validation happens where the values are used."""

    dim: int = 100
    window: int = 5
    negatives: int = 5
    epochs: int = 20
    sample: float = 1e-3
    min_count: int = 2
    alpha: float = 0.025
    min_alpha: float = 1e-4
    ppmi_alpha: float = 0.75
    svd_power: float = 0.5
    weighting: str | None = "linear"


@dataclass(frozen=True)
class Trained:
    """One trained embedding: ``method`` name, ``vocab`` (:class:`lib.corpus.Vocabulary`, rows in its
    order), ``vectors`` ``(V, D)``, ``seconds`` (wall time from token lists to vectors, vocabulary
    included, provenance excluded), ``n_words`` (in-vocabulary tokens processed: × epochs for the
    predictive methods, once for PPMI-SVD, which reads the corpus once) and ``provenance``."""

    method: str
    vocab: object
    vectors: np.ndarray
    seconds: float
    n_words: int
    provenance: object

    @property
    def words_per_second(self) -> float:
        return self.n_words / self.seconds


def _vocabulary(docs, settings: Settings):
    from lib.corpus import Vocabulary

    return Vocabulary.from_sentences(docs, min_count=settings.min_count, order="count", unknown="skip")


def train_ppmi_svd(
    docs, settings: Settings = Settings(), *, corpus: str = "Lee background corpus", data=("lee",)
) -> Trained:
    """PPMI-SVD (:mod:`lib.ppmi`): symmetric ``±window`` counts with ``settings.weighting``, PPMI with
    context smoothing ``ppmi_alpha``, truncated SVD to ``dim`` and vectors ``U·S^svd_power``. No
    subsampling and no randomness beyond the solver's seeded start. ``data`` names the shipped files
    whose hashes go into the provenance. Raises like the :mod:`lib.ppmi` functions.

    The SVD is PROPACK's (``truncated_svd(solver="propack")``): the same triplets as ARPACK to 1e-10 on
    the Lee corpus, in about three quarters of the time. It runs with BLAS on one thread (``threadpoolctl``,
    restored afterwards): the solver's many small products gain nothing from a second thread (measured
    here: 0.42 s on one thread, 0.64 s on two, on an idle 2-core machine), and OpenBLAS's spinning
    threads collapse when the cores are shared (8.5 s instead of 0.8 s on a loaded one)."""
    import time

    from threadpoolctl import threadpool_limits

    from lib.ppmi import ppmi_svd_embedding

    docs = _check_docs(docs)
    start = time.perf_counter()
    vocab = _vocabulary(docs, settings)
    with threadpool_limits(limits=1, user_api="blas"):
        result = ppmi_svd_embedding(
            docs, vocab, k=settings.dim, window=settings.window, weighting=settings.weighting,
            alpha=settings.ppmi_alpha, power=settings.svd_power, sparse=True, solver="propack", corpus=corpus,
        )
    seconds = time.perf_counter() - start
    prov = result.provenance.replace(
        context=f"±{settings.window} positions within the document, {settings.weighting or 'no'} distance weighting",
        stopping_rule=result.provenance.stopping_rule + " (BLAS on one thread)",
        extra={**result.provenance.extra, **provenance_extra(data)},
    )
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
    """The book's skip-gram with negative sampling (:func:`lib.sgns.train_sgns`) with ``settings``;
    ``workers=1`` is deterministic. Raises like :class:`lib.sgns.SGNSConfig`."""
    import time

    from lib.provenance import for_corpus
    from lib.sgns import SGNSConfig, train_sgns

    docs = _check_docs(docs)
    config = SGNSConfig(
        dim=settings.dim,
        window=settings.window,
        negatives=settings.negatives,
        epochs=settings.epochs,
        sample=settings.sample,
        alpha=settings.alpha,
        min_alpha=settings.min_alpha,
        workers=workers,
        seed=seed,
    )
    start = time.perf_counter()
    vocab = _vocabulary(docs, settings)
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


def train_gensim(
    docs,
    settings: Settings = Settings(),
    *,
    seed: int = 0,
    workers: int = 1,
    corpus: str = "Lee background corpus",
    data=("lee",),
) -> Trained:
    """gensim's ``Word2Vec`` with ``sg=1`` (skip-gram), negative sampling and ``settings``; its vectors
    are returned in the rows of the book's vocabulary (same tokens: both keep words seen ``min_count``
    times). ``workers=1`` makes gensim deterministic for a seed. Raises ``RuntimeError`` if gensim's
    vocabulary differs from the book's."""
    import time

    from gensim.models import Word2Vec

    from lib.provenance import for_corpus, software_versions

    docs = _check_docs(docs)
    start = time.perf_counter()
    vocab = _vocabulary(docs, settings)
    with _gensim_minus_one_notices() as notices:
        model = Word2Vec(
            sentences=docs,
            vector_size=settings.dim,
            window=settings.window,
            negative=settings.negatives,
            hs=0,
            sg=1,
            epochs=settings.epochs,
            sample=settings.sample,
            min_count=settings.min_count,
            alpha=settings.alpha,
            min_alpha=settings.min_alpha,
            ns_exponent=0.75,
            workers=workers,
            seed=seed,
        )
    seconds = time.perf_counter() - start
    if set(model.wv.key_to_index) != set(vocab.tokens):
        raise RuntimeError("gensim's vocabulary differs from the book's; the two min-count rules disagree")
    vectors = model.wv.vectors[[model.wv.key_to_index[t] for t in vocab.tokens]]
    n_words = int(vocab.counts.sum()) * settings.epochs
    extra = dict(provenance_extra(data))
    if notices["count"]:
        extra["gensim: dot products of exactly -1 taken as 0"] = str(notices["count"])
    prov = for_corpus(
        vocab,
        docs,
        corpus=corpus,
        context=f"dynamic window ±{settings.window} within the document (gensim shrink_windows)",
        subsampling=f"t = {exact(settings.sample)}, word2vec.c formula",
        n_pairs=None,
        objective="skip-gram, negative sampling (gensim Word2Vec sg=1, hs=0)",
        negatives=settings.negatives,
        noise_distribution="unigram^0.75 (cumulative table)",
        negative_policy="left out",
        dimension=settings.dim,
        initialisation="gensim default (uniform ±0.5/D input, zero output)",
        optimiser="SGD (gensim's Cython loop)",
        learning_rate=float(settings.alpha),
        batch=f"one pair at a time, {workers} worker thread(s)",
        stopping_rule=f"fixed number of epochs ({settings.epochs})",
        seed=int(seed),
        vectors="input table (wv), rows reordered to the book's vocabulary",
        normalisation="none",
        dtype="float32",
        software=software_versions("gensim", "numpy"),
        extra=extra,
    )
    return Trained("gensim", vocab, vectors, seconds, n_words, prov)


#: The three methods of the chapter, by display name.
METHODS = {"PPMI-SVD": train_ppmi_svd, "book SGNS": train_book_sgns, "gensim": train_gensim}


# --- the chapter's study: seeds, a learning curve, strata and neighbours ---------------------------------

#: Seeds of the chapter's repeated runs, the corpus fractions of its learning curve, the strata of
#: the rarer word's count for WordSim-353, the frequency bands for neighbour agreement, and the
#: frequent words whose neighbours it shows.
CHAPTER_SEEDS = (0, 1, 2)
CHAPTER_FRACTIONS = (0.125, 0.25, 0.5, 1.0)
STRATA_EDGES = (2, 4, 8, float("inf"))
FREQUENCY_BANDS = (2, 5, 20, 100, float("inf"))
NEIGHBOUR_WORDS = ("police", "fire", "government", "afghanistan")


@dataclass(frozen=True)
class Scores:
    """One model's intrinsic scores: WordSim-353 and SimLex-999 (:class:`lib.evaluation.SimilarityResult`)
    and the analogy questions (:class:`lib.evaluation.AnalogyResult`)."""

    method: str
    seed: int
    wordsim: object
    simlex: object
    analogies: object


def evaluate(trained: Trained, seed: int = 0) -> Scores:
    """Score ``trained`` on the three shipped benchmarks (:mod:`lib.evaluation`). Raises like them."""
    from lib.evaluation import analogy_accuracy, read_analogies, read_word_pairs, word_similarity

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
    wordsim: object


@dataclass(frozen=True)
class Study:
    """Everything the chapter shows about quality: ``models[(method, seed)]`` (:class:`Trained`, one seed
    for PPMI-SVD, which has no randomness), ``scores`` (:class:`Scores`, same keys) and ``curve``
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
    (:func:`corpus_fraction`, seed 0) for the learning curve; the fraction 1.0 reuses the seed-0 models.
    Raises like the trainers and :func:`evaluate`."""
    from lib.evaluation import read_word_pairs, word_similarity
    from lib.progress import progress

    docs = _check_docs(docs)
    seeds = [int(s) for s in seeds]
    jobs = [("PPMI-SVD", seeds[0])] + [(m, s) for s in seeds for m in ("book SGNS", "gensim")]
    models, scores = {}, {}
    for method, seed in progress(jobs, desc="seeds"):
        kwargs = {} if method == "PPMI-SVD" else {"seed": seed, "workers": 1}
        models[(method, seed)] = METHODS[method](docs, settings, **kwargs)
        scores[(method, seed)] = evaluate(models[(method, seed)], seed)
    pairs = read_word_pairs("wordsim353")
    curve = []
    for fraction in progress(list(fractions), desc="fractions"):
        part = docs if fraction == 1.0 else corpus_fraction(docs, fraction, seed=0)
        for method in METHODS:
            key = (method, seeds[0])
            kwargs = {} if method == "PPMI-SVD" else {"seed": seeds[0], "workers": 1}
            trained = models[key] if fraction == 1.0 and key in models else METHODS[method](part, settings, **kwargs)
            score = word_similarity(trained.vectors, trained.vocab, pairs)
            n_tokens = int(trained.vocab.counts.sum())
            curve.append(CurvePoint(float(fraction), n_tokens, len(trained.vocab), method, score))
    return Study(settings, models, scores, curve)


_CHAPTER_STUDY: Dict[str, Study] = {}


def chapter_study() -> Study:
    """The chapter's :class:`Study` on the Lee corpus with the default :class:`Settings`, computed once per
    process and kept (the chapter and its figures share it)."""
    if "lee" not in _CHAPTER_STUDY:
        _CHAPTER_STUDY["lee"] = run_study(load_corpus("lee"))
    return _CHAPTER_STUDY["lee"]


def score_summary(study: Study, method: str, metric: str) -> Tuple[float, float, float, int]:
    """``(mean, min, max, n_runs)`` of one metric over a method's seeds: ``metric`` is ``"wordsim"``,
    ``"simlex"`` (Spearman ρ) or ``"analogies"`` (accuracy). Raises ``ValueError`` for an unknown
    method or metric."""
    if metric not in ("wordsim", "simlex", "analogies"):
        raise ValueError(f"metric must be 'wordsim', 'simlex' or 'analogies', got {metric!r}")
    values = [
        (sc.analogies.accuracy if metric == "analogies" else getattr(sc, metric).rho)
        for (m, _), sc in study.scores.items()
        if m == method
    ]
    if not values:
        raise ValueError(f"no runs of method {method!r}; known: {sorted({m for m, _ in study.scores})}")
    v = np.array(values)
    return float(v.mean()), float(v.min()), float(v.max()), len(values)


def strata_scores(
    study: Study, edges: Sequence[float] = STRATA_EDGES
) -> Dict[str, List[Tuple[str, float, float, float, int]]]:
    """WordSim-353 ρ by stratum of the rarer word's count (:func:`lib.evaluation.similarity_by_frequency`)
    for each method: ``{method: [(label, mean, min, max, pairs), ...]}`` over the method's seeds."""
    from lib.evaluation import read_word_pairs, similarity_by_frequency

    pairs = read_word_pairs("wordsim353")
    out: Dict[str, List[Tuple[str, float, float, float, int]]] = {}
    for method in METHODS:
        runs = [
            similarity_by_frequency(t.vectors, t.vocab, t.vocab.counts, pairs, edges)
            for (m, _), t in study.models.items()
            if m == method
        ]
        rows = []
        for k, (label, first) in enumerate(runs[0]):
            rhos = np.array([run[k][1].rho for run in runs])
            rows.append((label, float(rhos.mean()), float(rhos.min()), float(rhos.max()), first.n_used))
        out[method] = rows
    return out


def seed_agreement(
    study: Study, bands: Sequence[float] = FREQUENCY_BANDS, k: int = 10
) -> Dict[str, List[Tuple[str, float, int]]]:
    """How far two seeds of a predictive method agree on a word's ``k`` nearest neighbours, by frequency
    band of the word: ``{method: [(label, mean overlap in [0, 1], words), ...]}`` between the first two
    seeds (:func:`lib.evaluation.neighbour_overlap`). Raises ``ValueError`` with fewer than two seeds."""
    from lib.evaluation import neighbour_overlap

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
            rows.append((label, float(neighbour_overlap(a.vectors, b.vectors, ids, k).mean()), int(ids.shape[0])))
        out[method] = rows
    return out


def neighbour_table(study: Study, words: Sequence[str] = NEIGHBOUR_WORDS, k: int = 5, seed: int | None = None) -> str:
    """A Markdown table of each word's ``k`` nearest neighbours (cosine) for the three methods side by side
    (seed ``seed``, default the study's first). Raises ``ValueError`` for a word without a row."""
    from lib.evaluation import nearest_words

    seed = min(s for _, s in study.models) if seed is None else seed
    methods = list(METHODS)
    lines = ["| word (count) | " + " | ".join(methods) + " |", "| --- |" + " --- |" * len(methods)]
    for word in words:
        cells = []
        for method in methods:
            trained = study.models[(method, seed)]
            cells.append(", ".join(w for w, _ in nearest_words(trained.vectors, trained.vocab, word, k)))
        count = int(study.models[(methods[0], seed)].vocab.counts[study.models[(methods[0], seed)].vocab.id(word)])
        lines.append(f"| {word} ({count}) | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def scores_table(study: Study, rho_decimals: int = 2, accuracy_decimals: int = 4) -> str:
    """A Markdown table of the study's scores by method: Spearman ρ on WordSim-353 and SimLex-999 and
    3CosAdd accuracy, each as mean (min to max) over the seeds, with the pairs or questions covered.

    ρ is shown to ``rho_decimals`` (2: over a hundred-odd pairs its bootstrap interval is about ±0.17, and
    the float32 training of the predictive methods gives ρ values that differ between CPU code paths by a
    few 1e-4); an accuracy, a ratio of counts, to ``accuracy_decimals``."""
    lines = [
        "| method | runs | WordSim-353 rho | pairs used | SimLex-999 rho | pairs used | analogy accuracy "
        "| questions covered |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for method in METHODS:
        first = next(sc for (m, _), sc in study.scores.items() if m == method)
        cells = []
        for metric in ("wordsim", "simlex", "analogies"):
            mean, lo, hi, n = score_summary(study, method, metric)
            spec = f".{accuracy_decimals if metric == 'analogies' else rho_decimals}f"
            cells.append(f"{fmt(mean, spec)} ({fmt(lo, spec)} to {fmt(hi, spec)})" if n > 1 else fmt(mean, spec))
        ws, sl, an = first.wordsim, first.simlex, first.analogies
        lines.append(
            f"| {method} | {n} | {cells[0]} | {ws.n_used} of {ws.n_total} | {cells[1]} | {sl.n_used} of {sl.n_total} "
            f"| {cells[2]} | {an.attempted} of {an.total} |"
        )
    return "\n".join(lines)


def median_rarer_count(study: Study) -> float:
    """Median count, in the corpus, of the rarer word of the WordSim-353 pairs the vocabulary covers."""
    from lib.evaluation import read_word_pairs

    trained = next(iter(study.models.values()))
    index, counts = trained.vocab.index, trained.vocab.counts
    pairs = [(a, b) for a, b, _ in read_word_pairs("wordsim353") if a in index and b in index]
    rarer = [min(counts[index[a]], counts[index[b]]) for a, b in pairs]
    return float(np.median(rarer))


# --- the race: the three methods timed in one process ---------------------------------------------------


@dataclass(frozen=True)
class RaceRun:
    """One timed training: ``method``, corpus ``scale`` (repetitions of the corpus), ``repeat`` index
    (also the seed), wall ``seconds``, ``n_words`` processed, ``rho`` (WordSim-353) and ``pairs_used``."""

    method: str
    scale: int
    repeat: int
    seconds: float
    n_words: int
    rho: float
    pairs_used: int


def race(
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

    The corpus at scale ``s`` is ``docs`` repeated ``s`` times (:func:`repeat_corpus`) with the minimum
    count multiplied by ``s``, so the vocabulary and the word frequencies stay those of ``docs`` and
    only the amount of text grows. Runs are interleaved (repeat by repeat, the method order rotating)
    so that a change in the machine's load falls on every method alike. Repeat ``r`` uses seed ``r``;
    the predictive methods use ``workers`` threads (gensim's ``workers`` and the book's Hogwild workers).
    Each run is scored on WordSim-353. Raises ``ValueError`` for an unknown method, ``repeats < 1`` or
    a scale below 1.
    """
    from dataclasses import replace

    from lib.evaluation import read_word_pairs, word_similarity
    from lib.progress import progress

    docs = _check_docs(docs)
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        raise ValueError(f"unknown method(s) {unknown}; known: {list(METHODS)}")
    if isinstance(repeats, bool) or not isinstance(repeats, (int, np.integer)) or repeats < 1:
        raise ValueError(f"repeats must be a positive integer, got {repeats!r}")
    for s in scales:
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 1:
            raise ValueError(f"every scale must be a positive integer, got {s!r}")
    pairs = read_word_pairs("wordsim353")
    runs: List[RaceRun] = []
    jobs = [(s, r, k) for s in scales for r in range(repeats) for k in range(len(methods))]
    corpora = {}
    for s, r, k in progress(jobs, desc=progress_desc or "race"):
        if s not in corpora:
            corpora = {s: repeat_corpus(docs, int(s))}  # keep one scale in memory at a time
        method = methods[(k + r) % len(methods)]
        scaled = replace(settings, min_count=settings.min_count * int(s))
        kwargs = {} if method == "PPMI-SVD" else {"seed": r, "workers": workers}
        # with several workers the results differ from run to run: the race is timed, not compared
        with unlogged():
            trained = METHODS[method](corpora[s], scaled, **kwargs)
            score = word_similarity(trained.vectors, trained.vocab, pairs)
        runs.append(RaceRun(method, int(s), r, trained.seconds, trained.n_words, score.rho, score.n_used))
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
    scale has no gensim run (the ratio needs it) or ``runs`` is empty."""
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


def format_seconds(seconds: float) -> str:
    """A measured duration as ``"2.41 s"`` (the form ``tests/nbval_sanitize.cfg`` masks)."""
    return f"{seconds:.2f} s"


def format_ratio(ratio: float) -> str:
    """A measured ratio as ``"1.43×"`` (masked for nbval like every measured value)."""
    return f"{ratio:.2f}×"


def format_rate(words_per_second: float) -> str:
    """A measured throughput as ``"0.49 M words/s"`` (masked for nbval)."""
    return f"{words_per_second / 1e6:.2f} M words/s"


def format_cost(us_per_word: float) -> str:
    """A measured cost per word as ``"2.05 µs/word"`` (masked for nbval)."""
    return f"{us_per_word:.2f} µs/word"


def race_table(summaries: Sequence[RaceSummary], *, markdown: bool = True, compact: bool = False) -> str:
    """The race as a table, one row per (scale, method): wall time (median and range), words per second,
    speed ratio to gensim, cost per word, WordSim-353 ρ (mean and range over the repeats). Markdown by
    default, aligned plain text with ``markdown=False``. ``compact=True`` keeps the corpus, method, median
    wall time, words per second and speed ratio: the measured columns only, every one in a form that
    ``tests/nbval_sanitize.cfg`` masks (the chapter's version)."""
    header = ["corpus", "method", "wall time (median, min-max)", "words/s", "speed vs gensim", "cost per word"]
    header.append("WordSim-353 rho (mean, min-max)")
    if compact:
        header = ["corpus", "method", "wall time", "words/s", "speed vs gensim"]
    order = list(METHODS)
    rows = []
    for s in sorted(summaries, key=lambda s: (s.scale, order.index(s.method) if s.method in order else len(order))):
        t, r = s.seconds, s.rho
        row = [f"{s.scale}x", s.method, format_seconds(t[0])]
        row += [format_rate(s.words_per_second), format_ratio(s.speed_ratio)]
        if not compact:
            row[2] += f" ({t[1]:.2f}-{t[2]:.2f})"
            row += [format_cost(s.us_per_word), f"{fmt(r[0], '.2f')} ({fmt(r[1], '.2f')} to {fmt(r[2], '.2f')})"]
        rows.append(row)
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join(lines)
    widths = [max(len(x[i]) for x in [header] + rows) for i in range(len(header))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in [header] + rows)


__all__ = [
    "DATA_FILES",
    "CHAPTER_FRACTIONS",
    "CHAPTER_SEEDS",
    "CurvePoint",
    "FREQUENCY_BANDS",
    "METHODS",
    "NEIGHBOUR_WORDS",
    "STRATA_EDGES",
    "Scores",
    "Study",
    "chapter_study",
    "evaluate",
    "neighbour_table",
    "run_study",
    "median_rarer_count",
    "score_summary",
    "scores_table",
    "seed_agreement",
    "strata_scores",
    "RaceRun",
    "RaceSummary",
    "format_cost",
    "format_rate",
    "format_ratio",
    "format_seconds",
    "race",
    "race_table",
    "summarise_race",
    "Settings",
    "Trained",
    "train_book_sgns",
    "train_gensim",
    "train_ppmi_svd",
    "DataFile",
    "GENSIM_PIN",
    "MissingDataError",
    "TOKEN_PATTERN",
    "corpus_fraction",
    "data_path",
    "dataset_hashes",
    "gensim_test_data_dir",
    "load_corpus",
    "provenance_extra",
    "read_documents",
    "repeat_corpus",
    "sha256_file",
    "tokenize",
]
