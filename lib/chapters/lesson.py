"""The chapter chapters/lesson.md: its experiment in one place, and the numbers :ref:`Lesson 2.3 <sources>`
reports, to compare against.

Concepts used: :mod:`lib.toylang`, :mod:`lib.bigram`, :mod:`lib.embedding`, :mod:`lib.positional`,
:mod:`lib.geometry` (neighbours by name).

Lesson 2.3 (*Embeddings, vectors and token positions*) trains the factored bigram of :mod:`lib.bigram` on a
34-token toy language, reads the learned vectors with cosine similarity, shows that averaged token vectors
ignore word order, and builds learned and sinusoidal position tables. Its toy language came from a generator
the book does not have, so the book uses its own (:mod:`lib.toylang`); the numbers that depend on the corpus
therefore differ from those of Lesson 2.3, while the positional numbers, which do not, are reproduced exactly.

:func:`experiment` runs the corpus-dependent part once per process and caches it, so that
the chapter and its figures (``lib.figures.lesson``) share one run. The ``LESSON_*``
constants are the values Lesson 2.3 reports, kept only to be printed beside the book's.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Dict, List, Tuple

import numpy as np
from scipy.optimize import linear_sum_assignment
from scipy.spatial.distance import cdist

from lib import bigram, positional, tables, toylang, validate
from lib.embedding import cosine_similarity, lookup, power_of_two_scale, similarity
from lib.geometry import named_neighbours
from lib.notebook import argmax, argmin, exact, fmt
from lib.positional import LearnedPositionTable, add_positions

# --- the numbers the lesson reports (for side-by-side tables only) ----------------------------------

# width -> (parameters, training loss, validation loss), nats; and the full table of Lesson 1.4.
LESSON_LOSSES: Dict[int, Tuple[int, float, float]] = {
    1: (68, 2.0316, 2.0230),
    2: (136, 1.1664, 1.1652),
    3: (204, 1.1627, 1.1619),
    4: (272, 1.1618, 1.1620),
    6: (408, 1.1614, 1.1621),
    8: (544, 1.1615, 1.1626),
    16: (1088, 1.1612, 1.1613),
    34: (2312, 1.1612, 1.1615),
}
LESSON_FULL_TABLE: Tuple[int, float, float] = (1156, 1.161, 1.162)

# (word, word, the lesson's cosine at width 8, the roles of the two words: lib.toylang.ROLES)
LESSON_PAIRS: Tuple[Tuple[str, str, float, str], ...] = (
    ("cat", "dog", 0.979, "both subjects"),
    ("cat", "fox", 0.985, "both subjects"),
    ("cat", "baker", 0.977, "both subjects"),
    ("chased", "watched", 0.986, "both verbs"),
    ("chased", "found", 0.995, "both verbs"),
    ("quickly", "slowly", 0.999, "both modifiers"),
    ("ball", "fish", 0.961, "both objects"),
    ("a", "the", -0.164, "both articles"),
    ("red", "small", 0.139, "both adjectives"),
    ("cat", "chased", 0.068, "subject and verb"),
    ("quickly", "cat", -0.071, "modifier and subject"),
    ("cat", "ball", -0.277, "subject and object"),
)

# The lesson's four nearest neighbours (in its order) of four words.
LESSON_NEIGHBOURS: Dict[str, Tuple[str, ...]] = {
    "cat": ("farmer", "teacher", "bird", "fox"),
    "chased": ("liked", "followed", "saw", "found"),
    "fish": ("bus", "tree", "ball", "drum"),
    "quickly": ("slowly", "again", "today", "night"),
}

# GPT-2 small (Radford et al. 2019): vocabulary, width and context length, as the lesson quotes them.
GPT2_VOCAB = 50_257
GPT2_WIDTH = 768
GPT2_CONTEXT = 1_024
GPT2_LAYERS = 12

COSINE_WIDTH = 8  # the width whose vectors the lesson reads


def gpt2_token_parameters() -> int:
    """Parameters of GPT-2 small's token table :cite:p:`radford2019language`, ``V × d`` = 50,257 × 768."""
    return GPT2_VOCAB * GPT2_WIDTH


