"""The similarity cases of the four-level chapter, checked against lib.embedding.

Cosine ignores length, dot and Euclidean do not; no query ranks a NaN first; ties are deterministic;
analogy queries state their exclusions; every metric is right at every scale where its value is
representable. References: SciPy's distance functions, and exact values computed with ``decimal``,
``fractions`` and ``math.dist``.
"""

import decimal
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.spatial.distance import cdist

from lib import embedding
from lib.embedding import analogy, dot_product, nearest_neighbours, similarity

A, B, C = np.array([1.0, 0.0]), np.array([10.0, 10.0]), np.array([0.1, 0.01])
TABLE = np.stack([A, B, C])  # rows 0, 1, 2


def test_cosine_ranks_c_before_b_and_dot_does_not():
    cos = nearest_neighbours(TABLE, A, 2, metric="cosine", exclude=[0])
    assert [i for i, _ in cos] == [2, 1]
    np.testing.assert_allclose([s for _, s in cos], [0.1 / np.hypot(0.1, 0.01), 1 / np.sqrt(2)])
    dot = nearest_neighbours(TABLE, A, 2, metric="dot", exclude=[0])
    assert [(i, round(s, 4)) for i, s in dot] == [(1, 10.0), (2, 0.1)]
    euc = nearest_neighbours(TABLE, A, 2, metric="euclidean", exclude=[0])
    assert [i for i, _ in euc] == [2, 1]
    np.testing.assert_allclose([s for _, s in euc], cdist(A[None], TABLE[[2, 1]])[0])
    # after row normalisation the three metrics rank alike
    for metric in ("cosine", "dot", "euclidean"):
        assert [i for i, _ in nearest_neighbours(TABLE, A, 2, metric=metric, normalize=True, exclude=[0])] == [2, 1]


def test_similarity_matches_scipy():
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(5, 3)), rng.normal(size=(4, 3))
    np.testing.assert_allclose(similarity(X, Y, "cosine"), 1 - cdist(X, Y, "cosine"))
    np.testing.assert_allclose(similarity(X, Y, "euclidean"), cdist(X, Y))
    np.testing.assert_allclose(similarity(X, Y, "dot"), X @ Y.T)


def test_no_nan_is_ever_ranked_first():
    table = np.array([[0.0, 0.0], [1.0, 0.0], [-1.0, 0.0]])
    got = nearest_neighbours(table, np.array([1.0, 0.1]), 3, metric="cosine")
    assert [i for i, _ in got] == [1, 0, 2]  # the zero row scores 0, not NaN, and sits between
    assert all(np.isfinite(s) for _, s in got)
    assert similarity(np.zeros(2), np.zeros(2)) == 0.0
    with pytest.raises(ValueError, match="NaN or infinity"):
        nearest_neighbours(np.array([[np.nan, 0.0], [1.0, 0.0]]), np.array([1.0, 0.0]), 1)
    with pytest.raises(ValueError, match="NaN or infinity"):
        nearest_neighbours(table, np.array([np.nan, 0.0]), 1)


def test_ties_break_by_smaller_row_index_whatever_the_candidate_order():
    table = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 2.0], [2.0, 0.0]])
    query = np.array([1.0, 1.0])  # every row has cosine 1/sqrt(2)
    assert [i for i, _ in nearest_neighbours(table, query, 4)] == [0, 1, 2, 3]
    assert [i for i, _ in nearest_neighbours(table, query, 4, candidates=[3, 1, 2])] == [1, 2, 3]
    assert [i for i, _ in nearest_neighbours(table, query, 2, metric="dot")] == [2, 3]  # 2 > 1; then ties


def test_analogy_exclusions_are_stated_and_applied():
    # a : b :: c : ?, with b itself the closest row to b - a + c
    table = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.9, 0.0, 0.1], [0.0, 0.9, 0.3], [0.0, 0.0, 1.0]])
    a, b, c = 0, 1, 2
    excluded = analogy(table, a, b, c, k=2)
    assert [i for i, _ in excluded] == [3, 4] and not {a, b, c} & {i for i, _ in excluded}
    included = analogy(table, a, b, c, k=2, exclude_query=False)
    assert included[0][0] == b  # without the exclusion the query word wins, as is usual
    unit = table / np.linalg.norm(table, axis=1, keepdims=True)
    target = unit[b] - unit[a] + unit[c]
    assert excluded[0][1] == pytest.approx(unit[3] @ target / np.linalg.norm(target))
    assert [i for i, _ in analogy(table, a, b, c, k=1, candidates=[4])] == [4]


def test_neighbour_queries_reject_bad_arguments():
    with pytest.raises(ValueError, match="k must be an integer >= 1"):
        nearest_neighbours(TABLE, A, 0)
    with pytest.raises(ValueError, match="metric must be one of"):
        nearest_neighbours(TABLE, A, 1, metric="manhattan")
    with pytest.raises(ValueError, match="excluded row 3 out of range"):
        nearest_neighbours(TABLE, A, 1, exclude=[3])
    with pytest.raises(ValueError, match="candidate row -1 out of range"):
        nearest_neighbours(TABLE, A, 1, candidates=[-1])
    assert nearest_neighbours(TABLE, A, 3, candidates=[0], exclude=[0]) == []


