"""lib.positional against published values (the trace exercise, the lesson) and closed forms."""

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lib import positional


def test_worked_trace_d4_pos3():
    # the trace exercise: PE[3] = [sin 3, cos 3, sin 0.03, cos 0.03]
    np.testing.assert_allclose(np.round(positional.sinusoidal_encoding(3, 4), 4), [0.1411, -0.9900, 0.0300, 0.9996])
    np.testing.assert_allclose(positional.sinusoidal_encoding(3, 4), [np.sin(3), np.cos(3), np.sin(0.03), np.cos(0.03)])


def test_d4_pos1_published_values():
    np.testing.assert_allclose(positional.sinusoidal_encoding(1, 4), [0.841471, 0.540302, 0.010000, 0.999950], atol=5e-7)


def test_embedding_plus_encoding_worked_trace():
    x = positional.add_positions(np.array([[0.5, -0.5, 1.0, 0.0]]), start=3)[0]
    np.testing.assert_allclose(np.round(x, 4), [0.6411, -1.4900, 1.0300, 0.9996])


@pytest.mark.parametrize("d", [1, 2, 3, 4, 7, 16, 768])
def test_position_zero_is_zero_one_alternating(d):
    expected = np.array([0.0, 1.0] * d)[:d]
    np.testing.assert_array_equal(positional.sinusoidal_encoding(0, d), expected)


def test_lesson_rows_0_1_5_at_d16_first_six_values():
    table = positional.sinusoidal_table(6, 16)
    np.testing.assert_allclose(np.round(table[1, :6], 4), [0.8415, 0.5403, 0.3110, 0.9504, 0.0998, 0.9950])
    np.testing.assert_allclose(np.round(table[5, :6], 4), [-0.9589, 0.2837, 0.9999, -0.0103, 0.4794, 0.8776])
    np.testing.assert_array_equal(table[0, :6], [0, 1, 0, 1, 0, 1])


def test_lesson_wavelengths_at_d768():
    w = positional.wavelengths(768)
    assert w.shape == (384,)
    assert round(float(w[0]), 1) == 6.3
    assert round(float(w[100])) == 69
    assert round(float(w[200])) == 761
    assert round(float(w[383])) == 61343
    np.testing.assert_allclose(w[383], 2 * np.pi * 10000 ** (766 / 768))


def test_lesson_dot_products_by_offset_do_not_depend_on_start():
    offsets = [0, 1, 2, 4, 8, 16, 32]
    from10 = positional.dot_by_offset(10, offsets, 16)
    from300 = positional.dot_by_offset(300, offsets, 16)
    np.testing.assert_allclose(np.round(from10, 3), [8.000, 7.485, 6.368, 5.560, 4.697, 4.214, 3.541])
    np.testing.assert_allclose(from10, from300, atol=1e-9)


def test_lesson_distances():
    t = positional.sinusoidal_table(33, 16)
    assert round(float(np.linalg.norm(t[0] - t[1])), 3) == 1.015
    assert round(float(np.linalg.norm(t[0] - t[32])), 3) == 2.986
    # |PE[i] - PE[j]|^2 = d - 2 PE[i].PE[j], with PE[i].PE[i] = d / 2
    assert float(np.linalg.norm(t[0] - t[1])) ** 2 == pytest.approx(16 - 2 * float(t[0] @ t[1]), abs=1e-12)


def test_lesson_rotation_k5_from_7():
    t = positional.sinusoidal_table(13, 16)
    assert np.allclose(t[12], positional.shift_rotation(5, 16) @ t[7])
    for j in range(8):  # the lesson's own check, written independently: one 2x2 rotation per (sin, cos) pair
        w = 1 / 10000 ** (2 * j / 16)
        R = np.array([[np.cos(w * 5), np.sin(w * 5)], [-np.sin(w * 5), np.cos(w * 5)]])
        np.testing.assert_allclose(R @ t[7, 2 * j : 2 * j + 2], t[12, 2 * j : 2 * j + 2], atol=1e-12)


