"""The similarity cases of the four-level chapter, checked against lib.embedding.

Cosine ignores length, dot and Euclidean do not; no query ranks a NaN first; ties are deterministic;
analogy queries state their exclusions. References: SciPy's distance functions.
"""

import numpy as np
import pytest
from scipy.spatial.distance import cdist

from lib.embedding import analogy, nearest_neighbours, similarity

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
