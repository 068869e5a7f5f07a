"""The provenance record ("embedding audit") that every embedding returned by ``lib`` carries.

Taught in: chapters/embeddings.md (Level 4, "Contextual representations require provenance"); every
trainer in ``lib`` fills one in, chapters/real_text.md prints one, and chapters/tokenization.md records
the tokens that training never saw (:func:`seen_tokens`).

A table of vectors says nothing about how it was made, yet every choice below changes its neighbours:
the item inventory and its order, the unknown-item policy and the minimum count; the corpus, the
context definition, subsampling; the objective, the negatives and their noise distribution; the
dimension, the optimiser, its learning rate, the number of steps and the seed; and the normalisation
applied afterwards. :class:`Provenance` records them in one frozen dataclass, grouped as the audit
list of chapters/embeddings.md groups them (items; data and context; objective and optimisation;
geometry and storage), and renders them as a table (:meth:`Provenance.to_text`,
:meth:`Provenance.to_markdown`).

The trainers fill it in (:func:`lib.skipgram.train_skipgram`, :func:`lib.ppmi.ppmi_svd_embedding`,
:func:`lib.sgns.train_sgns`, the three of :mod:`lib.race`); :func:`for_corpus` fills the item and data
fields from a :class:`lib.corpus.Vocabulary` and a corpus. Departure from free-form model cards
:cite:p:`mitchell2019modelcards`: a fixed set of fields, so that records of different methods can be compared
line by line; anything else goes in ``extra``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from importlib import metadata
from typing import Dict, List, Mapping, Tuple

import numpy as np

from lib import tables, validate
from lib.corpus import Vocabulary, corpus_hash
from lib.notebook import exact

NOT_APPLICABLE = "n/a"

# (group, field, label) in display order; every dataclass field except ``extra`` appears once.
_LAYOUT: Tuple[Tuple[str, str, str], ...] = (
    ("items", "vocabulary_size", "vocabulary size"),
    ("items", "tokens_seen", "tokens seen in training"),
    ("items", "tokens_never_seen", "tokens never seen in training"),
    ("items", "vocabulary_order", "identifier order"),
    ("items", "unknown_policy", "unknown-item policy"),
    ("items", "min_count", "minimum count"),
    ("data", "corpus", "corpus"),
    ("data", "corpus_hash", "tokenised corpus SHA-256"),
    ("data", "n_sentences", "sentences"),
    ("data", "n_tokens", "tokens"),
    ("data", "context", "context definition"),
    ("data", "subsampling", "subsampling"),
    ("data", "n_pairs", "training pairs"),
    ("objective", "objective", "objective"),
    ("objective", "negatives", "negatives per positive"),
    ("objective", "noise_distribution", "noise distribution"),
    ("objective", "negative_policy", "negative equal to the positive"),
    ("objective", "dimension", "dimension"),
    ("objective", "initialisation", "initialisation"),
    ("objective", "optimiser", "optimiser"),
    ("objective", "learning_rate", "learning rate"),
    ("objective", "batch", "batch"),
    ("objective", "stopping_rule", "stopping rule"),
    ("objective", "seed", "seed"),
    ("geometry", "vectors", "vectors returned"),
    ("geometry", "normalisation", "normalisation"),
    ("geometry", "dtype", "dtype"),
    ("geometry", "software", "software"),
)


@validate.known_fields
@dataclass(frozen=True)
class Provenance:
    """How one embedding table was made. Every field is a plain Python value; ``None`` means "does not apply".

    Items: ``vocabulary_size`` (int), ``vocabulary_order`` (e.g. ``"alphabetical"``), ``unknown_policy``,
    ``min_count`` (int), ``tokens_seen`` and ``tokens_never_seen`` (ints: how many of the vocabulary's
    tokens occur in the training data and how many do not, :func:`seen_tokens`). Data: ``corpus`` (a name), ``corpus_hash`` (SHA-256 hex of the tokenised
    corpus, :func:`lib.corpus.corpus_hash`), ``n_sentences``, ``n_tokens``, ``context`` (the context
    definition, window included), ``subsampling`` (``"none"`` or the threshold and formula),
    ``n_pairs``. Objective: ``objective``, ``negatives`` (K), ``noise_distribution``,
    ``negative_policy``, ``dimension`` (D), ``initialisation``, ``optimiser``, ``learning_rate``,
    ``batch``, ``stopping_rule``, ``seed``. Geometry: ``vectors`` (which table is returned),
    ``normalisation``, ``dtype``, ``software`` (library versions). ``extra`` holds anything else, shown
    after the fixed fields in insertion order.

    Raises ``TypeError`` when ``extra`` is not a mapping with ``str`` keys, and for an unknown field (naming
    the fields).
    """

    vocabulary_size: int | None = None
    vocabulary_order: str | None = None
    unknown_policy: str | None = None
    min_count: int | None = None
    corpus: str | None = None
    corpus_hash: str | None = None
    n_sentences: int | None = None
    n_tokens: int | None = None
    context: str | None = None
    subsampling: str | None = None
    n_pairs: int | None = None
    objective: str | None = None
    negatives: int | None = None
    noise_distribution: str | None = None
    negative_policy: str | None = None
    dimension: int | None = None
    initialisation: str | None = None
    optimiser: str | None = None
    learning_rate: float | None = None
    batch: str | None = None
    stopping_rule: str | None = None
    seed: int | None = None
    vectors: str | None = None
    normalisation: str | None = None
    dtype: str | None = None
    software: str | None = None
    tokens_seen: int | None = None
    tokens_never_seen: int | None = None
    extra: Mapping[str, object] = field(default_factory=dict)

    def __post_init__(self):
        if not isinstance(self.extra, Mapping) or not all(isinstance(k, str) for k in self.extra):
            raise TypeError("extra must be a mapping with str keys")
        object.__setattr__(self, "extra", dict(self.extra))

    def replace(self, **changes) -> "Provenance":
        """A copy with some fields changed (``dataclasses.replace``); ``TypeError`` naming an unknown field
        (anything else goes in ``extra``)."""
        fields = [f.name for f in dataclasses.fields(self)]
        unknown = next((k for k in changes if k not in fields), None)
        if unknown is not None:  # was dataclasses' "__init__() got an unexpected keyword argument"
            raise TypeError(f"Provenance has no field {unknown!r} (put it in extra); the fields are {', '.join(fields)}")
        return dataclasses.replace(self, **changes)

    def as_dict(self) -> Dict[str, object]:
        """Every field as a plain ``dict`` (``extra`` included as a nested dict)."""
        return dataclasses.asdict(self)

    def rows(self, *, include_missing: bool = False) -> List[Tuple[str, str, str]]:
        """``[(group, label, value), ...]`` in display order; values are strings.

        Fields that are ``None`` are left out unless ``include_missing=True`` (then shown as ``n/a``).
        Hashes are shortened to their first 16 hex digits and an ellipsis (``ab0596e8187bec06…``); floats are shown with ``repr`` precision; counts
        (every integer field but ``seed``, which is a name) with thousands separators, ``5,075,156``, as the
        book's tables write counts. ``corpus_hash`` is labelled "tokenised corpus SHA-256": it hashes the
        token lists (:func:`lib.corpus.corpus_hash`), not the bytes of a data file.
        ``TypeError`` for an ``include_missing`` that is not ``True`` or ``False``.
        """
        include_missing = validate.flag(include_missing, "include_missing")
        out = []
        for group, name, label in _LAYOUT:
            value = getattr(self, name)
            if value is None and not include_missing:
                continue
            if name == "corpus_hash" and value is not None:
                value = str(value)[:16] + "…"
            out.append((group, label, _fmt(value, count=name != "seed")))
        for key, value in self.extra.items():
            out.append(("other", key, _fmt(value)))
        return out

    def to_text(self, *, include_missing: bool = False) -> str:
        """The record as a plain-text table with aligned columns (``group | field | value``)."""
        return tables.text(["group", "field", "value"], self.rows(include_missing=include_missing), rule="columns")

    def to_markdown(self, *, include_missing: bool = False) -> str:
        """The record as a Markdown table (``| group | field | value |``); ``|`` in values is escaped."""
        return tables.markdown(["group", "field", "value"], self.rows(include_missing=include_missing))

    def __str__(self) -> str:
        return self.to_text()


def _fmt(value, count: bool = False) -> str:
    if value is None:
        return NOT_APPLICABLE
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return exact(value)  # a setting (learning rate, smoothing): exact, in its shortest form
    if count and isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    return str(value)


def worker_threads(workers: int) -> str:
    """``"1 worker thread"`` or ``"4 worker threads"``: the phrase a record's ``batch`` field uses for the
    number of threads a trainer ran. ``workers`` is an integer >= 1; ``ValueError`` below 1 and
    ``TypeError`` for a non-integer, naming ``workers``.

    >>> worker_threads(1), worker_threads(2)
    ('1 worker thread', '2 worker threads')
    """
    workers = validate.workers(workers, "workers")
    return f"{workers} worker thread{'' if workers == 1 else 's'}"


def for_corpus(vocab, sentences, *, corpus: str, **fields) -> Provenance:
    """A :class:`Provenance` with the item and data fields filled from ``vocab`` and ``sentences``.

    ``vocab`` is a :class:`lib.corpus.Vocabulary`; ``sentences`` the tokenised corpus (sequences of
    ``str``) it was built from; ``corpus`` a human-readable name. Other fields are passed through.
    Raises ``TypeError`` for a ``vocab`` that is not a ``Vocabulary``, a malformed corpus or an unknown field.
    """
    if not isinstance(vocab, Vocabulary):
        raise TypeError(f"vocab must be a lib.corpus.Vocabulary, got {type(vocab).__name__}")
    sents = [list(s) for s in sentences]
    base = dict(vocab.describe())
    base.update(
        corpus=corpus,
        corpus_hash=corpus_hash(sents),
        n_sentences=len(sents),
        n_tokens=sum(len(s) for s in sents),
    )
    base.update(fields)
    return Provenance(**base)


def seen_tokens(ids, vocab_size: int) -> Dict[str, int]:
    """The fields ``tokens_seen`` and ``tokens_never_seen`` for training data ``ids`` (a sequence of 1-D
    integer id arrays, or one array) and a vocabulary of ``vocab_size`` tokens: ``{"tokens_seen": n,
    "tokens_never_seen": vocab_size - n}``, ``n`` the number of distinct ids that occur. A never-seen
    token's row is never updated by training, so it keeps its initial value (chapters/tokenization.md).
    Raises ``ValueError`` for an id outside ``[0, vocab_size)`` and ``TypeError`` for non-integer ids.

    >>> seen_tokens([[0, 2, 2], [2]], 4)
    {'tokens_seen': 2, 'tokens_never_seen': 2}
    """
    vocab_size = validate.size(vocab_size, "vocab_size", low=1)
    parts = [ids] if isinstance(ids, np.ndarray) and ids.ndim == 1 else list(ids)
    seen = np.zeros(vocab_size, dtype=bool)
    for part in parts:
        seen[validate.ids(part, vocab_size).ravel()] = True
    n = int(seen.sum())
    return {"tokens_seen": n, "tokens_never_seen": vocab_size - n}


def software_versions(*names: str) -> str:
    """``"numpy 2.4.6, torch 2.13.0"`` for the named installed packages (``ValueError`` if one is missing,
    ``TypeError`` for a name that is not a ``str``)."""
    out = []
    for i, name in enumerate(names):
        if not isinstance(name, str):
            raise TypeError(f"package name {i} must be a str, got {name!r}")
        try:
            out.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError as err:
            raise ValueError(f"package {name!r} is not installed") from err
    return ", ".join(out)


__all__ = ["Provenance", "for_corpus", "seen_tokens", "software_versions", "worker_threads", "NOT_APPLICABLE"]
