"""Bigram models: counts, the full table, the factored bigram's gradients (against torch autograd and finite
differences), the counts-versus-pairs equivalence, divergence detection and the width sweep."""

import math
import warnings

import numpy as np
import pytest
import torch
from scipy.special import log_softmax as scipy_log_softmax

from lib import bigram as bg
from lib import toylang as tl


def random_counts(V=7, seed=0, high=20):
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, high, size=(V, V))
    counts[2] = 0  # a token never seen as a previous token
    return counts


# --- counts and the full table ----------------------------------------------------------------------


def test_bigram_counts_by_hand():
    counts = bg.bigram_counts([0, 1, 0, 1, 2], 3)
    expected = np.array([[0, 2, 0], [1, 0, 1], [0, 0, 0]])
    np.testing.assert_array_equal(counts, expected)
    assert counts.dtype == np.int64
    x, y = bg.pairs([0, 1, 0, 1, 2], 3)
    np.testing.assert_array_equal(x, [0, 1, 0, 1])
    np.testing.assert_array_equal(y, [1, 0, 1, 2])


def test_count_table_is_maximum_likelihood_and_smooths():
    counts = np.array([[0, 2, 0], [1, 0, 1], [0, 0, 0]])
    np.testing.assert_allclose(bg.count_table(counts), [[0, 1, 0], [0.5, 0, 0.5], [1 / 3] * 3])
    np.testing.assert_allclose(bg.count_table(counts, alpha=1.0), [[0.2, 0.6, 0.2], [0.4, 0.2, 0.4], [1 / 3] * 3])


def test_table_loss_by_hand():
    counts = np.array([[0, 2, 0], [1, 0, 1], [0, 0, 0]])
    # pairs: 0->1 twice (p = 1), 1->0 (p = 0.5), 1->2 (p = 0.5): loss = 2 ln 2 / 4
    assert bg.table_loss(bg.count_table(counts), counts) == pytest.approx(np.log(2) / 2, abs=1e-15)


@pytest.mark.parametrize("probs, row, total", [
    (np.ones((2, 2)), 0, "2.0"),  # the attacker's table (issue 15): it gave a loss of -0.0
    ([[1e-3, 1e-3], [1e-3, 1e-3]], 0, "0.002"),
    ([[0.5, 0.5], [0.9, 0.9]], 1, "1.8"),
    ([[0.5, 0.5], [0.5, 0.5 - 2e-6]], 1, r"0\.99999(8|79)"),  # 2e-6 short of 1, beyond the tolerance
])
def test_table_loss_refuses_rows_that_are_not_distributions(probs, row, total):
    with pytest.raises(ValueError, match=rf"rows each sum to 1 \(within 1e-06\): row {row} sums to {total}"):
        bg.table_loss(probs, [[1, 1], [2, 0]])


def test_table_loss_accepts_rows_within_the_tolerance_and_a_zero_loss_is_plus_zero():
    # a row 5e-7 away from 1 is within ROW_SUM_TOL; loss 2·(−ln(0.5 + 5e-7)) / 2 by hand
    assert bg.table_loss([[0.5, 0.5 + 5e-7], [1.0, 0.0]], [[0, 2], [0, 0]]) == pytest.approx(
        -math.log(0.5 + 5e-7), rel=1e-15)
    loss = bg.table_loss([[0.0, 1.0], [1.0, 0.0]], [[0, 3], [2, 0]])  # every counted pair certain
    assert loss == 0.0 and math.copysign(1.0, loss) == 1.0


def test_table_loss_refuses_an_infinite_loss():
    probs = bg.count_table(np.array([[0, 2], [1, 1]]))
    with pytest.raises(ValueError, match=r"pair \(0, 0\) occurs 3 times but has probability 0"):
        bg.table_loss(probs, np.array([[3, 0], [0, 0]]))


