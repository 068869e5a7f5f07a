"""lib.sgns: the alias table, the epoch's windows, one SGD step against autograd, and training."""

from collections import Counter

import numpy as np
import pytest
import scipy.stats
import torch

from lib.corpus import context_pairs, keep_probability
from lib.skipgram import negative_sampling_loss, noise_distribution
from lib.sgns import (
    SGNSConfig,
    alias_draw,
    alias_table,
    epoch_windows,
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


# --- configuration -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(dim=0), "dim"),
        (dict(window=-1), "window"),
        (dict(batch_windows=0), "batch_windows"),
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


def test_config_rejects_non_numbers():
    with pytest.raises(TypeError, match="alpha"):
        SGNSConfig(alpha="0.025")
    with pytest.raises(TypeError, match="dynamic_window"):
        SGNSConfig(dynamic_window=1)


# --- windows ---------------------------------------------------------------------------------------------------


def corpus(seed=0, docs=(7, 1, 12, 5), V=9):
    rng = np.random.default_rng(seed)
    sentences = [rng.integers(0, V, size=n) for n in docs]
    ids = np.concatenate(sentences)
    doc = np.repeat(np.arange(len(sentences)), [len(s) for s in sentences])
    counts = np.bincount(ids, minlength=V)
    return sentences, ids, doc, counts


def windows(config, seed=0, **kw):
    sentences, ids, doc, counts = corpus(**kw)
    noise = alias_table(noise_distribution(counts))
    keep = keep_probability(counts, config.sample, formula="word2vec") if config.sample > 0 else np.ones(counts.shape[0])
    ep = epoch_windows(ids, doc, keep, noise, config, np.random.default_rng(seed), lr_start=0.02, lr_stop=0.01)
    return sentences, ids, doc, ep


def window_pairs(ep):
    """(input id, centre id) for every slot with a non-zero learning rate."""
    valid = ep.slot_lr[:, :, 0] > 0
    centres = ep.targets[:, :1].expand_as(ep.contexts)
    return Counter(zip(ep.contexts[valid].tolist(), centres[valid].tolist()))


@pytest.mark.parametrize("window", [1, 2, 4])
def test_fixed_windows_without_subsampling_give_the_context_pairs(window):
    """Independent reference: lib.corpus.context_pairs (centre, context) with the roles swapped."""
    config = SGNSConfig(window=window, sample=0, dynamic_window=False)
    sentences, _, _, ep = windows(config)
    reference = context_pairs(sentences, window)
    assert window_pairs(ep) == Counter((int(c), int(w)) for w, c in reference)
    assert ep.n_pairs == reference.shape[0]


def test_dynamic_windows_stay_inside_reach_and_document():
    config = SGNSConfig(window=3, sample=0, dynamic_window=True)
    sentences, _, _, ep = windows(config, seed=5)
    full = Counter((int(c), int(w)) for w, c in context_pairs(sentences, 3))
    got = window_pairs(ep)
    assert all(got[p] <= full[p] for p in got)  # a sub-multiset of the fixed ±3 pairs
    assert 0 < ep.n_pairs < sum(full.values())
    # each row's valid slots form a symmetric band ±b (b >= 1) cut only by the document edges
    offsets = np.array([-3, -2, -1, 1, 2, 3])
    valid = (ep.slot_lr[:, :, 0] > 0).numpy()
    for row in valid:
        if row.any():
            b = np.abs(offsets[row]).max()
            assert set(np.abs(offsets[row])) <= set(range(1, b + 1))


def test_learning_rate_falls_linearly_with_position_in_the_corpus():
    config = SGNSConfig(window=2, sample=0, dynamic_window=False)
    _, ids, _, ep = windows(config)
    lr = ep.slot_lr[:, :, 0].max(dim=1).values.numpy()
    expected = 0.02 + (0.01 - 0.02) * np.arange(ids.shape[0]) / ids.shape[0]
    has_pair = (ep.slot_lr[:, :, 0] > 0).any(dim=1).numpy()
    np.testing.assert_allclose(lr[has_pair], expected[has_pair], rtol=1e-6)


def test_negatives_equal_to_the_centre_are_left_out():
    config = SGNSConfig(window=2, negatives=20, sample=0)
    _, _, _, ep = windows(config, V=3)  # three items: collisions are frequent
    same = ep.targets[:, 1:] == ep.targets[:, :1]
    keep = ep.target_keep[:, 0, 1:]
    assert same.any() and torch.equal(keep == 0, same)
    assert (ep.target_keep[:, 0, 0] == 1).all()


def test_subsampling_keeps_each_word_at_the_word2vec_rate():
    rng = np.random.default_rng(0)
    ids = rng.choice(4, size=40_000, p=[0.7, 0.2, 0.09, 0.01])
    doc = np.zeros_like(ids)
    counts = np.bincount(ids, minlength=4)
    config = SGNSConfig(window=1, sample=1e-2)
    keep = keep_probability(counts, 1e-2, formula="word2vec")
    ep = epoch_windows(ids, doc, keep, alias_table(noise_distribution(counts)), config, rng, lr_start=0.02, lr_stop=0.01)
    kept = np.bincount(ep.targets[:, 0].numpy(), minlength=4)
    for i in range(4):
        sd = np.sqrt(counts[i] * keep[i] * (1 - keep[i])) + 1e-9
        assert abs(kept[i] - counts[i] * keep[i]) < 5 * sd + 1e-6
    assert keep[0] < 0.2 and keep[3] == 1.0


# --- the update against autograd -----------------------------------------------------------------------------


def random_batch(seed=0, c=6, S=4, K=3, V=7, D=5, all_valid=False):
    g = torch.Generator().manual_seed(seed)
    w_in = torch.randn(V, D, generator=g) * 0.3
    w_out = torch.randn(V, D, generator=g) * 0.3
    contexts = torch.randint(0, V, (c, S), generator=g)  # small V: many repeated rows
    targets = torch.randint(0, V, (c, K + 1), generator=g)
    lr = torch.rand(c, S, 1, generator=g) * 0.1
    keep = torch.ones(c, 1, K + 1)
    if not all_valid:
        lr[torch.rand(c, S, 1, generator=g) < 0.3] = 0.0
        keep[torch.rand(c, 1, K + 1, generator=g) < 0.2] = 0.0
        keep[:, :, 0] = 1.0
    return w_in, w_out, contexts, targets, lr, keep


def test_sgd_step_is_a_gradient_step_of_the_library_loss():
    """Uniform step size, every pair valid: new = old - lr · B · ∇ mean-loss (lib.skipgram + autograd)."""
    w_in, w_out, contexts, targets, _, keep = random_batch(all_valid=True)
    c, S = contexts.shape
    T = targets.shape[1]
    lr = 0.05
    a, b = w_in.clone().requires_grad_(), w_out.clone().requires_grad_()
    x = a[contexts.reshape(-1)]  # (c·S, D): every slot is one batch element
    y = b[targets].repeat_interleave(S, dim=0)  # (c·S, T, D): its window's centre and negatives
    loss = negative_sampling_loss(x, y[:, 0], y[:, 1:])
    (loss * (c * S)).backward()
    sgd_step(w_in, w_out, contexts.reshape(-1), targets.reshape(-1), torch.full((c, S, 1), lr), keep, make_buffers(c, S, T, w_in.shape[1]))
    torch.testing.assert_close(w_in, (a - lr * a.grad).detach(), rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(w_out, (b - lr * b.grad).detach(), rtol=1e-5, atol=1e-6)


def test_sgd_step_weights_each_pair_by_its_learning_rate_and_mask():
    w_in, w_out, contexts, targets, lr, keep = random_batch(seed=4)
    c, S = contexts.shape
    T = targets.shape[1]
    a, b = w_in.clone().requires_grad_(), w_out.clone().requires_grad_()
    score = torch.einsum("csd,ctd->cst", a[contexts], b[targets])
    label = torch.zeros(c, S, T)
    label[:, :, 0] = 1
    nll = -(label * torch.nn.functional.logsigmoid(score) + (1 - label) * torch.nn.functional.logsigmoid(-score))
    (nll * lr * keep).sum().backward()  # Σ lr·keep·loss: its gradient is the step
    sgd_step(w_in, w_out, contexts.reshape(-1), targets.reshape(-1), lr, keep, make_buffers(c, S, T, w_in.shape[1]))
    torch.testing.assert_close(w_in, (a - a.grad).detach(), rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(w_out, (b - b.grad).detach(), rtol=1e-5, atol=1e-6)


def test_sgd_step_leaves_rows_outside_the_batch_alone():
    w_in, w_out, contexts, targets, lr, keep = random_batch(seed=2, V=40)
    before_in, before_out = w_in.clone(), w_out.clone()
    c, S = contexts.shape
    sgd_step(w_in, w_out, contexts.reshape(-1), targets.reshape(-1), lr, keep, make_buffers(c, S, targets.shape[1], 5))
    untouched_in = torch.ones(40, dtype=torch.bool)
    untouched_in[contexts.reshape(-1)] = False
    untouched_out = torch.ones(40, dtype=torch.bool)
    untouched_out[targets.reshape(-1)] = False
    assert torch.equal(w_in[untouched_in], before_in[untouched_in])
    assert torch.equal(w_out[untouched_out], before_out[untouched_out])
    assert not torch.equal(w_in, before_in)


def test_buffers_resize_is_a_view():
    buf = make_buffers(8, 4, 3, 5)
    small = buf.resize(3)
    assert small.g.shape == (3, 4, 3) and small.x.shape == (12, 5)
    assert small.g.data_ptr() == buf.g.data_ptr() and small.label[:, :, 0].eq(1).all()


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


@pytest.mark.parametrize("workers", [1, 2])
def test_training_separates_two_topics(workers):
    docs = topic_corpus()
    counts = np.bincount(np.concatenate(docs), minlength=80)
    config = SGNSConfig(dim=16, epochs=5, sample=0, workers=workers, batch_windows=16, seed=1)
    result = train_sgns(docs, counts, config)
    assert result.vectors.shape == (80, 16) and result.vectors.dtype == np.float32
    assert np.isfinite(result.vectors).all()
    assert topic_separation(result.vectors) > 0.7
    assert result.n_words == 200 * 30 * 5


def test_summed_updates_overshoot_when_the_batch_is_large_for_the_vocabulary():
    """The documented limit of batching: a row met m times in one batch takes m steps from the same old
    values. On 20 words, 512 windows per batch put each row in hundreds of pairs per step."""
    docs = topic_corpus(n_docs=120, words=10)
    counts = np.bincount(np.concatenate(docs), minlength=20)
    small = train_sgns(docs, counts, SGNSConfig(dim=16, epochs=5, sample=0, batch_windows=8, seed=1))
    large = train_sgns(docs, counts, SGNSConfig(dim=16, epochs=5, sample=0, batch_windows=512, seed=1))
    assert topic_separation(small.vectors) > 0.8
    assert topic_separation(large.vectors) < topic_separation(small.vectors) - 0.1


def test_training_is_deterministic_with_one_worker():
    docs = topic_corpus(n_docs=20)
    counts = np.bincount(np.concatenate(docs), minlength=80)
    config = SGNSConfig(dim=8, epochs=2, seed=3, sample=1e-2)
    first, second = train_sgns(docs, counts, config), train_sgns(docs, counts, config)
    assert np.array_equal(first.vectors, second.vectors) and first.n_pairs == second.n_pairs
    other = train_sgns(docs, counts, SGNSConfig(dim=8, epochs=2, seed=4, sample=1e-2))
    assert not np.array_equal(first.vectors, other.vectors)


def test_initialisation_is_word2vecs():
    docs = topic_corpus(n_docs=4)
    counts = np.bincount(np.concatenate(docs), minlength=85)  # ids 80-84 never occur: never updated
    result = train_sgns(docs, counts, SGNSConfig(dim=10, epochs=1))
    unused = result.vectors[80:]
    assert np.abs(unused).max() <= 0.05 and np.abs(unused).max() > 0.03  # uniform(-0.5/D, 0.5/D)
    assert np.all(result.output_vectors[80:] == 0)


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
    prov = train_sgns(docs, counts, SGNSConfig(dim=4, epochs=1, seed=9)).provenance
    assert prov.seed == 9 and prov.negatives == 5 and prov.dimension == 4
    assert "shared by the pairs of one window" in prov.noise_distribution
    assert prov.n_pairs > 0


@pytest.mark.parametrize(
    "sentences, error, match",
    [
        ([np.array([0, 1, 7])], ValueError, "token id 7 out of range for vocabulary of 3"),
        ([np.array([0, -1])], ValueError, "token id -1 out of range"),
        ([np.array([0.0, 1.0])], TypeError, "integer ids"),
        ([np.zeros((2, 2), dtype=int)], ValueError, "1-D"),
        ([np.array([], dtype=int)], ValueError, "empty"),
        (np.array([0, 1]), TypeError, "sequence of 1-D"),
    ],
)
def test_train_rejects_bad_corpora(sentences, error, match):
    with pytest.raises(error, match=match):
        train_sgns(sentences, np.array([3, 2, 1]), SGNSConfig(dim=2, epochs=1))


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