@settings(max_examples=50, deadline=None)
@given(pos=st.integers(0, 5000), k=st.integers(-200, 200), half=st.integers(1, 64))
def test_shift_is_a_rotation_for_any_start(pos, k, half):
    d = 2 * half
    if pos + k < 0:
        k = -pos
    R = positional.shift_rotation(k, d)
    np.testing.assert_allclose(R @ R.T, np.eye(d), atol=1e-12)  # orthogonal
    np.testing.assert_allclose(R @ positional.sinusoidal_encoding(pos, d),
                               positional.sinusoidal_encoding(pos + k, d), atol=1e-8)


@settings(max_examples=50, deadline=None)
@given(i=st.integers(0, 10_000), half=st.integers(1, 256))
def test_self_dot_is_half_width_and_pairs_on_unit_circle(i, half):
    d = 2 * half
    pe = positional.sinusoidal_encoding(i, d)
    assert pe @ pe == pytest.approx(d / 2)
    np.testing.assert_allclose(pe[0::2] ** 2 + pe[1::2] ** 2, 1.0)


def test_dot_product_closed_form():
    d, offsets = 32, np.arange(50)
    omega = positional.angular_frequencies(d)[0::2]
    expected = np.cos(np.outer(offsets, omega)).sum(axis=1)
    np.testing.assert_allclose(positional.dot_by_offset(123, offsets, d), expected, atol=1e-9)


def test_odd_width_is_defined_and_consistent_with_formula():
    pe = positional.sinusoidal_encoding(7, 5)
    expected = [np.sin(7), np.cos(7), np.sin(7 / 10000 ** 0.4), np.cos(7 / 10000 ** 0.4), np.sin(7 / 10000 ** 0.8)]
    np.testing.assert_allclose(pe, expected)
    np.testing.assert_allclose(positional.sinusoidal_encoding(2, 1), [np.sin(2)])


def test_table_matches_per_position_encoding():
    table = positional.sinusoidal_table(20, 10)
    for p in range(20):
        np.testing.assert_array_equal(table[p], positional.sinusoidal_encoding(p, 10))


@pytest.mark.parametrize("d, kind", [(0, ValueError), (-4, ValueError), (2.5, TypeError), (True, TypeError), ("4", TypeError)])
def test_bad_width_is_a_clear_error(d, kind):
    with pytest.raises(kind, match="width d must be an integer in \\[1, 268435456\\]"):
        positional.sinusoidal_encoding(3, d)


def test_negative_or_fractional_position_is_an_error():
    with pytest.raises(ValueError, match="position must be >= 0, got -1"):
        positional.sinusoidal_encoding(-1, 4)
    with pytest.raises(TypeError, match="position must be an integer"):
        positional.sinusoidal_encoding(1.5, 4)


def test_bad_base_and_table_size():
    with pytest.raises(ValueError, match="base must be a finite number > 1"):
        positional.sinusoidal_encoding(1, 4, base=1.0)
    with pytest.raises(ValueError, match="n_positions must be an integer in \\[1, 268435456\\]"):
        positional.sinusoidal_table(0, 4)


def test_rotation_needs_even_width():
    with pytest.raises(ValueError, match="needs an even width"):
        positional.shift_rotation(1, 5)


def test_add_positions_does_not_modify_input():
    vectors = np.ones((3, 4))
    out = positional.add_positions(vectors, start=2)
    np.testing.assert_array_equal(vectors, np.ones((3, 4)))
    np.testing.assert_allclose(out, 1 + positional.sinusoidal_table(5, 4)[2:])


def test_learned_table_rows_and_maximum_length():
    table = positional.LearnedPositionTable(max_len=1024, d=768, seed=0)
    assert table.num_parameters == 786_432  # GPT-2's position table
    assert table(np.array([0, 1023])).shape == (2, 768)
    with pytest.raises(ValueError, match="position 1024 is beyond the learned table's maximum length of 1024"):
        table(1024)
    with pytest.raises(ValueError, match="longer than the learned table's maximum length of 1024"):
        table.for_length(1025)


def test_learned_table_returns_copies():
    table = positional.LearnedPositionTable(max_len=4, d=2, seed=1)
    before = table.weight.copy()
    rows = table(np.array([1, 1]))
    rows += 100.0
    np.testing.assert_array_equal(table.weight, before)


