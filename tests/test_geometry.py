"""lib.geometry: metric tables, fixed-sign projection, neighbours by name and their stability across runs,
anisotropy."""

import math
import re
import warnings

import numpy as np
import pytest
from scipy.stats import ortho_group
from sklearn.decomposition import PCA

from exact_centring import exactly_centred, principal_coordinates, tables_with_a_constant_column

from lib.chapters.embeddings import FOUR_VECTORS
from lib.corpus import UnknownTokenError, Vocabulary
from lib.embedding import nearest_neighbours
from lib.geometry import (
    MetricRow,
    anisotropy,
    centred_rows,
    format_metric_table,
    metric_table,
    named_neighbours,
    neighbour_overlap,
    neighbour_sets,
    principal_projection,
    stability_by_frequency,
)

TOKENS = ["cat", "dog", "car", "truck", "pet"]
TABLE = np.array([[1.0, 0.1], [0.9, 0.3], [0.0, 1.0], [0.1, 0.9], [0.8, 0.5]])


def test_four_vector_table_closed_forms():
    ref = FOUR_VECTORS["reference"]
    rows = metric_table(ref, {k: v for k, v in FOUR_VECTORS.items() if k != "reference"})
    assert [r.name for r in rows] == ["same direction, larger", "nearby, different angle", "opposite"]
    same, near, opp = rows
    assert (same.cosine, same.euclidean, same.dot) == pytest.approx((1.0, math.sqrt(5), 3.75))
    assert near.cosine == pytest.approx(1.075 / (math.sqrt(1.25) * math.sqrt(0.65**2 + 0.85**2)))
    assert near.euclidean == pytest.approx(math.hypot(0.35, 0.35))
    assert (opp.cosine, opp.euclidean, opp.dot) == pytest.approx((-1.0, math.sqrt(5), -1.25))
    text = format_metric_table(rows).splitlines()
    assert text[0].split() == ["vector", "cosine", "Euclidean", "dot"]
    assert text[1].split()[-3:] == ["1.0000", "2.2361", "3.7500"]
    with pytest.raises(ValueError, match=re.escape("vectors['x'] must be a vector (2,) like the reference, got shape (3,)")):
        metric_table([1.0, 0.0], {"x": [1.0, 0.0, 0.0]})
    with pytest.raises(ValueError, match="reference must be a vector"):
        metric_table([[1.0, 0.0]], {"x": [1.0, 0.0]})


def test_principal_projection_matches_pca_up_to_sign_and_never_flips():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 6))
    got = principal_projection(X, 2, normalize=False)
    ref = PCA(2, svd_solver="full").fit_transform(X)
    np.testing.assert_allclose(np.abs(got), np.abs(ref), atol=1e-10)
    # a model with every coordinate negated is the same model: the projection must not flip
    np.testing.assert_allclose(principal_projection(-X, 2, normalize=False), got, atol=1e-12)
    for j in range(2):
        col = got[:, j]
        assert col[np.argmax(np.abs(col))] > 0
    unit = X / np.linalg.norm(X, axis=1, keepdims=True)
    np.testing.assert_allclose(principal_projection(X, 2), principal_projection(unit, 2, normalize=False), atol=1e-12)


def test_neighbour_overlap_identical_rotated_and_disjoint():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(12, 5))
    Q = ortho_group.rvs(5, random_state=2)
    items = range(12)
    np.testing.assert_allclose(neighbour_overlap([X, X @ Q, X], items, k=3), np.ones(12))  # rotation-invariant
    # hand case: item 0's top-1 neighbour is row 1 in run a and row 2 in run b
    a = np.array([[1.0, 0.0], [1.0, 0.1], [0.0, 1.0]])
    b = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.1]])
    assert neighbour_overlap([a, b], [0], k=1).tolist() == [0.0]
    assert neighbour_overlap([a, b, a], [0], k=1).tolist() == [pytest.approx(1 / 3)]  # pairs ab, aa, ba
    with pytest.raises(ValueError, match="at least two tables"):
        neighbour_overlap([a], [0])
    with pytest.raises(ValueError, match=r"k must be an integer in \[1, 2\]"):
        neighbour_overlap([a, b], [0], k=3)
    with pytest.raises(ValueError, match="same number of rows"):
        neighbour_overlap([a, b[:2]], [0])


