"""lib.skipgram: the source's full-softmax run reproduced, negative sampling, losses and noise."""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from lib.chapters.embeddings import ANIMAL_VEHICLE_NAME, animal_vehicle_corpus
from lib.corpus import Vocabulary, context_pairs
from lib.embedding import nearest_neighbours
from lib.skipgram import (
    negative_sampling_loss,
    noise_distribution,
    pair_batches,
    sample_negatives,
    skipgram_embedding,
    softmax_cross_entropy,
    train_skipgram,
)
from lib.threads import torch_threads

# Printed by the chapter's source (cosine neighbours after 350 full-softmax steps), rounded to 4 places.
PUBLISHED = {
    "cat": [("kitten", 0.5262), ("soft", 0.4544), ("dog", 0.3860), ("pet", 0.1995)],
    "truck": [("people", 0.4026), ("vehicle", 0.3930), ("road", 0.2130), ("pet", 0.1742)],
    "pet": [("young", 0.6846), ("puppy", 0.4310), ("kitten", 0.4048), ("people", 0.3875)],
}


@pytest.fixture(scope="module")
def vocab():
    return Vocabulary.from_sentences(animal_vehicle_corpus(), order="alphabetical")


@pytest.fixture(scope="module")
def run(vocab):
    return skipgram_embedding(animal_vehicle_corpus(), vocab, corpus=ANIMAL_VEHICLE_NAME)


@pytest.mark.slow
def test_full_softmax_run_reproduces_the_published_neighbours(run, vocab):
    for term, expected in PUBLISHED.items():
        i = vocab.id(term)
        got = nearest_neighbours(run.input_vectors, run.input_vectors[i], 4, metric="cosine", exclude=[i])
        assert [(vocab.token(j), round(s, 4)) for j, s in got] == expected


def test_full_softmax_run_is_bit_identical_to_the_sources_code(run, vocab):
    """The source's own loop (global seed, nn.Embedding), run inside fork_rng so global state is restored."""
    corpus = animal_vehicle_corpus()
    pairs = [(vocab.id(a), vocab.id(b)) for s in corpus for i, a in enumerate(s) for j, b in enumerate(s) if i != j]
    centres, contexts = torch.tensor([p[0] for p in pairs]), torch.tensor([p[1] for p in pairs])
    with torch.random.fork_rng(), torch_threads(1):  # one thread, as train_skipgram runs: no wait for a busy core
        torch.manual_seed(17)
        inp, out = torch.nn.Embedding(len(vocab), 8), torch.nn.Embedding(len(vocab), 8)
        opt = torch.optim.Adam(list(inp.parameters()) + list(out.parameters()), lr=0.04)
        losses = []
        for _ in range(350):
            loss = F.cross_entropy(inp(centres) @ out.weight.T, contexts)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
    np.testing.assert_array_equal(run.input_vectors, inp.weight.detach().numpy())
    np.testing.assert_array_equal(run.output_vectors, out.weight.detach().numpy())
    np.testing.assert_array_equal(run.losses, losses)


def test_first_loss_is_the_cross_entropy_of_the_initial_tables(run, vocab):
    gen = torch.Generator().manual_seed(17)
    w_in, w_out = torch.randn(15, 8, generator=gen).double().numpy(), torch.randn(15, 8, generator=gen).double().numpy()
    pairs = context_pairs(vocab.encode_sentences(animal_vehicle_corpus()))
    logits = w_in[pairs[:, 0]] @ w_out.T
    m = logits.max(axis=1, keepdims=True)
    logz = (m + np.log(np.exp(logits - m).sum(axis=1, keepdims=True)))[:, 0]
    expected = np.mean(logz - logits[np.arange(len(pairs)), pairs[:, 1]])
    assert run.losses[0] == pytest.approx(expected, rel=1e-6)
    assert run.losses.shape == (350,) and run.losses[-1] < 0.3 * run.losses[0]