def test_huge_and_unsigned_positions_are_errors_not_wraparounds():
    with pytest.raises(ValueError, match=r"position must be <= 1048576 \(2\*\*20"):
        positional.sinusoidal_encoding(np.uint64(2**64 - 1), 2)
    with pytest.raises(ValueError, match=r"position 18446744073709551615 is beyond the learned table's maximum length of 4"):
        positional.LearnedPositionTable(4, 2)(np.array([2**64 - 1], dtype=np.uint64))
    with pytest.raises(ValueError, match=r"start must be <= 1048576 \(2\*\*20"):
        positional.dot_by_offset(2**62, [1], 4)
    assert positional.sinusoidal_encoding(2**20, 2).shape == (2,)


@pytest.mark.parametrize("call, message", [
    (lambda: positional.sinusoidal_encoding(10**300, 4),
     "position must be <= 1048576 (2**20, up to which the float64 angle is within 2**-32 rad of the exact one), got an integer of 301 digits"),
    (lambda: positional.add_positions(np.ones((2, 4)), start=10**300),
     "start must be <= 1048576 (2**20, up to which the float64 angle is within 2**-32 rad of the exact one), got an integer of 301 digits"),
    (lambda: positional.rope(np.ones((2, 4)), [0, 10**20]),
     "positions must be <= 1048576 (2**20, up to which the float64 angle is within 2**-32 rad of the exact one), got 100000000000000000000"),
    (lambda: positional.rope(np.ones((2, 4)), [-1, 2**63]), "positions must be >= 0, got -1"),  # NumPy: float64
    (lambda: positional.rope_angles([0, -10**30], 4), "position must be >= 0, got -1000000000000000000000000000000"),
    (lambda: positional.dot_by_offset(0, [2**64], 4),
     "offset must be <= 1048576 (2**20, up to which the float64 angle is within 2**-32 rad of the exact one), got 18446744073709551616"),
    (lambda: positional.LearnedPositionTable(4, 2)(2**70),
     "position 1180591620717411303424 is beyond the learned table's maximum length of 4 (positions 0..3); "
     "a learned table has no row for it"),
])
def test_integers_beyond_int64_are_out_of_range_not_a_type_error(call, message):
    # NumPy holds them as objects (or, mixed with negatives, as float64): integers all the same
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value) == message
    with pytest.raises(TypeError, match=r"^position must be an integer \(or an integer array\), got dtype float64$"):
        positional.sinusoidal_encoding([1.0, 10.0**20], 4)  # a float stays a type error


def test_argument_errors_name_the_argument():
    with pytest.raises(TypeError, match="base must be a finite number > 1, got 'x'"):
        positional.sinusoidal_encoding(3, 4, base="x")
    with pytest.raises(ValueError, match="start must be >= 0"):
        positional.add_positions(np.ones((2, 4)), start=-1)
    with pytest.raises(ValueError, match="seed must be an integer >= 0"):
        positional.LearnedPositionTable(4, 2, seed=-1)
    with pytest.raises(ValueError, match="scale must be a finite number >= 0"):
        positional.LearnedPositionTable(4, 2, scale=float("nan"))
    with pytest.raises(ValueError, match="sequence length n must be an integer in \\[0, 268435456\\]"):
        positional.LearnedPositionTable(4, 2).for_length(-1)
    with pytest.raises(TypeError, match="sequence length n must be an integer in \\[0, 268435456\\]"):
        positional.LearnedPositionTable(4, 2).for_length("3")


def test_dot_by_offset_of_one_offset_is_an_array():
    out = positional.dot_by_offset(0, 3, 4)
    assert out.shape == (1,)
    np.testing.assert_allclose(out, [np.cos(3) + np.cos(0.03)])


# --- RoPE (Su et al. 2021) ------------------------------------------------------------------------


def test_rope_of_the_worked_trace_uses_its_angles():
    # the trace exercise's d = 4, pos = 3: angles 3 rad and 0.03 rad
    np.testing.assert_allclose(positional.rope_angles(3, 4), [3.0, 0.03])
    out = positional.rope(np.array([[1.0, 0.0, 1.0, 0.0]]), [3])[0]
    np.testing.assert_allclose(out, [np.cos(3), np.sin(3), np.cos(0.03), np.sin(0.03)], rtol=0, atol=1e-15)
    pe = positional.sinusoidal_encoding(3, 4)
    np.testing.assert_allclose(out, pe[[1, 0, 3, 2]], atol=1e-15)  # PE[3] with each (sin, cos) pair swapped


