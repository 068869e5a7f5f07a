"""lib.sgns: the alias table, word2vec's formulas, the epoch's blocks, one SGD step against independent
references (autograd, a hand-computed case, word2vec's one-pair-at-a-time loop), and training."""

import math
import re
import threading
import time
import warnings
from collections import Counter
from dataclasses import replace

import numpy as np
import pytest
import scipy.stats
import torch

from lib import validate
from lib.corpus import context_pairs, keep_probability
from lib.skipgram import negative_sampling_loss, noise_distribution
from lib.sgns import (
    SGNSConfig,
    StepQueue,
    alias_draw,
    alias_table,
    epoch_blocks,
    make_buffers,
    sgd_step,
    train_sgns,
)


# --- alias table ------------------------------------------------------------------------------------------


def implied_distribution(table):
    """What a draw returns, from the table alone: (accept[i] + Σ_{alias[j]=i} (1 - accept[j])) / V."""
    V = table.accept.shape[0]
    p = table.accept.copy()
    np.add.at(p, table.alias, 1.0 - table.accept)
    return p / V


@pytest.mark.parametrize("probs", [[0.1, 0.2, 0.3, 0.4], [1.0, 0.0, 0.0], [0.5, 0.5], noise_distribution(np.arange(1, 60))])
def test_alias_table_encodes_the_distribution_exactly(probs):
    table = alias_table(probs)
    np.testing.assert_allclose(implied_distribution(table), probs, atol=1e-12)
    assert ((table.accept >= 0) & (table.accept <= 1)).all()


def test_alias_draws_follow_the_distribution():
    probs = noise_distribution(np.array([1, 8, 27, 64, 125]))
    draws = alias_draw(alias_table(probs), 200_000, np.random.default_rng(3))
    observed = np.bincount(draws, minlength=5)
    assert scipy.stats.chisquare(observed, probs * draws.size).pvalue > 1e-3
    assert observed[0] > 0 and draws.dtype == np.int64


def test_alias_table_never_draws_a_zero_probability_item():
    draws = alias_draw(alias_table([0.0, 0.7, 0.0, 0.3]), 50_000, np.random.default_rng(0))
    assert set(np.unique(draws)) == {1, 3}


@pytest.mark.parametrize("bad", [[], [[0.5, 0.5]], [0.5, 0.6], [1.5, -0.5], [np.nan, 1.0]])
def test_alias_table_rejects_non_distributions(bad):
    with pytest.raises(ValueError):
        alias_table(bad)


def test_alias_draw_needs_a_generator():
    with pytest.raises(TypeError, match="Generator"):
        alias_draw(alias_table([0.5, 0.5]), 3, 0)


# --- word2vec's formulas, as the trainer uses them ------------------------------------------------------------

#: Counts with a long tail, like a vocabulary's: a few frequent items and many rare ones.
ZIPF_COUNTS = (10_000 / np.arange(1, 301) ** 1.1).astype(np.int64) + 1


def word2vec_unigram_table(counts, size, power=0.75):
    """word2vec.c's InitUnigramTable, line by line: item i fills a share count_i^power / Σ of the table."""
    total = float(sum(c**power for c in counts))
    table, i = np.zeros(size, np.int64), 0
    d1 = counts[0] ** power / total
    for a in range(size):
        table[a] = i
        if a / size > d1:
            i += 1
            d1 += counts[min(i, len(counts) - 1)] ** power / total
        if i >= len(counts):
            i = len(counts) - 1
    return table


def test_noise_distribution_is_word2vec_cs_unigram_table():
    """Every item's share of word2vec.c's table is the noise probability, to two table slots (the C loop
    fills a slot before it checks whether to move on to the next item)."""
    size = 200_000
    share = np.bincount(word2vec_unigram_table(ZIPF_COUNTS.tolist(), size), minlength=len(ZIPF_COUNTS)) / size
    np.testing.assert_allclose(share, noise_distribution(ZIPF_COUNTS), atol=2.5 / size)


def test_noise_distribution_is_gensims_cumulative_table():
    gensim_w2v = pytest.importorskip("gensim.models.word2vec")
    model = gensim_w2v.Word2Vec(vector_size=2, min_count=1, negative=5, ns_exponent=0.75, sample=1e-3, seed=0)
    words = [f"w{i}" for i in range(len(ZIPF_COUNTS))]
    model.build_vocab_from_freq(dict(zip(words, ZIPF_COUNTS.tolist())))
    cum = model.cum_table.astype(np.float64)
    probs = np.diff(np.concatenate([[0.0], cum])) / cum[-1]  # gensim's probability of each of its rows
    ours = noise_distribution(ZIPF_COUNTS)
    np.testing.assert_allclose([probs[model.wv.key_to_index[w]] for w in words], ours, atol=1e-8)
    # and the keep probability of subsampling, gensim's sample_int / 2^32
    keep = keep_probability(ZIPF_COUNTS, 1e-3, formula="word2vec")
    sample_int = np.array([model.wv.get_vecattr(w, "sample_int") for w in words], dtype=np.float64)
    np.testing.assert_allclose(sample_int / 2**32, keep, atol=1e-9)


def test_subsampling_keep_probability_is_word2vec_cs():
    """word2vec.c: ran = (sqrt(cn / (sample · train_words)) + 1) · (sample · train_words) / cn; a word is kept
    when ran exceeds a uniform draw, so with probability min(1, ran)."""
    sample, train_words = 1e-3, int(ZIPF_COUNTS.sum())
    ran = [(math.sqrt(cn / (sample * train_words)) + 1) * (sample * train_words) / cn for cn in ZIPF_COUNTS.tolist()]
    np.testing.assert_allclose(keep_probability(ZIPF_COUNTS, sample, formula="word2vec"), np.minimum(ran, 1.0), rtol=1e-12)


