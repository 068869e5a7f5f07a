"""Tests for lib.sparse_updates: touched-row arithmetic, one real training step per method, and Adam's
drift of rows without gradient against Kingma & Ba's update written out by hand."""

import warnings

import mpmath
import numpy as np
import pytest

from lib.memory import training_footprint
from lib.sparse_updates import (
    METHODS,
    adam_untouched_step_closed_form,
    expected_touched_fraction,
    id_probabilities,
    measure_step,
    sample_ids,
    touched_fraction,
    untouched_row_drift,
)

# --- which rows a batch touches --------------------------------------------------------------------


def test_id_probabilities():
    np.testing.assert_allclose(id_probabilities(4), [0.25] * 4)
    p = id_probabilities(3, "zipf")  # 1, 1/2, 1/3 normalised by 11/6
    np.testing.assert_allclose(p, [6 / 11, 3 / 11, 2 / 11])
    p2 = id_probabilities(5, "zipf", exponent=2.0)
    assert p2[0] / p2[1] == pytest.approx(4.0)
    assert p2.sum() == pytest.approx(1.0)


def test_id_probabilities_with_a_power_beyond_float64_warn_nothing():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NumPy's "overflow encountered in power" was leaked
        assert id_probabilities(10, "zipf", 1e6).tolist() == [1.0] + [0.0] * 9  # 2**-1e6 and below: 0
        # 4**515 = 2**1030 is beyond float64, its inverse 2**-1030 a subnormal: kept, not 1/inf = 0
        p = id_probabilities(4, "zipf", 515)
    assert p[3] == 2.0**-1030 and p[3] > 0
    assert p[:3].tolist() == [1.0, 2.0**-515, 3.0**-515]


def test_expected_touched_fraction_hand_cases():
    assert expected_touched_fraction(1, 10) == 1.0
    assert expected_touched_fraction(7, 1) == pytest.approx(1 / 7)  # one draw touches one row
    assert expected_touched_fraction(2, 2) == pytest.approx(0.75)  # E[distinct] = 2 (1 - 1/4) = 1.5
    # zipf over 2 ids: p = (2/3, 1/3); E[distinct] = (1 - (1/3)^2) + (1 - (2/3)^2) = 13/9
    assert expected_touched_fraction(2, 2, "zipf") == pytest.approx(13 / 18)


def _touched_by_mpmath(V, batch, distribution, exponent=1.0):
    """Σ_i 1 − (1 − p_i) ** batch / V at 60 digits, with p_i from id_probabilities' definition."""
    with mpmath.workdps(60):
        if distribution == "uniform":
            p = [mpmath.mpf(1) / V] * V
        else:
            w = [mpmath.mpf(r) ** -mpmath.mpf(exponent) for r in range(1, V + 1)]
            p = [x / mpmath.fsum(w) for x in w]
        return float(mpmath.fsum(1 - (1 - q) ** batch for q in p) / V)


@pytest.mark.parametrize("V, batch, distribution, exponent", [
    (10, 3, "zipf", 100.0),  # p_0 rounds to 1: was a RuntimeWarning (divide by zero in log1p)
    (10, 3, "zipf", 700.0),
    (10, 3, "zipf", 1e300),
    (10, 2, "zipf", 1.0),
    (1000, 5, "zipf", 1.5),
    (10**5, 1, "uniform", 1.0),  # 1e-5: 1 - exp(...) lost about 1e-11 of it to cancellation
    (10**5, 3, "uniform", 1.0),
])
def test_expected_touched_fraction_matches_mpmath_without_a_warning(V, batch, distribution, exponent):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = expected_touched_fraction(V, batch, distribution, exponent)
    assert got == pytest.approx(_touched_by_mpmath(V, batch, distribution, exponent), rel=1e-13, abs=0)


@pytest.mark.slow
def test_expected_touched_fraction_approaches_batch_over_V():
    # batch << V: almost every draw is a new row
    assert expected_touched_fraction(10**7, 4096) == pytest.approx(4096 / 10**7, rel=1e-3)
    assert expected_touched_fraction(10**7, 4096, "zipf") < 4096 / 10**7  # repeats of frequent ids


@pytest.mark.parametrize("distribution", ["uniform", "zipf"])
def test_expected_touched_fraction_matches_monte_carlo(distribution):
    V, B = 500, 300
    measured = [touched_fraction(sample_ids(V, B, distribution=distribution, seed=s), V) for s in range(300)]
    # standard error of the mean of 300 draws is well below 0.005 here
    assert np.mean(measured) == pytest.approx(expected_touched_fraction(V, B, distribution), abs=0.005)