def test_rope_is_the_block_rotation_matrix_of_the_paper():
    x = np.random.default_rng(0).standard_normal((7, 10))
    out = positional.rope(x, np.arange(7))
    for m in range(7):
        R = positional.rope_matrix(m, 10)
        np.testing.assert_allclose(out[m], R @ x[m], atol=1e-14)
        np.testing.assert_allclose(R.T @ R, np.eye(10), atol=1e-14)
    theta = 10000.0 ** (-2 * np.arange(5) / 10)  # eq. 15: theta_i = 10000^(-2(i-1)/d), i = 1 .. d/2
    R3 = positional.rope_matrix(3, 10)
    np.testing.assert_allclose(R3[2:4, 2:4], [[np.cos(3 * theta[1]), -np.sin(3 * theta[1])],
                                              [np.sin(3 * theta[1]), np.cos(3 * theta[1])]], atol=1e-15)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(m=st.integers(0, 4000), n=st.integers(0, 4000), half=st.integers(1, 32), seed=st.integers(0, 2**16))
def test_rope_scores_depend_on_the_offset_only(m, n, half, seed):
    d = 2 * half
    q, k = np.random.default_rng(seed).standard_normal((2, 1, d))
    score = positional.rope(q, [m])[0] @ positional.rope(k, [n])[0]
    assert score == pytest.approx(q[0] @ positional.rope_matrix(n - m, d) @ k[0], abs=1e-9)
    shifted = positional.rope(q, [m + 17])[0] @ positional.rope(k, [n + 17])[0]
    assert shifted == pytest.approx(score, abs=1e-9)


def test_rotations_compose_and_keep_lengths():
    R = positional.rope_matrix
    np.testing.assert_allclose(R(5, 8) @ R(-2, 8), R(3, 8), atol=1e-14)
    x = np.random.default_rng(1).standard_normal((30, 8))
    np.testing.assert_allclose(np.linalg.norm(positional.rope(x, np.arange(30)), axis=1), np.linalg.norm(x, axis=1))


@pytest.mark.parametrize("k", [-7, 0, 1, 5, 300])
def test_shift_rotation_is_rope_backwards_in_swapped_coordinates(k):
    np.testing.assert_allclose(positional.shift_rotation(k, 12), positional.rope_matrix(-k, 12), atol=1e-15)


def test_interpolation_divides_positions():
    x = np.random.default_rng(2).standard_normal((1, 6))
    np.testing.assert_allclose(positional.rope(x, [10], interpolation=2), positional.rope(x, [5]), atol=1e-15)
    np.testing.assert_allclose(positional.rope_angles(np.arange(8), 6, interpolation=4),
                               positional.rope_angles(np.arange(8), 6) / 4)


def test_ntk_base_slows_the_slowest_pair_by_the_scale_and_keeps_the_fastest():
    for d, s in ((8, 2), (8, 4), (64, 8)):
        new = positional.angular_frequencies(d, positional.ntk_base(s, d))[0::2]
        old = positional.angular_frequencies(d)[0::2]
        assert new[0] == old[0] == 1.0
        assert new[-1] == pytest.approx(old[-1] / s, rel=1e-12)
        assert np.all(new <= old)
    assert positional.ntk_base(2, 8) == pytest.approx(10000 * 2 ** (8 / 6))


