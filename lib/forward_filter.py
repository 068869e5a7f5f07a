"""The best possible next-token predictor of the toy language, by forward filtering over its grammar.

Taught in: chapters/position_schemes.md.

A window cut at a random point of the toy language's token stream (:mod:`lib.toylang`) is a sequence from
a hidden Markov model whose hidden state is "which token of which expansion of which part of the sentence
comes now". This module builds that model from ``toylang.GRAMMAR`` (:func:`grammar_automaton`) and runs
the forward algorithm on it :cite:p:`rabiner1989tutorial{§III.A}`: the belief over states after the tokens
seen so far gives the exact probability of every next token (:func:`predictive`). No model that sees only the
window can do better on average, so :func:`optimal_losses` is the floor against which a trained model's loss is
measured, window by window.

Where it departs from the textbook HMM: every state emits one token with certainty, so "filtering" is
conditioning on the emitted token (keeping the states that emit it) and the emission matrix is 0/1. A
window starts at a random token of the endless stream, so the belief before the first token is the
stationary distribution of the states, the long-run fraction of tokens in each.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Tuple

import numpy as np

from lib import toylang, validate


@dataclass(frozen=True)
class Automaton:
    """The toy language as a hidden Markov model with one state per token of every expansion.

    ``labels``: ``(S,)`` names such as ``"object: the red bus [2]"``; ``emits``: ``(S,) int64`` the token id
    each state emits; ``transitions``: ``(S, S) float64``, row ``s`` the distribution of the next state;
    ``stationary``: ``(S,) float64``, the long-run fraction of tokens emitted from each state (sums to 1).
    """

    labels: Tuple[str, ...]
    emits: np.ndarray
    transitions: np.ndarray
    stationary: np.ndarray

    @property
    def n_states(self) -> int:
        """Number of states ``S`` (59 for the book's grammar)."""
        return len(self.labels)


@lru_cache(maxsize=1)
def grammar_automaton() -> Automaton:
    """The hidden Markov model of ``toylang.GRAMMAR`` (built once per process).

    A state is one token of one expansion of one part. Inside an expansion the next state is the next
    token, with probability 1; from the last token of an expansion of one part the model moves to the
    first token of each expansion of the next part (after "ending" comes "subject" of the next sentence)
    with the grammar's probability. The stationary probability of a state is ``P(expansion) / E[len]``.

    >>> auto = grammar_automaton()
    >>> auto.n_states, auto.labels[0], toylang.VOCAB[auto.emits[0]]
    (59, 'subject: the cat [0]', 'the')
    """
    labels, emits, starts, ends, weight = [], [], {}, {}, []
    for part in toylang.PARTS:
        starts[part], ends[part] = [], []
        for expansion, p in toylang.GRAMMAR[part]:
            words = expansion.split()
            for k, word in enumerate(words):
                if k == 0:
                    starts[part].append((len(labels), p))
                if k == len(words) - 1:
                    ends[part].append(len(labels))
                labels.append(f"{part}: {expansion} [{k}]")
                emits.append(toylang.STOI[word])
                weight.append(p)
    S = len(labels)
    T = np.zeros((S, S))
    for s in range(S - 1):  # within an expansion: the next token, surely
        T[s, s + 1] = 1.0
    for i, part in enumerate(toylang.PARTS):
        following = toylang.PARTS[(i + 1) % len(toylang.PARTS)]
        for s in ends[part]:
            T[s] = 0.0
            for start, p in starts[following]:
                T[s, start] = p
    stationary = np.array(weight) / toylang.mean_sentence_length()
    return Automaton(tuple(labels), np.array(emits, dtype=np.int64), T, stationary)


def _check_windows(windows) -> np.ndarray:
    windows = validate.ids(windows, toylang.V)
    if windows.ndim == 1:
        windows = windows[None, :]
    if windows.ndim != 2 or windows.shape[1] < 2:
        raise ValueError(f"windows must have shape (W, n) with n >= 2 tokens, got {windows.shape}")
    validate.entries((*windows.shape, toylang.V), "windows (W, n), with one distribution of V per position")
    return windows


def predictive(windows) -> np.ndarray:
    """Exact ``P(x_{t+1} = v | x_0 .. x_t)`` for every window and position: ``(W, n - 1, V)`` float64.

    ``windows`` is ``(W, n)`` (or one window ``(n,)``) of token ids, each a stretch of the stream that starts
    anywhere, ``n >= 2``. Row ``[w, t]`` is the distribution of the token after position ``t`` given the
    window up to ``t`` and nothing before it. Raises ``ValueError`` for ids outside the vocabulary, a window
    shorter than 2, a result ``(W, n, V)`` beyond ``lib.validate.MAX_SIZE`` entries, or a window the grammar
    cannot produce (naming the window and the position).

    >>> # "the" may start a subject or an object; P(cat | the) = 0.05 / 1.50
    >>> p = predictive(toylang.encode("the cat"))
    >>> round(float(p[0, 0, toylang.STOI["cat"]]), 4)
    0.0333
    """
    windows = _check_windows(windows)
    auto = grammar_automaton()
    emit = np.eye(toylang.V)[auto.emits]  # (S, V): state s emits token emits[s]
    W, n = windows.shape
    out = np.empty((W, n - 1, toylang.V))
    belief = auto.stationary[None, :] * emit[:, windows[:, 0]].T  # (W, S): states that emit x_0
    for t in range(n - 1):
        total = belief.sum(axis=1, keepdims=True)
        if (total <= 0).any():
            w = int(np.flatnonzero(total[:, 0] <= 0)[0])
            raise ValueError(f"window {w} is impossible under the grammar at position {t}")
        belief /= total
        ahead = belief @ auto.transitions  # (W, S): the next state, before seeing its token
        out[:, t] = ahead @ emit           # (W, V): the next token
        belief = ahead * emit[:, windows[:, t + 1]].T
    if (belief.sum(axis=1) <= 0).any():
        w = int(np.flatnonzero(belief.sum(axis=1) <= 0)[0])
        raise ValueError(f"window {w} is impossible under the grammar at position {n - 1}")
    return out


def optimal_losses(windows) -> np.ndarray:
    """The exact best loss ``-log P(x_{t+1} | x_0 .. x_t)`` in nats at every position: ``(W, n - 1)`` float64.

    This is what a model that knows the grammar and sees only the window pays at each position; averaged
    over windows it is the floor for any model trained on such windows. Raises as :func:`predictive`.

    >>> losses = optimal_losses(toylang.encode("the cat chased"))
    >>> round(float(losses[0, 1]), 4)  # -log P(chased | subject)
    1.3863
    """
    windows = _check_windows(windows)
    p = predictive(windows)
    W, n = windows.shape
    chosen = p[np.arange(W)[:, None], np.arange(n - 1)[None, :], windows[:, 1:]]  # (W, n - 1)
    return -np.log(chosen)


#: the longest window :func:`expected_floor` computes, eight times the book's longest (128 positions): each
#: position carries the distribution of beliefs one step further, so the time grows in proportion to the length
MAX_WINDOW = 1024


def expected_floor(n: int) -> np.ndarray:
    """The exact expected best loss at positions ``0 .. n - 2`` of a window cut at a random point: ``(n - 1,)``
    float64, nats. Entry ``t`` is ``H(x_{t+1} | x_0 .. x_t)``, the mean of :func:`optimal_losses` at position
    ``t`` over all windows, weighted by their probability.

    Computed exactly, without sampling: the filter's belief after ``t`` tokens takes few distinct values,
    so the distribution of beliefs is carried forward with identical beliefs merged. Entry 0 is
    :func:`lib.toylang.bigram_entropy` (one token of context); for the book's grammar every later entry is
    already :func:`lib.toylang.entropy_rate`: two tokens pin down where in its sentence the window is.
    ``n`` is an integer in ``[2, MAX_WINDOW]`` (1024; the time grows in proportion to ``n``): ``TypeError``
    for a non-integer, ``ValueError`` outside that range.

    >>> expected_floor(4).round(5)
    array([1.16329, 0.98073, 0.98073])
    """
    n = validate.integer(n, "window length n", low=2, high=MAX_WINDOW)
    auto = grammar_automaton()
    emit = np.eye(toylang.V)[auto.emits]  # (S, V)
    # beliefs before seeing x_0: one belief per first token, weighted by the token's probability
    first = auto.stationary @ emit  # (V,)
    beliefs = {}
    for v in np.flatnonzero(first > 0):
        b = auto.stationary * emit[:, v]
        beliefs = _merge(beliefs, b / b.sum(), first[v])
    out = np.empty(n - 1)
    for t in range(n - 1):
        entropy, following = 0.0, {}
        for key, (b, weight) in beliefs.items():
            ahead = b @ auto.transitions  # (S,)
            p = ahead @ emit              # (V,) next token
            nz = p > 0
            entropy += weight * float(-(p[nz] * np.log(p[nz])).sum())
            for v in np.flatnonzero(nz):
                nb = ahead * emit[:, v]
                following = _merge(following, nb / nb.sum(), weight * p[v])
        out[t] = entropy
        beliefs = following
    return out


def _merge(beliefs: dict, belief: np.ndarray, weight: float) -> dict:
    key = tuple(np.round(belief, 12))
    if key in beliefs:
        beliefs[key] = (beliefs[key][0], beliefs[key][1] + weight)
    else:
        beliefs[key] = (belief, weight)
    return beliefs