def gpt2_total_parameters() -> int:
    """Every parameter of GPT-2 small, counted from its architecture :cite:p:`radford2019language`.

    Token and position tables; per layer, two layer norms (scale and shift), the attention's joint
    query/key/value projection and output projection, and the two-layer MLP of width ``4d``, all with
    biases; a final layer norm. The output layer reuses the token table, so it adds nothing. Gives the
    released model's 124,439,808.
    """
    d = GPT2_WIDTH
    layer = 2 * (2 * d) + (d * 3 * d + 3 * d) + (d * d + d) + (d * 4 * d + 4 * d) + (4 * d * d + d)
    return gpt2_token_parameters() + gpt2_position_parameters() + GPT2_LAYERS * layer + 2 * d


def gpt2_position_parameters() -> int:
    """Parameters of GPT-2 small's learned position table, 1,024 positions × 768 (a :class:`lib.positional.LearnedPositionTable`)."""
    return LearnedPositionTable(GPT2_CONTEXT, GPT2_WIDTH).num_parameters


# --- the experiment ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Experiment:
    """The corpus-dependent results of the chapter, computed by :func:`experiment`.

    ``corpus``: the toy corpus; ``train_counts`` / ``val_counts``: ``(V, V)`` int64 bigram counts;
    ``table``: ``(V, V)`` float64 full bigram table; ``full_train_loss`` / ``full_val_loss``: its losses
    (nats); ``rows``: one :class:`lib.bigram.WidthRow` per width of ``lib.bigram.WIDTHS``;
    ``E`` / ``U``: the width-8 model's ``(34, 8)`` and ``(8, 34)`` weights. Arrays are read-only: the
    result is cached and shared.
    """

    corpus: toylang.Corpus
    train_counts: np.ndarray
    val_counts: np.ndarray
    table: np.ndarray
    full_train_loss: float
    full_val_loss: float
    rows: Tuple[bigram.WidthRow, ...]
    E: np.ndarray
    U: np.ndarray

    def row(self, width: int) -> bigram.WidthRow:
        """The sweep's row for ``width``; ``ValueError`` if that width was not trained."""
        for r in self.rows:
            if r.width == width:
                return r
        raise ValueError(f"width {width!r} was not trained; widths: {[r.width for r in self.rows]}")


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.array(a)
    a.flags.writeable = False
    return a


@lru_cache(maxsize=4)
def experiment(seed: int = 0) -> Experiment:
    """Run the chapter's experiment: sample the corpus, count, fit the full table, sweep the widths.

    ``seed`` seeds both the corpus (:func:`lib.toylang.make_corpus`) and the weights
    (:func:`lib.bigram.width_sweep`); the book uses 0. Cached per seed. Returns an :class:`Experiment`.
    """
    corpus = toylang.make_corpus(seed=seed)
    tc = bigram.bigram_counts(corpus.train, toylang.V)
    vc = bigram.bigram_counts(corpus.val, toylang.V)
    table = bigram.count_table(tc)
    rows = tuple(bigram.width_sweep(tc, vc, bigram.WIDTHS, seed=seed))
    width8 = next(r for r in rows if r.width == COSINE_WIDTH).result
    return Experiment(
        corpus=corpus,
        train_counts=_frozen(tc),
        val_counts=_frozen(vc),
        table=_frozen(table),
        full_train_loss=bigram.table_loss(table, tc),
        full_val_loss=bigram.table_loss(table, vc),
        rows=rows,
        E=_frozen(width8.E),
        U=_frozen(width8.U),
    )


# --- reading the vectors -------------------------------------------------------------------------


def vector(E, word: str) -> np.ndarray:
    """The row of ``E`` ``(34, d)`` for ``word`` (a copy); ``ValueError`` for a word not in the vocabulary."""
    return lookup(E, int(toylang.encode([word])[0]))


def cosine(E, a: str, b: str) -> float:
    """Cosine similarity of the vectors of words ``a`` and ``b`` in ``E`` (a ``float`` in [-1, 1])."""
    return cosine_similarity(vector(E, a), vector(E, b))