@pytest.mark.parametrize("call, error, message", [
    (lambda: positional.rope(np.ones((2, 5)), [0, 1]), ValueError, r"width d must be an even integer >= 2 \(RoPE rotates pairs of dimensions\), got 5"),
    (lambda: positional.rope(np.ones((2, 4)), [0]), ValueError, r"x must have shape \(\.\.\., n, d\) with n = len"),
    (lambda: positional.rope(np.ones((1, 4)), [-1]), ValueError, "positions must be >= 0"),
    (lambda: positional.rope(np.ones((1, 4)), [1.5]), TypeError, "positions must be an integer"),
    (lambda: positional.rope(np.ones((1, 4)), [1], interpolation=0.5), ValueError, "interpolation must be a finite number >= 1"),
    (lambda: positional.rope_matrix(1.0, 4), TypeError, "position m must be an integer"),
    (lambda: positional.ntk_base(0.5, 8), ValueError, "scale must be a finite number >= 1"),
    (lambda: positional.ntk_base(2, 2), ValueError, "width d must be an even integer >= 4 for the NTK-aware base"),
    (lambda: positional.ntk_base(2, 8, base=1.0), ValueError, "base must be a finite number > 1, got 1.0"),
    (lambda: positional.alibi_slopes(2.0), TypeError, "n_heads must be an integer in \\[1, 268435456\\], got 2.0"),
])
def test_rope_errors_name_the_argument(call, error, message):
    with pytest.raises(error, match=message):
        call()


# --- ALiBi (Press et al. 2022) ---------------------------------------------------------------------


def test_alibi_slopes_are_the_papers():
    # §3: "for 8 heads, 1/2^1, 1/2^2, ..., 1/2^8"; for n heads, the geometric sequence starting at 2^(-8/n)
    np.testing.assert_array_equal(positional.alibi_slopes(8), [2.0 ** -h for h in range(1, 9)])
    for n in (1, 2, 4, 16, 32):
        start = 2.0 ** (-8 / n)
        np.testing.assert_allclose(positional.alibi_slopes(n), [start * start ** h for h in range(n)], rtol=1e-14)
    # other counts: the slopes of the nearest smaller power of two, then every other slope of twice that
    np.testing.assert_array_equal(positional.alibi_slopes(6), [2.0 ** -2, 2.0 ** -4, 2.0 ** -6, 2.0 ** -8,
                                                               2.0 ** -1, 2.0 ** -3])
    np.testing.assert_array_equal(positional.alibi_slopes(12)[8:], positional.alibi_slopes(16)[0::2][:4])


def test_alibi_bias_is_the_papers_definition():
    n, H = 7, 4
    bias = positional.alibi_bias(n, H)
    slopes = positional.alibi_slopes(H)
    assert bias.shape == (H, n, n)
    for h in range(H):
        for i in range(n):
            # softmax(q_i K^T + m [-(i-1), ..., -2, -1, 0]) over the keys up to i (1-based in the paper)
            np.testing.assert_array_equal(bias[h, i, : i + 1], slopes[h] * np.arange(-i, 1))
            assert np.all(bias[h, i, i + 1:] == -np.inf)
    own = positional.alibi_bias(3, 2, slopes=[0.5, 0.0])
    np.testing.assert_array_equal(own[0, 2, :3], [-1.0, -0.5, 0.0])
    np.testing.assert_array_equal(own[1, 2, :3], [0.0, 0.0, 0.0])


@pytest.mark.parametrize("call, message", [
    (lambda: positional.alibi_slopes(0), "n_heads must be an integer in \\[1, 268435456\\]"),
    (lambda: positional.alibi_bias(0, 4), "window length n must be an integer in \\[1, 268435456\\]"),
    (lambda: positional.alibi_bias(3, 2, slopes=[0.5]), "slopes must be 2 finite numbers >= 0"),
    (lambda: positional.alibi_bias(3, 2, slopes=[0.5, -1.0]), "slopes must be 2 finite numbers >= 0"),
    (lambda: positional.alibi_bias(3, 2, slopes=[0.5, np.nan]), "slopes must be 2 finite numbers >= 0"),
])
def test_alibi_errors_name_the_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("bad, error, match", [
    ([[np.nan, 1.0]], ValueError, "contains NaN or infinity"),
    ([[1j, 1.0]], TypeError, "must hold real numbers, got dtype complex128"),
    ([["a", "b"]], TypeError, "must hold real numbers, got dtype <U1"),
])
def test_rope_and_add_positions_check_their_input(bad, error, match):
    with pytest.raises(error, match=f"^x {match}"):
        positional.rope(bad, [0])
    with pytest.raises(error, match=f"^vectors {match}"):
        positional.add_positions(bad)