def test_full_table_training_loss_is_the_empirical_conditional_entropy():
    counts = random_counts()
    joint = counts / counts.sum()
    rows = joint.sum(axis=1)
    h = -sum(joint[i, j] * np.log(joint[i, j] / rows[i]) for i in range(7) for j in range(7) if joint[i, j] > 0)
    assert bg.table_loss(bg.count_table(counts), counts) == pytest.approx(h, abs=1e-12)


# --- softmax ---------------------------------------------------------------------------------------


def test_log_softmax_matches_scipy_and_is_stable():
    z = np.array([[1000.0, 0.0, -1000.0], [1.0, 2.0, 3.0]])
    np.testing.assert_allclose(bg.log_softmax(z), scipy_log_softmax(z, axis=-1), rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(bg.softmax(z).sum(axis=1), 1.0, rtol=0, atol=1e-15)


def test_num_parameters_matches_the_lesson():
    assert bg.num_parameters(34, 8) == 544
    assert bg.num_parameters(34, 1) == 68
    assert bg.num_parameters(34, 34) == 2312


# --- gradients ----------------------------------------------------------------------------------------


def torch_loss_on_pairs(E, U, x, y):
    Et = torch.tensor(E, requires_grad=True)
    Ut = torch.tensor(U, requires_grad=True)
    loss = torch.nn.functional.cross_entropy(Et[torch.tensor(x)] @ Ut, torch.tensor(y))
    loss.backward()
    return loss.item(), Et.grad.numpy(), Ut.grad.numpy()


def test_pair_gradients_match_torch_autograd():
    V, d = 9, 4
    rng = np.random.default_rng(1)
    E, U = rng.standard_normal((V, d)), rng.standard_normal((d, V))
    x, y = rng.integers(0, V, 200), rng.integers(0, V, 200)
    ours = bg.pairs_loss_and_grads(E, U, x, y)
    ref = torch_loss_on_pairs(E, U, x, y)
    assert ours[0] == pytest.approx(ref[0], rel=1e-12)
    np.testing.assert_allclose(ours[1], ref[1], rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(ours[2], ref[2], rtol=1e-10, atol=1e-14)


def test_count_gradients_match_torch_autograd_on_the_toy_corpus():
    ids = tl.make_corpus(n_sentences=300).train
    x, y = bg.pairs(ids, tl.V)
    E, U = bg.init_params(tl.V, 3, seed=5, scale=1.0)
    ours = bg.factored_loss_and_grads(E, U, bg.bigram_counts(ids, tl.V))
    ref = torch_loss_on_pairs(E, U, x, y)
    assert ours[0] == pytest.approx(ref[0], rel=1e-12)
    np.testing.assert_allclose(ours[1], ref[1], rtol=1e-9, atol=1e-14)
    np.testing.assert_allclose(ours[2], ref[2], rtol=1e-9, atol=1e-14)


def test_gradients_match_central_finite_differences():
    counts = random_counts()
    E, U = bg.init_params(7, 3, seed=2, scale=1.0)
    _, dE, dU = bg.factored_loss_and_grads(E, U, counts)
    h = 1e-6
    for param, grad in ((E, dE), (U, dU)):
        numeric = np.zeros_like(param)
        for idx in np.ndindex(param.shape):
            old = param[idx]
            param[idx] = old + h
            up = bg.factored_loss(E, U, counts)
            param[idx] = old - h
            down = bg.factored_loss(E, U, counts)
            param[idx] = old
            numeric[idx] = (up - down) / (2 * h)
        np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-9)
    # the row of a token never seen as a previous token gets no gradient (np.add.at touches used rows only)
    np.testing.assert_array_equal(dE[2], 0.0)


# --- counts versus pairs -------------------------------------------------------------------------------


def test_loss_and_gradients_on_counts_equal_those_on_pairs_for_the_full_corpus():
    corpus = tl.make_corpus()
    x, y = bg.pairs(corpus.train, tl.V)
    E, U = bg.init_params(tl.V, 8, seed=0, scale=1.0)
    by_counts = bg.factored_loss_and_grads(E, U, bg.bigram_counts(corpus.train, tl.V))
    by_pairs = bg.pairs_loss_and_grads(E, U, x, y)
    assert by_counts[0] == pytest.approx(by_pairs[0], rel=1e-12)
    np.testing.assert_allclose(by_counts[1], by_pairs[1], rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(by_counts[2], by_pairs[2], rtol=1e-9, atol=1e-15)


@pytest.mark.slow
def test_training_on_counts_equals_training_on_pairs():
    ids = tl.make_corpus(n_sentences=400).train
    x, y = bg.pairs(ids, tl.V)
    a = bg.train_factored(bg.bigram_counts(ids, tl.V), 4, steps=300, lr=3.0, seed=1)
    b = bg.train_factored_pairs(x, y, tl.V, 4, steps=300, lr=3.0, seed=1)
    assert not a.diverged and not b.diverged
    np.testing.assert_allclose(a.losses, b.losses, rtol=1e-10)
    # The two sum the same terms in a different order, so they differ by rounding (1e-16 per step). Over
    # 300 steps that grows to about 1e-7 in single weights and logits (entries of order 1 to 12), mostly
    # along directions the loss hardly sees (the losses agree to 1e-10 above).
    np.testing.assert_allclose(a.E @ a.U, b.E @ b.U, rtol=0, atol=1e-6)
    np.testing.assert_allclose(a.E, b.E, rtol=0, atol=1e-6)
    np.testing.assert_allclose(a.U, b.U, rtol=0, atol=1e-6)
    assert np.abs(a.U).max() > 1.0  # the weights did move far from their N(0, 0.1²) start


# --- training -------------------------------------------------------------------------------------------


def test_training_reaches_the_full_table_on_a_small_vocabulary():
    counts = random_counts(V=5, seed=3)
    counts[counts == 0] = 1  # no zero probabilities: the optimum is finite
    run = bg.train_factored(counts, 5, steps=4000, lr=1.0, seed=0)
    assert not run.diverged
    assert run.losses.shape == (4001,)
    assert run.final_loss == pytest.approx(bg.table_loss(bg.count_table(counts), counts), abs=1e-4)
    assert run.final_loss < run.losses[0]


@pytest.mark.slow
def test_sharpness_is_the_top_eigenvalue_of_torch_autograd_hessian():
    counts = bg.bigram_counts(tl.make_corpus(n_sentences=300).train, tl.V)
    E, U = bg.init_params(tl.V, 2, seed=3, scale=0.5)
    V, d = E.shape
    c = torch.as_tensor(counts, dtype=torch.float64)

    def loss(x):
        logp = torch.log_softmax(x[: V * d].reshape(V, d) @ x[V * d :].reshape(d, V), dim=1)
        return -(c * logp).sum() / c.sum()

    x = torch.as_tensor(np.concatenate([E.ravel(), U.ravel()]))
    reference = torch.linalg.eigvalsh(torch.autograd.functional.hessian(loss, x))[-1].item()
    assert bg.sharpness(E, U, counts) == pytest.approx(reference, rel=1e-6)
    for step in (0.0, 1e-12, 0.5, 1e300):  # no step or one that rounding swamps; one far beyond the point
        with pytest.raises(ValueError, match=r"^step must be a finite number in \[1e-10, 0.1\] \(the relative step"):
            bg.sharpness(E, U, counts, step=step)
    with pytest.raises(TypeError, match=r"^step must be a finite number in \[1e-10, 0.1\]"):
        bg.sharpness(E, U, counts, step="1e-5")
    # both ends of the range are allowed and measure the same curvature (a quadratic model of the loss)
    assert bg.sharpness(E, U, counts, step=1e-10) == pytest.approx(reference, rel=1e-3)
    assert bg.sharpness(E, U, counts, step=0.1) == pytest.approx(reference, rel=0.05)


def test_initialisation_is_seeded_and_scaled():
    E, U = bg.init_params(34, 8, seed=0)
    rng = np.random.default_rng(0)
    np.testing.assert_array_equal(E, rng.standard_normal((34, 8)) * 0.1)
    np.testing.assert_array_equal(U, rng.standard_normal((8, 34)) * 0.1)


def test_divergence_is_detected_and_reported_not_returned_as_nan():
    counts = bg.bigram_counts(tl.make_corpus(n_sentences=500).train, tl.V)
    run = bg.train_factored(counts, 2, steps=3000, lr=200.0, seed=0)
    assert run.diverged
    assert 0 < run.diverged_at < 3000
    assert run.losses.shape == (run.diverged_at + 1,)
    assert run.losses[-1] > 10 * np.log(tl.V) or not np.isfinite(run.losses[-1])
    assert np.all(np.isfinite(run.losses[:-1]))
    assert np.all(np.isfinite(run.E)) and np.all(np.isfinite(run.U))
    assert run.message == ("width 2 diverged with lr 200: the loss passed 10 × ln 34 = 35.26 nats within 3,000 steps "
                           "(the learning rate is too large for this width)")


def test_width_sweep_retrains_a_diverged_width_and_fails_loudly_if_retraining_fails_too():
    corpus = tl.make_corpus(n_sentences=500)
    tc, vc = bg.bigram_counts(corpus.train, tl.V), bg.bigram_counts(corpus.val, tl.V)
    rows = bg.width_sweep(tc, vc, [2], steps=200, lr=200.0, fallback_steps=300, fallback_lr=1.0)
    (row,) = rows
    assert row.retrained and "diverged" in row.first_attempt and row.diverged_run.lr == 200.0
    assert (row.lr, row.steps, row.parameters) == (1.0, 300, 136)
    assert row.train_loss == pytest.approx(row.result.final_loss, abs=1e-12)
    assert row.val_loss == pytest.approx(bg.factored_loss(row.result.E, row.result.U, vc), abs=1e-12)
    with pytest.raises(RuntimeError, match="retraining also failed"):
        bg.width_sweep(tc, vc, [2], steps=200, lr=200.0, fallback_steps=300, fallback_lr=150.0)


# --- errors -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("counts, error, message", [
    (np.zeros((3, 4)), ValueError, "square"),
    (np.zeros((3, 3)), ValueError, "all zero"),
    (-np.ones((3, 3)), ValueError, ">= 0"),
    (np.full((2, 2), np.nan), ValueError, "finite"),
    (np.array([["a", "b"], ["c", "d"]]), TypeError, "must hold real numbers, got dtype <U1"),
])
def test_bad_counts_are_rejected(counts, error, message):
    with pytest.raises(error, match=message):
        bg.count_table(counts)