def test_sample_ids_range_dtype_seed_and_frequencies():
    a = sample_ids(50, 1000, seed=3)
    assert a.dtype == np.int64 and a.shape == (1000,) and a.min() >= 0 and a.max() < 50
    np.testing.assert_array_equal(a, sample_ids(50, 1000, seed=3))
    z = sample_ids(20, 200_000, distribution="zipf", seed=0)
    freq = np.bincount(z, minlength=20) / z.size
    np.testing.assert_allclose(freq, id_probabilities(20, "zipf"), atol=0.005)


def test_touched_fraction_hand_case_and_errors():
    assert touched_fraction([1, 1, 3, 3, 3], 10) == 0.2
    with pytest.raises(ValueError, match="token id 10 out of range for vocabulary of 10"):
        touched_fraction([1, 10], 10)


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: id_probabilities(0), ValueError, r"V \(vocabulary size\) must be an integer in \[1, 268435456\], got 0"),
        (lambda: id_probabilities(5, "normal"), ValueError, "distribution must be one of"),
        (lambda: id_probabilities(5, "zipf", exponent=0), ValueError, "exponent must be a finite number > 0"),
        (lambda: sample_ids(5, 0), ValueError, "batch must be an integer in \\[1, 268435456\\]"),
        (lambda: expected_touched_fraction(5.0, 3), TypeError, "V .* must be an integer"),
    ],
)
def test_touched_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


# --- one training step -----------------------------------------------------------------------------

V, d, B = 3000, 8, 64


@pytest.fixture(scope="module")
def steps():
    return {m: measure_step(m, V, d, B, steps=2, seed=0) for m in METHODS}


def test_rows_changed_by_each_method(steps):
    touched = steps["sparse_sgd"].rows_touched
    assert 0 < touched <= B
    assert all(r.rows_touched == touched for r in steps.values())  # same seed, same batches
    # only rows with a gradient move under SGD and SparseAdam...
    assert steps["sparse_sgd"].rows_changed == touched
    assert steps["dense_sgd"].rows_changed == touched
    assert steps["sparse_adam"].rows_changed == touched
    # ...but dense Adam also moves the rows of the three earlier batches (their moments are non-zero)
    assert steps["dense_adam"].rows_changed > 2 * touched
    assert steps["dense_adam"].rows_changed <= 4 * B


def test_gradient_and_state_bytes(steps):
    dense, sparse = steps["dense_adam"], steps["sparse_adam"]
    assert dense.grad_bytes == V * d * 4
    # uncoalesced sparse gradient: one float32 row and one int64 index per looked-up position
    assert sparse.grad_bytes == B * d * 4 + B * 8
    adam_state = sum(training_footprint(V, d, "fp32", "adam").optimizer_state.values())
    assert dense.state_bytes == adam_state == 2 * V * d * 4
    assert sparse.state_bytes == adam_state  # SparseAdam's moments are dense tensors too
    assert steps["sparse_sgd"].state_bytes == 0
    assert dense.table_bytes == V * d * 4