def cosine_rows(E) -> List[Tuple[str, str, float, float, str]]:
    """The twelve pairs of Lesson 2.3: ``(a, b, book cosine, lesson cosine, relationship)`` for each."""
    return [(a, b, cosine(E, a, b), lesson, rel) for a, b, lesson, rel in LESSON_PAIRS]


def neighbours(E, word: str, k: int = 4) -> List[Tuple[str, float]]:
    """The ``k`` words whose vectors in ``E`` are closest in cosine to ``word``'s, best first, ``word``
    excluded (:func:`lib.geometry.named_neighbours` over the toy vocabulary)."""
    return named_neighbours(E, toylang.VOCAB, word, k)


def cosine_matrix_by_role(E) -> Tuple[np.ndarray, List[str]]:
    """Cosine similarity of every pair of tokens, rows and columns ordered by role: ``((34, 34), tokens)``."""
    order = toylang.tokens_by_role()
    rows = lookup(E, toylang.encode(order))
    return similarity(rows, rows, "cosine"), order


@dataclass(frozen=True)
class CosineSummary:
    """What the cosines of a table ``E`` ``(34, d)`` say about kinds and roles, over a set of pairs.

    A pair is *of one kind* when the same tokens follow both of its tokens with the same probabilities
    (:func:`lib.toylang.next_token_kinds`); *of one role* when both fill the same slot of the grammar
    (``lib.toylang.ROLES``). Pairs are named ``"a–b"``. ``n_pairs``: pairs considered; ``n_same_kind``:
    how many are of one kind; ``same_kind_min``: the smallest cosine among those, and its pair;
    ``other_max``: the largest cosine among the pairs of different kinds, and its pair; ``other_max_abs``:
    the largest absolute cosine among those; ``same_role_min``: the smallest cosine among pairs of one role.
    """

    n_pairs: int
    n_same_kind: int
    same_kind_min: Tuple[str, float]
    other_max: Tuple[str, float]
    other_max_abs: float
    same_role_min: Tuple[str, float]


def cosine_summary(E, pairs=None) -> CosineSummary:
    """Summarise the cosines of ``E`` ``(34, d)`` over ``pairs`` (word pairs; default: all 561 pairs of the
    vocabulary) by kind and by role (:class:`CosineSummary`). Raises ``ValueError`` for an unknown word.

    >>> s = cosine_summary(np.eye(34))  # one direction per token: every cosine 0
    >>> s.n_pairs, s.n_same_kind, s.other_max_abs
    (561, 79, 0.0)
    """
    if pairs is None:
        pairs = [(toylang.VOCAB[i], toylang.VOCAB[j]) for i in range(toylang.V) for j in range(i + 1, toylang.V)]
    kinds = toylang.next_token_kinds()
    names = [f"{a}–{b}" for a, b in pairs]
    cos = np.array([cosine(E, a, b) for a, b in pairs])
    same_kind = np.array([kinds[toylang.STOI[a]] == kinds[toylang.STOI[b]] for a, b in pairs])
    same_role = np.array([toylang.ROLES[a] == toylang.ROLES[b] for a, b in pairs])
    lo = argmin(np.where(same_kind, cos, np.inf), "lesson: least similar pair of one kind")
    hi = argmax(np.where(same_kind, -np.inf, cos), "lesson: most similar pair of different kinds")
    role_lo = argmin(np.where(same_role, cos, np.inf), "lesson: least similar pair of one role")
    return CosineSummary(
        n_pairs=len(pairs), n_same_kind=int(same_kind.sum()),
        same_kind_min=(names[lo], float(cos[lo])), other_max=(names[hi], float(cos[hi])),
        other_max_abs=float(np.abs(cos[~same_kind]).max()), same_role_min=(names[role_lo], float(cos[role_lo])),
    )


def twelve_pairs_summary(E) -> CosineSummary:
    """:func:`cosine_summary` over the twelve pairs of Lesson 2.3 only (``LESSON_PAIRS``)."""
    return cosine_summary(E, [(a, b) for a, b, _, _ in LESSON_PAIRS])