def test_anisotropy_cone_basis_and_mean_removal():
    assert anisotropy(np.eye(4)) == pytest.approx(0.0)
    cone = np.array([[10.0, 0.1], [10.0, -0.1], [10.0, 0.3]])
    assert anisotropy(cone) > 0.99
    # after removing the mean the three points are spread: mean pairwise cosine well below zero
    centred = anisotropy(cone, center=True)
    X = cone - cone.mean(0)
    cos = X @ X.T / np.outer(np.linalg.norm(X, axis=1), np.linalg.norm(X, axis=1))
    assert centred == pytest.approx((cos.sum() - 3) / 6)
    with pytest.raises(ValueError, match="at least two rows"):
        anisotropy(np.ones((1, 3)))


def test_stability_by_frequency():
    got = stability_by_frequency([1.0, 0.5, 0.0, 1.0], [10, 1, 2, 7], threshold=5)
    assert got == {"rare": 0.25, "frequent": 1.0, "n_rare": 2, "n_frequent": 2}
    with pytest.raises(ValueError, match="leaves one group empty"):
        stability_by_frequency([1.0], [3], threshold=1)
    with pytest.raises(ValueError, match="same length"):
        stability_by_frequency([1.0, 2.0], [3], threshold=1)


@pytest.mark.parametrize(
    "overlap, counts, threshold, kind, message",
    [
        ([np.nan, 0.5, 1.0], [1, 10, 10], 5, ValueError, "overlap must hold fractions in [0, 1], got nan at index 0"),
        ([0.1, np.inf, 1.0], [1, 10, 10], 5, ValueError, "overlap must hold fractions in [0, 1], got inf at index 1"),
        ([0.1, 0.5, 1.5], [1, 10, 10], 5, ValueError, "overlap must hold fractions in [0, 1], got 1.5 at index 2"),
        ([0.1, 0.5, 1.0], [1, 10, 10], "5", TypeError, "threshold must be an integer, got '5'"),
        ([0.1, 0.5, 1.0], [1, 10, 10], 5.0, TypeError, "threshold must be an integer, got 5.0"),
        ([], [], 5, ValueError, "overlap and counts hold no items"),
        ([0.1, 0.5], [1.0, 10.0], 5, TypeError, "counts must be integers, got dtype float64"),
        ([0.1, 0.5], [-1, 10], 5, ValueError, "counts must be >= 0, got -1 at index 0"),
        (["a", "b"], [1, 10], 5, TypeError, "overlap must hold real numbers, got dtype <U1"),
        # Python integers beyond int64 are integers: not "counts must be integers, got dtype float64"
        ([1.0, 0.5], [2**70, 1], 5, ValueError, "counts must fit in int64 (-2**63 to 2**63 - 1), got 1180591620717411303424"),
        ([1.0, 0.5], [-1, 2**63], 5, ValueError, "counts must fit in int64 (-2**63 to 2**63 - 1), got 9223372036854775808"),
        ([1.0, 0.5], np.array([1, 2], dtype="m8[s]"), 5, TypeError, "counts must be integers, got dtype timedelta64[s]"),
        # uint64 holds counts beyond int64: refused as the docstring says, not compared
        ([1.0, 0.5], np.array([1, 2**64 - 1], dtype=np.uint64), 5, ValueError,
         "counts must be < 2**63 (at most 9223372036854775807), got 18446744073709551615"),
    ],
)
def test_stability_by_frequency_names_the_bad_argument(overlap, counts, threshold, kind, message):
    # attack-15 F16: NaN and inf gave a NaN (inf) mean, a string threshold and empty input failed inside NumPy
    with pytest.raises(kind) as info:
        stability_by_frequency(overlap, counts, threshold)
    assert str(info.value) == message


def test_named_neighbours_by_hand():
    vocab = Vocabulary(["a", "b", "c"])
    table = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0]])
    got = named_neighbours(table, vocab, "a", 2)
    assert [t for t, _ in got] == ["b", "c"] and got[0][1] == pytest.approx(0.9 / math.hypot(0.9, 0.1))
    assert named_neighbours(table, ["a", "b", "c"], "a", 2) == got  # a token list works as a vocabulary
    with pytest.raises(ValueError, match="3 items"):
        named_neighbours(table[:2], vocab, "a")
    with pytest.raises(KeyError):
        named_neighbours(table, vocab, "zzz")


def test_named_neighbours_cosine_by_hand():
    got = named_neighbours(TABLE, TOKENS, "cat", k=2)
    assert [w for w, _ in got] == ["dog", "pet"]
    unit = TABLE / np.linalg.norm(TABLE, axis=1, keepdims=True)
    assert got[0][1] == pytest.approx(float(unit[0] @ unit[1]))
    with pytest.raises(UnknownTokenError, match="'zebra' is not in the vocabulary"):
        named_neighbours(TABLE, TOKENS, "zebra")


