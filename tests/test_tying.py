"""Tests for lib.tying: parameter counts with and without the tie, the tied gradient against an untied
twin (torch autograd), the counts loss against cross-entropy over raw pairs, and training on the toy
language."""

import re


import math

import numpy as np
import pytest
import torch

from lib.bigram import bigram_counts
from lib.toylang import V as TOY_V
from lib.toylang import bigram_entropy, make_corpus
from lib.tying import (
    VARIANTS,
    TinyLM,
    counts_loss,
    expected_parameters,
    num_parameters,
    score_asymmetry,
    train,
)


def toy_counts(corpus=None):
    corpus = make_corpus() if corpus is None else corpus
    return bigram_counts(corpus.train, TOY_V), bigram_counts(corpus.val, TOY_V)


@pytest.mark.parametrize("d", [1, 3, 8])
@pytest.mark.parametrize("variant", VARIANTS)
def test_parameter_count_matches_closed_form(variant, d):
    model = TinyLM(34, d, variant)
    assert num_parameters(model) == expected_parameters(34, d, variant)


def test_tie_saves_exactly_one_table():
    V, d = 34, 8
    untied, tied = TinyLM(V, d, "untied"), TinyLM(V, d, "tied")
    assert num_parameters(untied) - num_parameters(tied) == V * d
    # 2 V d + d^2 + d + V by hand: 544 + 64 + 8 + 34
    assert num_parameters(untied) == 650
    assert tied.out.weight is tied.embed.weight
    assert untied.out.weight is not untied.embed.weight


def test_tied_gradient_is_the_sum_of_both_uses():
    V, d = 6, 3
    tied = TinyLM(V, d, "tied", seed=1)
    twin = TinyLM(V, d, "untied", seed=1)
    with torch.no_grad():  # same values, separate parameters
        twin.out.weight.copy_(tied.embed.weight)
        twin.hidden.weight.copy_(tied.hidden.weight)
        twin.hidden.bias.copy_(tied.hidden.bias)
        twin.out.bias.copy_(tied.out.bias)
    x = torch.tensor([0, 3, 3, 5, 1])
    y = torch.tensor([2, 2, 4, 0, 1])
    torch.nn.functional.cross_entropy(tied(x), y).backward()
    torch.nn.functional.cross_entropy(twin(x), y).backward()
    torch.testing.assert_close(
        tied.embed.weight.grad, twin.embed.weight.grad + twin.out.weight.grad, rtol=0, atol=1e-14
    )


def test_counts_loss_equals_cross_entropy_over_pairs():
    corpus = make_corpus(200, seed=3)
    ids = corpus.train
    counts = torch.as_tensor(bigram_counts(ids, TOY_V), dtype=torch.float64)
    model = TinyLM(TOY_V, 4, "untied", seed=2)
    x, y = torch.as_tensor(ids[:-1]), torch.as_tensor(ids[1:])
    ref = torch.nn.functional.cross_entropy(model(x), y)
    assert float(counts_loss(model, counts).detach()) == pytest.approx(float(ref.detach()), rel=1e-12)


def test_counts_loss_of_huge_counts_is_the_loss_of_their_fractions():
    model = TinyLM(3, 2, "untied", seed=1)
    counts = torch.tensor([[3.0, 1.0, 0.0], [0.0, 2.0, 5.0], [1.0, 1.0, 1.0]], dtype=torch.float64)
    small = float(counts_loss(model, counts).detach())
    # the same fractions of pairs at 2**1010 each: the total (14 * 2**1010) is beyond float64
    huge = float(counts_loss(model, counts * 2.0**1010).detach())
    assert huge == pytest.approx(small, rel=1e-15)


@pytest.mark.parametrize("counts, error, message", [
    (torch.ones(2, 2), ValueError, r"^counts must have shape \(V, V\) = \(3, 3\), the model's vocabulary, got \(2, 2\)$"),
    (torch.ones(3), ValueError, r"got \(3,\)$"),
    (np.ones((3, 3)), TypeError, r"^counts must be a torch.Tensor \(3, 3\), got ndarray$"),
    (torch.ones(3, 3, dtype=torch.complex64), TypeError, "counts must be a torch.Tensor .*of real numbers"),
    (torch.zeros(3, 3), ValueError, "counts must count at least one pair .*got all zeros"),
    (torch.full((3, 3), float("nan")), ValueError, "^counts contains NaN or infinity$"),
    (torch.tensor([[1.0, -1.0, 0.0]] * 3), ValueError, "counts must be >= 0"),
])
def test_counts_loss_refuses_bad_counts_by_name(counts, error, message):
    with pytest.raises(error, match=message):
        counts_loss(TinyLM(3, 2), counts)
    with pytest.raises(TypeError, match="^model must be a TinyLM, got Linear$"):
        counts_loss(torch.nn.Linear(3, 3), torch.ones(3, 3))


def test_untrained_loss_is_about_log_V():
    tr, va = toy_counts(make_corpus(100, seed=1))
    model = TinyLM(TOY_V, 4, "untied")
    # weights N(0, 0.01): logits near zero, so the loss is near ln 34 = 3.526
    assert float(counts_loss(model, torch.as_tensor(va, dtype=torch.float64)).detach()) == pytest.approx(
        np.log(34), abs=0.05
    )