def test_rope_that_overflows_is_an_error_not_inf():
    with pytest.raises(ValueError, match=r"rope\(x\) overflows float64"):
        positional.rope([[1.7e308, 1.7e308]], [1])
    np.testing.assert_allclose(positional.rope([[1.7e300, 1.7e300]], [1]) / 1e300, positional.rope([[1.7, 1.7]], [1]), rtol=1e-15)


def test_a_wavelength_or_an_alibi_bias_beyond_float64_is_refused_by_name():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NumPy's overflow warnings were leaked beside inf
        with pytest.raises(ValueError, match=r"^base must keep the longest wavelength, .* got base = 1e\+308 with "
                                             r"width d = 4096: that wavelength is beyond the float64 range"):
            positional.wavelengths(4096, base=1e308)  # 2π · 1e308 ** (4094 / 4096), about 4e308
        # d = 4: 2π · sqrt(1e308) = 2π · 1e154 is within range
        np.testing.assert_allclose(positional.wavelengths(4, base=1e308), [2 * np.pi, 2 * np.pi * 1e154], rtol=1e-15)
        # a slope of 1e308 at distance 2: -2e308 would be -inf, the value of the causal mask
        with pytest.raises(ValueError, match=r"^slopes must keep the bias -m \(n - 1\) of the farthest key within "
                                             r"float64 .* at most about 8.988e\+307 for a window of n = 3, got "
                                             r"slopes\[1\] = 1e\+308; a bias of -inf would mask a visible key$"):
            positional.alibi_bias(3, 2, slopes=[1.0, 1e308])
        bias = positional.alibi_bias(3, 1, slopes=[8e307])[0]  # -1.6e308 at distance 2: within range
    assert bias[2].tolist() == [-1.6e308, -8e307, 0.0] and bias[0, 1] == -np.inf


@pytest.mark.parametrize("scale, base", [(1e300, 10000.0), (1e10, 1e300)])
def test_ntk_base_beyond_float64_is_a_value_error(scale, base):
    with pytest.raises(ValueError, match=r"NTK-aware base .* overflows float64"):
        positional.ntk_base(scale, 4, base)


def test_rope_matrix_and_shift_rotation_keep_the_2_to_the_20_position_limit():
    with pytest.raises(ValueError, match=r"position m must be an integer in \[-1048576, 1048576\] \(2\*\*20, up to "):
        positional.rope_matrix(2**70, 4)
    with pytest.raises(ValueError, match=r"offset k must be an integer in \[-1048576, 1048576\] \(2\*\*20, up to "):
        positional.shift_rotation(-(2**60), 4)
    for k in (2**20 + 1, -(2**20) - 1, 2**53):
        with pytest.raises(ValueError, match=r"must be an integer in \[-1048576, 1048576\]"):
            positional.rope_matrix(k, 2)
        with pytest.raises(ValueError, match=r"must be an integer in \[-1048576, 1048576\]"):
            positional.shift_rotation(k, 2)


@pytest.mark.parametrize("slopes, dtype", [(["a", "b"], "<U1"), ([True, False], "bool"), ([1j, 1.0], "complex128")])
def test_alibi_slopes_must_be_real_numbers(slopes, dtype):
    with pytest.raises(TypeError, match=f"slopes must hold real numbers, got dtype {dtype}"):
        positional.alibi_bias(3, 2, slopes)
    with pytest.raises(ValueError, match="slopes must be 2 finite numbers >= 0, one per head, got \\[nan, 1.0\\]"):
        positional.alibi_bias(3, 2, [np.nan, 1.0])


def test_positions_given_as_time_spans_are_a_type_error():
    # NumPy counts timedelta64 as an integer type: a time span was taken for a position
    with pytest.raises(TypeError) as info:
        positional.sinusoidal_encoding(np.array([1, 2], dtype="m8[s]"), 4)
    assert str(info.value) == "position must be an integer (or an integer array), got dtype timedelta64[s]"