def test_neighbour_overlap_is_one_under_a_rotation_of_a_random_table():
    rng = np.random.default_rng(4)
    table = rng.standard_normal((50, 6))
    q, _ = np.linalg.qr(rng.standard_normal((6, 6)))
    np.testing.assert_allclose(neighbour_overlap([table, table @ q], np.arange(50), k=5), 1.0)


def test_neighbour_overlap_of_two_tables_by_hand():
    a = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]])
    b = np.array([[1.0, 0.0], [0.0, 1.0], [0.9, 0.1], [0.1, 0.9]])
    # row 0: neighbours in a are 1 then 3; in b 2 then 3: k=1 -> 0, k=2 -> 1/2
    assert neighbour_overlap([a, b], [0], k=1).tolist() == [0.0]
    assert neighbour_overlap([a, b], [0], k=2).tolist() == [0.5]
    with pytest.raises(ValueError, match="out of range"):
        neighbour_overlap([a, b], [7], k=2)


def test_neighbour_sets_give_exact_ties_to_the_smaller_row():
    """attack-15 F17: rows that are multiples of the item (cosine 1 up to rounding) were ranked by the noise in
    the last bits of their cosines, not by row as documented."""
    v = np.array([-0.48211931267997826, 0.5988462126346276, 0.03972210748165899, -0.2924567509650886,
                  -0.7819084623568421])
    t = np.vstack([v, v * 1.4343998162657543e-119, v * 1.5217254886079741e125])
    assert neighbour_sets(t, [0], 1) == [frozenset({1})]  # was [frozenset({2})]
    assert [i for i, _ in nearest_neighbours(t, v, 2, exclude=[0])] == [1, 2]  # the same rule


@pytest.mark.parametrize("low, high", [(-250, 250), (-1, 1)])
def test_neighbour_sets_of_an_item_among_its_multiples_take_the_smallest_row(low, high):
    """The attack's random trials: an item, four positive multiples of it and one random row; k = 1 must
    name the first multiple (it missed in 70 and 62 of 300 trials)."""
    rng = np.random.default_rng(15)
    for _ in range(300):
        v = rng.standard_normal(5)
        scales = 10.0 ** rng.uniform(low, high, size=4)
        table = np.vstack([v, *(v * c for c in scales), rng.standard_normal(5)])
        rows = rng.permutation(6)  # the item and its multiples anywhere in the table
        shuffled = table[np.argsort(rows)]  # row rows[i] holds table[i]
        item, multiples = rows[0], sorted(rows[1:5])
        assert neighbour_sets(shuffled, [item], 1) == [frozenset({multiples[0]})]
        assert neighbour_sets(shuffled, [item], 2) == [frozenset(multiples[:2])]
        # two runs that differ only in the multiples' scales (and so in rounding noise) agree completely
        other = np.vstack([v, *(v * c for c in scales[::-1]), table[5]])[np.argsort(rows)]
        assert neighbour_overlap([shuffled, other], [item], k=3).tolist() == [1.0]


# --- scale: every measurement is right for vectors of any finite size -------------------------------------


def test_metric_table_of_tiny_and_huge_vectors():
    tiny = metric_table([3e-200, 0.0], {"b": [0.0, 4e-200], "c": [6e-200, 0.0]})
    assert [(r.cosine, r.euclidean) for r in tiny] == [(0.0, 5e-200), (1.0, 3e-200)]  # distances were 0.0
    assert [r.dot for r in tiny] == [0.0, 0.0]  # 1.8e-399 is below float64's smallest number: rounded to 0
    huge = {"b": [0.0, 4e200], "c": [-6e200, 0.0]}
    with pytest.raises(ValueError, match="dot product of these vectors overflows float64"):
        metric_table([3e200, 0.0], huge)  # 1.8e401 has no float64: a clear error, not inf
    row = metric_table([3e150, 0.0], {"c": [-6e150, 0.0]})[0]
    assert (row.cosine, row.euclidean, row.dot) == (-1.0, 9e150, pytest.approx(-1.8e301, rel=1e-15))


@pytest.mark.parametrize("scale", [2.0**-700, 2.0**650])
def test_neighbours_overlap_anisotropy_and_projection_do_not_depend_on_scale(scale):
    rng = np.random.default_rng(5)
    X = rng.standard_normal((12, 4))
    words = [f"w{i}" for i in range(12)]
    for metric in ("cosine", "euclidean", "dot"):
        if metric == "dot" and scale > 1:  # products of size 2**1300 have no float64
            with pytest.raises(ValueError, match="overflows float64"):
                named_neighbours(X * scale, words, "w0", 11, metric=metric)
            continue
        plain = named_neighbours(X, words, "w0", 11, metric=metric)
        scaled = named_neighbours(X * scale, words, "w0", 11, metric=metric)  # dot products of size 2**-1400
        assert [w for w, _ in scaled] == [w for w, _ in plain], metric
    np.testing.assert_array_equal(neighbour_overlap([X, X * scale], range(12), k=3), np.ones(12))
    assert anisotropy(X * scale) == anisotropy(X)
    assert anisotropy(X * scale, center=True) == anisotropy(X, center=True)  # a mean of 1e196-sized rows
    np.testing.assert_array_equal(principal_projection(X * scale, normalize=False), principal_projection(X, normalize=False) * scale)