def test_timings_are_recorded(steps):
    for r in steps.values():
        assert len(r.all_seconds) == 2 and r.seconds > 0
        assert min(r.all_seconds) <= r.seconds <= max(r.all_seconds)


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (dict(method="adagrad"), ValueError, "method must be one of"),
        (dict(method="dense_adam", V=0), ValueError, r"V \(vocabulary size\) must be an integer in \[1, 268435456\], got 0"),
        (dict(method="dense_adam", steps=0), ValueError, "steps must be an integer in \\[1, 268435456\\]"),
        (dict(method="dense_adam", lr=-1.0), ValueError, "lr must be a finite number > 0"),
        (dict(method="dense_adam", d=True), TypeError, "d .* must be an integer"),
        (dict(method="dense_adam", threads=0), ValueError, r"threads must be an integer in \[1, 256\] \(threads\)"),
    ],
)
def test_measure_step_errors(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        measure_step(**kwargs)


# --- Adam and rows without gradient ----------------------------------------------------------------


def _adam_by_hand(steps, lr, b1, b2, eps, g=1.0):
    """Kingma & Ba (2015), Algorithm 1, for a scalar that gets gradient g at t = 1 and 0 afterwards."""
    m = v = 0.0
    moves = []
    for t in range(1, steps + 1):
        grad = g if t == 1 else 0.0
        m = b1 * m + (1 - b1) * grad
        v = b2 * v + (1 - b2) * grad * grad
        moves.append(lr * (m / (1 - b1**t)) / (np.sqrt(v / (1 - b2**t)) + eps))
    return np.array(moves)


@pytest.mark.parametrize("betas", [(0.9, 0.999), (0.5, 0.9)])
def test_adam_keeps_moving_a_row_without_gradient(betas):
    drift = untouched_row_drift(30, lr=0.1, betas=betas)
    # moves are differences of weights near 0.2: their rounding is about one ulp of 0.2 (~3e-17)
    np.testing.assert_allclose(drift["adam"], _adam_by_hand(30, 0.1, *betas, 1e-8), rtol=1e-10, atol=1e-15)
    assert (drift["adam"] > 0).all()


def test_sparse_adam_leaves_it_alone():
    drift = untouched_row_drift(10, lr=0.1)
    assert drift["sparse_adam"][0] == pytest.approx(0.1, rel=1e-6)  # its one step with a gradient
    assert (drift["sparse_adam"][1:] == 0).all()


def test_closed_form_second_step():
    # beta1 / (1 + beta1) / sqrt(beta2 / (1 + beta2)) = (0.9 / 1.9) / sqrt(0.999 / 1.999)
    assert adam_untouched_step_closed_form(0.1) == pytest.approx(0.1 * (0.9 / 1.9) / np.sqrt(0.999 / 1.999), rel=1e-7)
    assert adam_untouched_step_closed_form(0.1) == pytest.approx(untouched_row_drift(2, lr=0.1)["adam"][1], rel=1e-10)


def test_drift_errors():
    with pytest.raises(ValueError, match=r"steps must be an integer in \[2, 100000\] \(two optimiser steps each\), got 1"):
        untouched_row_drift(1)
    with pytest.raises(ValueError, match=r"betas\[0\] must be a finite number in \[0, 1\)"):
        untouched_row_drift(5, betas=(1.0, 0.999))
    with pytest.raises(ValueError, match="lr must be a finite number > 0"):
        adam_untouched_step_closed_form(lr=float("nan"))


def test_measure_step_restores_the_thread_count():
    import torch

    before = torch.get_num_threads()
    measure_step("sparse_sgd", 100, 4, 8, steps=1, threads=1)
    assert torch.get_num_threads() == before


@pytest.mark.parametrize("seed, error", [(-1, ValueError), (1.5, TypeError), ("0", TypeError)])
def test_sample_ids_checks_its_seed(seed, error):
    with pytest.raises(error, match=r"seed must be an integer >= 0 or a numpy.random.Generator, got"):
        sample_ids(3, 2, seed=seed)
    np.testing.assert_array_equal(sample_ids(3, 5, seed=4), np.random.default_rng(4).integers(0, 3, size=5))


def test_closed_form_checks_g_and_betas():
    # the step does not depend on the size of g (eps aside): |m_hat| / sqrt(v_hat) = (b1 / 1.9) / sqrt(b2 / 1.999)
    step = (0.9 / 1.9) / np.sqrt(0.999 / 1.999)
    assert adam_untouched_step_closed_form(lr=1.0, g=1e200) == pytest.approx(step, rel=1e-15)  # g * g overflows
    assert adam_untouched_step_closed_form(lr=1.0, g=-3.0) == pytest.approx(step * 3 / (3 + 1e-8 / np.sqrt(0.999 / 1.999)), rel=1e-15)
    for g, kind, match in [(float("nan"), ValueError, "^g must be a finite number, got nan$"),  # was nan
                           (float("inf"), ValueError, "^g must be a finite number, got inf$"),  # nan and a warning
                           ("3", TypeError, "^g must be a finite number, got '3'$"),  # a str was taken as 3.0
                           (10**400, ValueError, r"^g must be a finite number, got an integer of 401 digits")]:
        with pytest.raises(kind, match=match):
            adam_untouched_step_closed_form(g=g)
    with pytest.raises(TypeError, match=r"^betas must be a pair \(beta1, beta2\) of numbers in \[0, 1\), got 1.0$"):
        adam_untouched_step_closed_form(betas=1.0)  # was "cannot unpack non-iterable float object"
    with pytest.raises(ValueError, match=r"^betas must be a pair \(beta1, beta2\) of numbers in \[0, 1\), got \(0.9,\)$"):
        untouched_row_drift(3, betas=(0.9,))


def test_adam_untouched_step_at_the_edge_of_float64():
    # lr * |m_hat| overflows for lr = g = 1e308; the step is lr * (0.9/1.9) / sqrt(0.999/1.999) with eps negligible,
    # 6.7005825413654348e307 to 17 digits (mpmath, 40 digits), and for g = 1 eps shows in the 8th digit
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        big = adam_untouched_step_closed_form(lr=1e308, g=1e308)
    assert big == pytest.approx(6.700582541365434817e307, rel=1e-15)
    assert adam_untouched_step_closed_form(lr=1e308, g=1.0) == pytest.approx(6.700582446581178216e307, rel=1e-15)
    assert adam_untouched_step_closed_form(lr=1.7e308, g=-1.7e308) == pytest.approx(1.7e308 * 0.6700582541365435, rel=1e-15)