# --- every metric at every scale -------------------------------------------------------------------------
# Exact references: the floats converted exactly to Decimal / Fraction, so that no reference can overflow or
# underflow; a result is right when it is within a few units in the last place of the exact value.

EXACT = decimal.Context(prec=60, Emin=-999_999, Emax=999_999)
SCALES = [1e-300, 1e-200, 1e-100, 1.0, 1e100, 1e200, 1e300]


def exact_distance(x, y) -> float:
    squares = sum((EXACT.subtract(decimal.Decimal(a), decimal.Decimal(b))) ** 2 for a, b in zip(x, y))
    return float(EXACT.sqrt(squares))


def exact_dot(x, y) -> float:
    return float(sum(Fraction(a) * Fraction(b) for a, b in zip(x, y)))  # correctly rounded; OverflowError above max


def exact_cosine(x, y) -> float:
    d = [decimal.Decimal(v) for v in x], [decimal.Decimal(v) for v in y]
    dot = sum(EXACT.multiply(a, b) for a, b in zip(*d))
    return float(EXACT.divide(dot, EXACT.sqrt(sum(a * a for a in d[0]) * sum(b * b for b in d[1]))))


def test_the_reproducers_tiny_and_huge_distances():
    assert similarity([3e-200, 0.0], [0.0, 4e-200], "euclidean") == 5e-200  # was 0.0
    assert similarity([3e-200, 0.0], [0.0, 4e-200], "euclidean") == math.dist([3e-200, 0.0], [0.0, 4e-200])
    assert similarity([3e200, 0.0], [0.0, -4e200], "euclidean") == pytest.approx(exact_distance([3e200, 0], [0, -4e200]), rel=1e-15)
    assert similarity([1e300], [-1e300], "euclidean") == 2e300  # was an overflow error
    # neighbours by distance among tiny rows: distinct distances, the right order (before: all 0, ranked by index)
    table = np.array([[3e-200, 0.0], [1e-200, 0.0], [2e-200, 1e-200]])
    got = nearest_neighbours(table, np.zeros(2), 3, metric="euclidean")
    assert [i for i, _ in got] == [1, 2, 0]
    assert [s for _, s in got] == [1e-200, exact_distance([2e-200, 1e-200], [0, 0]), 3e-200]


@pytest.mark.parametrize("sx", SCALES)
@pytest.mark.parametrize("sy", SCALES)
def test_every_metric_is_right_at_every_scale(sx, sy):
    rng = np.random.default_rng(7)
    X, Y = rng.standard_normal((3, 5)) * sx, rng.standard_normal((4, 5)) * sy
    dist, cos = similarity(X, Y, "euclidean"), similarity(X, Y, "cosine")
    for i in range(3):
        for j in range(4):
            assert dist[i, j] == pytest.approx(exact_distance(X[i], Y[j]), rel=4e-16)
            assert dist[i, j] == pytest.approx(math.dist(X[i], Y[j]), rel=4e-16)
            assert cos[i, j] == pytest.approx(exact_cosine(X[i], Y[j]), rel=1e-14, abs=1e-15)
    if sx * sy > 1e307:  # the true dot products are above float64's largest number
        with pytest.raises(ValueError, match="the dot product of these vectors overflows float64"):
            similarity(X, Y, "dot")
        return
    dot = similarity(X, Y, "dot")
    for i in range(3):
        for j in range(4):
            want = exact_dot(X[i], Y[j])
            # correctly rounded: relative error of a few ulps, or one subnormal step where it underflows
            assert dot[i, j] == pytest.approx(want, rel=1e-14, abs=2 * 5e-324)


def test_dot_products_whose_huge_terms_cancel_keep_their_small_terms():
    """Each of 1e200 * 1e200 and 1e200 * -1e200 is beyond float64 but they cancel: the dot product is the
    small term, representable, and comes out exact (it was 0: the small term was lost beside the huge ones)."""
    assert similarity([1e200, 1e200, 1.0], [1e200, -1e200, 1.0], "dot") == 1.0
    assert similarity([1e200, 1e200, 1e-10], [1e200, -1e200, 1e-10], "dot") == exact_dot([1e-10], [1e-10])
    assert similarity([1.0, 1e200, 1e200], [1.0, 1e200, -1e200], "dot") == 1.0  # in any order
    # rounded once, half to even: 1 + 2**-53 is half-way between 1 and 1 + 2**-52; a tiny term beyond it
    # (1e-600, far below 2**-1074) decides the rounding, so it must not be lost either
    assert similarity([1e200, 1e200, 1.0, 2.0**-53], [1e200, -1e200, 1.0, 1.0], "dot") == 1.0
    assert similarity([1e200, 1e200, 1.0, 2.0**-53, 1e-300], [1e200, -1e200, 1.0, 1.0, 1e-300], "dot") == 1 + 2.0**-52
    assert similarity([-1e200, 1e200, -1.0, -(2.0**-53), -1e-300], [1e200, 1e200, 1.0, 1.0, 1e-300], "dot") == -1 - 2.0**-52
    # and the neighbour ranked by it: the product of row 0 is 1.0, of row 1 0.5
    got = nearest_neighbours([[1e200, 1e200, 1.0], [0.0, 0.0, 0.5]], [1e200, -1e200, 1.0], 2, metric="dot")
    assert got == [(0, 1.0), (1, 0.5)]  # was [(1, 0.5), (0, 0.0)]