# --- configuration -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(dim=0), "dim"),
        (dict(window=-1), "window"),
        (dict(batch_windows=0), "batch_windows"),
        (dict(block_windows=0), "block_windows"),
        (dict(block_negatives=-2), "block_negatives"),
        (dict(block_windows=8, batch_windows=20), "batch_windows must be a multiple of block_windows=8"),
        (dict(workers=0), "workers"),
        (dict(sample=-1e-3), "sample"),
        (dict(alpha=0.0), "alpha"),
        (dict(alpha=0.01, min_alpha=0.02), "min_alpha"),
        (dict(power=float("nan")), "power"),
        (dict(seed=-1), "seed"),
    ],
)
def test_config_names_the_bad_field(kwargs, match):
    with pytest.raises(ValueError, match=match):
        SGNSConfig(**kwargs)


@pytest.mark.parametrize("kwargs, match", [(dict(negatives=1.5), "negatives"), (dict(epochs=True), "epochs")])
def test_config_names_a_field_of_the_wrong_type(kwargs, match):
    with pytest.raises(TypeError, match=match):
        SGNSConfig(**kwargs)


def test_an_unknown_field_is_named_with_the_fields():
    fields = ("dim, window, negatives, epochs, sample, alpha, min_alpha, power, dynamic_window, block_windows, "
              "block_negatives, batch_windows, damped, workers, seed")
    with pytest.raises(TypeError, match=f"^SGNSConfig has no field 'unknown'; the fields are {fields}$"):
        SGNSConfig(unknown=1)
    with pytest.raises(TypeError, match="^SGNSConfig has no field 'dimension'"):
        replace(SGNSConfig(), dimension=3)


def test_config_rejects_non_numbers():
    with pytest.raises(TypeError, match="alpha"):
        SGNSConfig(alpha="0.025")
    with pytest.raises(TypeError, match="dynamic_window"):
        SGNSConfig(dynamic_window=1)
    with pytest.raises(TypeError, match="damped"):
        SGNSConfig(damped="yes")
    with pytest.raises(TypeError, match=r"block_windows must be an integer in \[1, 268435456\], got 2.0"):
        SGNSConfig(block_windows=2.0)