def test_bad_training_arguments_are_rejected():
    counts = random_counts()
    with pytest.raises(ValueError, match="width d must be an integer in \\[1, 268435456\\]"):
        bg.train_factored(counts, 0)
    with pytest.raises(ValueError, match="lr must be a finite number > 0"):
        bg.train_factored(counts, 2, lr=0.0)
    with pytest.raises(TypeError, match="lr must be a finite number > 0"):
        bg.train_factored(counts, 2, lr="10")
    with pytest.raises(ValueError, match="steps must be an integer in \\[0, 268435456\\]"):
        bg.train_factored(counts, 2, steps=-1)
    with pytest.raises(ValueError, match="alpha must be a finite number >= 0"):
        bg.count_table(counts, alpha=-1)
    with pytest.raises(TypeError, match="alpha must be a finite number >= 0"):
        bg.count_table(counts, alpha="1")
    with pytest.raises(ValueError, match="widths must name at least one width"):
        bg.width_sweep(counts, counts, [])


def test_bad_ids_and_shapes_are_rejected():
    E, U = bg.init_params(5, 2)
    with pytest.raises(ValueError, match="token id 5 out of range for vocabulary of 5"):
        bg.pairs_loss_and_grads(E, U, [0, 5], [1, 2])
    with pytest.raises(ValueError, match="token id -1 out of range"):
        bg.bigram_counts([0, -1, 2], 5)
    with pytest.raises(ValueError, match="at least 2 ids"):
        bg.bigram_counts([3], 5)
    with pytest.raises(ValueError, match=r"E must be \(V, d\) and U \(d, V\)"):
        bg.factored_loss(E, U.T, np.ones((5, 5)))
    with pytest.raises(ValueError, match="counts are for 5 tokens but E has 4 rows"):
        bg.factored_loss(E[:4], U[:, :4], np.ones((5, 5)))