@pytest.mark.parametrize("seed", range(5))
def test_cancelling_dot_products_are_the_exact_sum_rounded_once(seed):
    """Rows with a cancelling pair of terms beyond float64 and small terms 1e-150..1e150, so that the plain
    product overflows: each dot product must be the correctly rounded exact sum (Fraction)."""
    rng = np.random.default_rng(seed)
    n, d = 40, 6
    X = rng.standard_normal((n, d)) * 10.0 ** rng.integers(-75, 76, (n, d))
    Y = rng.standard_normal((1, d)) * 10.0 ** rng.integers(-75, 76, (1, d))
    X[:, :2], Y[0, :2] = 1e200 * rng.uniform(1, 2), [1e200, -1e200]  # x*1e200 - x*1e200: exactly 0
    got = similarity(X, Y, "dot")[:, 0]
    assert [v == exact_dot(x, Y[0]) for v, x in zip(got, X)] == [True] * n
    ranked = [i for i, _ in nearest_neighbours(X, Y[0], n, metric="dot")]
    assert ranked == sorted(range(n), key=lambda i: (-sum(Fraction(a) * Fraction(b) for a, b in zip(X[i], Y[0])), i))


def test_a_power_of_two_scales_every_score_exactly():
    rng = np.random.default_rng(8)
    X, Y = rng.standard_normal((6, 4)), rng.standard_normal((5, 4))
    for e in (-1000, -600, 600, 1000):
        small_x, small_y = np.ldexp(X, e // 2), np.ldexp(Y, e // 2)
        np.testing.assert_array_equal(similarity(small_x, small_y, "euclidean"), np.ldexp(similarity(X, Y, "euclidean"), e // 2))
        np.testing.assert_array_equal(similarity(small_x, small_y, "cosine"), similarity(X, Y, "cosine"))
        if e < 0:  # 2**-1000 times a product of unit-sized numbers is still a normal float64
            np.testing.assert_array_equal(similarity(small_x, small_y, "dot"), np.ldexp(X @ Y.T, e))


def test_mixed_scales_within_a_table_and_within_a_vector():
    table = np.array([[1e200, 0.0], [1e-200, 0.0], [2e-200, 0.0], [-1e200, 1.0]])
    # dot: the rows of size 1e-200 keep their products (1e-200 and 2e-200), and rank between the others
    got = nearest_neighbours(table, np.array([1.0, 0.0]), 4, metric="dot")
    assert got == [(0, 1e200), (2, 2e-200), (1, 1e-200), (3, -1e200)]
    got = nearest_neighbours(table, np.array([1.0, 0.0]), 4, metric="euclidean")
    assert [i for i, _ in got] == [1, 2, 0, 3] and got[0][1] == 1.0 and got[2][1] == pytest.approx(1e200)
    # one vector with entries 1e300 and 1e-20: the small entry carries the whole product
    assert similarity([1e300, 1e-20], [0.0, 1e300], "dot") == pytest.approx(1e280, rel=1e-15)
    assert similarity([1e300, -1e300], [1e10, 1e10], "dot") == 0.0  # 1e310 - 1e310: no overflow on the way
    assert similarity([1e200, 1e-200], [1e-200, 1e200], "dot") == 2.0
    assert similarity([1e-160, 1e-160], [1e-160, 1e-160], "dot") == exact_dot([1e-160] * 2, [1e-160] * 2)  # subnormal
    assert similarity([1e300, 1e-300], [1e-300, 1e300], "euclidean") == pytest.approx(math.sqrt(2) * 1e300, rel=1e-15)


def test_dot_products_that_underflow_still_rank_in_their_true_order():
    table = np.array([[1e-200, 0.0], [3e-200, 0.0], [2e-200, 1e-200], [-1e-200, 0.0]])
    got = nearest_neighbours(table, np.array([1e-200, 0.0]), 4, metric="dot")
    assert [i for i, _ in got] == [1, 2, 0, 3]  # products 3e-400, 2e-400, 1e-400, -1e-400
    assert [s for _, s in got] == [0.0, 0.0, 0.0, -0.0]  # each rounded to float64, as the module docstring says
    got = nearest_neighbours(table, np.array([-1e-200, 0.0]), 4, metric="dot")
    assert [i for i, _ in got] == [3, 0, 2, 1]


@pytest.mark.parametrize("metric", ["cosine", "dot", "euclidean"])
@pytest.mark.parametrize("scale", [2.0**-700, 2.0**-300, 2.0**300, 2.0**500])
def test_neighbours_rank_alike_at_every_scale(metric, scale):
    rng = np.random.default_rng(9)
    table, query = rng.standard_normal((30, 6)), rng.standard_normal(6)
    plain = nearest_neighbours(table, query, 30, metric=metric)
    scaled = nearest_neighbours(table * scale, query * (1.0 if metric == "dot" else scale), 30, metric=metric)
    assert [i for i, _ in scaled] == [i for i, _ in plain]
    factor = 1.0 if metric == "cosine" else scale
    assert [s for _, s in scaled] == [s * factor for _, s in plain]  # a power of two: exact
    assert analogy(table * scale, 0, 1, 2, k=5) == analogy(table, 0, 1, 2, k=5)


def test_scores_beyond_float64_are_a_clear_error():
    with pytest.raises(ValueError, match="the dot product of these vectors overflows float64"):
        similarity([1e200, 1e200], [1e200, 1e200], "dot")
    with pytest.raises(ValueError, match="the Euclidean distance of these vectors overflows float64"):
        similarity([1.5e308, 0.0], [-1.5e308, 0.0], "euclidean")  # the distance, 3e308, is not representable
    with pytest.raises(ValueError, match="overflows float64"):
        nearest_neighbours(np.array([[1e200, 1.0]]), np.array([1e200, 0.0]), 1, metric="dot")
    assert similarity([1e300, 1e300], [1e300, 1e300], "cosine") == pytest.approx(1.0, rel=1e-15)


@pytest.mark.parametrize("bad", [[0], np.array([0]), 0.0, True, None])
def test_analogy_rows_are_single_integers(bad):
    with pytest.raises(TypeError, match="analogy row must be one integer in \\[0, 2\\], got"):  # was NumPy's error
        analogy(TABLE, bad, 1, 2)
    with pytest.raises(ValueError, match="analogy row 3 out of range"):
        analogy(TABLE, 0, 1, 3)


# --- the near-tie rule: relative to the two scores compared, tie groups that never chain (attack-15) --------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from lib.embedding import TIE_RTOL, top_k  # noqa: E402
from lib.geometry import named_neighbours, neighbour_sets  # noqa: E402


def test_a_far_row_does_not_tie_the_near_ones_by_distance():
    """attack-15 F1: the tolerance was relative to the largest score, i.e. for distances to the farthest row."""
    got = nearest_neighbours([[0, 0], [2, 0], [1, 0], [1e13, 0]], [0.9, 0], 3, metric="euclidean")
    assert [i for i, _ in got] == [2, 0, 1]  # was [0, 1, 2]: distances 0.9, 1.1, 0.1 in row order
    assert [s for _, s in got] == pytest.approx([0.1, 0.9, 1.1], rel=1e-15)
    assert nearest_neighbours([[1e-200], [0.0], [1e100]], [0.0], 2, metric="euclidean") == [(1, 0.0), (0, 1e-200)]
    got = named_neighbours([[0.0], [2.0], [1.0], [1e13]], ["a", "b", "c", "d"], "a", 2, metric="euclidean")
    assert got == [("c", 1.0), ("b", 2.0)]  # was [('b', 2.0), ('c', 1.0)]


def test_near_ties_do_not_chain():
    """attack-15 F2: steps of 0.8 tolerances each chained four rows 2.4 tolerances apart into one tie. Greedy
    groups from the best: {1, 1 + 0.8e-12} (rows 3, 2, by row: 2 first), then {1 + 1.6e-12, 1 + 2.4e-12}."""
    table = [[1 + 2.4e-12], [1 + 1.6e-12], [1 + 0.8e-12], [1.0]]
    got = nearest_neighbours(table, [0.0], 4, metric="euclidean")
    assert [i for i, _ in got] == [2, 3, 0, 1]  # was [0, 1, 2, 3]: the largest distance first
    # cosine: 1 - cos = 2.4e-12, 1.6e-12, 0.8e-12, 0 (the exact match, row 3, ranked last before)
    angles = np.sqrt(2 * np.array([2.4e-12, 1.6e-12, 0.8e-12, 0.0]))
    table = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    got = nearest_neighbours(table, [1.0, 0.0], 4, metric="cosine")
    assert [i for i, _ in got] == [2, 3, 0, 1]
    assert got[1] == (3, 1.0)


def test_near_ties_are_relative_to_each_scores_own_size():
    # distances 1e-20 and 1.5e-20 are far apart relative to their size, whatever the other rows
    table = [[1e-20], [1.5e-20], [1e20]]
    assert [i for i, _ in nearest_neighbours(table, [0.0], 3, metric="euclidean")] == [0, 1, 2]
    table = [[1.5e-20], [1e-20], [1e20]]
    assert [i for i, _ in nearest_neighbours(table, [0.0], 3, metric="euclidean")] == [1, 0, 2]
    # within the tolerance of their own size they tie, and go by row, even among rows 1e10 from the query
    table = [[1e10 * (1 + 5e-13)], [1e10], [1.0]]
    assert [i for i, _ in nearest_neighbours(table, [0.0], 3, metric="euclidean")] == [2, 0, 1]
    # cosines: their size is 1 (a cosine's rounding error is relative to the product of the norms), so
    # cosines near 0 that differ by rounding noise tie as cosines near 1 do
    table = [[1e-13, 1.0], [-1e-13, 1.0], [5e-13, 1.0]]
    assert [i for i, _ in nearest_neighbours(table, [1.0, 0.0], 3, metric="cosine")] == [0, 1, 2]


def _reference_order(scores, metric):
    """The documented rule, written out plainly: greedy tie groups from the best score."""
    key = [-s for s in scores] if metric == "cosine" else list(scores)
    size = (lambda v: 1.0) if metric == "cosine" else abs
    left = sorted(range(len(key)), key=lambda i: (key[i], i))
    order = []
    while left:
        s = key[left[0]]
        group = [i for i in left if key[i] - s <= TIE_RTOL * max(size(key[i]), size(s))]
        order += sorted(group)
        left = [i for i in left if i not in group]
    return order


def _random_table(seed, n, d=3):
    """A table with copies, multiples and near-copies of earlier rows (well inside or well outside the
    tolerance, never near its edge), rows 1e-150..1e150 in size, and a query that is sometimes a row."""
    rng = np.random.default_rng(seed)
    table = rng.standard_normal((n, d))
    for i in range(1, n):
        u = rng.random()
        if u < 0.4:  # a copy or a multiple of an earlier row, perturbed by 0 or 1e-15 (a tie) or 1e-3 (not)
            factor = rng.choice([1.0, 1.0, 2.0, 0.5, 1e-3])
            noise = rng.choice([0.0, 1e-15, 1e-3]) * rng.standard_normal(d)
            table[i] = table[rng.integers(i)] * factor * (1 + noise)
        elif u < 0.55:  # an outlier, far or tiny
            table[i] *= 10.0 ** rng.integers(-150, 151)
    query = table[rng.integers(n)].copy() if rng.random() < 0.3 else rng.standard_normal(d)
    return table, query


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 40), k=st.integers(1, 45),
       metric=st.sampled_from(["cosine", "euclidean", "dot"]))
def test_neighbours_come_sorted_up_to_the_tolerance_ties_by_row(seed, n, k, metric):
    table, query = _random_table(seed, n)
    got = nearest_neighbours(table, query, k, metric=metric)
    ids, scores = [i for i, _ in got], [s for _, s in got]
    assert len(got) == min(k, n) and len(set(ids)) == len(ids)
    key = scores if metric == "euclidean" else [-s for s in scores]
    size = (lambda v: abs(v)) if metric == "euclidean" else (lambda v: 1.0 if metric == "cosine" else 0.0)
    for (a, ka), (b, kb) in zip(zip(ids, key), zip(ids[1:], key[1:])):
        assert kb >= ka - TIE_RTOL * max(size(ka), size(kb)), (a, b)  # never better by more than the tolerance
        if metric != "dot" and kb <= ka:  # a later score as good or better: only a tie, ordered by row
            assert a < b
    everything = similarity(table, query, metric)
    rest = [i for i in range(n) if i not in ids]
    if rest and metric != "dot":  # no row left out beats a returned one by more than the tolerance
        worst = max(key)
        left_out = min(everything[rest]) if metric == "euclidean" else -max(everything[rest])
        assert left_out >= worst - TIE_RTOL * max(size(worst), size(left_out))
    if metric != "dot":
        assert ids == _reference_order(everything, metric)[:k]
    else:
        assert all(x >= y for x, y in zip(scores, scores[1:]))


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 60), k=st.integers(1, 65))
def test_top_k_is_the_documented_rule(seed, n, k):
    """Scores with exact ties, near-ties and real differences, as cosines (larger is better, tolerance
    1e-12) and as distances (smaller is better, tolerance relative to each score's size)."""
    rng = np.random.default_rng(seed)
    base = rng.uniform(0, 1, max(1, n // 3))
    steps = rng.choice([0.0, 3e-13, 8e-13, 2e-12, 1e-6], n)  # within, near and beyond the tolerance
    scores = base[rng.integers(base.shape[0], size=n)] + steps * rng.choice([-1.0, 1.0], n)
    assert top_k(scores, k).tolist() == _reference_order(scores, "cosine")[:k]
    distances = np.abs(scores) * 10.0 ** rng.integers(-5, 6)
    assert top_k(distances, k, largest=False, relative=True).tolist() == _reference_order(distances, "euclidean")[:k]


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 40), k=st.integers(1, 39))
def test_neighbour_sets_are_the_rows_nearest_neighbours_returns(seed, n, k):
    table, _ = _random_table(seed, n)
    k = min(k, n - 1)
    want = [frozenset(i for i, _ in nearest_neighbours(table, table[r], k, exclude=[r])) for r in range(n)]
    assert neighbour_sets(table, range(n), k) == want