def test_training_leaves_the_global_rng_and_thread_count_alone(vocab):
    state, threads = torch.get_rng_state(), torch.get_num_threads()
    pairs = context_pairs(vocab.encode_sentences(animal_vehicle_corpus()))
    one = train_skipgram(pairs, len(vocab), steps=3, objective="negative_sampling")
    assert torch.equal(state, torch.get_rng_state()) and torch.get_num_threads() == threads
    two = train_skipgram(pairs, len(vocab), steps=3, objective="negative_sampling", num_threads=2)
    np.testing.assert_array_equal(one.input_vectors, two.input_vectors)
    with pytest.raises(ValueError, match=r"num_threads must be an integer in \[1, 256\] \(threads\)"):
        train_skipgram(pairs, len(vocab), steps=1, num_threads=0)


def test_provenance_records_the_run(run):
    p = run.provenance
    assert (p.vocabulary_size, p.vocabulary_order, p.min_count) == (15, "alphabetical (code-point order)", 1)
    assert (p.n_sentences, p.n_tokens, p.n_pairs) == (13, 39, 78)
    assert (p.dimension, p.learning_rate, p.seed) == (8, 0.04, 17)
    assert p.context == "every other word of the sentence" and p.subsampling == "none"
    assert p.stopping_rule == "fixed number of steps (350)"
    assert p.negatives is None and p.noise_distribution is None
    assert len(p.corpus_hash) == 64


# --- noise distribution -------------------------------------------------------------------------------


def test_noise_distribution_hand_case_and_closed_form():
    got = noise_distribution([1, 8, 27, 64])
    np.testing.assert_allclose(got, [0.0249, 0.1182, 0.2944, 0.5625], atol=5e-5)
    weights = np.array([1, 8, 27, 64]) ** 0.75  # 1, 4.757, 11.84, 22.63
    np.testing.assert_allclose(got, weights / weights.sum())
    np.testing.assert_allclose(noise_distribution([1, 8, 27, 64], 1.0), np.array([1, 8, 27, 64]) / 100)
    np.testing.assert_allclose(noise_distribution([0, 3, 5], 0.0), [0, 0.5, 0.5])  # uniform over seen items


@pytest.mark.parametrize(
    "counts, power, exc, match",
    [
        ([0, 0], 0.75, ValueError, "not all be zero"),
        ([1, -1], 0.75, ValueError, ">= 0"),
        ([1, np.inf], 0.75, ValueError, "finite"),
        ([[1, 2]], 0.75, ValueError, "1-D"),
        ([1, 2], -0.5, ValueError, "power must be a finite number >= 0"),
        (["a"], 0.75, TypeError, "must hold real numbers, got dtype <U1"),
    ],
)
def test_noise_distribution_rejects_bad_input(counts, power, exc, match):
    with pytest.raises(exc, match=match):
        noise_distribution(counts, power)


# --- losses ---------------------------------------------------------------------------------------------


def test_softmax_cross_entropy_takes_logits():
    loss = softmax_cross_entropy(torch.tensor([[2.0, 0.0, 0.0]]), torch.tensor([0]))
    assert float(loss) == pytest.approx(math.log(1 + 2 * math.exp(-2)), rel=1e-6)
    assert round(float(loss), 4) == 0.2395
    # applying a softmax first (the classic mistake) gives a different, wrong number
    wrong = softmax_cross_entropy(torch.softmax(torch.tensor([[2.0, 0.0, 0.0]]), -1), torch.tensor([0]))
    assert abs(float(wrong) - float(loss)) > 0.3
    with pytest.raises(ValueError, match="target 3 out of range for vocabulary of 3"):
        softmax_cross_entropy(torch.zeros(1, 3), torch.tensor([3]))
    with pytest.raises(ValueError, match=r"logits must be \(B, V\)"):
        softmax_cross_entropy(torch.zeros(3), torch.tensor([0]))