def test_named_neighbours_by_distance_among_tiny_vectors_do_not_tie():
    table = np.array([[0.0, 0.0], [3e-200, 0.0], [1e-200, 0.0], [2e-200, 0.0]])
    got = named_neighbours(table, ["o", "c", "a", "b"], "o", 3, metric="euclidean")
    assert got == [("a", 1e-200), ("b", 2e-200), ("c", 3e-200)]  # before: all 0.0, in row order


def test_principal_coordinates_that_overflow_are_an_error_not_inf():
    X = [[1e308, 1e308], [1e308, -1e308], [-1e308, 1e308]]  # coordinates 0, ±1.414e308: they fit
    np.testing.assert_allclose(principal_projection(X, 1, normalize=False)[:, 0], [0, 2**0.5 * 1e308, -(2**0.5) * 1e308],
                               rtol=1e-14, atol=1e293)
    with pytest.raises(ValueError, match="principal coordinates of these vectors overflow float64"):
        principal_projection([[1.7e308, 1.7e308], [-1.7e308, -1.7e308]], 1, normalize=False)  # ±2.4e308
    np.testing.assert_allclose(principal_projection(np.array(X) / 1e300, 1, normalize=False) * 1e300,
                               principal_projection(np.array(X) / 4, 1, normalize=False) * 4, rtol=1e-12)


# a constant column whose float64 mean is inexact (0.1 + 0.1 + 0.1 is 0.30000000000000004) left every row the
# same residue: 1.39e-17 for all three rows of the first table, zeros or "rows are all equal" for the second
CONSTANT_COLUMN_TABLES = [
    ([[0.1, 0.0], [0.1, 1e-17], [0.1, 2e-17]], [-1e-17, 0.0, 1e-17]),
    ([[1e300, 0.0], [1e300, 1e-300], [1e300, 2e-300]], [-1e-300, 0.0, 1e-300]),
]


@pytest.mark.parametrize("rows, exact", CONSTANT_COLUMN_TABLES)
def test_centred_rows_leave_no_residue_in_a_constant_column(rows, exact):
    C, e = centred_rows(rows)
    centred = np.ldexp(C, e)
    np.testing.assert_array_equal(centred[:, 0], [0.0, 0.0, 0.0])
    np.testing.assert_allclose(centred[:, 1], exact, rtol=1e-15)


@pytest.mark.parametrize("rows, exact", CONSTANT_COLUMN_TABLES)
def test_principal_projection_of_a_constant_column_with_an_inexact_mean(rows, exact):
    got = principal_projection(rows, 1, normalize=False)[:, 0]
    # the sign convention makes the largest entry positive; the two are equal in size, so compare up to sign
    assert np.allclose(got, exact, rtol=1e-14, atol=0) or np.allclose(got, np.negative(exact), rtol=1e-14, atol=0), got
    assert got[1] == 0.0


def test_centred_rows_match_exact_fractions_on_random_tables_with_a_constant_column():
    for rows in tables_with_a_constant_column(100, seed=1):
        C, e = centred_rows(rows)
        centred = np.ldexp(C, e)
        exact = exactly_centred(rows)
        np.testing.assert_array_equal(centred[:, 0], 0.0)
        # each entry within a unit in the last place of the spread (the mean is rounded once, then the difference)
        np.testing.assert_allclose(centred, exact, rtol=0, atol=4e-16 * np.abs(exact).max())


def test_principal_projection_matches_exact_centring_and_pca_without_the_constant_column():
    for rows in tables_with_a_constant_column(100, seed=2):
        m = rows.shape[1] - 1  # the varying columns: the centred table has rank m
        got = principal_projection(rows, m, normalize=False)
        # independent references: SVD of the rows centred with fractions, and scikit-learn's PCA of the
        # varying columns alone (its float64 mean is exact to rounding relative to their own spread)
        for ref in (principal_coordinates(rows, m), PCA(m, svd_solver="full").fit_transform(rows[:, 1:])):
            scale = np.abs(ref).max() ** 2
            # Gram matrices: equal whatever the signs or, for equal singular values, the rotation
            np.testing.assert_allclose(got @ got.T, ref @ ref.T, rtol=0, atol=1e-12 * scale)
        if m == 1:
            ref = principal_coordinates(rows, 1)
            atol = 1e-12 * np.abs(ref).max()
            assert np.allclose(got, ref, rtol=0, atol=atol) or np.allclose(got, -ref, rtol=0, atol=atol)