def test_the_recorded_margin_is_the_closest_tie_group_boundary(tmp_path, monkeypatch):
    """For the rounding-margin report: how far the first score outside a tie group was from joining it,
    with the size of that score (not of the farthest row) as its scale; nothing when all of them tie."""
    import json

    from lib import notebook

    log = tmp_path / "numbers.jsonl"
    monkeypatch.setenv(notebook.NUMBER_LOG, str(log))
    nearest_neighbours([[0, 0], [2, 0], [1, 0], [1e13, 0]], [0.9, 0], 3, metric="euclidean")  # 0.1, 0.9, 1.1
    nearest_neighbours([[1.0, 0.0], [0.6, 0.8], [1.0, 0.0]], [1.0, 0.0], 2)  # rows 0 and 2 tie; 0.6 is third
    nearest_neighbours([[1.0, 0.0], [1.0, 0.0]], [1.0, 0.0], 2)  # one tie group: no boundary to record
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["name"] for e in entries] == ["nearest_neighbours: order of the 3 nearest (euclidean)",
                                            "nearest_neighbours: order of the 2 nearest (cosine)"]
    assert entries[0]["raw"] == pytest.approx(1.1 - TIE_RTOL * 1.1 - 0.9) and entries[0]["scale"] == pytest.approx(1.1)
    assert entries[1]["raw"] == pytest.approx(0.4 - TIE_RTOL) and entries[1]["scale"] == 1.0