def test_softmax_cross_entropy_far_apart_logits_give_the_true_loss_or_a_named_error():
    f64 = dict(dtype=torch.float64)
    # [1e308, -1e308]: target 0 has probability 1 - e^-2e308 = 1 in float64, a loss of exactly 0
    assert float(softmax_cross_entropy(torch.tensor([[1e308, -1e308]], **f64), torch.tensor([0]))) == 0.0
    # two losses of 1.5e308 (their sum overflows): the mean is 1.5e308, as each is
    logits = torch.tensor([[1.5e308, 0.0], [1.5e308, 0.0]], **f64, requires_grad=True)
    loss = softmax_cross_entropy(logits, torch.tensor([1, 1]))
    assert float(loss.detach()) == 1.5e308
    loss.backward()  # d loss / d z = (softmax(z) - onehot(target)) / B: [0.5, -0.5] per row
    torch.testing.assert_close(logits.grad, torch.tensor([[0.5, -0.5], [0.5, -0.5]], **f64), rtol=0, atol=0)
    # target 1 of [1e308, -1e308]: the true loss, 2e308, has no float64 value
    with pytest.raises(ValueError, match=r"loss of row 0 \(target 1\) is beyond the range of torch.float64 "
                                         r"\(about 1.8e\+308\)"):
        softmax_cross_entropy(torch.tensor([[1e308, -1e308]], **f64), torch.tensor([1]))


@pytest.mark.parametrize("logits, targets, error, message", [
    (torch.tensor([[1, 0]]), torch.tensor([0]), TypeError, r"^logits must be a floating-point .*got dtype torch.int64$"),
    (torch.tensor([[True, False]]), torch.tensor([0]), TypeError, "got dtype torch.bool"),
    (torch.tensor([[1 + 0j, 0j]]), torch.tensor([0]), TypeError, "got dtype torch.complex64"),
    (torch.tensor([[float("nan"), 0.0]]), torch.tensor([0]), ValueError, "^logits contains NaN or infinity$"),
    (torch.tensor([[-float("inf"), 0.0]]), torch.tensor([1]), ValueError, "^logits contains NaN or infinity$"),
    (torch.zeros(0, 3), torch.zeros(0, dtype=torch.int64), ValueError, r"B >= 1 and V >= 1 .*got \(0, 3\)"),
    (torch.zeros(2, 0), torch.zeros(2, dtype=torch.int64), ValueError, r"got \(2, 0\)"),
])
def test_softmax_cross_entropy_refuses_bad_logits_by_name(logits, targets, error, message):
    with pytest.raises(error, match=message):
        softmax_cross_entropy(logits, targets)


def test_negative_sampling_loss_refuses_integer_and_non_finite_vectors():
    v = torch.zeros(1, 2)
    with pytest.raises(TypeError, match=r"^centre must be a floating-point torch.Tensor \(B, D\), got dtype torch.int64$"):
        negative_sampling_loss(torch.zeros(1, 2, dtype=torch.int64), v, torch.zeros(1, 1, 2))
    with pytest.raises(ValueError, match="^negatives contains NaN or infinity$"):
        negative_sampling_loss(v, v, torch.full((1, 1, 2), float("nan")))


def test_negative_sampling_loss_closed_form_and_mask():
    v = torch.tensor([[1.0, 0.0]])
    pos = torch.tensor([[2.0, 0.0]])
    neg = torch.tensor([[[1.0, 0.0], [-3.0, 0.0], [0.5, 1.0]]])
    softplus = lambda x: math.log1p(math.exp(x))  # -log sigma(-x)
    expected = softplus(-2.0) + softplus(1.0) + softplus(-3.0) + softplus(0.5)
    assert float(negative_sampling_loss(v, pos, neg)) == pytest.approx(expected, rel=1e-6)
    mask = torch.tensor([[True, False, True]])
    assert float(negative_sampling_loss(v, pos, neg, mask)) == pytest.approx(expected - softplus(-3.0), rel=1e-6)


def test_negative_sampling_loss_is_stable_for_large_scores():
    v = torch.tensor([[1.0]])
    big = negative_sampling_loss(v, torch.tensor([[-1000.0]]), torch.tensor([[[1000.0]]]))
    assert math.isfinite(float(big)) and float(big) == pytest.approx(2000.0)
    naive = -(torch.log(torch.sigmoid(torch.tensor(-1000.0))))
    assert math.isinf(float(naive))  # what log(sigmoid(x)) would have given
    small = negative_sampling_loss(v, torch.tensor([[1000.0]]), torch.tensor([[[-1000.0]]]))
    assert float(small) == 0.0