def test_centred_anisotropy_of_a_constant_column_with_an_inexact_mean_by_hand():
    # centred exactly: (0, -a), (0, 0), (0, a): one antiparallel pair, the zero row's cosines 0, so -2/6
    assert anisotropy([[0.1, 0.0], [0.1, 1e-17], [0.1, 2e-17]], center=True) == pytest.approx(-1 / 3, rel=1e-15)


def test_principal_projection_reads_a_tensor_that_requires_grad_or_is_bfloat16():
    import torch

    rows = [[0.5, 0.0], [0.5, 1.0], [0.5, 2.0]]  # exact in bfloat16
    expected = principal_projection(rows, 1, normalize=False)
    np.testing.assert_array_equal(expected, [[1.0], [0.0], [-1.0]])
    for t in (torch.tensor(rows, dtype=torch.float64, requires_grad=True), torch.tensor(rows, dtype=torch.bfloat16)):
        np.testing.assert_array_equal(principal_projection(t, 1, normalize=False), expected)  # were torch's errors
        np.testing.assert_array_equal(np.ldexp(*centred_rows(t)), [[0.0, -1.0], [0.0, 0.0], [0.0, 1.0]])


def test_centred_rows_name_bad_input():
    with pytest.raises(ValueError, match="^vectors contains NaN or infinity$"):
        centred_rows([[np.nan, 1.0], [1.0, 0.0]])
    with pytest.raises(TypeError, match="^vectors must hold real numbers"):
        centred_rows([["a"]])


def test_anisotropy_names_vectors_for_non_finite_input_without_centring():
    with pytest.raises(ValueError, match="^vectors contain NaN or infinity"):
        anisotropy([[np.nan, 1.0], [1.0, 0.0]], center=False)


def _exact_centred_anisotropy(rows) -> float:
    """Mean pairwise cosine of the rows minus their mean row, centred exactly (fractions) and the cosines
    taken with 60 significant decimal digits: an independent reference for anisotropy(center=True)."""
    import decimal
    from fractions import Fraction

    X = [[Fraction(v) for v in row] for row in rows]
    V, D = len(X), len(X[0])
    mean = [sum(row[j] for row in X) / V for j in range(D)]
    C = [[row[j] - mean[j] for j in range(D)] for row in X]
    with decimal.localcontext() as ctx:
        ctx.prec = 60

        def dec(f):
            return decimal.Decimal(f.numerator) / decimal.Decimal(f.denominator)

        total = decimal.Decimal(0)
        for i in range(V):
            for k in range(V):
                if i != k:
                    dot = sum(a * b for a, b in zip(C[i], C[k]))
                    n2 = sum(a * a for a in C[i]) * sum(b * b for b in C[k])
                    total += dec(dot) / dec(n2).sqrt() if n2 else 0
        return float(total / (V * (V - 1)))


@pytest.mark.parametrize("rows", [
    [[1e300, 0.0], [1e-300, 1e-300], [-1e300, 0.0], [0.0, -1e-300]],  # gave -0.1667 (the tiny rows lost)
    [[1.7e308, 1.0], [-1.7e308, 2.0], [1.7e308, -1.0], [3e-300, 1e-300]],  # a sum near float64's largest
    [[1.0, 2.0], [3.0, -1.0], [0.5, 0.25]],
])
def test_centred_anisotropy_of_rows_of_very_different_sizes_matches_an_exact_reference(rows):
    assert anisotropy(rows, center=True) == pytest.approx(_exact_centred_anisotropy(rows), rel=1e-14, abs=1e-15)


def test_centred_anisotropy_of_the_issue_table_by_hand():
    # exact centring gives -0.3202725625230109 (fractions and 60-digit decimals)
    rows = [[1e300, 0.0], [1e-300, 1e-300], [-1e300, 0.0], [0.0, -1e-300]]
    assert anisotropy(rows, center=True) == pytest.approx(-0.3202725625230109, rel=1e-14)