def test_parameters_and_probabilities_must_be_finite_real_numbers():
    counts = np.array([[1, 2], [3, 0]])
    E, U = np.ones((2, 3)), np.ones((3, 2))
    for bad_E, bad_U, kind, message in [
        (np.full((2, 3), np.nan), U, ValueError, "E contains NaN or infinity"),  # the loss was NaN
        (E, np.full((3, 2), np.inf), ValueError, "U contains NaN or infinity"),
        ([["a"] * 3] * 2, U, TypeError, "E must hold real numbers, got dtype <U1"),  # NumPy's conversion error
    ]:
        for call in (lambda: bg.factored_loss_and_grads(bad_E, bad_U, counts),
                     lambda: bg.pairs_loss_and_grads(bad_E, bad_U, [0, 1], [1, 0])):
            with pytest.raises(kind) as info:
                call()
            assert str(info.value) == message
    with pytest.raises(TypeError) as info:
        bg.table_loss([["0.5", "0.5"], ["1", "0"]], counts)
    assert str(info.value) == "probs must hold real numbers, got dtype <U3"
    with pytest.raises(TypeError) as info:
        bg.check_counts(np.ones((2, 2), dtype="m8[s]"))  # NumPy counts a time span as an integer
    assert str(info.value) == "counts must hold real numbers, got dtype timedelta64[s]"