def test_negative_sampling_loss_when_products_overflow_but_the_loss_is_representable():
    # scores 1e40 - 1e40 = 0 (positive) and 0 (negative): the loss is -2 log σ(0) = 2 ln 2, although
    # each product overflows float32 (and, at 1e200, float64)
    for dtype, big in [(torch.float32, 1e20), (torch.float64, 1e200)]:
        centre = torch.tensor([[big, big]], dtype=dtype)
        positive = torch.tensor([[big, -big]], dtype=dtype)
        loss = negative_sampling_loss(centre, positive, torch.zeros(1, 1, 2, dtype=dtype))
        assert loss.dtype == dtype
        assert float(loss) == pytest.approx(2 * math.log(2), rel=1e-7)
    # a masked-out negative whose score overflows costs nothing (not 0 * inf = NaN); the positive score
    # 1e40 costs softplus(-1e40) = 0
    centre = torch.tensor([[1e20, 0.0]], requires_grad=True)
    loss = negative_sampling_loss(centre, torch.tensor([[1e20, 0.0]]), torch.tensor([[[1e20, 0.0]]]),
                                  torch.tensor([[False]]))
    assert float(loss.detach()) == 0.0
    loss.backward()
    assert centre.grad.tolist() == [[0.0, 0.0]]


def test_negative_sampling_loss_beyond_the_dtype_is_a_clear_error():
    # positive score -1e40: loss 1e40 nats, beyond float32 (about 3.4e38)
    with pytest.raises(ValueError, match=r"loss of row 0 is beyond the range of torch.float32"):
        negative_sampling_loss(torch.tensor([[1e20, 0.0]]), torch.tensor([[-1e20, 0.0]]), torch.zeros(1, 1, 2))
    # float16: score -9e4, beyond its 65504
    h = torch.float16
    with pytest.raises(ValueError, match=r"beyond the range of torch.float16"):
        negative_sampling_loss(torch.tensor([[300.0, 0.0]], dtype=h), torch.tensor([[-300.0, 0.0]], dtype=h),
                               torch.zeros(1, 1, 2, dtype=h))
    # each row loss 2.89e38 fits float32 while their sum does not: the mean is the row loss
    loss = negative_sampling_loss(torch.tensor([[1.7e19]] * 2), torch.tensor([[-1.7e19]] * 2), torch.zeros(2, 1, 1))
    assert float(loss) == pytest.approx(1.7e19 * 1.7e19, rel=1e-6)
    with pytest.raises(ValueError, match=r"empty batch"):
        negative_sampling_loss(torch.zeros(0, 2), torch.zeros(0, 2), torch.zeros(0, 1, 2))


def test_negative_sampling_gradient_matches_the_analytic_form():
    v = torch.tensor([[0.3, -0.2]], dtype=torch.float64, requires_grad=True)
    u = torch.tensor([[0.5, 0.4]], dtype=torch.float64)
    n = torch.tensor([[[0.1, 0.7], [-0.6, 0.2]]], dtype=torch.float64)
    negative_sampling_loss(v, u, n).backward()
    s = lambda x: 1 / (1 + math.exp(-x))
    vv = v.detach().numpy()[0]
    grad = -(1 - s(u[0].numpy() @ vv)) * u[0].numpy()
    for row in n[0].numpy():
        grad = grad + s(row @ vv) * row
    np.testing.assert_allclose(v.grad.numpy()[0], grad, rtol=1e-12)


def test_negative_sampling_loss_rejects_bad_shapes():
    with pytest.raises(ValueError, match=r"negatives must be \(B, K, D\)"):
        negative_sampling_loss(torch.zeros(2, 3), torch.zeros(2, 3), torch.zeros(2, 3))
    with pytest.raises(ValueError, match="mask must have shape"):
        negative_sampling_loss(torch.zeros(2, 3), torch.zeros(2, 3), torch.zeros(2, 4, 3), torch.ones(2, 3))
    with pytest.raises(ValueError, match=r"centre and positive must both be \(B, D\)"):
        negative_sampling_loss(torch.zeros(2, 3), torch.zeros(2, 2), torch.zeros(2, 1, 3))