# --- how far a validation loss can stray ----------------------------------------------------------


@dataclass(frozen=True)
class ValidationNoise:
    """The sampling noise of a validation loss on the toy language's validation split.

    ``n``: predictions in the split (tokens after the first); ``grammar_loss``: the mean loss (nats) of the
    grammar's exact probabilities (:func:`lib.toylang.transition_matrix`) on them; ``standard_error``: the
    standard error of that mean, ``std / sqrt(n)`` of the per-prediction losses (nats); ``entropy``: the
    average the loss of the exact probabilities tends to on an ever longer sample (nats).
    """

    n: int
    grammar_loss: float
    standard_error: float
    entropy: float


def validation_noise(exp: "Experiment") -> ValidationNoise:
    """How far the validation loss of even a perfect bigram model strays from the entropy on this split.

    The per-prediction losses ``-log P(next | previous)`` of the exact grammar on ``exp.corpus.val`` have
    mean ``grammar_loss`` and standard deviation ``s``; their mean is uncertain by ``s / sqrt(n)``.
    """
    val = exp.corpus.val
    losses = -np.log(toylang.transition_matrix()[val[:-1], val[1:]])  # (n,) nats
    return ValidationNoise(n=int(losses.size), grammar_loss=float(losses.mean()),
                           standard_error=float(losses.std(ddof=1) / np.sqrt(losses.size)),
                           entropy=toylang.bigram_entropy())


# --- the dot product of two positions -------------------------------------------------------------


def dots_by_offset(d: int = 16, max_offset: int = 63, start: int = 10) -> np.ndarray:
    """``P[start] · P[start + k]`` of the sinusoidal table of width ``d`` for ``k = 0 .. max_offset``:
    ``(max_offset + 1,) float64`` (:func:`lib.positional.dot_by_offset`)."""
    return positional.dot_by_offset(start, np.arange(max_offset + 1), d)


def first_rise(dots) -> int:
    """The first offset ``k`` at which ``dots[k + 1] > dots[k]``: where the dot product stops falling.
    Raises ``ValueError`` when the dots never rise, and for ``dots`` that are not 1-D or hold NaN or
    infinity; ``TypeError`` for entries that are not real numbers.

    >>> first_rise(dots_by_offset())
    3
    """
    dots = validate.real_array(dots, "dots")
    if dots.ndim != 1:
        raise ValueError(f"dots must be a 1-D array (n,), got shape {dots.shape}")
    rising = np.flatnonzero(np.diff(dots) > 0)
    if rising.size == 0:
        raise ValueError("dots never rise: they fall (or stay) all the way")
    return int(rising[0])


# --- order blindness ----------------------------------------------------------------------------


def input_vectors(E, sentence: str, positions=None) -> np.ndarray:
    """The model's inputs for ``sentence``: token vectors ``(T, d)``, with position vectors added if given.

    ``positions`` is ``None`` (token vectors only), a table ``(>= T, d)`` whose row ``t`` is added to the
    token at position ``t`` (a learned table), or the string ``"sinusoidal"``
    (:func:`lib.positional.add_positions`). Raises ``ValueError`` for an unknown word, a table that is too
    short or of the wrong width, holds NaN or infinity or is a ragged nesting, or an unknown string;
    ``TypeError`` for a table whose entries are not real numbers (:func:`lib.validate.real_array`).
    """
    vecs = lookup(E, toylang.encode(sentence))  # (T, d)
    if positions is None:
        return vecs
    if isinstance(positions, str):
        if positions != "sinusoidal":
            raise ValueError(f"positions must be a (T, d) table or 'sinusoidal', got {positions!r}")
        return add_positions(vecs)
    positions = validate.real_array(positions, "positions")  # finite: a NaN row would make every sum NaN
    T, d = vecs.shape
    if positions.ndim != 2 or positions.shape[1] != d or positions.shape[0] < T:
        raise ValueError(f"positions must have shape (>= {T}, {d}), got {positions.shape}")
    return vecs + positions[:T]