def test_tables_bound_their_sizes_and_entries():
    # each reached NumPy with a size of 2**70 ("Maximum allowed size exceeded")
    with pytest.raises(ValueError, match=r"^n_positions must be an integer in \[1, 268435456\], got 1180591620717411303424$"):
        positional.sinusoidal_table(2**70, 4)
    with pytest.raises(ValueError, match=r"^n_positions and width d: a result of shape \(100000, 4096\) would hold 409600000 entries"):
        positional.sinusoidal_table(100_000, 4096)
    with pytest.raises(ValueError, match=r"^max_len and width d: a result of shape \(100000, 4096\) would hold"):
        positional.LearnedPositionTable(100_000, 4096)
    with pytest.raises(ValueError, match=r"^n_heads and window length n: a result of shape \(8, 10000, 10000\) would hold 800000000"):
        positional.alibi_bias(10_000, 8)
    with pytest.raises(ValueError, match=r"^n_heads and window length n: a result of shape \(1, 20000, 20000\) would hold"):
        positional.alibi_bias(20_000, 1, slopes=[0.5])
    assert positional.sinusoidal_table(3, 4).shape == (3, 4)


def test_an_empty_list_of_positions_is_no_positions():
    assert positional.rope(np.zeros((0, 4)), []).shape == (0, 4)
    assert positional.dot_by_offset(0, [], 4).shape == (0,)
    np.testing.assert_array_equal(positional.rope(np.zeros((0, 4)), np.array([], dtype=np.int64)), np.zeros((0, 4)))
    with pytest.raises(TypeError, match=r"must be an integer \(or an integer array\), got dtype float64"):
        positional.rope(np.zeros((1, 4)), [0.5])  # a float is still refused


# --- the angle's accuracy up to MAX_POSITION = 2**20, against mpmath -----------------------------------

_BOUND = r"1048576 \(2\*\*20, up to which the float64 angle is within 2\*\*-32 rad of the exact one\)"


def _exact_sin_cos(pos, omega):
    """sin and cos of the exact product pos * omega (omega a float64, taken exactly), with 50 digits."""
    with mpmath.workdps(50):
        angle = mpmath.mpf(int(pos)) * mpmath.mpf(float(omega))  # exact: 53 + 21 bits < 50 digits
        return float(mpmath.sin(angle)), float(mpmath.cos(angle))


# positions spread over the range on a log scale, the bound itself, and the 2**53 for contrast
_POSITIONS = sorted({0, 1, 3, 17, 999, 65_537, 10**6, 2**20 - 1, 2**20}
                    | {int(p) for p in np.random.default_rng(7).integers(0, 2**20 + 1, size=40)})


@pytest.mark.parametrize("d, base", [(8, 10000.0), (6, 10000.0), (16, 500000.0), (5, 1.5)])
def test_sinusoidal_entries_are_within_1e_9_of_the_exact_angles_up_to_the_bound(d, base):
    omega = positional.angular_frequencies(d, base)
    got = positional.sinusoidal_encoding(np.array(_POSITIONS), d, base)  # (n, d)
    worst = 0.0
    for row, pos in zip(got, _POSITIONS):
        for k in range(d):
            s, c = _exact_sin_cos(pos, omega[k])
            worst = max(worst, abs(row[k] - (s if k % 2 == 0 else c)))
    assert worst <= 1e-9
    # the table and dot_by_offset are built from the same encodings
    np.testing.assert_array_equal(positional.sinusoidal_table(3, d, base)[2], positional.sinusoidal_encoding(2, d, base))


def test_beyond_the_bound_the_float64_angle_was_wrong_and_is_now_refused():
    # near 2**53 the rounded product pos * ω moved a sine by 0.024: dimension 2 at 2**53 - 1 was 0.28381
    # where the exact angle's sine is 0.25975 (2**53 itself, a power of two, times ω is exact)
    omega = positional.angular_frequencies(8)
    s, _ = _exact_sin_cos(2**53 - 1, omega[2])
    assert abs(s - 0.25975) < 5e-6 and abs(np.sin((2**53 - 1) * omega[2]) - 0.28381) < 5e-6
    for call in (lambda: positional.sinusoidal_encoding(2**20 + 1, 8),
                 lambda: positional.sinusoidal_encoding([0, 2**53], 8),
                 lambda: positional.rope_angles(np.array([2**20 + 1]), 4),
                 lambda: positional.rope(np.ones((1, 4)), [10**12])):
        with pytest.raises(ValueError, match=r"^positions? must be <= " + _BOUND + r", got \d+$"):
            call()
    with pytest.raises(ValueError, match=r"^start \+ offset must be <= " + _BOUND + ", got 1048577$"):
        positional.dot_by_offset(2**20, [0, 1], 4)
    with pytest.raises(ValueError, match=r"^start \+ N - 1, the last position, must be <= " + _BOUND + ", got 1048577$"):
        positional.add_positions(np.zeros((3, 4)), start=2**20 - 1)
    assert positional.add_positions(np.zeros((2, 4)), start=2**20 - 1).shape == (2, 4)  # the last one is 2**20
    np.testing.assert_array_equal(positional.dot_by_offset(2**20 - 1, [0, 1], 4).shape, (2,))