# --- negatives -------------------------------------------------------------------------------------------


def test_negatives_follow_the_noise_distribution():
    noise = noise_distribution([1, 8, 27, 64])
    positives = torch.zeros(20000, dtype=torch.long)
    draws, keep = sample_negatives(positives, noise, 5, generator=torch.Generator().manual_seed(0), policy="allow")
    freq = np.bincount(draws.numpy().ravel(), minlength=4) / draws.numel()
    sd = np.sqrt(noise * (1 - noise) / draws.numel())
    assert np.all(np.abs(freq - noise) < 4 * sd)
    assert keep.all()


def test_negative_policies_on_draws_equal_to_the_positive():
    noise = np.array([0.5, 0.5])
    positives = torch.tensor([0, 1] * 500)
    gen = lambda: torch.Generator().manual_seed(4)
    allow, keep_a = sample_negatives(positives, noise, 3, generator=gen(), policy="allow")
    masked, keep_m = sample_negatives(positives, noise, 3, generator=gen(), policy="mask")
    torch.testing.assert_close(allow, masked)  # the same draws
    same = allow == positives[:, None]
    assert same.any() and keep_a.all()
    assert torch.equal(keep_m, ~same)
    resampled, keep_r = sample_negatives(positives, noise, 3, generator=gen(), policy="resample")
    assert not (resampled == positives[:, None]).any() and keep_r.all()
    with pytest.raises(ValueError, match="impossible"):
        sample_negatives(torch.tensor([0]), np.array([1.0, 0.0]), 2, generator=gen(), policy="resample")


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(k=0), r"k \(negatives per positive\) must be an integer in \[1, 268435456\]"),
        (dict(policy="skip"), "policy must be one of"),
        (dict(noise=np.array([0.5, 0.6])), "probability vector"),
        (dict(positives=torch.tensor([2])), "positive id 2 out of range"),
    ],
)
def test_sample_negatives_rejects_bad_input(kwargs, match):
    args = dict(positives=torch.tensor([0]), noise=np.array([0.5, 0.5]), k=2, policy="mask")
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        sample_negatives(args["positives"], args["noise"], args["k"], generator=torch.Generator(), policy=args["policy"])


# --- the trainer with negative sampling ---------------------------------------------------------------


@pytest.mark.slow
def test_negative_sampling_training_is_deterministic_and_learns(vocab):
    corpus = animal_vehicle_corpus()
    a = skipgram_embedding(corpus, vocab, objective="negative_sampling", negatives=3, steps=120)
    b = skipgram_embedding(corpus, vocab, objective="negative_sampling", negatives=3, steps=120)
    np.testing.assert_array_equal(a.input_vectors, b.input_vectors)
    assert a.losses[-20:].mean() < 0.5 * a.losses[:5].mean()
    p = a.provenance
    assert (p.negatives, p.negative_policy) == (3, "masked out (as word2vec.c and gensim)")
    assert p.noise_distribution == "unigram^0.75 of the corpus counts"
    c = skipgram_embedding(corpus, vocab, objective="negative_sampling", negatives=3, steps=120, seed=18)
    assert not np.array_equal(a.input_vectors, c.input_vectors)


def test_subsampling_and_window_reach_the_provenance(vocab):
    res = skipgram_embedding(animal_vehicle_corpus(), vocab, window=1, subsample_t=0.05, steps=2)
    assert res.provenance.context == "±1 positions within the sentence"
    assert res.provenance.subsampling.startswith("τ = 0.05, keep min(1, sqrt(τ/f))")
    assert res.provenance.n_pairs < 52  # 13 sentences x 4 window-1 pairs, fewer after subsampling


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(objective="hierarchical_softmax"), "objective must be one of"),
        (dict(dim=0), "dim must be an integer in \\[1, 268435456\\]"),
        (dict(steps=0), "steps must be an integer in \\[1, 268435456\\]"),
        (dict(lr=float("nan")), r"lr must be a finite number in \(0, 1e\+37\]"),
        (dict(lr=-1.0), r"lr must be a finite number in \(0, 1e\+37\]"),
        (dict(lr=1e38), r"^lr must be a finite number in \(0, 1e\+37\] \(Adam's first step, lr / \(1 - beta1\) = 10 lr, "
                        r"must fit in float32\), got 1e\+38$"),
        (dict(lr=1e300, objective="negative_sampling"), r"lr must be a finite number in \(0, 1e\+37\]"),
        (dict(seed=-3), "seed must be an integer >= 0"),
        (dict(objective="negative_sampling", negative_policy="drop"), "negative_policy must be one of"),
        (dict(objective="negative_sampling", noise=np.ones(3) / 3), r"noise must have shape \(4,\)"),
    ],
)
def test_train_skipgram_rejects_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        train_skipgram(np.array([[0, 1], [1, 0]]), 4, **kwargs)