@pytest.mark.parametrize("rows, exact", [
    ([[1e-320, 5e-321], [3e-321, 1e-320]], -1.0),  # two centred rows are antiparallel; gave -0.99999978
    ([[1e-320, 5e-321], [3e-321, 1e-320], [7e-322, 2e-321]], None),  # gave -0.496285971718834
])
def test_centred_anisotropy_of_subnormal_rows_matches_an_exact_reference(rows, exact):
    reference = _exact_centred_anisotropy(rows)
    if exact is not None:
        assert reference == exact
    assert anisotropy(rows, center=True) == pytest.approx(reference, rel=1e-14)
    assert anisotropy(rows, center=True) == anisotropy(np.ldexp(rows, 1000), center=True)


def test_principal_coordinates_near_float64_largest_that_fit_are_returned_without_a_warning():
    # the singular value (about 2.4e308) is beyond float64, the coordinates (PCA: ±1.7e308, 0) are not
    X = np.array([[1.7e308, 0.0], [-1.7e308, 0.0], [0.0, 1e308]])
    reference = PCA(1).fit_transform(X / 2.0**1023) * 2.0**1023
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no NumPy RuntimeWarning escapes
        got = principal_projection(X, 1, normalize=False)
    np.testing.assert_allclose(np.abs(got), np.abs(reference), rtol=1e-14, atol=1e293)
    assert got[:, 0].tolist()[:2] == [1.7e308, -1.7e308] and abs(got[2, 0]) < 1e293
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # one beyond float64 is the ValueError, no warning first
        with pytest.raises(ValueError, match="principal coordinates of these vectors overflow float64"):
            principal_projection([[1.7e308, 1.7e308], [-1.7e308, -1.7e308]], 1, normalize=False)

def test_metric_table_names_the_entry_that_is_not_a_vector_like_the_reference():
    def error(vectors):
        with pytest.raises((ValueError, TypeError)) as info:
            metric_table([1.0, 0.0], vectors)
        return type(info.value), str(info.value)

    # was NumPy's "only 0-dimensional arrays can be converted to Python scalars"
    assert error({"a": [[1.0, 0.0], [0.0, 1.0]]}) == (ValueError, "vectors['a'] must be a vector (2,) like the reference, got shape (2, 2)")
    assert error({"ok": [1.0, 0.0], "b": np.array(1.0)}) == (ValueError, "vectors['b'] must be a vector (2,) like the reference, got shape ()")
    assert error({"c": [np.nan, 0.0]}) == (ValueError, "vectors['c'] contains NaN or infinity")  # was "y contains ..."
    assert error({"d": ["x", "y"]}) == (TypeError, "vectors['d'] must hold real numbers, got dtype <U1")
    assert error([("a", [1.0, 0.0])]) == (TypeError, "vectors must be a mapping of names to vectors (d,), got list")
    # a score beyond float64 still names what overflowed
    with pytest.raises(ValueError, match=r"^vectors\['huge'\]: the dot product of these vectors overflows float64"):
        metric_table([1e200, 0.0], {"huge": [1e200, 0.0]})


def test_format_metric_table_prints_distances_and_products_of_any_size():
    """A distance of 1.4e300 was printed as a 301-digit fixed-point number, and one of 1.4e-300 as 0.0000."""
    lines = format_metric_table(metric_table([1e300, 0.0], {"a": [0.0, 1e300]})).splitlines()
    assert lines[1].split() == ["a", "0.0000", f"{math.sqrt(2) * 1e300:.4e}", "0.0000"]  # 1.4142e+300
    lines = format_metric_table(metric_table([1e-300, 0.0], {"a": [2e-300, 0.0]}), digits=2).splitlines()
    assert lines[1].split() == ["a", "1.00", "1.00e-300", "0.00"]  # the product 2e-600 is 0 in float64
    lines = format_metric_table(metric_table([3e-6, 0.0], {"a": [0.0, 4e-6]})).splitlines()
    assert lines[1].split() == ["a", "0.0000", "5.0000e-06", "0.0000"]
    lines = format_metric_table(metric_table([3e-5, 0.0], {"a": [0.0, 4e-5]})).splitlines()
    assert lines[1].split() == ["a", "0.0000", "0.0001", "0.0000"]  # 5e-5 rounds to 0.0001: fixed
    lines = format_metric_table(metric_table([1e5, 0.0], {"a": [2e4, 0.0]})).splitlines()
    assert lines[1].split() == ["a", "1.0000", "80000.0000", "2.0000e+09"]  # 1e9 and above: exponent form