def test_python_integers_beyond_int64_are_numbers_and_beyond_float64_a_value_error():
    # 2**70 makes NumPy build an object array; the entries are still real numbers, refused (ValueError, not
    # TypeError) by the rule of every integer beyond 2**53, as np.int64(2**62) is; as floats they are computed
    assert dot_product([2.0**70], [2.0**70]) == 2.0**140
    with pytest.raises(ValueError, match=r"^x holds the integer 1180591620717411303424, beyond 2\*\*53: float64"):
        similarity([2**70, 0], [2**71, 0], "cosine")
    with pytest.raises(ValueError, match=r"^x holds an integer of 401 digits, beyond the float64 range \(about 1.8e308\)$"):
        similarity([10**400], [1], "dot")
    with pytest.raises(TypeError, match="real numbers"):
        similarity([2**70, "a"], [1, 1], "dot")


def test_a_subnormal_dot_product_is_the_exact_value_rounded_once():
    from fractions import Fraction

    # 4.661086204498098e-164 * 1.854964363001483e-159 is 8.4e-323 exactly rounded (Fraction); it came out
    # 9e-323: the product was rounded to 53 bits first, then again to the few bits of a subnormal
    assert embedding.dot_product([4.661086204498098e-164], [1.854964363001483e-159]) == 8.4e-323
    rng = np.random.default_rng(7)
    for _ in range(500):
        a, b, c = (float(rng.uniform(1, 2)) * 2.0 ** int(rng.integers(-560, -500)) for _ in range(3))
        for x, y in (([a], [b]), ([a, -c], [b, b])):
            exact = sum(Fraction(p) * Fraction(q) for p, q in zip(x, y))
            if abs(exact) < Fraction(2) ** -1022:  # subnormal: the exact sum, correctly rounded (Fraction -> float)
                assert embedding.dot_product(x, y) == float(exact)


