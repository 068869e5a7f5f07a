"""lib.forward_filter against brute-force enumeration of every short window the toy language can produce."""

from collections import defaultdict
from functools import lru_cache

import numpy as np
import pytest

from lib import forward_filter as ff
from lib import toylang as tl

N = 5  # window length of the brute-force check (every window of 5 tokens spans at most two sentences)


@lru_cache(maxsize=1)
def window_distribution(n: int = N):
    """``{window (tuple of ids): probability}`` for a window of ``n`` tokens starting at a uniformly random
    token of the endless stream, by enumerating sentences: the first sentence with probability
    ``p(s) / E[len]`` per starting offset, then the first tokens of the next sentence."""
    sentences = [([tl.STOI[w] for w in words], p) for words, p in tl.sentence_distribution()]
    assert min(len(ids) for ids, _ in sentences) >= n  # so two sentences always cover a window
    prefixes = defaultdict(float)  # first k tokens of a sentence -> probability
    for ids, p in sentences:
        for k in range(1, n):
            prefixes[tuple(ids[:k])] += p
    by_length = defaultdict(list)
    for prefix, p in prefixes.items():
        by_length[len(prefix)].append((prefix, p))
    mean_length = sum(p * len(ids) for ids, p in sentences)
    out = defaultdict(float)
    for ids, p in sentences:
        for start in range(len(ids)):
            head = tuple(ids[start : start + n])
            weight = p / mean_length
            if len(head) == n:
                out[head] += weight
            else:
                for tail, q in by_length[n - len(head)]:
                    out[head + tail] += weight * q
    return dict(out)


def brute_force_conditionals(dist, n: int = N):
    """``P(x_{t+1} | x_0 .. x_t)`` for every window of the support, from prefix probabilities: ``(W, n - 1)``."""
    prefix = [defaultdict(float) for _ in range(n + 1)]
    for window, p in dist.items():
        for k in range(1, n + 1):
            prefix[k][window[:k]] += p
    windows = sorted(dist)
    cond = np.array([[prefix[t + 2][w[: t + 2]] / prefix[t + 1][w[: t + 1]] for t in range(n - 1)] for w in windows])
    return np.array(windows), cond


def test_the_automaton_is_a_markov_chain_whose_stationary_emissions_are_the_unigrams():
    auto = ff.grammar_automaton()
    assert auto.n_states == 2 * 8 + 6 + 23 + 14  # tokens of every expansion of every part
    np.testing.assert_allclose(auto.transitions.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(auto.stationary @ auto.transitions, auto.stationary, atol=1e-12)
    unigram = np.bincount(auto.emits, weights=auto.stationary, minlength=tl.V)
    np.testing.assert_allclose(unigram, tl.bigram_distribution().sum(axis=1), atol=1e-12)


def test_window_probabilities_sum_to_one():
    assert sum(window_distribution().values()) == pytest.approx(1.0, abs=1e-12)


def test_filter_predictions_equal_brute_force_on_every_short_window():
    windows, cond = brute_force_conditionals(window_distribution())
    p = ff.predictive(windows)  # (W, N - 1, V)
    chosen = p[np.arange(len(windows))[:, None], np.arange(N - 1)[None, :], windows[:, 1:]]
    np.testing.assert_allclose(chosen, cond, rtol=1e-10, atol=0)
    np.testing.assert_allclose(p.sum(axis=2), 1.0, atol=1e-12)
    np.testing.assert_allclose(ff.optimal_losses(windows), -np.log(cond), rtol=1e-10)


def test_expected_floor_equals_brute_force():
    dist = window_distribution()
    windows, cond = brute_force_conditionals(dist)
    weights = np.array([dist[tuple(w)] for w in windows])
    expected = (weights[:, None] * -np.log(cond)).sum(axis=0)  # (N - 1,): per position
    np.testing.assert_allclose(ff.expected_floor(N), expected, rtol=1e-10)


@pytest.mark.slow
def test_expected_floor_starts_at_the_bigram_entropy_and_reaches_the_entropy_rate():
    floor = ff.expected_floor(40)
    assert floor[0] == pytest.approx(tl.bigram_entropy(), abs=1e-12)
    np.testing.assert_allclose(floor[1:], tl.entropy_rate(), atol=1e-12)


def test_sampled_windows_average_to_the_expected_floor():
    corpus = tl.make_corpus(4000, seed=7)
    starts = np.random.default_rng(0).integers(0, corpus.train.size - 12, 4000)
    windows = corpus.train[starts[:, None] + np.arange(12)]
    losses = ff.optimal_losses(windows).mean(axis=0)
    # per-token losses have a standard deviation of about 1 nat: 4,000 windows give about 0.02 per position
    np.testing.assert_allclose(losses, ff.expected_floor(12), atol=0.08)


def test_bad_windows_are_clear_errors():
    with pytest.raises(ValueError, match="window 1 is impossible under the grammar at position 1"):
        ff.predictive(np.array([tl.encode("the cat chased"), tl.encode("the the cat")]))
    with pytest.raises(ValueError, match="impossible under the grammar at position 2"):
        ff.optimal_losses(tl.encode("the cat ."))
    with pytest.raises(ValueError, match=r"shape \(W, n\) with n >= 2"):
        ff.predictive(np.array([[3]]))
    with pytest.raises(ValueError, match="token id 34 out of range"):
        ff.predictive(np.array([[0, 34]]))
    with pytest.raises(TypeError, match="must be integers"):
        ff.predictive(np.array([[0.0, 1.0]]))
    with pytest.raises(ValueError, match=r"window length n must be an integer in \[2, 1024\], got 1"):
        ff.expected_floor(1)


def test_expected_floor_has_a_longest_window():
    for bad in (ff.MAX_WINDOW + 1, 10**9):  # 10**9 would not return: one position at a time
        with pytest.raises(ValueError, match=r"^window length n must be an integer in \[2, 1024\], got "):
            ff.expected_floor(bad)
    with pytest.raises(TypeError, match=r"^window length n must be an integer in \[2, 1024\], got 4\.0$"):
        ff.expected_floor(4.0)
    # every entry after the first is the entropy rate: two tokens pin down the place in the sentence
    floor = ff.expected_floor(8)
    assert floor.shape == (7,)
    np.testing.assert_allclose(floor[1:], tl.entropy_rate(), rtol=1e-12)


def test_predictive_refuses_a_result_beyond_max_size():
    windows = np.zeros((2**20, 8), dtype=np.int64)  # (W, n, V) = 2**20 · 8 · 34 entries
    with pytest.raises(ValueError, match=r"^windows \(W, n\), with one distribution of V per position: a result of "
                                         r"shape \(1048576, 8, 34\) would hold"):
        ff.predictive(windows)