def test_tied_without_hidden_layer_scores_symmetrically():
    assert score_asymmetry(TinyLM(34, 5, "tied_no_hidden", seed=4)) < 1e-12
    assert score_asymmetry(TinyLM(34, 5, "untied", seed=4)) > 1e-3
    with pytest.raises(TypeError, match="^model must be a TinyLM, got NoneType$"):
        score_asymmetry(None)  # was AttributeError
    assert score_asymmetry(TinyLM(34, 5, "tied", seed=4)) > 1e-3  # the hidden layer breaks the symmetry


@pytest.fixture(scope="module")
def trained():
    tr, va = toy_counts()
    return {v: train(v, 8, tr, va, steps=800) for v in VARIANTS}


@pytest.mark.slow
def test_trained_models_reach_the_floor_unless_symmetric(trained):
    floor = bigram_entropy()
    for v in ("untied", "tied"):
        assert abs(trained[v].val_loss - floor) < 0.02, (v, trained[v].val_loss, floor)
    # the symmetric model is far from it: it cannot tell i -> j from j -> i
    assert trained["tied_no_hidden"].val_loss > floor + 1.0


@pytest.mark.slow
def test_training_loss_history(trained):
    for r in trained.values():
        assert r.losses.shape == (800,)
        assert r.losses[0] == pytest.approx(np.log(34), abs=0.05)
        assert r.losses[-1] < r.losses[0]


def test_errors():
    with pytest.raises(ValueError, match="variant must be one of"):
        TinyLM(34, 4, "shared")
    with pytest.raises(ValueError, match="d \\(width\\) must be an integer in \\[1, 268435456\\]"):
        TinyLM(34, 0)
    with pytest.raises(ValueError, match="V \\(vocabulary size\\) must be an integer in \\[2, 268435456\\]"):
        expected_parameters(1, 4, "tied")
    tr = np.ones((34, 34))
    with pytest.raises(ValueError, match="val_counts must have shape"):
        train("tied", 4, tr, np.ones((3, 3)))
    with pytest.raises(ValueError, match="train_counts must be a square"):
        train("tied", 4, np.ones((3, 4)), np.ones((3, 4)))
    with pytest.raises(ValueError, match="lr must be a finite number > 0"):
        train("tied", 4, tr, tr, lr=0.0)
    with pytest.raises(ValueError, match="steps must be an integer in \\[1, 268435456\\]"):
        train("tied", 4, tr, tr, steps=0)


def test_training_restores_the_thread_count():
    before = torch.get_num_threads()
    tr = np.ones((4, 4))
    train("tied", 2, tr, tr, steps=2)
    assert torch.get_num_threads() == before


def test_counts_that_are_bools_ragged_or_text_are_refused_by_name():
    good = np.ones((4, 4))
    for bad, exc, message in [
        (np.eye(4, dtype=bool), TypeError, "train_counts must hold real numbers, got dtype bool"),  # was read as 0/1
        ([[1, 2], [3]], ValueError, "train_counts must be a square (V, V) matrix, got rows of different lengths"),
        ([["1", "2"], ["3", "4"]], TypeError, "train_counts must hold real numbers, got dtype <U1"),
    ]:
        with pytest.raises(exc, match=f"^{re.escape(message)}$"):
            train("tied", 2, bad, good, steps=1)
    with pytest.raises(TypeError, match=r"^val_counts must hold real numbers, got dtype bool$"):
        train("tied", 2, good, np.eye(4, dtype=bool), steps=1)
    # a tensor that requires grad is read as its values: the same run as from the array
    tensor = torch.ones(4, 4, dtype=torch.float64, requires_grad=True)
    assert train("tied", 2, tensor, tensor, steps=2).val_loss == train("tied", 2, good, good, steps=2).val_loss


def test_divergence_is_an_error_not_a_result():
    ones = np.ones((4, 4))
    # Adam's first step moves every parameter by about lr, so at lr = 1e308 the second step's logits (products
    # of two such parameters) overflow on any CPU and in any BLAS code path: the loss is not finite at step 2.
    # (At lr = 1e300 the outcome is float noise: MKL's AVX-512 path gives a finite 1.7e300, its other paths NaN.)
    with pytest.raises(FloatingPointError,
                       match=r"^training diverged at step 2 of 3: the loss became (nan|inf) \(learning rate 1e\+308\)"):
        train("tied", 2, ones, ones, steps=3, lr=1e308)
    # a finite loss of about 2.7e30 nats: far above 10 x the first loss (about ln 4)
    with pytest.raises(FloatingPointError, match=r"^training diverged: the final training loss is 2\.7\d*e\+30 nats"):
        train("tied", 2, ones, ones, steps=3, lr=1e30)
    # uniform counts at a sane rate: the loss stays at ln 4 to 4 decimals
    assert round(train("tied", 2, ones, ones, steps=30, lr=0.1).train_loss, 4) == round(math.log(4), 4)