@pytest.mark.parametrize("one", [0, np.int64(1), np.array(0)])
def test_items_given_as_one_int_is_a_type_error_naming_items(one):
    # was Python's "'int' object is not iterable" or NumPy's "iteration over a 0-d array"
    message = rf"^items must be a collection of ids \(e\.g\. items=\[3\]\), not one int: got {re.escape(repr(one))}$"
    with pytest.raises(TypeError, match=message):
        neighbour_sets(np.eye(3), one, 1)
    with pytest.raises(TypeError, match=message):
        neighbour_overlap([np.eye(3)] * 2, one, 1)
    with pytest.raises(TypeError, match=r"^items must be a collection of ids \(e\.g\. items=\[3\]\), got None$"):
        neighbour_sets(np.eye(3), None, 1)
    with pytest.raises(ValueError, match=r"^item 3 out of range for vocabulary of 3 \(allowed 0\.\.2\)$"):
        neighbour_sets(np.eye(3), [3], 1)


def test_neighbour_overlap_reads_a_generator_of_items_once_for_every_table():
    a = [[1.0, 0.0], [1.0, 0.1], [0.0, 1.0]]
    b = [[1.0, 0.0], [0.1, 1.0], [0.0, 1.0]]
    assert neighbour_overlap([a, b], [0, 1], k=1).tolist() == [1.0, 0.0]
    # each table got the generator in turn, and the second found it empty
    assert neighbour_overlap([a, b], (i for i in [0, 1]), k=1).tolist() == [1.0, 0.0]


@pytest.mark.parametrize("bad", ["no", 1, None])
def test_geometry_flags_must_be_true_or_false(bad):
    shown = re.escape(repr(bad))
    with pytest.raises(TypeError, match=f"^normalize must be True or False, got {shown}$"):
        named_neighbours(TABLE, TOKENS, "cat", 1, normalize=bad)
    with pytest.raises(TypeError, match=f"^normalize must be True or False, got {shown}$"):
        principal_projection(TABLE, 2, normalize=bad)
    with pytest.raises(TypeError, match=f"^center must be True or False, got {shown}$"):
        anisotropy(TABLE, center=bad)


def test_format_metric_table_decides_the_form_on_the_rounded_value():
    # 999999999.99999 rounds to 1000000000.0000: it was printed fixed beside 1e9 in exponent form
    rows = [MetricRow("a", 1.0, 999999999.99999, 1e9), MetricRow("b", 0.5, 999999999.6, 999999999.4)]
    lines = format_metric_table(rows).splitlines()
    assert lines[1].split() == ["a", "1.0000", "1.0000e+09", "1.0000e+09"]
    assert lines[2].split() == ["b", "0.5000", "999999999.6000", "999999999.4000"]
    lines = format_metric_table(rows, digits=0).splitlines()
    assert lines[2].split() == ["b", "0", "1e+09", "999999999"]
    # 0.00004 rounds to 0 at 4 decimals: exponent form, as below half a unit before
    assert format_metric_table([MetricRow("c", 0.0, 0.00004, 0.00006)]).splitlines()[1].split() == [
        "c", "0.0000", "4.0000e-05", "0.0001"]


def test_format_metric_table_refuses_rows_built_by_hand_with_impossible_values():
    for row, message in [
        (MetricRow("n", float("nan"), 1.0, 1.0), r"^row 'n': cosine must be a finite number, got nan$"),
        (MetricRow("i", 0.5, float("inf"), 1.0), r"^row 'i': euclidean must be a finite number, got inf$"),
        (MetricRow("c", 2.0, 1.0, 1.0), r"^row 'c': a cosine must lie in \[-1, 1\] and a distance be >= 0, "
                                         r"got cosine 2.0 and euclidean 1.0$"),
        (MetricRow("d", 0.5, -1.0, 1.0), r"^row 'd': a cosine must lie in \[-1, 1\] and a distance be >= 0"),
    ]:
        with pytest.raises(ValueError, match=message):
            format_metric_table([row])


def test_format_metric_table_checks_rows_and_digits():
    rows = metric_table([1.0, 0.0], {"a": [1.0, 1.0]})
    with pytest.raises(TypeError, match=r"^rows must be a sequence of MetricRow \(from metric_table\), got \['abc'\]$"):
        format_metric_table(["abc"])  # was AttributeError: 'str' object has no attribute 'name'
    with pytest.raises(ValueError, match=r"^digits must be an integer in \[0, 12\], got an integer of 401 digits$"):
        format_metric_table(rows, 10**400)  # was "Too many decimal digits in format string"
    with pytest.raises(TypeError, match=r"^digits must be an integer in \[0, 12\], got True$"):
        format_metric_table(rows, True)  # was an error about the spec '.Truef'
    assert format_metric_table(rows, 2).splitlines()[1].split() == ["a", "0.71", "1.00", "1.00"]


