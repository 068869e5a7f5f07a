"""lib.chapters.position_schemes: the chapter's bookkeeping on a tiny study, and (slow) the claims its prose
makes about the real one."""

import numpy as np
import pytest
import torch

from exact_centring import principal_coordinates, tables_with_a_constant_column
from lib import forward_filter, positional, toylang, transformer
from lib.chapters import position_schemes as ps
from lib.transformer import TrainConfig

QUICK = TrainConfig(context=ps.L, batch_size=4, steps=3, warmup=1)


@pytest.fixture(scope="module")
def tiny():
    return ps.run_study(schemes=("none", "learned", "rope", "alibi"), depths=(1,), seeds=(0, 1),
                        train_config=QUICK, n_windows=8, workers=1)


@pytest.mark.slow
def test_training_in_worker_processes_gives_the_same_numbers(tiny):
    again = ps.run_study(schemes=("learned", "rope"), depths=(1,), seeds=(0, 1), train_config=QUICK, n_windows=8,
                         workers=2)
    for key, run in again.runs.items():
        np.testing.assert_array_equal(run.losses, tiny.runs[key].losses)
        np.testing.assert_array_equal(run.trained.losses, tiny.runs[key].trained.losses)
    with pytest.raises(ValueError, match=r"workers must be an integer in \[1, 256\] \(processes\), got 0"):
        ps.run_study(workers=0)


@pytest.mark.slow
def test_study_holds_every_run_scored_on_the_same_windows(tiny):
    assert sorted(tiny.runs) == sorted((s, 1, seed) for s in ("none", "learned", "rope", "alibi") for seed in (0, 1))
    assert tiny.windows.shape == (8, ps.LENGTHS[-1] + 1)
    np.testing.assert_array_equal(tiny.floor, forward_filter.optimal_losses(tiny.windows))
    run = tiny.run("rope", 1, 1)
    np.testing.assert_allclose(run.losses, transformer.position_losses(run.model, tiny.windows), atol=1e-14)
    assert tiny.seeds() == (0, 1)


@pytest.mark.slow
def test_loss_at_a_length_is_the_loss_on_windows_cut_to_it(tiny):
    # the module's claim: one pass over the 4L windows scores the model at L and 2L as well
    for n in ps.LENGTHS:
        cut = [transformer.position_losses(r.model, tiny.windows[:, : n + 1]).mean() for r in tiny.seed_runs("alibi", 1)]
        np.testing.assert_allclose(ps.losses_at(tiny, "alibi", 1, n), cut, atol=1e-13)
        np.testing.assert_allclose(ps.excess_at(tiny, "alibi", 1, n), np.array(cut) - tiny.floor[:, :n].mean(),
                                   atol=1e-13)


@pytest.mark.slow
def test_results_table_has_a_row_per_scheme_and_the_floor(tiny):
    table = ps.results_markdown(tiny).splitlines()
    assert len(table) == 2 + 1 + 4
    assert table[2].startswith("| exact floor |")
    assert all(line.count("|") == 10 for line in table)
    row = next(line for line in table if line.startswith("| ALiBi |"))
    assert row.endswith(f"| {ps.parameters('alibi', 1):,} |")
    low, high = ps.losses_at(tiny, "alibi", 1, 32).min(), ps.losses_at(tiny, "alibi", 1, 32).max()
    assert f"| {low:.3f}–{high:.3f} |" in row or f"| {low:.3f} |" in row


def test_span_formatting():
    assert ps.span([0.98812, 0.99049], ".3f") == "0.988–0.990"
    assert ps.span([0.98812, 0.98849], ".3f") == "0.988"
    assert ps.span([-0.4, -0.18], ".2f") == "-0.40 to -0.18"
    assert ps.span([-0.00004, 0.00003], ".3f") == "0.000"  # no minus sign on a value that rounds to zero


@pytest.mark.slow
def test_training_flops_count_the_matrix_products_by_hand():
    # one step, forward (2 m n k per product) and backward (twice the forward), times the steps
    c, t = ps.model_config("none", 1), ps.TRAIN
    B, T, d, V, r = t.batch_size, t.context, c.d_model, c.vocab_size, c.mlp_ratio
    per_token = 2 * (3 * d * d + d * d + 2 * r * d * d + d * V)   # qkv, proj, MLP, head
    attention = 2 * 2 * B * T * T * d                              # scores q k^T and weights @ v
    forward = B * T * per_token + attention
    assert ps.training_flops("none", 1) == 3 * forward * t.steps
    for scheme in ("learned", "sinusoidal", "rope", "alibi"):  # position schemes add no matrix products
        assert ps.training_flops(scheme, 1) == ps.training_flops("none", 1)
    assert ps.training_flops("none", 2) > ps.training_flops("none", 1)