@pytest.mark.parametrize("s", [1.0, 3.0, 7.5])
def test_rope_angles_and_rotations_are_within_the_stated_error_up_to_the_bound(s):
    d = 8
    theta = positional.angular_frequencies(d)[0::2]
    positions = np.array(_POSITIONS)
    angles = positional.rope_angles(positions, d, interpolation=s)
    with mpmath.workdps(50):
        worst = max(abs(mpmath.mpf(float(angles[n, i])) - mpmath.mpf(int(m)) / mpmath.mpf(s) * mpmath.mpf(float(theta[i])))
                    for n, m in enumerate(positions) for i in range(d // 2))
    assert worst <= 2.0**-32
    # the rotation itself: rope of a unit vector is (cos, sin) of the exact angle, within 1e-9
    m = 2**20
    out = positional.rope(np.tile([1.0, 0.0], d // 2)[None, :], [m], interpolation=s)[0]
    with mpmath.workdps(50):
        exact = [mpmath.mpf(m) / mpmath.mpf(s) * mpmath.mpf(float(t)) for t in theta]
        want = np.array([[float(mpmath.cos(a)), float(mpmath.sin(a))] for a in exact]).ravel()
    assert np.max(np.abs(out - want)) <= 1e-9


@pytest.mark.parametrize("k", [2**20, -(2**20), 999_983, -7])
def test_shift_rotation_and_rope_matrix_are_within_1e_9_at_large_offsets(k):
    d = 6
    omega = positional.angular_frequencies(d)[0::2]
    R, M = positional.shift_rotation(k, d), positional.rope_matrix(k, d)
    for i, w in enumerate(omega):
        s, c = _exact_sin_cos(k, w)
        block_R = R[2 * i:2 * i + 2, 2 * i:2 * i + 2]
        block_M = M[2 * i:2 * i + 2, 2 * i:2 * i + 2]
        assert np.max(np.abs(block_R - [[c, s], [-s, c]])) <= 1e-9
        assert np.max(np.abs(block_M - [[c, -s], [s, c]])) <= 1e-9


def test_dot_by_offset_near_the_bound_is_the_closed_form():
    d = 8
    omega = positional.angular_frequencies(d)[0::2]
    offsets = [0, 1, 1000, 2**19]
    got = positional.dot_by_offset(2**20 - 2**19, offsets, d)
    with mpmath.workdps(50):
        want = [float(sum(mpmath.cos(mpmath.mpf(o) * mpmath.mpf(float(w))) for w in omega)) for o in offsets]
    # each encoding within 1e-9 entrywise: the sum of d products within about 2 d 1e-9
    np.testing.assert_allclose(got, want, rtol=0, atol=2 * d * 1e-9)


def test_start_is_one_position_and_offsets_one_row():
    # an array start reached int() ("only 0-dimensional arrays can be converted"); 2-D offsets returned (1, 2)
    for call in (lambda: positional.dot_by_offset([1, 2], [0], 4), lambda: positional.dot_by_offset([3], [0], 4),
                 lambda: positional.add_positions(np.zeros((1, 4)), start=np.array([[2]]))):
        with pytest.raises(TypeError, match=r"^start must be one integer, got an array of shape \(\d,( \d)?\)$"):
            call()
    with pytest.raises(ValueError, match=r"^offsets must be one integer or a 1-D array of integers, got shape \(1, 2\)$"):
        positional.dot_by_offset(0, [[1, 2]], 4)
    np.testing.assert_allclose(positional.dot_by_offset(np.int64(7), np.uint8(1), 4), [np.cos(1) + np.cos(0.01)])