def mean_vector(E, sentence: str, positions=None) -> np.ndarray:
    """Average of :func:`input_vectors` over the sentence: ``(d,)``.

    Averaging is blind to order with or without positions: the mean of ``E[ids] + P[:T]`` is the mean of
    the token vectors plus the mean of ``P[:T]``, and both terms are the same for any reordering.
    """
    return input_vectors(E, sentence, positions).mean(axis=0)


def self_attention(X, causal: bool = False) -> np.ndarray:
    """The barest self-attention over the rows of ``X`` ``(T, d)``: ``(T, d)`` float64.

    Scores ``X Xᵀ / sqrt(d)`` for every pair of positions (queries, keys and values are the inputs themselves,
    with no learned projections), a softmax over each row of scores (the one non-linear step), and each
    output the weighted average of the rows. With ``causal=True`` position ``t`` may attend only to
    positions ``0..t`` (the mask of a decoder that predicts the next token), as in
    :cite:t:`vaswani2017attention`, section 3.2. Without the mask, reordering the rows of ``X`` only reorders
    the output; with it, not.

    Scale-robust: a score of rows of size 1e200 (1e400) is beyond float64, but the softmax needs only its
    difference from the row's largest score. Each row of ``X`` is scaled by its own power of two, the
    scores of the scaled rows are computed, and each row of scores is compared with its largest at that
    row's own power of two (``_score_gaps``); a gap beyond float64 is ``-inf`` (weight 0). Powers of
    two change no rounding, so for rows of ordinary size this is the plain computation, bit for bit.
    Raises ``ValueError`` for an ``X`` that is not ``(T, d)`` with ``T, d >= 1`` or holds NaN or infinity,
    ``TypeError`` for entries that are not real numbers or a ``causal`` that is not ``True`` or ``False``.

    >>> X = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> print(fmt(self_attention(X), ".4f"))
    [[0.6698 0.3302]
     [0.3302 0.6698]]
    >>> print(fmt(self_attention(X, causal=True), ".4f"))
    [[1.0000 0.0000]
     [0.3302 0.6698]]
    """
    causal = validate.flag(causal, "causal")
    X = validate.real_array(X, "X")
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
        raise ValueError(f"X must be a (T, d) array with T, d >= 1, got shape {X.shape}")
    T, d = X.shape
    gaps = _score_gaps(X, causal)  # (T, T): score minus the row's largest score, <= 0
    weights = np.exp(gaps)
    weights /= weights.sum(axis=1, keepdims=True)  # (T, T): softmax over each row
    with np.errstate(over="ignore"):
        out = weights @ X
    if not np.all(np.isfinite(out)):  # a weighted average of rows near 1.8e308: average them scaled down
        Xs, e = power_of_two_scale(X)
        out = np.ldexp(weights @ Xs, e)
    return out


def _score_gaps(X, causal: bool) -> np.ndarray:
    """``s - max(s)`` over each row of the scores ``s = X Xᵀ / sqrt(d)`` of ``X (T, d)`` (finite), ``-inf``
    where masked (``causal``) or where the gap is beyond float64: ``(T, T)``, computed without forming
    ``s`` itself, which may overflow or underflow.

    Row ``i`` of ``X`` is ``2**a_i`` times a row ``u_i`` with entries in [-1, 1], so that
    ``s_ij = 2**(a_i + a_j) u_i·u_j / sqrt(d)``. For row ``i`` the scores are written as ``2**K w_j`` with
    ``K`` the largest exponent among them, so that every ``|w_j| < 1``; the gaps are ``2**K (w_j - max w)``.
    Each step is exact scaling by a power of two or one float64 rounding, as in the plain computation."""
    T, d = X.shape
    a = np.frexp(np.max(np.abs(X), axis=1))[1]  # (T,): each row's power of two (0 for a zero row)
    U = np.ldexp(X, -a[:, None])  # (T, d), entries in (-1, 1)
    raw = U @ U.T / np.sqrt(d)  # (T, T): scores up to 2**(a_i + a_j)
    power = a[:, None] + a[None, :]  # (T, T)
    mask = np.tril(np.ones((T, T), dtype=bool)) if causal else np.ones((T, T), dtype=bool)
    exponent = np.where((raw != 0) & mask, np.frexp(raw)[1] + power, np.iinfo(np.int64).min)
    K = np.max(exponent, axis=1, keepdims=True)  # (T, 1)
    K = np.where(K == np.iinfo(np.int64).min, 0, K)  # a row whose scores are all 0
    with np.errstate(under="ignore"):
        w = np.where(mask, np.ldexp(raw, power - K), -np.inf)  # (T, T), |w| < 1
    gaps = w - w.max(axis=1, keepdims=True)
    with np.errstate(over="ignore", under="ignore"):
        return np.ldexp(gaps, K)