def test_top_k_refuses_integers_that_float64_would_round():
    # 2**53 and 2**53 + 1 are one apart, far above the tolerance, but the same float64: the smaller came first
    for scores in (np.array([2**53, 2**53 + 1]), [2**53 + 1, 2**53], np.array([-(2**60), 0])):
        with pytest.raises(ValueError, match=r"^scores holds the integer -?\d+, beyond 2\*\*53: float64"):
            embedding.top_k(scores, 1)
    assert embedding.top_k(np.array([2**53 - 1, 2**53]), 1).tolist() == [1]  # exact in float64: fine


def test_top_k_near_the_float64_limit_warns_nothing():
    import warnings

    top = 1.7976931348623157e308
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NumPy's "overflow encountered in subtract" was leaked
        assert embedding.top_k([top * (1 - 3e-12), top], 2, relative=True).tolist() == [1, 0]
        # within the tolerance of each other: one group, smaller position first
        assert embedding.top_k([top * (1 - 1e-13), top], 2, relative=True).tolist() == [0, 1]
        # the margin to the next group, -1.7e308 - 1.6e308, is beyond float64 ("overflow in scalar subtract")
        assert embedding.top_k([1.7e308, 1.6e308, -1.7e308], 3, largest=False, relative=True).tolist() == [2, 1, 0]
        assert embedding.top_k([-top, top], 2).tolist() == [1, 0]
        assert embedding.top_k([-top, top], 2, largest=False).tolist() == [0, 1]