def test_first_crossing_is_the_first_position_beyond_L_above_the_threshold():
    curve = np.zeros(ps.LENGTHS[-1])
    curve[10] = 5.0                       # inside L: ignored
    curve[ps.L + 7:] = 0.3
    assert ps.first_crossing(curve, 0.1) == ps.L + 7
    assert ps.first_crossing(np.zeros(ps.LENGTHS[-1]), 0.1) is None
    curve[ps.L + 3] = 0.1 + 1e-9          # a near-tie must not decide the answer
    with pytest.raises(ValueError, match="within 1e-6 nats of the threshold"):
        ps.first_crossing(curve, 0.1)


def test_first_crossing_and_span_refuse_nan_and_empty_input():
    L = ps.L
    # a NaN excess was skipped (33) or read as "never crosses" (None)
    for curve in (np.r_[np.zeros(L), np.nan, 0.5], np.r_[np.zeros(L), 0.05, np.nan]):
        with pytest.raises(ValueError, match=r"^curve contains NaN or infinity$"):
            ps.first_crossing(curve, 0.1)
    with pytest.raises(ValueError, match=r"^curve must be a 1-D array \(n,\) of excesses by position, got shape \(1, 34\)$"):
        ps.first_crossing(np.zeros((1, L + 2)), 0.1)
    with pytest.raises(ValueError, match=r"^values must hold at least one number, got an empty array$"):
        ps.span([], ".2f")  # was NumPy's "zero-size array to reduction operation minimum"
    with pytest.raises(ValueError, match=r"^values contains NaN or infinity$"):
        ps.span([0.5, np.nan], ".2f")


def test_cosine_matrix_is_scale_robust_and_gives_0_for_a_zero_row():
    r = 0.5**0.5
    expected = np.array([[1.0, r], [r, 1.0]])
    for scale in (1e-200, 1.0, 1e200):  # gave NaN and inf at 1e-200, all zeros at 1e200
        np.testing.assert_allclose(ps.cosine_matrix(np.array([[1.0, 0.0], [1.0, 1.0]]) * scale), expected, rtol=1e-15)
    np.testing.assert_allclose(ps.cosine_matrix([[0.0, 0.0], [1.0, 1.0]]), [[0.0, 0.0], [0.0, 1.0]], rtol=0, atol=1e-15)
    with pytest.raises(ValueError, match=r"^rows must be a matrix \(n, d\), got shape \(2,\)$"):
        ps.cosine_matrix([1.0, 2.0])  # was NumPy's AxisError
    with pytest.raises(TypeError, match=r"^rows must hold real numbers, got dtype <U1$"):
        ps.cosine_matrix([["a"]])


def test_principal_component_is_scale_robust_and_names_bad_rows():
    rows = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.1]])
    scores, explained, direction = ps.principal_component(rows)
    # by hand: the centred rows' covariance [[2, 2.1], [2.1, 2.2067]] (times 3) has eigenvalues whose ratio
    # gives the explained fraction; here against NumPy's eigenvalues of the same matrix
    C = rows - rows.mean(axis=0)
    eig = np.linalg.eigvalsh(C.T @ C)
    assert explained == pytest.approx(eig[-1] / eig.sum(), rel=1e-14)
    assert explained == pytest.approx(0.9998115984921282, rel=1e-14)
    for scale in (1e-200, 1e200):  # gave NaN: s**2 underflowed or overflowed
        s_scores, s_explained, s_direction = ps.principal_component(rows * scale)
        assert s_explained == pytest.approx(explained, rel=1e-14)
        np.testing.assert_allclose(s_direction, direction, rtol=1e-14)
        np.testing.assert_allclose(s_scores, scores * scale, rtol=1e-14)
    for bad, message in [
        ([[1.0, 2.0], [1.0, 2.0]], r"^rows are all equal: they have no variance, so no principal component$"),
        ([[1.0, 2.0]], r"^rows must be a matrix \(n, d\) with n >= 2, got shape \(1, 2\)$"),
        ([1.0, 2.0], r"^rows must be a matrix \(n, d\) with n >= 2, got shape \(2,\)$"),
        ([[np.nan, 0.0], [1.0, 1.0]], r"^rows contains NaN or infinity$"),  # was LinAlgError
    ]:
        with pytest.raises(ValueError, match=message):
            ps.principal_component(bad)