def shuffle_only_reorders(X, order, causal: bool = False) -> bool:
    """True if :func:`self_attention` of ``X[order]`` is its output on ``X`` reordered the same way
    (permutation equivariance), within ``1e-12`` times the largest ``|entry|`` of ``X`` (the outputs are
    weighted averages of its rows). ``order`` is a permutation of ``range(T)``. Raises ``ValueError`` for an
    ``order`` that is not a permutation and as :func:`self_attention` for a bad ``X``, ``TypeError`` for an
    ``order`` that does not hold integers (``1.0`` is not a position).
    """
    X = validate.real_array(X, "X")
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
        raise ValueError(f"X must be a (T, d) array with T, d >= 1, got shape {X.shape}")
    order = validate.integer_array(order, "order", "a permutation of 0..T-1")
    if sorted(order.tolist()) != list(range(len(X))):
        raise ValueError(f"order must be a permutation of 0..{len(X) - 1}, got {order.tolist()}")
    tolerance = 1e-12 * float(np.max(np.abs(X)))
    first, second = self_attention(X[order], causal), self_attention(X, causal)[order]
    return bool(np.all(np.abs(first - second) <= tolerance))


def same_set_of_vectors(X, Y, rtol: float = 1e-12) -> bool:
    """True if the rows of ``X`` ``(T, d)`` are the rows of ``Y`` in some order, each row of ``X`` matched
    to its own row of ``Y``, equal within the tolerance.

    A model that treats its input as a set, as attention without positions does, gives the same result
    for two inputs exactly when this is True. The tolerance is relative to the rows' scale: a row ``x``
    matches a row ``y`` when every ``|x_i - y_i| <= rtol * m``, ``m`` the largest ``|entry|`` of ``X``
    and ``Y`` together (rounding noise is relative to the size of the inputs it came from), so
    ``[[1e-200]]`` and ``[[2e-200]]`` differ as ``[[1]]`` and ``[[2]]`` do. The rows are matched by
    a maximum bipartite matching (SciPy's ``linear_sum_assignment``), not by sorting, so rows equal
    within the tolerance match whatever their rounding noise does to a sort order. Raises ``ValueError``
    for arrays that are not 2-D or hold NaN or infinity, and for an ``rtol`` that is not a finite number
    in [0, 1); ``TypeError`` for entries that are not real numbers.

    >>> same_set_of_vectors([[1, 0], [1 + 1e-13, -1]], [[1 + 1e-13, 0], [1, -1]])
    True
    >>> same_set_of_vectors([[1e-200]], [[2e-200]])
    False
    """
    rtol = validate.number(rtol, "rtol", ge=0, lt=1)
    X, Y = validate.real_array(X, "X"), validate.real_array(Y, "Y")
    if X.ndim != 2 or Y.ndim != 2:
        raise ValueError(f"X and Y must be (T, d) arrays, got shapes {X.shape} and {Y.shape}")
    if X.shape != Y.shape:
        return False
    if X.size == 0:
        return True
    tol = rtol * max(float(np.max(np.abs(X))), float(np.max(np.abs(Y))))
    # a difference beyond float64 (rows of opposite sign near 1.8e308) is inf: no match, as it should be
    with np.errstate(over="ignore"):
        apart = cdist(X, Y, "chebyshev")  # (T, T): the largest |x_i - y_i| of each pair of rows
    rows, cols = linear_sum_assignment(apart > tol)  # a perfect matching of equal rows costs 0
    return not bool((apart[rows, cols] > tol).any())