def test_lookup_grad_reports_a_summed_row_beyond_float64():
    with pytest.raises(ValueError, match=r"^the summed gradient of row 0 \(column 0\) is beyond the float64 range "
                                         r"\(about 1.8e308\)$"):
        embedding.lookup_grad([0, 0], [[1e308], [1e308]], 1)  # was inf, with NumPy's warning
    assert embedding.lookup_grad([0, 0], [[1e308], [-1e308]], 1).tolist() == [[0.0]]


def test_lookup_grad_gives_a_representable_sum_whose_running_total_overflows():
    import warnings

    top = 1.7976931348623157e308
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # in order, 1e308 + 1e308 is inf and stays inf; the true sum is 1e308
        assert embedding.lookup_grad([0, 0, 0], [[1e308], [1e308], [-1e308]], 1).tolist() == [[1e308]]
        # row 1, column 1 only: the largest float twice, less itself, plus a small term the exact sum keeps
        grad = embedding.lookup_grad([1, 1, 0, 1, 1], [[1.0, top], [2.0, top], [5.0, 6.0], [3.0, -top], [4.0, 2.0**969]], 2)
    assert grad.tolist() == [[5.0, 6.0], [10.0, top]]  # top + a quarter of its ulp, rounded once: top
    with pytest.raises(ValueError, match=r"row 1 \(column 1\) is beyond the float64 range"):
        embedding.lookup_grad([1, 1, 0], [[0.0, top], [0.0, 2.0**971], [0.0, 0.0]], 2)  # top + its ulp = 2**1024


# --- a ranking fails only for a score it returns; distances in O(n m) memory --------------------------------


def test_a_row_beyond_float64_that_is_not_returned_does_not_fail_the_ranking():
    """The far row's distance (2e308) or product (-1e310) is beyond float64, but the k answers are not: they come
    back, and the far row ranks last; asking for it too is the overflow error."""
    assert nearest_neighbours([[1e308], [-1e308]], [1e308], 1, metric="euclidean") == [(0, 0.0)]
    assert nearest_neighbours([[1.0], [-1e300]], [1e10], 1, metric="dot") == [(0, 1e10)]
    assert nearest_neighbours([[-1e300], [1.0]], [1e10], 1, metric="dot") == [(1, 1e10)]
    got = named_neighbours([[1e308], [9e307], [-1e308]], ["a", "b", "c"], "a", 1, metric="euclidean")
    assert got == [("b", exact_distance([1e308], [9e307]))]
    # the far row after every representable one, whatever its index
    assert [i for i, _ in nearest_neighbours([[-1e308], [1e308], [0.0]], [1e308], 2, metric="euclidean")] == [1, 2]
    with pytest.raises(ValueError, match="the Euclidean distance of these vectors overflows float64"):
        nearest_neighbours([[1e308], [-1e308]], [1e308], 2, metric="euclidean")
    with pytest.raises(ValueError, match="the dot product of these vectors overflows float64"):
        nearest_neighbours([[1.0], [-1e300]], [1e10], 2, metric="dot")
    # a product above float64 ranks first: returning it is the error
    with pytest.raises(ValueError, match="the dot product of these vectors overflows float64"):
        nearest_neighbours([[1.0], [1e300]], [1e10], 1, metric="dot")


def test_euclidean_similarity_needs_no_n_by_m_by_d_array():
    """similarity(X, Y, "euclidean") built the (n, m, d) differences (894 GiB for 20000 x 300 rows against
    themselves); blockwise it holds O(n m + block). Measured with tracemalloc, which sees NumPy's buffers: the
    peak stays far below the n * m * d floats (19.2 MB here) while the result is right (SciPy's cdist, exact)."""
    import tracemalloc

    rng = np.random.default_rng(3)
    X, Y = rng.standard_normal((300, 40)), rng.standard_normal((200, 40))
    tracemalloc.start()
    try:
        got = similarity(X, Y, "euclidean")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 300 * 200 * 40 * 8 / 4, f"peak {peak} bytes"
    np.testing.assert_allclose(got, cdist(X, Y), rtol=4e-16, atol=0)
    for i, j in ((0, 0), (17, 123), (299, 199)):
        assert got[i, j] == pytest.approx(exact_distance(X[i], Y[j]), rel=4e-16)
    assert np.all(np.diag(similarity(X, X, "euclidean")) == 0.0)  # equal rows: exactly 0