def test_softmax_refuses_bad_logits_by_name():
    for bad, kind, match in [
        (None, TypeError, "^logits must hold real numbers, got dtype object$"),  # was nan
        ([np.nan, 1.0], ValueError, "^logits contains NaN or infinity$"),  # was [nan, nan]
        ([np.inf, 1.0], ValueError, "^logits contains NaN or infinity$"),  # was [nan, nan] and a warning
        ([], ValueError, r"^logits must have shape \(..., V\) with V >= 1, got \(0,\)$"),  # was NumPy's
        ([10**400, 1], ValueError, r"^logits holds an integer of 401 digits, beyond the float64 range \(about 1.8e308\)$"),  # was OverflowError
        ([1.7e308, -1.7e308], ValueError, "^logits of one row differ by more than float64's range"),
    ]:
        for f in (bg.softmax, bg.log_softmax):
            with pytest.raises(kind, match=match):
                f(bad)
    assert bg.softmax([1.7e308, 1.6e308]).tolist() == [1.0, 0.0]  # far apart, but within range


def test_count_table_with_a_huge_alpha_is_uniform_not_zero():
    counts = [[0, 2, 1], [1, 0, 3], [2, 1, 0]]
    table = bg.count_table(counts, 1e308)  # the row sums overflowed: every entry was 0, with a warning
    np.testing.assert_allclose(table, np.full((3, 3), 1 / 3), rtol=1e-15)
    # (C + a) / (n + 3a) for a = 1e300: 1/3 to float64, each row summing to 1
    np.testing.assert_allclose(bg.count_table(counts, 1e300).sum(axis=1), 1.0, rtol=1e-15)
    np.testing.assert_array_equal(bg.count_table(counts, 1.0)[0], [1 / 6, 3 / 6, 2 / 6])  # the usual path