@pytest.mark.parametrize("rows, exact", [
    # a constant column whose float64 mean is inexact gave every score -1.39e-17 (first table), or "rows are
    # all equal" (second): the rows differ
    ([[0.1, 0.0], [0.1, 1e-17], [0.1, 2e-17]], [-1e-17, 0.0, 1e-17]),
    ([[1e300, 0.0], [1e300, 1e-300], [1e300, 2e-300]], [-1e-300, 0.0, 1e-300]),
])
def test_principal_component_of_a_constant_column_with_an_inexact_mean(rows, exact):
    scores, explained, direction = ps.principal_component(rows)
    np.testing.assert_allclose(scores, exact, rtol=1e-14, atol=0)  # rising from the first row to the last
    assert explained == 1.0
    np.testing.assert_allclose(direction, [0.0, 1.0], rtol=1e-15, atol=0)  # the constant column: exactly 0


def test_principal_component_matches_exact_centring_on_random_tables_with_a_constant_column():
    for rows in tables_with_a_constant_column(100, seed=3):
        scores, _, direction = ps.principal_component(rows)
        assert direction[0] == 0.0  # the constant column takes no part
        ref = principal_coordinates(rows, 1)[:, 0]  # up to sign
        ref = ref if ref[-1] >= ref[0] else -ref  # the chapter's sign: rising from the first row to the last
        np.testing.assert_allclose(scores, ref, rtol=0, atol=1e-12 * np.abs(ref).max())


def test_principal_component_reads_a_tensor_that_requires_grad_or_is_bfloat16():
    rows = [[0.5, 0.0], [0.5, 1.0], [0.5, 2.0]]  # exact in bfloat16
    for t in (torch.tensor(rows, dtype=torch.float64, requires_grad=True), torch.tensor(rows, dtype=torch.bfloat16)):
        scores, explained, direction = ps.principal_component(t)  # were torch's errors
        np.testing.assert_allclose(scores, [-1.0, 0.0, 1.0], rtol=1e-15, atol=0)
        assert explained == 1.0


def test_extended_configs():
    ntk = ps.extended_config("NTK-aware base", 128)
    assert ntk.rope_base == pytest.approx(positional.ntk_base(4, 8)) and ntk.rope_interpolation == 1.0
    assert ps.extended_config("interpolation", 64).rope_interpolation == 2.0
    assert ps.extended_config("as trained", 64) == ps.model_config("rope", 1)
    with pytest.raises(ValueError, match="method must be one of"):
        ps.extended_config("YaRN", 64)
    with pytest.raises(ValueError, match=r"length must be one of \(32, 64, 128\)"):
        ps.extended_config("interpolation", 100)


@pytest.mark.slow
def test_fine_tuning_curve_starts_from_the_interpolated_model(tiny):
    curve = ps.finetune_curve(tiny, steps=(0, 2), seeds=[1])
    model = transformer.with_config(tiny.run("rope", 1, 1).model, ps.extended_config("interpolation", 64))
    assert curve.shape == (2, 1)
    assert curve[0, 0] == pytest.approx(transformer.position_losses(model, tiny.windows[:, :65]).mean(), abs=1e-13)
    assert curve[1, 0] != curve[0, 0]
    assert ps.finetune_curve(tiny, steps=(0, 2), seeds=[1]) is curve  # kept in the study
    with pytest.raises(ValueError, match="distinct integers >= 0 in increasing order"):
        ps.finetune_curve(tiny, steps=(5, 2))
    with pytest.raises(ValueError, match="longer than the training length"):
        ps.finetune_curve(tiny, steps=(0,), n=32)
    with pytest.raises(ValueError, match=r"no run \('rope', 1, 7\)"):
        ps.finetune_curve(tiny, steps=(0,), seeds=[7])


@pytest.mark.slow
def test_extension_losses_under_each_method(tiny):
    ext = ps.rope_extension(tiny)
    assert set(ext) == set(ps.EXTENSIONS) and all(v[64].shape == (2,) for v in ext.values())
    np.testing.assert_allclose(ext["as trained"][64], ps.losses_at(tiny, "rope", 1, 64), atol=1e-13)


@pytest.mark.slow
def test_learned_table_analysis(tiny):
    assert ps.untrained_rows_unchanged(tiny)
    ramp = np.outer(np.arange(32) - 15.5, np.ones(8)) + 0.01 * np.random.default_rng(0).standard_normal((32, 8))
    scores, explained, direction = ps.principal_component(ramp)
    assert explained > 0.99 and scores[-1] > scores[0]
    np.testing.assert_allclose(scores, (ramp - ramp.mean(axis=0)) @ direction)
    np.testing.assert_allclose(np.diag(ps.cosine_matrix(ramp + 20)), 1.0)
    summary = ps.learned_table_summary(tiny)
    assert set(summary) == {"explained", "correlation", "cos_first_last"} and summary["explained"].shape == (2,)


