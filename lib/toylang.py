"""A toy language of 34 tokens: its grammar (as data), seeded sampling, and a train / validation split.

Taught in: chapters/lesson.md (the corpus of its bigram models), chapters/toy_language.md (the grammar)
and chapters/position_schemes.md (the exact entropies of the stream).

The chapter chapters/lesson.md trains bigram models on a small artificial language whose structure is known exactly,
so that what the models learn can be checked against the grammar. This module is that language.
:ref:`Lesson 2.3 <sources>` assumes a generator from an earlier lesson of its course which the book does not
have; this one is the book's own design, built to have the properties Lesson 2.3 states and relies on:

- a vocabulary of 34 tokens (``VOCAB``);
- a sentence is ``SUBJECT VERB OBJECT ENDING``, each part drawn independently of the others, so every
  subject is followed by the same verbs with the same probabilities, and every verb by the same objects;
- eight subjects, each with its own article ("the cat", "a fox", ...); six verbs; objects, three of them
  also with an adjective; endings that are "." alone or a sentence-final modifier and ".";
- "a" precedes only bird, fox, fish, small and loud; "red" is always followed by "bus", "small" by
  "boat" (and "loud" by "drum");
- sentences are joined into one stream of token ids, so "." is followed by the first token of the next
  sentence, and the stream is split into training and validation parts at a sentence boundary.

The probabilities (``GRAMMAR``) were tuned so that the full bigram table, counted on the training
split of :func:`make_corpus`'s default corpus, has a validation loss close to the 1.162 nats of Lesson 2.3;
:func:`bigram_entropy` gives the exact value the table tends to as the corpus grows. The grammar is a
probabilistic context-free grammar with a single level of rules; no claim is made that it resembles
English beyond its word order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Tuple

import numpy as np

from lib import tables, validate
from lib.notebook import fmt

# --- the grammar, as data -------------------------------------------------------------------------
# Each part of a sentence is a list of (expansion, probability); an expansion is a space-separated
# string of tokens. A sentence is SUBJECT VERB OBJECT ENDING, each part drawn independently.

PARTS: Tuple[str, ...] = ("subject", "verb", "object", "ending")

GRAMMAR: Dict[str, Tuple[Tuple[str, float], ...]] = {
    "subject": (
        ("the cat", 0.05),
        ("the dog", 0.10),
        ("a fox", 0.05),
        ("the baker", 0.30),
        ("the farmer", 0.15),
        ("the teacher", 0.10),
        ("a bird", 0.15),
        ("the boy", 0.10),
    ),
    "verb": (
        ("chased", 0.25),
        ("watched", 0.05),
        ("found", 0.40),
        ("liked", 0.20),
        ("followed", 0.05),
        ("saw", 0.05),
    ),
    "object": (
        ("the ball", 0.25),
        ("a fish", 0.10),
        ("the bus", 0.05),
        ("the red bus", 0.20),
        ("the tree", 0.05),
        ("the drum", 0.05),
        ("a loud drum", 0.15),
        ("the boat", 0.05),
        ("a small boat", 0.05),
        ("the kite", 0.05),
    ),
    "ending": (
        (".", 0.04),
        ("quickly .", 0.16),
        ("slowly .", 0.16),
        ("again .", 0.16),
        ("today .", 0.16),
        ("yesterday .", 0.16),
        ("at night .", 0.16),
    ),
}

# Every token's role: its slot in the grammar (the article, subject, verb, adjective, object or modifier
# that a part of the sentence expands to, or the full stop that ends it), in the order the book lists roles
# (figures sort tokens this way). A role says where a token stands, not what follows it: the two articles
# and the three adjectives share a role but not their next tokens (see next_token_kinds).
ROLE_ORDER: Tuple[str, ...] = ("article", "subject", "verb", "adjective", "object", "modifier", "end")
ROLES: Dict[str, str] = {
    "the": "article", "a": "article",
    "cat": "subject", "dog": "subject", "fox": "subject", "baker": "subject",
    "farmer": "subject", "teacher": "subject", "bird": "subject", "boy": "subject",
    "chased": "verb", "watched": "verb", "found": "verb", "liked": "verb", "followed": "verb", "saw": "verb",
    "red": "adjective", "small": "adjective", "loud": "adjective",
    "ball": "object", "fish": "object", "bus": "object", "tree": "object",
    "drum": "object", "boat": "object", "kite": "object",
    "quickly": "modifier", "slowly": "modifier", "again": "modifier", "today": "modifier",
    "yesterday": "modifier", "at": "modifier", "night": "modifier",
    ".": "end",
}

# The vocabulary: every token of the grammar, sorted (so "." is id 0 and ids follow alphabetical order).
VOCAB: Tuple[str, ...] = tuple(sorted({t for part in GRAMMAR.values() for exp, _ in part for t in exp.split()}))
STOI: Dict[str, int] = {t: i for i, t in enumerate(VOCAB)}
V: int = len(VOCAB)

# Default corpus size: 10,000 sentences, about 65,000 tokens; the last 10 % of sentences are validation.
N_SENTENCES = 10_000
VAL_FRACTION = 0.1
SEED = 0


def _check_grammar() -> None:
    """Module-load sanity checks: probabilities sum to 1, every token has a role, 34 tokens."""
    for part, options in GRAMMAR.items():
        total = sum(p for _, p in options)
        if not np.isclose(total, 1.0):
            raise AssertionError(f"probabilities of {part!r} sum to {total}, not 1")
    if set(ROLES) != set(VOCAB):
        raise AssertionError(f"roles and vocabulary differ: {sorted(set(ROLES) ^ set(VOCAB))}")
    if V != 34:
        raise AssertionError(f"the vocabulary has {V} tokens, not 34")


_check_grammar()


def grammar_rows() -> List[Dict[str, object]]:
    """The grammar as a list of table rows, one per expansion, in the order of ``GRAMMAR``.

    Each row is ``{"part": str, "expansion": str, "probability": float}``; probabilities within a part
    sum to 1. Used by chapters/toy_language.md to render the grammar as a table.
    """
    return [
        {"part": part, "expansion": exp, "probability": float(p)}
        for part in PARTS
        for exp, p in GRAMMAR[part]
    ]


def grammar_markdown() -> str:
    """The grammar as a Markdown table (part, expansion, probability), for chapters/toy_language.md.

    >>> print("\\n".join(grammar_markdown().splitlines()[:3]))
    | part | expansion | probability |
    | --- | --- | ---: |
    | subject | `the cat` | 0.05 |
    """
    rows = [[r["part"], f"`{r['expansion']}`", fmt(r["probability"], ".2f")] for r in grammar_rows()]
    return tables.markdown(["part", "expansion", "probability"], rows, align="<<>")


def tokens_by_role() -> List[str]:
    """The 34 tokens ordered by role (``ROLE_ORDER``), then by order of first use in the grammar.

    >>> tokens_by_role()[:4]
    ['the', 'a', 'cat', 'dog']
    """
    seen: List[str] = []
    for part in PARTS:
        for exp, _ in GRAMMAR[part]:
            for t in exp.split():
                if t not in seen:
                    seen.append(t)
    return sorted(seen, key=lambda t: ROLE_ORDER.index(ROLES[t]))


# --- encoding -------------------------------------------------------------------------------------


def encode(text) -> np.ndarray:
    """Token ids ``(N,) int64`` of ``text``, a string of space-separated tokens or a list of tokens.

    Raises ``TypeError`` for anything else and ``ValueError`` naming the first token not in ``VOCAB``.

    >>> encode("the cat chased a bird .")
    array([29, 10, 11,  1,  6,  0])
    """
    if isinstance(text, str):
        words = text.split()
    elif isinstance(text, (list, tuple)) and all(isinstance(w, str) for w in text):
        words = list(text)
    else:
        raise TypeError(f"text must be a string or a list of strings, got {type(text).__name__}")
    for w in words:
        if w not in STOI:
            raise ValueError(f"token {w!r} is not in the toy vocabulary of {V} tokens")
    return np.array([STOI[w] for w in words], dtype=np.int64)


def decode(ids) -> str:
    """The tokens of ``ids`` (one id, or a 1-D integer array-like) joined by spaces. Raises like
    :func:`lib.validate.ids`, and ``ValueError`` for ``ids`` of more than one dimension (a batch of
    sequences: decode each).

    >>> decode([29, 10, 11, 1, 6, 0])
    'the cat chased a bird .'
    """
    ids = validate.ids(ids, V)
    if ids.ndim > 1:
        raise ValueError(f"ids must be one id or a 1-D sequence of ids, got shape {ids.shape} (decode each row)")
    return " ".join(VOCAB[i] for i in ids.reshape(-1))


def split_sentences(ids) -> List[str]:
    """Cut a stream of token ids into sentences, each a string ending in "." (a trailing fragment is kept).

    ``ids`` is any 1-D integer array-like of ids into ``VOCAB``. Raises like :func:`lib.validate.ids`.

    >>> split_sentences(encode("the cat saw the ball . a fox"))
    ['the cat saw the ball .', 'a fox']
    """
    ids = validate.ids(ids, V).reshape(-1)
    ends = np.flatnonzero(ids == STOI["."]) + 1
    pieces = np.split(ids, ends)
    return [decode(p) for p in pieces if p.size]


# --- sampling -------------------------------------------------------------------------------------


def sample_sentences(n: int, seed=SEED) -> List[str]:
    """``n`` sentences drawn from ``GRAMMAR``, each a string of space-separated tokens ending in ".".

    ``seed`` is a non-negative int or a ``numpy.random.Generator``; the same seed gives the same
    sentences. Each part is drawn independently, in the order subject, verb, object, ending, with one
    vectorised ``Generator.choice`` per part. Raises ``ValueError`` for ``n < 1`` or a bad seed.
    """
    n = validate.size(n, "n", low=1)
    rng = validate.rng(seed)
    picks = {}
    for part in PARTS:
        options = GRAMMAR[part]
        probs = np.array([p for _, p in options])
        picks[part] = rng.choice(len(options), size=n, p=probs / probs.sum())
    return [" ".join(GRAMMAR[part][int(picks[part][k])][0] for part in PARTS) for k in range(n)]


@dataclass(frozen=True)
class Corpus:
    """A sampled corpus split into training and validation token ids.

    ``train`` and ``val`` are ``(N,) int64`` arrays of ids into ``VOCAB``; both start at the start of
    a sentence and end with ".". ``n_train_sentences`` and ``n_val_sentences`` count the sentences.
    """

    train: np.ndarray
    val: np.ndarray
    n_train_sentences: int
    n_val_sentences: int
    seed: int


def make_corpus(n_sentences: int = N_SENTENCES, val_fraction: float = VAL_FRACTION, seed: int = SEED) -> Corpus:
    """Sample ``n_sentences`` sentences and split them: the last ``val_fraction`` of sentences is validation.

    The split is by whole sentences (rounded to the nearest sentence, at least one on each side), so no
    sentence is cut in two. Returns a :class:`Corpus`. Raises ``ValueError`` for ``n_sentences < 2``,
    ``val_fraction`` outside the open interval (0, 1), or a bad seed.
    """
    n_sentences = validate.size(n_sentences, "n_sentences", low=1)
    if n_sentences < 2:
        raise ValueError(f"n_sentences must be >= 2 to leave a sentence on each side, got {n_sentences}")
    validate.number(val_fraction, "val_fraction", gt=0, lt=1)
    seed = validate.seed(seed)
    sentences = sample_sentences(n_sentences, seed)
    n_val = min(max(int(round(n_sentences * val_fraction)), 1), n_sentences - 1)
    n_train = n_sentences - n_val
    train = encode(" ".join(sentences[:n_train]))
    val = encode(" ".join(sentences[n_train:]))
    return Corpus(train=train, val=val, n_train_sentences=n_train, n_val_sentences=n_val, seed=int(seed))


# --- exact properties of the grammar ----------------------------------------------------------------


def sentence_distribution() -> List[Tuple[List[str], float]]:
    """Every sentence the grammar can produce, with its probability: ``[(tokens, p), ...]``.

    8 × 6 × 10 × 7 = 3,360 sentences, in the order of ``GRAMMAR``; the probabilities sum to 1. No two
    entries are the same token sequence (each part's expansions differ, and a sentence parses one way only).

    >>> sentences = sentence_distribution()
    >>> len(sentences), " ".join(sentences[0][0]), round(sentences[0][1], 6)
    (3360, 'the cat chased the ball .', 0.000125)
    """
    out: List[Tuple[List[str], float]] = [([], 1.0)]
    for part in PARTS:
        out = [(words + exp.split(), p * q) for words, p in out for exp, q in GRAMMAR[part]]
    return out


def bigram_distribution() -> np.ndarray:
    """Exact joint probability of adjacent token pairs in an endless stream of sentences: ``(V, V)`` float64.

    Entry ``[i, j]`` is the long-run fraction of adjacent pairs that are ``(VOCAB[i], VOCAB[j])``,
    counting the pair that joins one sentence's "." to the next sentence's first token. The entries sum
    to 1. Computed by enumerating every sentence, not by sampling.
    """
    counts = np.zeros((V, V))
    first = np.zeros(V)
    length = 0.0
    for words, p in sentence_distribution():
        ids = [STOI[w] for w in words]
        np.add.at(counts, (ids[:-1], ids[1:]), p)
        first[ids[0]] += p
        length += p * len(ids)
    counts[STOI["."]] += first  # every sentence ends in ".", followed by the next sentence's first token
    return counts / length  # one pair per token in the long run


def transition_matrix() -> np.ndarray:
    """Exact ``P(next = j | previous = i)``: ``(V, V)`` float64, each row summing to 1 (from :func:`bigram_distribution`)."""
    joint = bigram_distribution()
    return joint / joint.sum(axis=1, keepdims=True)


def next_token_kinds() -> np.ndarray:
    """The kind of every token: ``(V,) int64``, equal for two tokens exactly when their rows of
    :func:`transition_matrix` are equal (the same next tokens with the same probabilities).

    Kinds are numbered 0, 1, ... in order of their first token id. A kind is not a role: the roles of
    ``ROLES`` name a token's slot in the grammar, and two tokens of one role are of one kind only if the
    same tokens follow them (every subject, every verb; but not "a" and "the", nor "red" and "small").

    >>> kinds = next_token_kinds()
    >>> same = lambda a, b: bool(kinds[STOI[a]] == kinds[STOI[b]])
    >>> len(set(kinds.tolist())), same("cat", "dog"), same("a", "the")
    (11, True, False)
    """
    _, first, inverse = np.unique(transition_matrix().round(12), axis=0, return_index=True, return_inverse=True)
    order = np.argsort(np.argsort(first))  # renumber kinds by their first token id
    return order[inverse.reshape(-1)].astype(np.int64)


def bigram_entropy() -> float:
    """Conditional entropy ``H(next | previous)`` of the stream, in nats.

    This is the validation loss that the full bigram table tends to as the corpus grows: no bigram model
    can do better on average. ``−Σ_ij π_ij log P(j | i)`` with ``π`` from :func:`bigram_distribution`.

    >>> round(bigram_entropy(), 4)
    1.1633
    """
    joint = bigram_distribution()
    cond = joint / joint.sum(axis=1, keepdims=True)
    mask = joint > 0
    return float(-(joint[mask] * np.log(cond[mask])).sum())


def mean_sentence_length() -> float:
    """Expected number of tokens in a sentence, "." included: ``Σ p(s) len(s)`` over :func:`sentence_distribution`."""
    return float(sum(p * len(words) for words, p in sentence_distribution()))


def sentence_entropy() -> float:
    """Entropy of a whole sentence, ``H(S) = -Σ p(s) log p(s)`` in nats, by enumerating every sentence.

    The four parts are drawn independently, so this is also the sum of the four parts' entropies.
    """
    return float(-sum(p * np.log(p) for _, p in sentence_distribution()))


def entropy_rate() -> float:
    """The entropy rate of the stream, ``H(S) / E[len(S)]`` in nats per token: the floor for any model.

    Sentences are drawn independently, so the stream's uncertainty per token, given its whole past, is
    the sentence entropy spread over the mean length. No model of the stream has a lower expected loss per
    token, however long its context. It equals :func:`positional_entropy`: once the position in the
    sentence is known, the previous token pins down the grammar's state.

    >>> round(entropy_rate(), 5), round(sentence_entropy(), 5)
    (0.98073, 7.37505)
    >>> round(mean_sentence_length(), 2)
    7.52
    """
    return sentence_entropy() / mean_sentence_length()


def positional_entropy() -> float:
    """``H(next | previous, position in sentence)`` of the stream, in nats, by enumerating every sentence.

    The joint probability of (position of the previous token within its sentence, previous token, next
    token) is counted over :func:`sentence_distribution`, each sentence's "." followed by the first token
    of the next sentence, weighted by ``p(s) / E[len]`` (one pair per token in the long run, as in
    :func:`bigram_distribution`); then ``-Σ π log P(next | previous, position)``.

    >>> # equal to entropy_rate(): position and previous token fix the state
    >>> round(positional_entropy(), 5)
    0.98073
    """
    sentences = sentence_distribution()
    longest = max(len(words) for words, _ in sentences)
    joint = np.zeros((longest, V, V))  # (position of previous, previous, next)
    first = np.zeros(V)
    for words, p in sentences:
        ids = [STOI[w] for w in words]
        np.add.at(joint, (np.arange(len(ids) - 1), ids[:-1], ids[1:]), p)
        first[ids[0]] += p
    for words, p in sentences:  # the "." at the end of each sentence, followed by the next sentence's start
        joint[len(words) - 1, STOI["."]] += p * first
    joint /= mean_sentence_length()
    cond = joint / np.maximum(joint.sum(axis=2, keepdims=True), 1e-300)
    mask = joint > 0
    return float(-(joint[mask] * np.log(cond[mask])).sum())