def test_near_rows_beside_huge_ones_keep_their_distance():
    """Scaled together with a row of size 1e308, rows of size 1e-300 become subnormal or 0: their distances are
    recomputed from the unscaled rows, exactly as when the huge row is absent."""
    table = np.array([[1e308, 0.0], [3e-300, 0.0], [0.0, 4e-300], [5e-324, 0.0], [1e-323, 0.0]])
    D = similarity(table, table, "euclidean")
    assert D[1, 2] == pytest.approx(exact_distance(table[1], table[2]), rel=4e-16)  # 5e-300
    assert D[3, 4] == 5e-324 and D[1, 3] == pytest.approx(exact_distance(table[1], table[3]), rel=4e-16)
    assert D[0, 1] == 1e308
    got = nearest_neighbours(table, [0.0, 0.0], 5, metric="euclidean")
    assert [i for i, _ in got] == [3, 4, 1, 2, 0]


def test_parallel_vectors_have_cosine_exactly_one_in_every_cosine_path():
    """The cosine of two parallel vectors is exactly 1 (antiparallel: -1) at any scale, and similarity,
    cosine_scores and evaluation.pair_cosines give the same bits near ±1: all recompute a cosine within
    2**-10 of ±1 from the difference of the unit rows. (Before, similarity's matrix product gave
    0.9999999999999998 for [1, 1] and [1, 1] while pair_cosines gave 1.0.)"""
    from lib.evaluation import pair_cosines

    big = 8.98846567431158e307
    assert embedding.cosine_similarity([1.0, 1.0], [1.0, 1.0]) == 1.0
    assert embedding.cosine_similarity([1e-300, 1e-300], [1.0, 1.0]) == 1.0
    assert embedding.cosine_similarity([big, big], [-big, -big]) == -1.0
    assert embedding.cosine_scores([[1.0, 1.0], [-big, -big]], [1e-300, 1e-300]).tolist() == [1.0, -1.0]
    cos, _, _ = pair_cosines([[1.0, 1.0], [1e-300, 1e-300], [-big, -big]], list("abc"), [("a", "b", 1), ("a", "c", 2)])
    assert cos.tolist() == [1.0, -1.0]
    rng = np.random.default_rng(11)
    for d in (2, 7, 50, 300):
        v = rng.standard_normal(d)
        X = np.array([v, v * 1e-300, v * 3e300, -v * 5e-7])
        assert np.all(np.abs(similarity(X, X)) == 1.0) and np.all(np.abs(embedding.cosine_scores(X, X)) == 1.0)
        # near-parallel rows: every path gives the same bits, right to about 1 ulp of the exact cosine
        Y = X + rng.standard_normal(X.shape) * np.abs(X).max(axis=1, keepdims=True) * 1e-4
        S, Q = similarity(X, Y), embedding.cosine_scores(Y, X)
        words = [f"x{i}" for i in range(4)] + [f"y{i}" for i in range(4)]
        pairs = [(f"x{i}", f"y{j}", 1.0) for i in range(4) for j in range(4)]
        P = pair_cosines(np.vstack([X, Y]), words, pairs)[0].reshape(4, 4)
        assert np.all(np.abs(S) > 1 - 2.0**-10)
        assert S.tolist() == Q.tolist() == P.tolist()
        for i in range(4):
            for j in range(4):
                assert S[i, j] == pytest.approx(exact_cosine(X[i], Y[j]), rel=0, abs=2.3e-16)


def test_cosine_paths_agree_to_rounding_away_from_one():
    """Away from ±1 similarity is a matrix product (BLAS) and cosine_scores and pair_cosines sum in one fixed
    order: the last two are the same bits, similarity is within d * 2**-53 of them and of the exact cosine."""
    from lib.evaluation import pair_cosines

    rng = np.random.default_rng(12)
    X, Y = rng.standard_normal((6, 40)), rng.standard_normal((5, 40))
    S, Q = similarity(X, Y), embedding.cosine_scores(Y, X)
    words = [f"x{i}" for i in range(6)] + [f"y{j}" for j in range(5)]
    pairs = [(f"x{i}", f"y{j}", 1.0) for i in range(6) for j in range(5)]
    P = pair_cosines(np.vstack([X, Y]), words, pairs)[0].reshape(6, 5)
    assert Q.tolist() == P.tolist()
    np.testing.assert_allclose(S, Q, rtol=0, atol=40 * 2.0**-53)
    for i, j in ((0, 0), (3, 2), (5, 4)):
        assert S[i, j] == pytest.approx(exact_cosine(X[i], Y[j]), rel=0, abs=40 * 2.0**-53)


def test_a_negative_dot_product_beyond_float64_is_described_by_its_magnitude():
    for x, y in (([-1e200, 0], [1e200, 0]), ([1e308, 0], [-1e308, 0]), ([1e200, 0], [1e200, 0])):
        with pytest.raises(ValueError, match=r"^the dot product of these vectors overflows float64 \(its magnitude is "
                                             r"above 1.8e308\)$"):
            similarity(x, y, "dot")
