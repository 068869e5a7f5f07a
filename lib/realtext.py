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
of each file names the page), and the copies in gensim carry no licence text; the analogy questions come with the word2vec tool, released
under the Apache License 2.0.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Sequence

import numpy as np

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


def train_ppmi_svd(docs, settings: Settings = Settings(), *, corpus: str = "Lee background corpus", data=("lee",)) -> Trained:
    """PPMI-SVD (:mod:`lib.ppmi`): symmetric ``±window`` counts with ``settings.weighting``, PPMI with
    context smoothing ``ppmi_alpha``, truncated SVD (ARPACK) to ``dim`` and vectors ``U·S^svd_power``.
    No subsampling and no randomness beyond ARPACK's fixed start vector. ``data`` names the shipped
    files whose hashes go into the provenance. Raises like the :mod:`lib.ppmi` functions.

    The SVD runs with BLAS on one thread (``threadpoolctl``, restored afterwards): ARPACK's many small
    products gain little from a second thread, and OpenBLAS's spinning threads collapse when the cores
    are shared (measured here: 8.5 s instead of 0.8 s on a loaded 2-core machine)."""
    import time

    from threadpoolctl import threadpool_limits

    from lib.ppmi import cooccurrence, ppmi, truncated_svd
    from lib.provenance import for_corpus, software_versions

    docs = _check_docs(docs)
    start = time.perf_counter()
    vocab = _vocabulary(docs, settings)
    ids = vocab.encode_sentences(docs)
    counts = cooccurrence(ids, len(vocab), settings.window, weighting=settings.weighting, sparse=True)
    with threadpool_limits(limits=1, user_api="blas"):
        U, S, _ = truncated_svd(ppmi(counts, settings.ppmi_alpha), settings.dim, solver="sparse")
    vectors = U * S ** float(settings.svd_power)
    seconds = time.perf_counter() - start
    prov = for_corpus(
        vocab,
        docs,
        corpus=corpus,
        context=f"±{settings.window} positions within the document, {settings.weighting or 'no'} distance weighting",
        subsampling="none",
        objective=f"PPMI (natural log, context smoothing alpha = {settings.ppmi_alpha}) + truncated SVD",
        dimension=settings.dim,
        initialisation="none (closed form)",
        optimiser="none (closed form)",
        stopping_rule="ARPACK to machine precision (BLAS on one thread)",
        vectors=f"U_k * S_k^{settings.svd_power}; sign: largest |entry| of each U column positive",
        normalisation="none",
        dtype="float64",
        software=software_versions("numpy", "scipy"),
        extra=provenance_extra(data),
    )
    return Trained("PPMI-SVD", vocab, vectors, seconds, int(sum(len(i) for i in ids)), prov)


def train_book_sgns(
    docs, settings: Settings = Settings(), *, seed: int = 0, workers: int = 1, corpus: str = "Lee background corpus", data=("lee",)
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


def train_gensim(
    docs, settings: Settings = Settings(), *, seed: int = 0, workers: int = 1, corpus: str = "Lee background corpus", data=("lee",)
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
    prov = for_corpus(
        vocab,
        docs,
        corpus=corpus,
        context=f"dynamic window ±{settings.window} within the document (gensim shrink_windows)",
        subsampling=f"t = {settings.sample!r}, word2vec.c formula",
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
        extra=provenance_extra(data),
    )
    return Trained("gensim", vocab, vectors, seconds, n_words, prov)


#: The three methods of the chapter, by display name.
METHODS = {"PPMI-SVD": train_ppmi_svd, "book SGNS": train_book_sgns, "gensim": train_gensim}


__all__ = [
    "DATA_FILES",
    "METHODS",
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