@pytest.mark.slow
def test_attention_profiles_are_distributions(tiny):
    profile = ps.attention_profile(tiny, "alibi", 40, n_windows=4)
    assert profile.shape == (4, 41)
    np.testing.assert_allclose(profile.sum(axis=1), 1.0)
    by_distance = ps.attention_by_distance(tiny, "alibi", 40, head=0)
    assert by_distance.shape == (41,)
    np.testing.assert_allclose(by_distance, ps.attention_profile(tiny, "alibi", 40)[0, ::-1])
    assert 0 <= ps.sharpest_head(tiny, "alibi") < 4
    with pytest.raises(ValueError, match=r"query must be an integer in \[0, 127\], got 128"):
        ps.attention_profile(tiny, "alibi", 128)


@pytest.mark.slow
def test_texts_are_tables_not_reprs(tiny):
    for text in (ps.entropies_text(), ps.floor_text(tiny.floor), ps.config_text(ps.model_config("rope", 1)),
                 ps.parameters_text(), ps.extension_text(tiny), ps.learned_summary_text(tiny),
                 ps.window_text(tiny.windows[0, :40])):
        assert all(len(line) <= 88 for line in text.splitlines()), text
        assert "np.float" not in text and "{" not in text
    assert "0.98073" in ps.entropies_text() and "1.16329" in ps.entropies_text()
    lines = ps.window_text(toylang.encode("cat found the ball . a bird saw the kite again . the")).splitlines()
    assert lines == ["  0  cat found the ball .", "  5  a bird saw the kite again .", " 12  the"]


@pytest.mark.slow
def test_expected_floor_over_a_window():
    floor = forward_filter.expected_floor(33)
    assert ps.expected_floor_at(32) == pytest.approx(floor.mean(), abs=1e-14)
    assert ps.expected_floor_at(32) == pytest.approx((toylang.bigram_entropy() + 31 * toylang.entropy_rate()) / 32)


def test_rope_identity_deviation_is_rounding_only():
    assert ps.rope_identity_deviation() < 1e-12


@pytest.mark.slow
def test_errors_name_what_is_wrong(tiny):
    with pytest.raises(ValueError, match="scheme must be one of"):
        ps.run_study(schemes=("relative",))
    with pytest.raises(ValueError, match=r"no run \('sinusoidal', 1, 0\); the study has schemes"):
        tiny.run("sinusoidal", 1, 0)
    with pytest.raises(ValueError, match=r"stop must be an integer in \[41, 128\], got 20"):
        ps.mean_loss_over(tiny, "rope", 1, 40, 20)


@pytest.mark.slow
def test_the_chapters_claims_hold_for_the_real_study():
    st = ps.study()
    others = [(s, d) for d in ps.DEPTHS for s in ps.SCHEMES if (s, d) != ("none", 1)]
    # at the training length: every model but one-layer NoPE within 10 millinats; NoPE-1 far above
    assert max(ps.excess_at(st, s, d, 32).max() for s, d in others) < 0.010
    assert ps.excess_at(st, "none", 1, 32).min() > 0.030
    # beyond it: absolute schemes fail at once, RoPE later, ALiBi never
    for scheme in ("learned", "sinusoidal"):
        for depth in ps.DEPTHS:
            assert ps.failure_position(st, scheme, depth) < ps.L + 4
    for depth in ps.DEPTHS:
        assert ps.L + 8 < ps.failure_position(st, "rope", depth) < ps.LENGTHS[-1]
        assert ps.failure_position(st, "alibi", depth) is None
        assert ps.largest_excess_beyond(st, "alibi", depth) < 0.02
    # the learned table: a ramp on the trained rows (its first component follows position), the rest untouched
    summary = ps.learned_table_summary(st)
    assert np.all(summary["correlation"] > 0.5)
    assert ps.untrained_rows_unchanged(st)
    # RoPE at test time: the NTK-aware base helps at 64 for every seed, interpolation hurts until fine-tuned
    ext = ps.rope_extension(st)
    assert np.all(ext["NTK-aware base"][64] < ext["as trained"][64])
    assert np.all(ext["interpolation"][64] > ext["as trained"][64])
    assert ps.first_crossing(ps.rope_extension_by_position(st, "NTK-aware base", 128)) > \
        ps.first_crossing(ps.rope_extension_by_position(st, "as trained", 128))
    assert ps.finetune_steps_needed(st, within=0.010) is not None