def test_train_skipgram_rejects_bad_pairs():
    with pytest.raises(ValueError, match="pair id 4 out of range for vocabulary of 4"):
        train_skipgram(np.array([[0, 4]]), 4)
    with pytest.raises(ValueError, match=r"shape \(n, 2\)"):
        train_skipgram(np.array([0, 1]), 4)
    with pytest.raises(ValueError, match="must not be empty"):
        train_skipgram(np.zeros((0, 2), dtype=int), 4)


# --- batches -----------------------------------------------------------------------------------------------


def test_pair_batches_cover_every_pair_once_and_are_seeded():
    pairs = np.stack([np.arange(10), np.arange(10)[::-1]], axis=1)
    batches = list(pair_batches(pairs, 4, seed=3))
    assert [len(c) for c, _ in batches] == [4, 4, 2]
    seen = torch.cat([torch.stack([c, x], 1) for c, x in batches]).numpy()
    assert sorted(map(tuple, seen.tolist())) == sorted(map(tuple, pairs.tolist()))
    again = list(pair_batches(pairs, 4, seed=3))
    assert all(torch.equal(a[0], b[0]) for a, b in zip(batches, again))
    assert [len(c) for c, _ in pair_batches(pairs, 4, drop_last=True)] == [4, 4]
    ordered = list(pair_batches(pairs, 5, shuffle=False))
    assert ordered[0][0].tolist() == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError, match="batch_size must be an integer in \\[1, 268435456\\]"):
        list(pair_batches(pairs, 0))
    with pytest.raises(ValueError, match=">= 0"):
        list(pair_batches(np.array([[0, -1]]), 1))


def test_noise_distribution_is_stable_for_tiny_and_huge_counts():
    np.testing.assert_allclose(noise_distribution([1e-200, 1e-200], 2), [0.5, 0.5])
    np.testing.assert_allclose(noise_distribution([1e308, 1e308], 2), [0.5, 0.5])
    np.testing.assert_allclose(noise_distribution([1e-300, 1.0], 0.75), [0.0, 1.0], atol=1e-200)


@pytest.mark.parametrize("objective", ["full_softmax", "negative_sampling"])
def test_divergence_is_reported_not_trained_into_nan(objective):
    with pytest.raises(FloatingPointError, match=r"diverged at step \d+ of 20"):
        train_skipgram([[0, 1], [1, 0]], 2, steps=20, lr=1e30, objective=objective)
    with pytest.raises(FloatingPointError, match=r"diverged at step \d+ of 20"):  # the largest lr allowed
        train_skipgram([[0, 1], [1, 0]], 2, steps=20, lr=1e37, objective=objective)


@pytest.mark.parametrize("bad", ["no", 1, None])
def test_pair_batches_flags_must_be_true_or_false(bad):
    pairs = np.array([[0, 1], [1, 0], [1, 2]])
    for name in ("shuffle", "drop_last"):
        with pytest.raises(TypeError) as info:
            next(pair_batches(pairs, 2, **{name: bad}))
        assert str(info.value) == f"{name} must be True or False, got {bad!r}"