@pytest.mark.parametrize("kwargs, message", [
    (dict(workers=10**6), "workers must be an integer in [1, 256] (threads), got 1000000"),  # was accepted
    (dict(workers=257), "workers must be an integer in [1, 256] (threads), got 257"),
    (dict(dim=2**40), "dim must be an integer in [1, 268435456], got 1099511627776"),
    (dict(epochs=10**12), "epochs must be an integer in [1, 268435456], got 1000000000000"),
])
def test_config_sizes_have_an_upper_bound(kwargs, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        SGNSConfig(**kwargs)
    assert SGNSConfig(workers=256).workers == 256


def test_a_table_beyond_max_size_is_refused_before_it_is_allocated():
    counts = np.ones(2**20, dtype=np.int64)  # V = 2**20 words at dim 2**9: 2**29 entries
    with pytest.raises(ValueError, match=r"^counts \(V\) and dim: a result of shape \(1048576, 512\) would hold"):
        train_sgns([np.array([0, 1])], counts, SGNSConfig(dim=512, epochs=1))


# --- blocks -----------------------------------------------------------------------------------------------------


def corpus(seed=0, docs=(7, 1, 12, 5), V=9):
    rng = np.random.default_rng(seed)
    sentences = [rng.integers(0, V, size=n) for n in docs]
    ids = np.concatenate(sentences)
    doc = np.repeat(np.arange(len(sentences)), [len(s) for s in sentences])
    counts = np.bincount(ids, minlength=V)
    return sentences, ids, doc, counts


def blocks(config, seed=0, lr=(0.02, 0.01), **kw):
    sentences, ids, doc, counts = corpus(**kw)
    noise = alias_table(noise_distribution(counts))
    keep = keep_probability(counts, config.sample, formula="word2vec") if config.sample > 0 else np.ones(counts.shape[0])
    ep = epoch_blocks(ids, doc, keep, noise, config, np.random.default_rng(seed), lr_start=lr[0], lr_stop=lr[1])
    return sentences, ids, doc, ep


def block_pairs(ep):
    """(context id, centre id) of every non-zero entry of the band: centre i's offset o is span slot W + i + o."""
    G, B, width = ep.band.shape
    g, i, c = np.nonzero(ep.band.numpy())
    return Counter(zip(ep.span.numpy()[g, i + c].tolist(), ep.targets.numpy()[g, i].tolist()))


def config(**kw):
    base = dict(sample=0, dynamic_window=False, block_windows=4, block_negatives=3, batch_windows=8)
    return SGNSConfig(**{**base, **kw})


@pytest.mark.parametrize("window", [1, 2, 4])
@pytest.mark.parametrize("block", [1, 3, 8])
def test_fixed_windows_without_subsampling_give_the_context_pairs(window, block):
    """Independent reference: lib.corpus.context_pairs (centre, context) with the roles swapped."""
    cfg = config(window=window, block_windows=block, batch_windows=block)
    sentences, ids, _, ep = blocks(cfg)
    reference = context_pairs(sentences, window)
    assert block_pairs(ep) == Counter((int(c), int(w)) for w, c in reference)
    assert ep.n_pairs == reference.shape[0] and ep.n_windows == ids.shape[0]


def test_each_centre_sits_in_the_middle_of_its_span_and_padding_takes_no_part():
    cfg = config(window=2, block_windows=4)
    _, ids, _, ep = blocks(cfg)  # 25 tokens: 7 blocks, the last with 3 padding centres
    G, B, W = ep.span.shape[0], 4, 2
    assert G == 7 and ep.span.shape == (7, B + 2 * W) and ep.targets.shape == (7, B + 3)
    centres = ep.targets[:, :B].reshape(-1)[: ep.n_windows]
    assert torch.equal(centres, torch.from_numpy(ids))
    assert torch.equal(ep.span[:, W : W + B].reshape(-1)[: ep.n_windows], centres)
    assert (ep.band.reshape(-1, 2 * W + 1)[ep.n_windows :] == 0).all()  # padding centres have no pair
    assert (ep.band[:, :, W] == 0).all()  # a centre is not its own context


def test_dynamic_windows_stay_inside_reach_and_document():
    cfg = config(window=3, dynamic_window=True)
    sentences, _, _, ep = blocks(cfg, seed=5)
    full = Counter((int(c), int(w)) for w, c in context_pairs(sentences, 3))
    got = block_pairs(ep)
    assert all(got[p] <= full[p] for p in got)  # a sub-multiset of the fixed ±3 pairs
    assert 0 < ep.n_pairs < sum(full.values())
    # each centre's pairs form a band ±b (b >= 1), cut only by the document edges
    offsets = np.arange(-3, 4)
    for row in (ep.band.reshape(-1, 7) > 0).numpy():
        if row.any():
            b = np.abs(offsets[row]).max()
            assert set(np.abs(offsets[row])) <= set(range(1, b + 1))


def test_window_sizes_are_uniform_like_word2vecs_reduced_window():
    """word2vec.c: b = next_random % window, the window is window - b: uniform on 1..window."""
    W = 4
    cfg = config(window=W, dynamic_window=True)
    _, _, _, ep = blocks(cfg, seed=1, docs=(4000,), V=50)
    rows = (ep.band.reshape(-1, 2 * W + 1) > 0).numpy()[W : ep.n_windows - W]  # centres far from the edges
    reach = rows[:, W + 1 :].sum(1)  # the right half: 1..b are pairs
    assert np.array_equal(rows[:, :W][:, ::-1].sum(1), reach)  # symmetric
    observed = np.bincount(reach, minlength=W + 1)[1:]
    assert observed.sum() == rows.shape[0]
    assert scipy.stats.chisquare(observed).pvalue > 1e-3


def test_learning_rate_falls_linearly_with_position_in_the_corpus():
    cfg = config(window=2)
    _, ids, _, ep = blocks(cfg)
    lr = ep.band.reshape(-1, 5).max(dim=1).values.numpy()[: ep.n_windows]
    expected = 0.02 + (0.01 - 0.02) * np.arange(ids.shape[0]) / ids.shape[0]
    has_pair = lr > 0
    np.testing.assert_allclose(lr[has_pair], expected[has_pair], rtol=1e-6)


def test_negative_weight_is_k_over_n_and_zero_for_the_centre_itself():
    cfg = config(window=2, negatives=5, block_negatives=20)
    _, _, _, ep = blocks(cfg, V=3)  # three items: collisions are frequent
    B = 4
    same = ep.targets[:, B:, None] == ep.targets[:, None, :B]  # (G, N, B)
    assert same.any() and (~same).any()
    assert torch.equal(ep.negative_weight == 0, same)
    assert torch.all(ep.negative_weight[~same] == 5 / 20)


def test_block_negatives_follow_the_noise_distribution():
    cfg = config(window=1, block_windows=2, batch_windows=2, block_negatives=5)
    _, _, _, ep = blocks(cfg, seed=2, docs=(20_000,), V=6)
    counts = np.bincount(corpus(docs=(20_000,), V=6)[1], minlength=6)
    drawn = np.bincount(ep.targets[:, 2:].reshape(-1).numpy(), minlength=6)
    assert scipy.stats.chisquare(drawn, noise_distribution(counts) * drawn.sum()).pvalue > 1e-3


def test_subsampling_keeps_each_word_at_the_word2vec_rate():
    rng = np.random.default_rng(0)
    ids = rng.choice(4, size=40_000, p=[0.7, 0.2, 0.09, 0.01])
    doc = np.zeros_like(ids)
    counts = np.bincount(ids, minlength=4)
    cfg = config(window=1, sample=1e-2)
    keep = keep_probability(counts, 1e-2, formula="word2vec")
    ep = epoch_blocks(ids, doc, keep, alias_table(noise_distribution(counts)), cfg, rng, lr_start=0.02, lr_stop=0.01)
    kept = np.bincount(ep.targets[:, :4].reshape(-1).numpy()[: ep.n_windows], minlength=4)
    for i in range(4):
        sd = np.sqrt(counts[i] * keep[i] * (1 - keep[i])) + 1e-9
        assert abs(kept[i] - counts[i] * keep[i]) < 5 * sd + 1e-6
    assert keep[0] < 0.2 and keep[3] == 1.0


# --- the update against independent references ------------------------------------------------------------------


def random_blocks(seed=0, G=5, B=3, N=4, W=2, K=5, V=7, D=5):
    """Random tables and blocks; small V puts the same row in many places."""
    g = torch.Generator().manual_seed(seed)
    w_in = torch.randn(V, D, generator=g) * 0.3
    w_out = torch.randn(V, D, generator=g) * 0.3
    span = torch.randint(0, V, (G, B + 2 * W), generator=g)
    targets = torch.cat([span[:, W : W + B], torch.randint(0, V, (G, N), generator=g)], 1)
    band = torch.rand(G, B, 2 * W + 1, generator=g) * 0.1
    band[torch.rand(G, B, 2 * W + 1, generator=g) < 0.3] = 0.0
    band[:, :, W] = 0.0
    negative_weight = (targets[:, B:, None] != targets[:, None, :B]).float() * (K / N)
    return w_in, w_out, span, targets, band, negative_weight


def step(w_in, w_out, span, targets, band, negative_weight, damped=False):
    """One :func:`sgd_step`, by default the plain (undamped) gradient step."""
    G, S = span.shape
    B, N = band.shape[1], negative_weight.shape[1]
    W = (S - B) // 2
    buf = make_buffers(G, B, N, W, w_in.shape[1])
    sgd_step(w_in, w_out, span.reshape(-1), targets.reshape(-1), band, negative_weight, buf, damped=damped)


def block_loss(a, b, span, targets, band, negative_weight):
    """Σ over pairs of lr · [-log σ(x·y_c) - Σ_n weight_n · log σ(-x·y_n)], written pair by pair."""
    B, W = band.shape[1], (band.shape[2] - 1) // 2
    loss = torch.zeros(())
    for g, i, c in torch.nonzero(band).tolist():
        lr, x = band[g, i, c], a[span[g, i + c]]
        loss = loss - lr * torch.nn.functional.logsigmoid(x @ b[targets[g, i]])
        for n in range(negative_weight.shape[1]):
            weight = negative_weight[g, n, i]
            loss = loss - lr * weight * torch.nn.functional.logsigmoid(-(x @ b[targets[g, B + n]]))
    return loss


@pytest.mark.parametrize("seed, B, N", [(0, 3, 4), (1, 1, 5), (2, 6, 2)])
def test_sgd_step_is_minus_the_gradient_of_the_block_loss(seed, B, N):
    w_in, w_out, span, targets, band, negative_weight = random_blocks(seed=seed, B=B, N=N)
    a, b = w_in.clone().requires_grad_(), w_out.clone().requires_grad_()
    block_loss(a, b, span, targets, band, negative_weight).backward()
    step(w_in, w_out, span, targets, band, negative_weight)
    torch.testing.assert_close(w_in, (a - a.grad).detach(), rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(w_out, (b - b.grad).detach(), rtol=1e-5, atol=1e-6)


def test_one_window_per_block_is_a_gradient_step_of_the_library_loss():
    """B = 1, N = K, every slot a pair at one rate: new = old - lr · P · ∇ mean-loss (lib.skipgram + autograd)."""
    K, W, lr = 3, 2, 0.05
    w_in, w_out, span, targets, _, negative_weight = random_blocks(seed=4, B=1, N=K, W=W, K=K)
    band = torch.full((span.shape[0], 1, 2 * W + 1), lr)
    band[:, :, W] = 0.0
    G = span.shape[0]
    context = torch.cat([span[:, :W], span[:, W + 1 :]], 1)  # (G, 2W) the window's context words
    a, b = w_in.clone().requires_grad_(), w_out.clone().requires_grad_()
    x = a[context.reshape(-1)]  # (P, D): one row per pair
    y = b[targets].repeat_interleave(2 * W, dim=0)  # (P, 1 + K, D): its window's centre and negatives
    mask = (negative_weight[:, :, 0] > 0).repeat_interleave(2 * W, dim=0)  # (P, K)
    loss = negative_sampling_loss(x, y[:, 0], y[:, 1:], mask)
    (loss * x.shape[0]).backward()
    step(w_in, w_out, span, targets, band, negative_weight)
    torch.testing.assert_close(w_in, (a - lr * a.grad).detach(), rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(w_out, (b - lr * b.grad).detach(), rtol=1e-5, atol=1e-6)


def sigmoid(s):
    return 1.0 / (1.0 + math.exp(-s))


def test_sgd_step_by_hand():
    """One block: centre 0 with contexts 1 (left) and 2 (right), one negative (id 1), K = N = 1, lr 0.1."""
    w_in = torch.tensor([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
    w_out = torch.tensor([[0.2, 0.0], [0.0, 0.4], [0.3, 0.3]])
    span, targets = torch.tensor([[1, 0, 2]]), torch.tensor([[0, 1]])
    band = torch.tensor([[[0.1, 0.0, 0.1]]])
    step(w_in, w_out, span, targets, band, torch.ones(1, 1, 1))
    # scores: x1·y0 = 0, x2·y0 = 0.1, x1·y1 = 0.4, x2·y1 = 0.2; g = lr (ℓ - σ(s))
    p1, p2 = 0.1 * (1 - sigmoid(0.0)), 0.1 * (1 - sigmoid(0.1))  # positives
    n1, n2 = -0.1 * sigmoid(0.4), -0.1 * sigmoid(0.2)  # the negative against each context
    x1, x2, y0, y1 = np.array([0.0, 1.0]), np.array([0.5, 0.5]), np.array([0.2, 0.0]), np.array([0.0, 0.4])
    expected_in = [[1.0, 0.0], x1 + p1 * y0 + n1 * y1, x2 + p2 * y0 + n2 * y1]
    expected_out = [y0 + p1 * x1 + p2 * x2, y1 + n1 * x1 + n2 * x2, [0.3, 0.3]]
    np.testing.assert_allclose(w_in.numpy(), expected_in, rtol=1e-6)
    np.testing.assert_allclose(w_out.numpy(), expected_out, rtol=1e-6)


def test_damped_step_by_hand():
    """The block of test_sgd_step_by_hand with damping: the centre's output row takes its summed update
    divided by 1 + Σ lr σ'(s) |x|² over its two pairs, each input row its own divided by 1 + Σ a σ'(s) |y|²
    over its targets (the centre and the negative); the negative's row moves as without damping."""
    w_in = torch.tensor([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
    w_out = torch.tensor([[0.2, 0.0], [0.0, 0.4], [0.3, 0.3]])
    span, targets = torch.tensor([[1, 0, 2]]), torch.tensor([[0, 1]])
    band = torch.tensor([[[0.1, 0.0, 0.1]]])
    plain_in, plain_out = w_in.clone(), w_out.clone()
    step(plain_in, plain_out, span, targets, band, torch.ones(1, 1, 1))
    step(w_in, w_out, span, targets, band, torch.ones(1, 1, 1), damped=True)
    d = lambda s: sigmoid(s) * (1 - sigmoid(s))  # noqa: E731  σ'
    # scores: x1·y0 = 0, x2·y0 = 0.1, x1·y1 = 0.4, x2·y1 = 0.2; |x1|² = 1, |x2|² = 0.5, |y0|² = 0.04, |y1|² = 0.16
    centre = 1 + 0.1 * d(0.0) * 1.0 + 0.1 * d(0.1) * 0.5
    input1 = 1 + 0.1 * d(0.0) * 0.04 + 0.1 * d(0.4) * 0.16
    input2 = 1 + 0.1 * d(0.1) * 0.04 + 0.1 * d(0.2) * 0.16
    assert (centre, input1, input2) == pytest.approx((1.0374, 1.0049, 1.0049), abs=1e-4)
    old_in, old_out = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]), np.array([0.2, 0.0])
    np.testing.assert_allclose(w_out[0].numpy(), old_out + (plain_out[0].numpy() - old_out) / centre, rtol=1e-6)
    np.testing.assert_allclose(w_in[1].numpy(), old_in[1] + (plain_in[1].numpy() - old_in[1]) / input1, rtol=1e-6)
    np.testing.assert_allclose(w_in[2].numpy(), old_in[2] + (plain_in[2].numpy() - old_in[2]) / input2, rtol=1e-6)
    torch.testing.assert_close(w_out[1:], plain_out[1:])  # the negative's row, and an untouched one
    torch.testing.assert_close(w_in[0], plain_in[0])


def test_damping_is_the_linearised_implicit_step_for_parallel_contexts():
    """One centre row, contexts that are multiples of one vector u: the damped step solves, to first
    order in the step, y' = y + Σ lr (1 - σ(x·y')) x (the implicit equation); the plain sum overshoots it."""
    D, W = 4, 2
    u = torch.tensor([0.5, -0.3, 0.2, 0.4])
    w_in = torch.stack([u * c for c in (2.0, 1.5, 0.0, 2.5, 1.0)])  # span: 4 contexts, the centre's own row
    w_out = torch.zeros(5, D)
    w_out[2] = torch.tensor([0.1, 0.2, -0.1, 0.05])
    span, targets = torch.tensor([[0, 1, 2, 3, 4]]), torch.tensor([[2, 2]])
    band = torch.tensor([[[0.25, 0.25, 0.0, 0.25, 0.25]]])
    nw = torch.zeros(1, 1, 1)  # the negative takes no part
    damped_out, plain_out = w_out.clone(), w_out.clone()
    step(w_in.clone(), damped_out, span, targets, band, nw, damped=True)
    step(w_in.clone(), plain_out, span, targets, band, nw)
    y, x = w_out[2].double(), w_in[[0, 1, 3, 4]].double()
    implicit = y.clone()
    for _ in range(200):  # fixed point of the implicit equation, a contraction at this step size
        implicit = y + (0.25 * (1 - torch.sigmoid(x @ implicit))) @ x
    gap_damped = float((damped_out[2].double() - implicit).norm())
    gap_plain = float((plain_out[2].double() - implicit).norm())
    assert gap_damped < 0.15 * gap_plain
    assert gap_plain > 0.1 * float((plain_out[2].double() - y).norm())  # the plain step does overshoot here


def sequential_reference(w_in, w_out, span, targets, band, negative_weight):
    """word2vec's order (gensim's fast_sentence_sg_neg), one pair at a time: each target's output row is
    updated at once, the input row after all the pair's targets."""
    B = band.shape[1]
    for g, i, c in torch.nonzero(band).tolist():
        lr, ctx = float(band[g, i, c]), int(span[g, i + c])
        rows = [(int(targets[g, i]), 1.0, 1.0)]
        rows += [(int(targets[g, B + n]), 0.0, float(negative_weight[g, n, i])) for n in range(negative_weight.shape[1])]
        work = torch.zeros(w_in.shape[1])
        for t, label, weight in rows:
            grad = lr * weight * (label - torch.sigmoid(w_in[ctx] @ w_out[t]))
            work += grad * w_out[t]
            w_out[t] += grad * w_in[ctx]
        w_in[ctx] += work


def test_summed_step_agrees_with_word2vecs_sequential_updates_to_first_order():
    """Summing a step's updates departs from word2vec's one-at-a-time order by O(lr²): halving the rate
    quarters the difference. The blocks' rates go up to 0.1; at a quarter of that (word2vec's starting
    rate, 0.025) the two steps agree to within a few per cent of the step, with rows repeated as here."""
    w_in, w_out, span, targets, band, negative_weight = random_blocks(seed=7, G=3, V=12)
    gaps, moves = [], []
    for scale in (1.0, 0.5, 0.25):
        summed_in, summed_out = w_in.clone(), w_out.clone()
        seq_in, seq_out = w_in.clone(), w_out.clone()
        step(summed_in, summed_out, span, targets, band * scale, negative_weight)
        sequential_reference(seq_in, seq_out, span, targets, band * scale, negative_weight)
        gaps.append(float(torch.cat([summed_in - seq_in, summed_out - seq_out]).norm()))
        moves.append(float(torch.cat([summed_in - w_in, summed_out - w_out]).norm()))
    assert 3.5 < gaps[0] / gaps[1] < 4.5 and 3.5 < gaps[1] / gaps[2] < 4.5
    assert gaps[2] < 0.05 * moves[2]


def test_sgd_step_leaves_rows_outside_the_step_alone():
    w_in, w_out, span, targets, band, negative_weight = random_blocks(seed=2, V=60)
    before_in, before_out = w_in.clone(), w_out.clone()
    step(w_in, w_out, span, targets, band, negative_weight)
    untouched_in = torch.ones(60, dtype=torch.bool)
    untouched_in[span.reshape(-1)] = False
    untouched_out = torch.ones(60, dtype=torch.bool)
    untouched_out[targets.reshape(-1)] = False
    assert torch.equal(w_in[untouched_in], before_in[untouched_in])
    assert torch.equal(w_out[untouched_out], before_out[untouched_out])
    assert not torch.equal(w_in, before_in) and not torch.equal(w_out, before_out)


def test_buffers_resize_is_a_view():
    buf = make_buffers(8, 4, 3, 2, 5)
    small = buf.resize(3)
    assert small.g.shape == (3, 7, 8) and small.x.shape == (24, 5) and small.y.shape == (21, 5)
    assert small.g.data_ptr() == buf.g.data_ptr() and small.label[:, :4].eq(1).all() and small.label[:, 4:].eq(0).all()


def test_make_buffers_checks_its_sizes_by_name():
    assert make_buffers(0, 0, 0, 0, 0).x.shape == (0, 0)  # empty buffers are allowed
    with pytest.raises(ValueError, match=r"^G must be an integer in \[0, 268435456\], got -1$"):
        make_buffers(-1, 2, 2, 2, 2)  # was torch's "zeros: Dimension size must be non-negative"
    with pytest.raises(TypeError, match=r"^B must be an integer in \[0, 268435456\], got 1.5$"):
        make_buffers(1, 1.5, 2, 2, 2)
    with pytest.raises(ValueError, match=r"^G, B, N and window: a result of shape \(65536, 4100, 4100\)"):
        make_buffers(2**16, 4096, 4, 2, 2)


# --- training ------------------------------------------------------------------------------------------------------


def topic_corpus(n_docs=200, length=30, seed=0, words=40):
    """Two topics with disjoint vocabularies (ids 0..words-1 and words..2·words-1), one topic per document."""
    rng = np.random.default_rng(seed)
    return [rng.integers(0, words, length) + words * (k % 2) for k in range(n_docs)]


def topic_separation(vectors):
    """Mean cosine within a topic minus mean cosine across topics."""
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    cos = unit @ unit.T
    topic = np.arange(vectors.shape[0]) // (vectors.shape[0] // 2)
    same = topic[:, None] == topic[None, :]
    off = ~np.eye(vectors.shape[0], dtype=bool)
    return cos[same & off].mean() - cos[~same].mean()


@pytest.mark.slow
@pytest.mark.parametrize("workers, block", [(1, 1), (1, 4), (2, 4)])
def test_training_separates_two_topics(workers, block):
    docs = topic_corpus()
    counts = np.bincount(np.concatenate(docs), minlength=80)
    cfg = SGNSConfig(dim=16, epochs=5, sample=0, workers=workers, block_windows=block, block_negatives=4, batch_windows=16, seed=1)
    result = train_sgns(docs, counts, cfg)
    assert result.vectors.shape == (80, 16) and result.vectors.dtype == np.float32
    assert np.isfinite(result.vectors).all()
    assert topic_separation(result.vectors) > 0.7
    assert result.n_words == 200 * 30 * 5


@pytest.mark.slow
def test_summed_updates_overshoot_when_the_step_is_large_for_the_vocabulary():
    """The documented limit of summing: a row met m times in one step takes m updates from the same old
    values. On 20 words, 128 windows per step put each row in dozens of pairs per step and training
    suffers; at 512 it diverges, which is reported as an error rather than returned."""
    docs = topic_corpus(n_docs=120, words=10)
    counts = np.bincount(np.concatenate(docs), minlength=20)
    cfg = SGNSConfig(dim=16, epochs=5, sample=0, block_windows=8, block_negatives=8, batch_windows=8, seed=1)
    small = train_sgns(docs, counts, cfg)
    large = train_sgns(docs, counts, replace(cfg, batch_windows=128))
    assert topic_separation(small.vectors) > 0.8
    assert topic_separation(large.vectors) < topic_separation(small.vectors) - 0.1
    with pytest.raises(FloatingPointError, match="diverged in epoch .*lower batch_windows or alpha"):
        train_sgns(docs, counts, replace(cfg, batch_windows=512))


@pytest.mark.parametrize("alpha", [1e300, 10**38, 1.0000001e37])
def test_alpha_beyond_float32_is_refused_by_name(alpha):
    with pytest.raises(ValueError, match=r"^alpha must be a finite number in \(0, 1e\+37\], got "):
        SGNSConfig(alpha=alpha)  # 1e300 was cast to float32 with an overflow warning, then NaN steps


def test_the_largest_alpha_diverges_with_the_error_and_no_warning():
    docs = topic_corpus(n_docs=20, words=10)
    counts = np.bincount(np.concatenate(docs), minlength=20)
    cfg = SGNSConfig(dim=8, epochs=1, sample=0, block_windows=8, block_negatives=8, batch_windows=8, alpha=1e37)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(FloatingPointError, match="diverged in epoch 1"):
            train_sgns(docs, counts, cfg)


def test_training_is_deterministic_with_one_worker():
    docs = topic_corpus(n_docs=20)
    counts = np.bincount(np.concatenate(docs), minlength=80)
    cfg = SGNSConfig(dim=8, epochs=2, seed=3, sample=1e-2)
    first, second = train_sgns(docs, counts, cfg), train_sgns(docs, counts, cfg)
    assert np.array_equal(first.vectors, second.vectors) and np.array_equal(first.output_vectors, second.output_vectors)
    assert first.n_pairs == second.n_pairs
    other = train_sgns(docs, counts, SGNSConfig(dim=8, epochs=2, seed=4, sample=1e-2))
    assert not np.array_equal(first.vectors, other.vectors)


def test_initialisation_is_word2vecs():
    docs = topic_corpus(n_docs=4)
    counts = np.bincount(np.concatenate(docs), minlength=85)  # ids 80-84 never occur: never updated as inputs
    result = train_sgns(docs, counts, SGNSConfig(dim=10, epochs=1))
    unused = result.vectors[80:]
    assert np.abs(unused).max() <= 0.05 and np.abs(unused).max() > 0.03  # uniform(-0.5/D, 0.5/D)


def test_training_restores_the_torch_thread_setting():
    docs = topic_corpus()
    counts = np.bincount(np.concatenate(docs), minlength=80)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        train_sgns(docs, counts, SGNSConfig(dim=8, epochs=1, sample=0, seed=1))
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_provenance_records_the_training():
    docs = topic_corpus(n_docs=4)
    counts = np.bincount(np.concatenate(docs), minlength=80)
    cfg = SGNSConfig(dim=4, epochs=1, seed=9, block_windows=4, block_negatives=6, batch_windows=64)
    prov = train_sgns(docs, counts, cfg).provenance
    assert prov.seed == 9 and prov.negatives == 5 and prov.dimension == 4
    assert prov.noise_distribution == "unigram^0.75, alias table; 6 per block of 4 windows, weight K/6"
    assert "64 windows per step in blocks of 4" in prov.batch
    assert prov.optimiser == "SGD, hand-written updates; centre and input rows damped (implicit step)"
    plain = train_sgns(docs, counts, replace(cfg, damped=False)).provenance
    assert plain.optimiser == "SGD, hand-written updates"
    assert prov.n_pairs > 0


@pytest.mark.parametrize(
    "sentences, error, match",
    [
        ([np.array([0, 1, 7])], ValueError, "token id 7 out of range for vocabulary of 3"),
        ([np.array([0, -1])], ValueError, "token id -1 out of range"),
        ([np.array([0.0, 1.0])], TypeError, r"sentences\[0\] must be integers, got dtype float64"),
        ([[0, 1], [[0, 1], [2]]], ValueError, r"sentences\[1\] must be a 1-D array of integer ids, got rows of diff"),
        ([[0, 1], None], TypeError, r"sentences\[1\] must be integers, got dtype object"),
        ([np.zeros((2, 2), dtype=int)], ValueError, "1-D"),
        ([np.array([], dtype=int)], ValueError, "empty"),
        (np.array([0, 1]), TypeError, "sequence of 1-D"),
    ],
)
def test_train_rejects_bad_corpora(sentences, error, match):
    with pytest.raises(error, match=match):
        train_sgns(sentences, np.array([3, 2, 1]), SGNSConfig(dim=2, epochs=1))


# a corpus of one document of two words, a and b: an epoch holds a pair (two, a-b and b-a, at window 1)
# exactly when subsampling keeps both; with f = 1/2 and t = 0.07, word2vec keeps each with
# (sqrt(0.5 / 0.07) + 1) · 0.07 / 0.5 = 0.514, so an epoch holds a pair with probability 0.26
TWO_WORDS = [np.array([0, 1])]
TWO_COUNTS = np.array([1, 1])


@pytest.mark.parametrize("workers", [1, 2])
def test_epochs_that_subsampling_leaves_without_a_pair_are_skipped_and_counted(workers):
    cfg = SGNSConfig(dim=4, window=1, dynamic_window=False, sample=0.07, epochs=12, block_windows=2,
                     block_negatives=2, batch_windows=2, workers=workers, seed=0)
    result = train_sgns(TWO_WORDS, TWO_COUNTS, cfg)
    assert 0 < result.empty_epochs < cfg.epochs  # the seed gives both kinds of epoch
    # the epochs drawn again, from a generator with the same seed and in the same order (the initial table,
    # then each epoch's blocks): the empty ones are those whose blocks hold no pair
    rng = np.random.default_rng(0)
    rng.random((2, 4), dtype=np.float32)
    keep = keep_probability(TWO_COUNTS, 0.07, formula="word2vec")
    noise = alias_table(noise_distribution(TWO_COUNTS, 0.75))
    drawn = [epoch_blocks(np.array([0, 1]), np.array([0, 0]), keep, noise, cfg, rng, lr_start=0.025, lr_stop=0.025)
             for _ in range(cfg.epochs)]
    assert result.empty_epochs == sum(e.n_pairs == 0 for e in drawn)
    assert result.n_pairs == 2 * (cfg.epochs - result.empty_epochs)  # every other epoch trained its two pairs
    assert np.abs(result.output_vectors).max() > 0  # the output table starts at 0: trained pairs moved it
    # the same draws with subsampling that keeps everything: no epoch is empty
    assert train_sgns(TWO_WORDS, TWO_COUNTS, replace(cfg, sample=0)).empty_epochs == 0


def test_an_epoch_that_keeps_no_token_has_no_blocks():
    # was NumPy's "window shape cannot be larger than input array shape" from inside epoch_blocks
    cfg = SGNSConfig(window=2, sample=1e-3, block_windows=4, block_negatives=3, batch_windows=4)
    e = epoch_blocks(np.array([0, 1]), np.array([0, 0]), np.zeros(2), alias_table([0.5, 0.5]), cfg,
                     np.random.default_rng(0), lr_start=0.025, lr_stop=0.025)
    assert (e.span.shape, e.targets.shape, e.band.shape, e.negative_weight.shape) == ((0, 8), (0, 7), (0, 4, 5),
                                                                                      (0, 3, 4))
    assert (e.n_windows, e.n_pairs) == (0, 0)


@pytest.mark.parametrize("workers", [1, 2])
def test_training_in_which_no_epoch_has_a_pair_is_a_clear_error(workers):
    # t = 1e-9: each word is kept with about 4.5e-5, so no epoch keeps both (was: the initial table returned)
    cfg = SGNSConfig(dim=4, window=1, sample=1e-9, epochs=3, block_windows=2, block_negatives=2, batch_windows=2,
                     workers=workers)
    with pytest.raises(ValueError, match=r"^no epoch had a \(centre, context\) pair to train on: subsampling "
                                         r"\(sample=1e-09\) kept fewer than two neighbouring tokens of any document "
                                         r"in each of the 3 epochs"):
        train_sgns(TWO_WORDS, TWO_COUNTS, cfg)


def test_a_corpus_without_a_document_of_two_tokens_is_a_clear_error():
    with pytest.raises(ValueError, match=r"^the corpus holds no \(centre, context\) pair: every document has fewer "
                                         r"than two tokens$"):
        train_sgns([np.array([0]), np.array([1])], TWO_COUNTS, SGNSConfig(dim=2, epochs=1, sample=0))


def test_counts_must_be_integers():
    for bad, message in [(np.array([True, True]), "counts must be integers, got dtype bool"),  # were 1 and 1
                         (np.array([1.0, 1.0]), "counts must be integers, got dtype float64")]:
        with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
            train_sgns(TWO_WORDS, bad, SGNSConfig(dim=2, epochs=1, sample=0))
        with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
            train_sgns(TWO_WORDS, bad, SGNSConfig(dim=2, epochs=1))


def test_train_rejects_a_config_of_the_wrong_type():
    with pytest.raises(TypeError, match="SGNSConfig"):
        train_sgns([np.array([0, 1])], np.array([1, 1]), {"dim": 2})


def test_rows_of_ids_that_never_occur_keep_their_initial_values_exactly():
    docs = topic_corpus(n_docs=6)
    counts = np.bincount(np.concatenate(docs), minlength=90)  # ids 80-89 never occur
    result = train_sgns(docs, counts, SGNSConfig(dim=10, epochs=2, seed=7, sample=0))
    assert result.initial_vectors.shape == (90, 10) and result.initial_vectors.dtype == np.float32
    assert np.array_equal(result.vectors[80:], result.initial_vectors[80:])
    used = np.flatnonzero(counts > 0)
    assert (np.abs(result.vectors[used] - result.initial_vectors[used]).max(axis=1) > 0).all()
    # the initial table is the one a fresh generator with the same seed draws (word2vec's uniform ±0.5/D)
    rng = np.random.default_rng(7)
    np.testing.assert_array_equal(result.initial_vectors, (rng.random((90, 10), dtype=np.float32) - 0.5) / 10)


def test_alias_table_of_probabilities_that_are_not_real_numbers_is_a_type_error():
    for probs, dtype in [(["0.5", "0.5"], "<U3"), ([0.5 + 0j, 0.5], "complex128"), ([True, False], "bool")]:
        with pytest.raises(TypeError) as info:  # was NumPy's conversion error, or bools taken as 1.0 and 0.0
            alias_table(probs)
        assert str(info.value) == f"probs must hold real numbers, got dtype {dtype}"
    with pytest.raises(ValueError, match="probs must be finite, >= 0 and sum to 1"):
        alias_table([np.nan, 1.0])


@pytest.mark.parametrize("probs, got", [
    ([1e308] * 3, "a sum beyond the float64 range (about 1.8e308)"),  # was NumPy's overflow RuntimeWarning first
    ([0.25, 0.5], "a sum of 0.75"),
    ([1.5, -0.5], "-0.5 at index 1"),
    ([0.5, np.inf], "NaN or infinity at index 1"),
])
def test_alias_table_names_what_is_wrong_without_a_warning(probs, got):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning (NumPy's "overflow encountered in reduce") fails the test
        with pytest.raises(ValueError) as info:
            alias_table(probs)
    assert str(info.value) == f"probs must be finite, >= 0 and sum to 1 (within 1e-6), got {got}"


def test_alias_draw_checks_the_table_and_the_size():
    table = alias_table([0.2, 0.8])
    rng = np.random.default_rng(0)
    with pytest.raises(TypeError, match="^table must be an AliasTable \\(from alias_table\\), got list$"):
        alias_draw([0.2, 0.8], 5, rng)  # was AttributeError: 'list' object has no attribute 'accept'
    for size, kind in (("3", TypeError), (np.timedelta64(2), TypeError), (2**70, ValueError), (-1, ValueError)):
        with pytest.raises(kind, match=r"^size must be an integer in \[0, 268435456\], got "):
            alias_draw(table, size, rng)  # were NumPy's UFuncTypeError / "Maximum allowed dimension exceeded"
    with pytest.raises(ValueError, match=r"^size: a result of shape \(100000, 100000\) would hold"):
        alias_draw(table, (100_000, 100_000), rng)
    assert alias_draw(alias_table([0.0, 1.0]), (2, 3), rng).tolist() == [[1, 1, 1], [1, 1, 1]]
    assert alias_draw(table, 0, rng).shape == (0,)


# --- sharing an epoch's steps among Hogwild workers ------------------------------------------------------


def test_step_queue_gives_each_worker_its_own_run_first_then_the_end_of_the_longest_run():
    q = StepQueue(10, 2)  # runs 0..4 and 5..9
    assert [q.take(0) for _ in range(5)] == [0, 1, 2, 3, 4]
    assert q.take(1) == 5
    # worker 0 has finished its run: it takes from the end of worker 1's, which keeps its own order
    assert [q.take(0), q.take(1), q.take(0), q.take(1)] == [9, 6, 8, 7]
    assert q.take(0) is None and q.take(1) is None


@pytest.mark.parametrize("n_steps, workers", [(0, 1), (1, 2), (7, 1), (7, 3), (100, 2), (5, 8)])
def test_step_queue_hands_out_every_step_exactly_once(n_steps, workers):
    q = StepQueue(n_steps, workers)
    taken, done = [], [False] * workers
    k = 0
    while not all(done):  # the workers take turns, one step each
        w = k % workers
        step = q.take(w)
        done[w] = step is None
        if step is not None:
            taken.append(step)
        k += 1
    assert sorted(taken) == list(range(n_steps))


def test_step_queue_lets_a_fast_worker_take_over_from_a_slow_one():
    """Worker 1 sleeps on each step; worker 0 does its own run and then most of worker 1's, under real
    threads, and no step is lost or done twice."""
    q = StepQueue(40, 2)
    taken = {0: [], 1: []}
    started = threading.Event()

    def work(i):
        if i == 0:
            started.wait(5)  # worker 1 has its first step before worker 0 begins
        for k in q.steps(i):
            taken[i].append(k)
            if i == 1:
                started.set()
                time.sleep(0.02)

    threads = [threading.Thread(target=work, args=(i,)) for i in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(taken[0] + taken[1]) == list(range(40))
    assert taken[0][:20] == list(range(20)) and taken[1][0] == 20
    assert len(taken[0]) > 25  # worker 1 did a few steps while worker 0 did the rest


@pytest.mark.parametrize("n_steps, workers, error, match", [
    (-1, 2, ValueError, "n_steps"), (2.5, 2, TypeError, "n_steps"), (4, 0, ValueError, "workers"),
    (4, "2", TypeError, "workers"),
])
def test_step_queue_names_a_bad_argument(n_steps, workers, error, match):
    with pytest.raises(error, match=match):
        StepQueue(n_steps, workers)


def test_step_queue_refuses_a_worker_it_does_not_have():
    q = StepQueue(4, 2)
    for bad, error in ((-1, ValueError), (2, ValueError), (1.0, TypeError), (True, TypeError)):
        with pytest.raises(error, match=r"^worker must be an integer in \[0, 1\], got "):
            q.take(bad)  # -1 was taken as worker 1 (a wrap-around), 2 an IndexError
    assert [q.take(1), q.take(0)] == [2, 0]  # the refused calls took nothing


def test_step_queue_steps_checks_the_worker_once_when_called(monkeypatch):
    q = StepQueue(4, 2)
    for bad, error in ((-1, ValueError), (2, ValueError), (1.0, TypeError)):
        with pytest.raises(error, match=r"^worker must be an integer in \[0, 1\], got "):
            q.steps(bad)  # raised by the call itself, before any step is asked for
    checked = []
    real = validate.integer

    def counting(value, name, **kw):
        checked.append(name)
        return real(value, name, **kw)

    monkeypatch.setattr(validate, "integer", counting)
    q = StepQueue(50, 2)
    assert list(q.steps(0)) == list(range(25)) + list(range(49, 24, -1))  # its own run, then worker 1's from the end
    assert checked.count("worker") == 1  # was one check per step taken (51)