def test_ragged_bool_or_tensor_counts():
    with pytest.raises(ValueError, match=r"^counts must be a square \(V, V\) matrix, got rows of different lengths$"):
        bg.check_counts([[1, 2], [3]])  # was NumPy's "inhomogeneous shape"
    with pytest.raises(TypeError, match=r"^counts must hold real numbers, got a bool among them"):
        bg.check_counts([[1, True], [0, 2]])  # was read as [[1, 1], [0, 2]]
    with pytest.raises(TypeError, match=r"^counts must hold real numbers, got dtype bool$"):
        bg.check_counts(np.eye(2, dtype=bool))
    np.testing.assert_array_equal(bg.check_counts(torch.tensor([[0.0, 2.0], [1.0, 1.0]], requires_grad=True)),
                                  [[0.0, 2.0], [1.0, 1.0]])


# --- counts and parameters at the edges of float64 ---------------------------------------------------------


def test_losses_read_counts_of_any_size_exactly():
    # a uniform model (zero parameters, or the table of halves) scores log 2 whatever the scale of the counts
    zeros_E, zeros_U, halves = np.zeros((2, 1)), np.zeros((1, 2)), np.full((2, 2), 0.5)
    for counts in ([[1.7e308, 1.7e308], [1.0, 1.0]], [[5e-324, 5e-324], [0.0, 0.0]], [[1e-320, 1e-320], [0, 0]]):
        counts = np.array(counts)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert bg.factored_loss(zeros_E, zeros_U, counts) == math.log(2)
            assert bg.table_loss(halves, counts) == math.log(2)
            loss, dE, dU = bg.factored_loss_and_grads(zeros_E, zeros_U, counts)
        assert loss == math.log(2) and not dE.any()
        np.testing.assert_array_equal(dU, np.zeros((1, 2)))  # E = 0: no gradient for U
    # the scale cancels exactly: counts times 2**-1000 give the same loss and gradients, bit for bit
    E, U = bg.init_params(3, 2, seed=1)
    C = np.array([[0, 2, 1], [3, 0, 1], [1, 1, 0]], dtype=float)
    for a, b in zip(bg.factored_loss_and_grads(E, U, C), bg.factored_loss_and_grads(E, U, C * 2.0**-1000)):
        np.testing.assert_array_equal(a, b)
    assert bg.table_loss(bg.count_table(C), C * 2.0**900) == bg.table_loss(bg.count_table(C), C)
    assert bg.train_factored(np.array([[1.7e308, 1.7e308], [1.0, 1.0]]), 1, steps=2).diverged_at is None


def test_logits_beyond_float64_are_a_clear_error():
    C = np.array([[1, 2], [3, 4]])
    big_E, big_U = np.full((2, 1), 1e200), np.full((1, 2), 1e200)
    for f in (lambda: bg.factored_loss(big_E, big_U, C), lambda: bg.factored_loss_and_grads(big_E, big_U, C),
              lambda: bg.pairs_loss_and_grads(big_E, big_U, np.array([0, 1]), np.array([1, 0]))):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(ValueError, match=r"^the logits E\[x\] @ U are beyond float64's range"):
                f()
    # finite logits +-1e308 in one row: a log-probability of -2e308
    E, U = np.array([[1e154], [1e154]]), np.array([[1e154, -1e154]])
    with pytest.raises(ValueError, match="^the logits E\\[x\\] @ U of one row differ by more than float64's range"):
        bg.factored_loss(E, U, C)
    with pytest.raises(ValueError, match="^the logits E\\[x\\] @ U of one row differ by more than float64's range"):
        bg.pairs_loss_and_grads(E, U, np.array([0]), np.array([1]))
    # logits (1.7, 1.7, -1.7) whose gradient is not finite: dE[0] = 1.7e308 (dZ0 + dZ1 - dZ2) = 1.7e308 * 1.9...
    with pytest.raises(ValueError, match="^the loss or its gradients are beyond float64's range"):
        bg.factored_loss_and_grads(np.full((3, 1), 1e-308), np.array([[1.7e308, 1.7e308, -1.7e308]]),
                                   np.array([[0, 0, 5], [0, 0, 0], [0, 0, 0]]))