def test_noise_and_counts_that_are_not_real_numbers_are_type_errors():
    with pytest.raises(TypeError) as info:  # was NumPy's "could not convert string to float"
        sample_negatives(torch.tensor([0, 1]), ["a", "b"], 2, generator=torch.Generator().manual_seed(0))
    assert str(info.value) == "noise must hold real numbers, got dtype <U1"
    with pytest.raises(TypeError) as info:
        noise_distribution(np.array([1, 2], dtype="m8[s]"))  # a time span is not a count
    assert str(info.value) == "counts must hold real numbers, got dtype timedelta64[s]"
    with pytest.raises(TypeError) as info:
        next(pair_batches(np.array([[0, 1]], dtype="m8[s]"), 1))
    assert str(info.value) == "pairs must be integers, got dtype timedelta64[s]"


def test_arguments_that_are_not_tensors_are_named():
    from lib import skipgram

    g, noise = torch.Generator().manual_seed(0), np.full(4, 0.25)
    with pytest.raises(TypeError, match=r"^positives must be a torch.Tensor \(B,\), got list$"):
        skipgram.sample_negatives([0, 1], noise, 2, generator=g)  # was AttributeError: no attribute 'detach'
    with pytest.raises(TypeError, match="^generator must be a torch.Generator, got int$"):
        skipgram.sample_negatives(torch.tensor([0, 1]), noise, 2, generator=0)
    with pytest.raises(TypeError, match=r"^logits must be a torch.Tensor \(B, V\), got ndarray$"):
        skipgram.softmax_cross_entropy(np.zeros((2, 3)), torch.tensor([0, 1]))
    with pytest.raises(TypeError, match=r"^targets must be a torch.Tensor \(B,\), got list$"):
        skipgram.softmax_cross_entropy(torch.zeros((2, 3)), [0, 1])
    with pytest.raises(TypeError, match=r"^centre must be a torch.Tensor \(B, D\), got list$"):
        skipgram.negative_sampling_loss([0.0], torch.zeros(1, 1), torch.zeros(1, 1, 1))
    with pytest.raises(TypeError, match=r"^mask must be a torch.Tensor \(B, K\), got list$"):
        skipgram.negative_sampling_loss(torch.zeros(1, 1), torch.zeros(1, 1), torch.zeros(1, 1, 1), mask=[[True]])


def test_ragged_or_bool_counts_and_pairs_are_refused_by_name():
    # were NumPy's "inhomogeneous shape" and, for bools, counts of 1 and 0
    with pytest.raises(ValueError, match=r"^counts must be a non-empty 1-D array, got rows of different lengths$"):
        noise_distribution([[1, 2], [3]])
    with pytest.raises(TypeError, match=r"^counts must hold real numbers, got dtype bool$"):
        noise_distribution(np.array([True, False]))
    with pytest.raises(ValueError, match=r"^pairs must be an \(n, 2\) array of \(centre, context\) ids, got rows of "):
        next(pair_batches([[0, 1], [2]], 1))
    with pytest.raises(TypeError, match=r"^pairs must be integers, got dtype bool$"):
        next(pair_batches(np.array([[True, False]]), 1))
    with pytest.raises(ValueError, match=r"^pairs must be < 2\*\*63"):  # was wrapped around to a negative id
        next(pair_batches(np.array([[0, 2**64 - 1]], dtype=np.uint64), 1, shuffle=False))
    # a tensor of counts that requires grad is read as its values: [1, 8, 27, 64]^0.75 normalised
    np.testing.assert_allclose(noise_distribution(torch.tensor([1.0, 8.0, 27.0, 64.0], requires_grad=True)),
                               [0.0249, 0.1182, 0.2944, 0.5625], atol=5e-5)


def test_noise_distribution_reads_python_integers_beyond_int64_as_counts():
    # [10**30, 1] at power 0.75: weights 1e22.5 and 1, so P = [1, 10**-22.5] / (1 + 10**-22.5)
    np.testing.assert_allclose(noise_distribution([10**30, 1]), [1.0, 10**-22.5], rtol=1e-14)
    np.testing.assert_allclose(noise_distribution([10**30, 10**30], 1.0), [0.5, 0.5], rtol=0)
    with pytest.raises(ValueError, match=r"^counts holds an integer of 401 digits, beyond the float64 range"):
        noise_distribution([10**400, 1])