def test_named_neighbours_word_must_be_a_str():
    table = [[1.0, 0.0], [0.9, 0.1], [0.0, 1.0]]
    for word in (["a"], 3):  # unhashable list; 3 was reported as an unknown token
        with pytest.raises(TypeError, match=f"^word must be a str, got {re.escape(repr(word))}$"):
            named_neighbours(table, ["a", "b", "c"], word)
    with pytest.raises(TypeError, match="^vocab must be a Vocabulary or a sequence of tokens, got None$"):
        named_neighbours(table, None, "a")


def test_neighbour_overlap_tables_as_none_or_a_generator():
    a = [[1.0, 0.0], [1.0, 0.1], [0.0, 1.0]]
    with pytest.raises(TypeError, match=r"^tables must be a sequence of \(V, D\) tables, got None$"):
        neighbour_overlap(None, [0])
    # a generator was "object of type 'generator' has no len()"
    assert neighbour_overlap((t for t in (a, a)), [0, 1], k=1).tolist() == [1.0, 1.0]


# --- rows that differ from their mean by a few units in the last place ---------------------------------


def _ulp_tables(base: float, seed: int = 0):
    """Tables whose entries are ``base`` (or 0) plus a few units in the last place of ``base``: the centred
    rows are then a few units in size, and subtracting the rounded mean alone would replace them with its
    rounding error. The attacker's table first, then seeded random ones."""
    u = float(np.spacing(base))
    yield np.array([[base, 0.0], [base + u, 0.0], [base, u]])
    rng = np.random.default_rng(seed)
    for _ in range(30):
        V, D = int(rng.integers(2, 8)), int(rng.integers(1, 4))
        steps = rng.integers(-4, 5, size=(V, D)).astype(float)
        yield base + steps * u


@pytest.mark.parametrize("base", [1e-300, 1.0, 3.0, 1e300])
def test_centred_rows_keep_differences_of_a_few_ulps_at_every_scale(base):
    for rows in _ulp_tables(base):
        C, e = centred_rows(rows)
        # the reference in the same (exactly) scaled space: each entry x - mean in fractions, rounded once
        exact = exactly_centred(np.ldexp(rows, -e))
        # the stated bound: one unit in the last place plus 2**-104 max(|x|, |mean|)
        bound = np.spacing(np.abs(exact)) + 2.0**-104 * np.abs(np.ldexp(rows, -e)).max()
        assert np.all(np.abs(C - exact) <= bound), (rows, C, exact)
        # the rounded mean alone left an error of up to half a unit of the mean: a third of the answer here
        assert np.all(np.abs(C - exact) <= 2 * np.spacing(np.abs(exact).max()))


@pytest.mark.parametrize("base", [1e-300, 1.0, 1e300])
def test_centred_anisotropy_of_rows_a_few_ulps_apart_by_hand(base):
    # centred exactly: (-1, -1), (2, -1), (-1, 2) units of u/3; cosines -1/sqrt(10) twice and -4/5, so
    # anisotropy = (-2/sqrt(10) - 4/5) / 3 = -0.47749 (the rounded mean gave -1/3)
    rows = next(_ulp_tables(base))
    assert anisotropy(rows, center=True) == pytest.approx((-2 / math.sqrt(10) - 0.8) / 3, rel=1e-14)
    for rows in _ulp_tables(base, seed=3):
        if rows.shape[1] < 2:
            continue
        C, e = centred_rows(rows)
        assert anisotropy(rows, center=True) == pytest.approx(anisotropy(exactly_centred(np.ldexp(rows, -e))),
                                                              rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("base", [1e-300, 1.0, 1e300])
def test_principal_projection_of_rows_a_few_ulps_apart_matches_exact_centring(base):
    # at 1e-300 the coordinates are subnormal (a few units of 1.5e-316, about 30 bits each): compared in
    # the scaled space at that precision; elsewhere at 1e-12. The rounded mean was off by a third of a unit.
    tol = 1e-6 if base < 1e-200 else 1e-12
    for rows in _ulp_tables(base, seed=4):
        k = max(1, min(rows.shape[0] - 1, rows.shape[1]))  # every direction: the Gram matrix is C C^T
        f = -int(np.frexp(np.abs(rows).max())[1])  # the rows scaled (exactly) to below 1
        ref = principal_coordinates(np.ldexp(rows, f), k)  # exact centring, SVD, in the scaled space
        if not np.any(ref):
            continue  # all rows equal: no direction to compare
        got = np.ldexp(principal_projection(rows, k, normalize=False), f)
        scale = np.abs(ref).max() ** 2
        np.testing.assert_allclose(got @ got.T, ref @ ref.T, rtol=0, atol=tol * scale)