# --- the chapter's tables: the book's numbers beside the lesson's -------------------------------------


def _run(r: bigram.WidthRow) -> str:
    """How a row was trained, in words: ``lr 10, 3,000 steps`` or ``lr 0.1, 40,000 steps (lr 10 diverged)``."""
    run = f"lr {exact(r.lr)}, {r.steps:,} steps"
    return run + f" (lr {exact(r.diverged_run.lr)} diverged)" if r.retrained else run


def _loss_rows(exp: Experiment, missing: str) -> List[List[str]]:
    rows = []
    for r in exp.rows:
        lesson = LESSON_LOSSES.get(r.width)
        lt, lv = (fmt(lesson[1]), fmt(lesson[2])) if lesson else (missing, missing)
        rows.append([str(r.width), f"{r.parameters:,}", fmt(r.train_loss), fmt(r.val_loss), lt, lv,
                     _run(r)])
    _, lt, lv = LESSON_FULL_TABLE
    rows.append(["full table", f"{exp.table.size:,}", fmt(exp.full_train_loss), fmt(exp.full_val_loss),
                 fmt(lt, ".3f"), fmt(lv, ".3f"), "counts"])
    return rows


def loss_table_markdown(exp: Experiment) -> str:
    """The width table as Markdown: the book's parameters and losses beside Lesson 2.3's, full table last."""
    header = ["width d", "parameters", "training loss", "validation loss", "Lesson 2.3: training", "Lesson 2.3: validation", "run"]
    return tables.markdown(header, _loss_rows(exp, ""), align=">>>>>><")


def loss_table_text(exp: Experiment) -> str:
    """The width table as fixed-width text (the book's numbers and Lesson 2.3's), for printing in a cell.

    Every line fits in 88 characters: a retrained width is marked ``*`` in its run column, and a note under
    the table says which learning rate diverged.
    """
    header = ["width", "params", "train", "valid", "L2.3 train", "L2.3 valid", "run"]
    rows, diverged = [], set()
    for row, r in zip(_loss_rows(exp, "nan"), list(exp.rows) + [None]):
        if r is not None and r.retrained:
            row[-1] = f"lr {exact(r.lr)}, {r.steps} steps *"
            diverged.add(exact(r.diverged_run.lr))
        rows.append(row)
    text = tables.text(header, rows, align=">>>>>><", widths=[10, 6, 6, 6, 10, 10, 0], gaps=[1, 1, 1, 3, 1, 2],
                       rule="line")
    if diverged:
        text += f"\n* retrained: at lr {', '.join(sorted(diverged))} this width diverged"
    return text


def _cosine_rows(E, dash: str) -> List[List[str]]:
    kinds = toylang.next_token_kinds()
    same = {True: "same", False: "different"}
    return [[f"{a} {dash} {b}", fmt(ours, ".3f"), fmt(lesson, ".3f"), rel,
             same[bool(kinds[toylang.STOI[a]] == kinds[toylang.STOI[b]])]]
            for a, b, ours, lesson, rel in cosine_rows(E)]


COSINE_HEADER = ["pair", "book", "Lesson 2.3", "roles", "next tokens"]


def cosine_table_markdown(E) -> str:
    """The twelve pairs as Markdown: pair, the book's cosine, Lesson 2.3's, the roles of the two words, and
    whether the same tokens follow both (``same``: one kind, :func:`lib.toylang.next_token_kinds`)."""
    return tables.markdown(COSINE_HEADER, _cosine_rows(E, "–"), align="<>><<")


def cosine_table_text(E) -> str:
    """The twelve pairs as fixed-width text, the columns of :func:`cosine_table_markdown`."""
    return tables.text(COSINE_HEADER, _cosine_rows(E, "-"), align="<>><<", widths=[18, 6, 10, 0, 0],
                       gaps=[1, 1, 2, 2], rule="line")
