"""lib.ppmi: co-occurrence counts, PPMI with context smoothing (Levy et al. 2015), truncated SVD."""

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse
from sklearn.decomposition import TruncatedSVD

from lib.chapters.embeddings import ANIMAL_VEHICLE_NAME, animal_vehicle_corpus
from lib.corpus import Vocabulary
from lib.ppmi import cooccurrence, ppmi, ppmi_svd_embedding, sign_convention, svd_vectors, truncated_svd

HAND_COUNTS = np.array([[0, 2, 1, 0], [2, 0, 1, 0], [1, 1, 0, 0], [0, 0, 0, 0]])
HAND_PPMI = np.array([[0, 0.5754, 0.2877, 0], [0.5754, 0, 0.2877, 0], [0.2877, 0.2877, 0, 0], [0, 0, 0, 0]])
HAND_PPMI_075 = np.array([[0, 0.6017, 0.2126, 0], [0.6017, 0, 0.2126, 0], [0.3140, 0.3140, 0, 0], [0, 0, 0, 0]])


@pytest.fixture(scope="module")
def corpus_ids():
    corpus = animal_vehicle_corpus()
    vocab = Vocabulary.from_sentences(corpus, order="alphabetical")
    return vocab, vocab.encode_sentences(corpus)


def _source_counts_and_ppmi(ids, V):
    """The chapter source's loops and its epsilon-guarded PPMI: an independent reference."""
    C = np.zeros((V, V))
    for s in ids:
        for i in range(len(s)):
            for j in range(len(s)):
                if i != j:
                    C[s[i], s[j]] += 1
    total, row, col = C.sum(), C.sum(1, keepdims=True), C.sum(0, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        P = np.maximum(np.log((C * total + 1e-12) / (row @ col + 1e-12)), 0)
    return C, P


# --- counts ------------------------------------------------------------------------------------------


def test_whole_sentence_counts_equal_the_sources(corpus_ids):
    vocab, ids = corpus_ids
    C_ref, _ = _source_counts_and_ppmi(ids, len(vocab))
    C = cooccurrence(ids, len(vocab))
    np.testing.assert_array_equal(C, C_ref)
    np.testing.assert_array_equal(C, C.T)
    assert C.sum() == 78
    np.testing.assert_array_equal(cooccurrence(ids, len(vocab), sparse=True).toarray(), C_ref)


def test_windows_weightings_and_one_sided_counts():
    s = [np.array([0, 1, 2, 3])]
    harmonic = cooccurrence(s, 4, 3, weighting="harmonic")
    assert harmonic[0].tolist() == [0, 1, 0.5, 1 / 3]
    linear = cooccurrence(s, 4, 3, weighting="linear")  # (w - d + 1) / w
    assert linear[0].tolist() == [0, 1, 2 / 3, 1 / 3]
    window1 = cooccurrence(s, 4, 1)
    assert window1[0].tolist() == [0, 1, 0, 0] and window1[1].tolist() == [1, 0, 1, 0]
    right = cooccurrence(s, 4, 2, symmetric=False)
    np.testing.assert_array_equal(right + right.T, cooccurrence(s, 4, 2))
    assert right[1].tolist() == [0, 0, 1, 1] and right[:, 0].tolist() == [0, 0, 0, 0]
    sparse = cooccurrence(s, 4, 3, weighting="harmonic", sparse=True)
    assert isinstance(sparse, scipy.sparse.csr_array)
    np.testing.assert_allclose(sparse.toarray(), harmonic, rtol=0, atol=1e-15)


def test_cooccurrence_rejects_bad_input():
    with pytest.raises(ValueError, match="needs an integer window"):
        cooccurrence([[0, 1]], 2, weighting="linear")
    with pytest.raises(ValueError, match="weighting must be one of"):
        cooccurrence([[0, 1]], 2, 2, weighting="gaussian")
    with pytest.raises(ValueError, match="token id 2 out of range for vocabulary of 2"):
        cooccurrence([[0, 2]], 2)
    with pytest.raises(ValueError, match="vocab_size must be an integer in \\[1, 268435456\\]"):
        cooccurrence([[0, 1]], 0)


# --- PPMI ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("alpha, expected", [(1.0, HAND_PPMI), (0.75, HAND_PPMI_075)])
@pytest.mark.parametrize("as_sparse", [False, True])
def test_ppmi_hand_case_without_warnings(alpha, expected, as_sparse):
    counts = scipy.sparse.csr_array(HAND_COUNTS) if as_sparse else HAND_COUNTS
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            out = ppmi(counts, alpha)
    dense = out.toarray() if as_sparse else out
    assert np.isfinite(dense).all()
    np.testing.assert_allclose(dense, expected, atol=5e-5)
    # closed forms behind the four-decimal values
    assert dense[0, 1] == pytest.approx(np.log(16 / 9) if alpha == 1 else np.log(0.25 / (0.375 * 3**0.75 / (2 * 3**0.75 + 2**0.75))))


def test_ppmi_equals_the_sources_epsilon_formula_on_the_corpus(corpus_ids):
    vocab, ids = corpus_ids
    C, P_ref = _source_counts_and_ppmi(ids, len(vocab))
    np.testing.assert_allclose(ppmi(C), P_ref, rtol=0, atol=1e-10)


def test_ppmi_empty_rows_columns_and_all_zero_matrix_give_zero():
    C = np.zeros((3, 4))
    C[0, 1] = 5
    with np.errstate(all="raise"):
        out = ppmi(C)
        assert (ppmi(np.zeros((2, 2))) == 0).all()
        assert ppmi(scipy.sparse.csr_array((2, 2))).nnz == 0
    assert out[0, 1] == pytest.approx(0.0)  # the only event: P(w, c) = P(w) P(c), PMI 0
    assert not np.isnan(out).any() and (out >= 0).all()


def test_sparse_and_dense_ppmi_agree_on_random_counts():
    rng = np.random.default_rng(3)
    C = rng.poisson(0.3, size=(60, 50)).astype(float)
    C[5] = 0
    for alpha in (1.0, 0.75):
        np.testing.assert_allclose(ppmi(scipy.sparse.csr_array(C), alpha).toarray(), ppmi(C, alpha), rtol=1e-13, atol=0)


@pytest.mark.parametrize(
    "counts, alpha, exc, match",
    [
        (np.array([[1.0, -1.0]]), 1.0, ValueError, ">= 0"),
        (np.array([[1.0, np.nan]]), 1.0, ValueError, "NaN or infinity"),
        (np.array([1.0, 2.0]), 1.0, ValueError, "2-D"),
        (HAND_COUNTS, 0.0, ValueError, "alpha must be a finite number > 0"),
        (HAND_COUNTS, float("inf"), ValueError, "alpha must be a finite number > 0"),
        (scipy.sparse.csr_array(np.array([[1.0, -1.0]])), 1.0, ValueError, ">= 0"),
        (np.array([["a"]]), 1.0, TypeError, "numeric"),
    ],
)
def test_ppmi_rejects_bad_input(counts, alpha, exc, match):
    with pytest.raises(exc, match=match):
        ppmi(counts, alpha)


# --- SVD --------------------------------------------------------------------------------------------------


def _random_ppmi(n=200, seed=0):
    rng = np.random.default_rng(seed)
    C = rng.poisson(0.05, size=(n, n)).astype(float)
    C = C + C.T
    return ppmi(C), ppmi(scipy.sparse.csr_array(C))


def test_dense_and_sparse_solvers_give_the_same_vectors():
    dense, sparse = _random_ppmi()
    a = svd_vectors(dense, 10, solver="dense")
    b = svd_vectors(sparse, 10, solver="sparse")
    c = svd_vectors(sparse, 10, solver="sparse", seed=123)  # another ARPACK start vector
    np.testing.assert_allclose(a, b, rtol=0, atol=1e-10)
    np.testing.assert_allclose(b, c, rtol=0, atol=1e-10)
    np.testing.assert_array_equal(svd_vectors(dense, 10), a)  # repeated runs are identical


def test_propack_gives_the_arpack_and_dense_vectors():
    """The "propack" solver (added for the real-text chapter, where it is faster) agrees with the others."""
    dense, sparse = _random_ppmi()
    U, S, _ = truncated_svd(sparse, 10, solver="propack")
    np.testing.assert_allclose(S, np.linalg.svd(dense, compute_uv=False)[:10], rtol=1e-12)
    # vectors to 1e-7: PROPACK stops a little earlier than ARPACK on the two closest singular values here
    np.testing.assert_allclose(U, truncated_svd(dense, 10, solver="dense").U, rtol=0, atol=1e-7)
    np.testing.assert_allclose(U, truncated_svd(sparse, 10, solver="sparse").U, rtol=0, atol=1e-7)
    with pytest.raises(ValueError, match="PROPACK"):
        truncated_svd(np.eye(4), 4, solver="propack")


def test_singular_values_and_reconstruction_match_independent_references():
    dense, sparse = _random_ppmi(120, seed=1)
    U, S, Vt = truncated_svd(sparse, 6)
    np.testing.assert_allclose(S, np.linalg.svd(dense, compute_uv=False)[:6], rtol=1e-10)
    sk = TruncatedSVD(6, algorithm="arpack", random_state=0).fit(sparse)
    np.testing.assert_allclose(S, sk.singular_values_, rtol=1e-8)
    np.testing.assert_allclose(U.T @ U, np.eye(6), atol=1e-10)
    full_U, full_S, full_Vt = np.linalg.svd(dense)
    best = full_U[:, :6] * full_S[:6] @ full_Vt[:6]
    np.testing.assert_allclose(U * S @ Vt, best, atol=1e-9)  # Eckart-Young: the same rank-6 approximation


def test_sign_convention_largest_entry_positive_and_ties_by_row():
    U = np.array([[0.1, -0.5], [-0.9, 0.5 * (1 + 1e-12)], [0.3, 0.2]])
    Vt = np.arange(6.0).reshape(2, 3)
    U2, Vt2 = sign_convention(U, Vt)
    assert U2[1, 0] == pytest.approx(0.9)  # the largest |entry| is made positive
    assert U2[0, 1] == pytest.approx(0.5)  # a near-tie (-0.5 vs 0.5 + 1e-12) goes to the smaller row
    np.testing.assert_allclose(U2 @ Vt2, U @ Vt)  # U Vt unchanged
    U3, _ = sign_convention(-U, Vt)
    np.testing.assert_array_equal(U3, U2)  # either input sign gives one output
    with pytest.raises(ValueError, match="2-D"):
        sign_convention(np.ones(3))


def test_svd_vectors_power():
    dense, _ = _random_ppmi(50, seed=2)
    U, S, _ = truncated_svd(dense, 3)
    np.testing.assert_allclose(svd_vectors(dense, 3, power=1.0), U * S)
    np.testing.assert_allclose(svd_vectors(dense, 3), U * np.sqrt(S))
    np.testing.assert_allclose(svd_vectors(dense, 3, power=0.0), U)


@pytest.mark.parametrize(
    "k, solver, match",
    [(0, "dense", "k must be an integer"), (5, "dense", "k must be an integer"), (4, "sparse", "ARPACK"), (2, "lobpcg", "solver")],
)
def test_svd_rejects_bad_input(k, solver, match):
    with pytest.raises(ValueError, match=match):
        truncated_svd(np.eye(4), k, solver=solver)


def test_svd_rejects_non_finite_and_bad_power():
    with pytest.raises(ValueError, match="NaN or infinity"):
        truncated_svd(np.array([[1.0, np.nan], [0, 1]]), 1)
    # two finite entries at (1, 2) that SciPy sums into inf: said so, not "NaN or infinity"
    twice = scipy.sparse.coo_array(([1.0, 1e308, 1e308], ([0, 1, 1], [0, 2, 2])), shape=(3, 3))
    with pytest.raises(ValueError, match=r"^matrix holds duplicate entries at \(1, 2\) whose sum, as SciPy adds them "
                                         r"in order, is beyond the float64 range \(about 1.8e308\)"):
        truncated_svd(twice, 1)
    with pytest.raises(ValueError, match="^matrix contains NaN or infinity$"):  # an entry that is itself infinite
        truncated_svd(scipy.sparse.coo_array(([1.0, np.inf], ([0, 1], [0, 2])), shape=(3, 3)), 1)
    with pytest.raises(ValueError, match="power must be a finite number >= 0"):
        svd_vectors(np.eye(3), 1, power=-1)


# --- the chapter's pipeline ---------------------------------------------------------------------------


def test_ppmi_svd_embedding_on_the_corpus_separates_the_two_groups(corpus_ids):
    vocab, ids = corpus_ids
    corpus = animal_vehicle_corpus()
    dense = ppmi_svd_embedding(corpus, vocab, corpus=ANIMAL_VEHICLE_NAME)
    sparse = ppmi_svd_embedding(corpus, vocab, sparse=True, corpus=ANIMAL_VEHICLE_NAME)
    np.testing.assert_allclose(sparse.vectors, dense.vectors, rtol=0, atol=1e-12)
    # the source's own computation, up to the sign of each column
    _, P = _source_counts_and_ppmi(ids, len(vocab))
    U, S, _ = np.linalg.svd(P)
    np.testing.assert_allclose(np.abs(dense.vectors), np.abs(U[:, :2] * np.sqrt(S[:2])), atol=1e-9)
    # animals and vehicles never share a sentence: each group lies on one axis, on the positive side
    vehicles = [vocab.id(t) for t in ("car", "truck", "vehicle", "road", "cargo", "carries", "people")]
    animals = [vocab.id(t) for t in ("cat", "kitten", "dog", "puppy", "pet", "soft", "loyal", "young")]
    assert (dense.vectors[vehicles, 0] > 0.5).all() and np.abs(dense.vectors[vehicles, 1]).max() < 1e-12
    assert (dense.vectors[animals, 1] > 0.5).all() and np.abs(dense.vectors[animals, 0]).max() < 1e-12
    assert dense.provenance.corpus == ANIMAL_VEHICLE_NAME and dense.provenance.dimension == 2
    assert dense.provenance.context == "every other word of the sentence"


def _exact_ppmi(counts) -> np.ndarray:
    """PPMI (alpha = 1) of integer counts from the closed form: each ratio n_wc N / (n_w n_c) an exact
    Python fraction whose log is taken once."""
    C = [[int(v) for v in row] for row in counts]
    rows, cols = [sum(r) for r in C], [sum(c) for c in zip(*C)]
    total = sum(rows)
    return np.array([[max(0.0, math.log(Fraction(n * total, rows[w] * cols[c]))) if n else 0.0
                      for c, n in enumerate(row)] for w, row in enumerate(C)])


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("scale", [2.0**1021, 1.7e308 / 4])
def test_counts_whose_sums_overflow_float64_give_the_ppmi_of_the_scaled_counts(sparse, scale):
    """PMI does not change when every count is scaled alike: counts near 1.8e308, whose sums overflow float64,
    give the closed-form PPMI of the integer counts (before: "counts are too large: their sum overflows")."""
    counts = np.array([[0, 2, 1, 4], [2, 0, 3, 1], [1, 1, 0, 4]])
    make, dense = (scipy.sparse.csr_array, lambda m: m.toarray()) if sparse else (np.asarray, np.asarray)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = dense(ppmi(make(counts * scale)))
        smoothed = dense(ppmi(make(counts * scale), alpha=0.75))
        pair = dense(ppmi(make(np.array([[0.0, 8e307], [8e307, 0.0]]))))  # the total, 1.6e308 * 2, overflows
    np.testing.assert_allclose(got, _exact_ppmi(counts), rtol=0, atol=1e-15)
    np.testing.assert_allclose(smoothed, ppmi(counts, alpha=0.75), rtol=0, atol=1e-15)
    np.testing.assert_allclose(pair, [[0.0, math.log(2)], [math.log(2), 0.0]], rtol=0, atol=1e-15)


@pytest.mark.parametrize("sparse", [False, True])
def test_extreme_counts_never_give_nan_or_warnings(sparse):
    make = scipy.sparse.csr_array if sparse else np.asarray
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        huge = ppmi(make(np.full((2, 2), 1e308)))  # the sum overflows float64: logs of scaled counts
        np.testing.assert_array_equal(huge.toarray() if sparse else huge, 0.0)  # independent rows: PMI 0
        big = ppmi(make(np.full((2, 2), 1e300)))
        tiny = ppmi(make(np.array([[5e-324, 1.0], [1.0, 1.0]])))
        sharp = ppmi(make(np.array([[1e10, 1.0], [1.0, 2.0]])), alpha=100)
    for m in (big, tiny, sharp):
        dense = m.toarray() if sparse else m
        assert np.all(np.isfinite(dense)) and np.all(dense >= 0)
    np.testing.assert_allclose(big.toarray() if sparse else big, 0.0)  # all cells equal: PMI 0 everywhere


def test_log_space_matches_the_direct_formula_on_ordinary_counts():
    rng = np.random.default_rng(5)
    C = rng.integers(0, 20, size=(7, 9)).astype(float)
    for alpha in (1.0, 0.75):
        col_a = C.sum(0) ** alpha
        with np.errstate(divide="ignore"):
            direct = np.log(C / C.sum()) - np.log(C.sum(1, keepdims=True) / C.sum()) - np.log(col_a / col_a.sum())
        np.testing.assert_allclose(ppmi(C, alpha), np.where(C > 0, np.maximum(direct, 0), 0), atol=1e-12)


def test_pipeline_validates_power_and_vocabulary():
    sentences = [["a", "b", "c"], ["a", "c"]]
    vocab = Vocabulary.from_sentences(sentences)
    for sparse in (False, True):  # "'<' not supported between instances of 'str' and 'int'" on the sparse path
        with pytest.raises(TypeError, match="^k must be an integer >= 1, got '2'$"):
            ppmi_svd_embedding(sentences, vocab, k="2", sparse=sparse)
        with pytest.raises(ValueError, match="^k must be an integer >= 1, got 0$"):
            ppmi_svd_embedding(sentences, vocab, k=0, sparse=sparse)
    with pytest.raises(ValueError, match="power must be a finite number >= 0, got nan"):
        ppmi_svd_embedding(sentences, vocab, power=float("nan"))
    with pytest.raises(ValueError, match="power must be a finite number >= 0, got -1"):
        ppmi_svd_embedding(sentences, vocab, power=-1)
    with pytest.raises(TypeError, match="power must be a finite number >= 0, got 'x'"):
        ppmi_svd_embedding(sentences, vocab, power="x")
    with pytest.raises(TypeError, match="vocab must be a lib.corpus.Vocabulary, got list"):
        ppmi_svd_embedding(sentences, ["a", "b", "c"])


# --- the zero matrix, rank below k, and any scale ---------------------------------------------------------

SOLVER_INPUTS = [("dense", False), ("dense", True), ("sparse", True), ("sparse", False), ("propack", True), ("auto", True)]


@pytest.mark.parametrize("solver, as_sparse", SOLVER_INPUTS)
def test_the_zero_matrix_has_singular_values_zero_on_every_solver(solver, as_sparse):
    zero = scipy.sparse.csr_array((5, 4)) if as_sparse else np.zeros((5, 4))
    U, S, Vt = truncated_svd(zero, 2, solver=solver)  # ARPACK used to fail: "starting vector is zero"
    np.testing.assert_array_equal(S, [0.0, 0.0])
    np.testing.assert_array_equal(U, np.eye(5, 2))  # every unit vector is a singular vector: the standard basis
    np.testing.assert_array_equal(Vt, np.eye(2, 4))
    np.testing.assert_array_equal(svd_vectors(zero, 2, solver=solver), np.zeros((5, 2)))
    np.testing.assert_array_equal(np.linalg.svd(np.zeros((5, 4)), compute_uv=False)[:2], S)  # NumPy agrees on S


def test_ppmi_svd_of_a_corpus_without_co_occurrences_gives_zero_vectors():
    sentences = [["a"], ["b"], ["c"], ["a"], ["d"]]  # no sentence has two words: every count is 0
    vocab = Vocabulary.from_sentences(sentences)
    for sparse in (False, True):
        emb = ppmi_svd_embedding(sentences, vocab, k=2, sparse=sparse)
        np.testing.assert_array_equal(emb.vectors, np.zeros((4, 2)))
        np.testing.assert_array_equal(emb.singular_values, [0.0, 0.0])


@pytest.mark.parametrize("solver, as_sparse", SOLVER_INPUTS)
@pytest.mark.parametrize("scale", [1e-300, 1e-200, 1e200, 1e300])
def test_singular_values_at_any_scale(solver, as_sparse, scale):
    rng = np.random.default_rng(11)
    A = rng.standard_normal((7, 5))
    want = np.linalg.svd(A, compute_uv=False)[:3] * scale
    M = scipy.sparse.csr_array(A * scale) if as_sparse else A * scale
    U, S, Vt = truncated_svd(M, 3, solver=solver)  # ARPACK squares: 1e-200 underflowed, 1e200 overflowed
    np.testing.assert_allclose(S, want, rtol=1e-12)
    np.testing.assert_allclose(U.T @ U, np.eye(3), atol=1e-12)
    U1, _, Vt1 = truncated_svd(A, 3, solver=solver if solver != "auto" else "dense")
    np.testing.assert_allclose(U, U1, atol=1e-9)  # the same vectors, the same signs
    np.testing.assert_allclose(Vt, Vt1, atol=1e-9)


def test_a_rank_below_k_gives_zero_singular_values_or_a_clear_error():
    A = np.outer([1.0, 2.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 1.0])  # rank 1, sigma_1 = sqrt(5) sqrt(2)
    for solver in ("dense", "sparse"):
        U, S, Vt = truncated_svd(A, 2, solver=solver)
        np.testing.assert_allclose(S, [np.sqrt(10), 0.0], atol=1e-12)
        np.testing.assert_allclose(U.T @ U, np.eye(2), atol=1e-12)
        np.testing.assert_allclose((U * S) @ Vt, A, atol=1e-12)
    # PROPACK returns non-orthonormal vectors and a second singular value of about 2.3 here: refused, not returned
    with pytest.raises(ValueError, match=r"PROPACK .* returned inaccurate singular triplets for k = 2 .* solver='dense'"):
        truncated_svd(A, 2, solver="propack")
    np.testing.assert_allclose(truncated_svd(A, 1, solver="propack").S, [np.sqrt(10)])


def test_svd_of_non_numbers_is_a_type_error():
    with pytest.raises(TypeError, match="matrix must be a 2-D array of real numbers, got dtype <U1"):
        truncated_svd([["a", "b"], ["c", "d"]], 1)
    with pytest.raises(ValueError, match="matrix must be a 2-D array of real numbers, got rows of different lengths"):
        truncated_svd([[1.0, 2.0], [3.0]], 1)  # was a TypeError, where every other array check raises ValueError
    with pytest.raises(ValueError, match="overflows float64"):
        truncated_svd(np.full((3, 3), 1.5e308), 1)  # sigma_1 = 3 * 1.5e308


def test_solver_failures_inside_scipy_become_clear_errors():
    with pytest.raises(ValueError, match=r"PROPACK .* failed for k = 3 .* use solver='dense'"):  # was SciPy's LinAlgError
        truncated_svd(np.diag([3.0, 2.0, 0.0, 0.0, 0.0]), 3, solver="propack")
    np.testing.assert_allclose(truncated_svd(np.diag([3.0, 2.0, 0.0, 0.0, 0.0]), 3, solver="sparse").S, [3, 2, 0], atol=1e-12)
    with pytest.raises(ValueError, match=r"need k < min\(shape\), impossible for shape \(1, 4\): use solver='dense'"):
        truncated_svd(np.ones((1, 4)), 1, solver="sparse")
    np.testing.assert_allclose(truncated_svd(np.ones((1, 4)), 1).S, [2.0])


@pytest.mark.parametrize(
    "matrix, kwargs, kind, message",
    [
        (np.eye(4) + 0.1, dict(solver="sparse", seed=-1), ValueError, "seed must be an integer >= 0, got -1"),
        (np.eye(4) + 0.1, dict(solver="sparse", seed=1.5), TypeError, "seed must be an integer >= 0, got 1.5"),
        (np.eye(4) + 0.1, dict(solver="sparse", seed=True), TypeError, "seed must be an integer >= 0, got True"),
        (np.eye(4) + 0.1, dict(solver="dense", seed=-1), ValueError, "seed must be an integer >= 0, got -1"),
        (np.eye(3) * (1 + 1j), {}, TypeError, "matrix must be a 2-D array of real numbers, got dtype complex128"),
        ([[None, 1], [1, 1]], {}, TypeError, "matrix must be a 2-D array of real numbers, got None at [0, 0]"),
        (np.eye(3, dtype=bool), {}, TypeError, "matrix must be a 2-D array of real numbers, got dtype bool"),
        (scipy.sparse.eye(3, dtype=bool).tocsr(), {}, TypeError, "matrix must be a 2-D array of real numbers, got dtype bool"),
        (scipy.sparse.eye(3, dtype=complex).tocsr(), {}, TypeError,
         "matrix must be a 2-D array of real numbers, got dtype complex128"),
        ([[1, 2], [3, 10**400]], {}, ValueError, "matrix contains an integer beyond the float64 range (1.8e308)"),
    ],
)
def test_svd_names_a_bad_seed_and_entries_that_are_not_real_numbers(matrix, kwargs, kind, message):
    # attack-15 F10: the seed failed inside NumPy (or True was taken as 1), a complex matrix was cast to its
    # real part with a ComplexWarning, None became NaN and bools were taken as numbers
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ComplexWarning on the way
        with pytest.raises(kind) as info:
            truncated_svd(matrix, 1, **kwargs)
    assert str(info.value) == message
    np.testing.assert_allclose(truncated_svd([[2.0**70, 0], [0, 1]], 1).S, [2.0**70])  # a big float: fine
    # (the integer 2**70 is refused as every table refuses an integer beyond 2**53: see below)


def test_propack_failure_on_a_repeated_singular_value_names_that_cause():
    # attack-15 F11: the identity has 4 non-zero singular values; the message named only "fewer than k non-zero"
    with pytest.raises(ValueError) as info:
        truncated_svd(scipy.sparse.eye(4).tocsr(), 3, solver="propack")
    message = str(info.value)
    assert message.startswith("PROPACK (scipy.sparse.linalg.svds) failed for k = 3 (")
    assert message.endswith(
        "this happens when the matrix has fewer than k non-zero singular values or repeated singular values "
        "(the identity's, for one): use solver='dense' or a smaller k"
    )
    np.testing.assert_allclose(truncated_svd(scipy.sparse.eye(4).tocsr(), 3, solver="dense").S, [1.0, 1.0, 1.0])


def test_sign_convention_of_an_empty_matrix_returns_it_unchanged():
    U, Vt = sign_convention(np.zeros((0, 2)), np.ones((2, 3)))
    assert U.shape == (0, 2) and Vt.tolist() == [[1.0] * 3] * 2
    U, Vt = sign_convention(np.zeros((0, 2)))
    assert U.shape == (0, 2) and Vt is None


@pytest.mark.parametrize(
    "U, Vt, kind, message",
    [
        # NaN was returned silently (and wiped the finite 1.0 of the column), None became NaN
        ([[np.nan], [1.0]], None, ValueError, "U contains NaN or infinity"),
        ([[0.6], [-0.8]], [[np.inf]], ValueError, "Vt contains NaN or infinity"),
        (np.array([[1, None]], dtype=object), None, TypeError, "U must hold real numbers, got dtype object"),
        # NumPy's "could not convert string to float", "float() argument must be ... not 'complex'"
        ([["a"], ["b"]], None, TypeError, "U must hold real numbers, got dtype <U1"),
        ([[1 + 2j], [0]], None, TypeError, "U must hold real numbers, got dtype complex128"),
        ([[0.6], [-0.8]], [["x"]], TypeError, "Vt must hold real numbers, got dtype <U1"),
        ([[True], [False]], None, TypeError, "U must hold real numbers, got dtype bool"),  # was 1.0 and 0.0
        ([[10**400]], None, ValueError, "U holds an integer of 401 digits, beyond the float64 range (about 1.8e308)"),  # OverflowError
        # a Vt of the wrong shape was broadcast: (1, 3) came back as (2, 3), a 3-D one was accepted
        ([[0.6, 0.1], [-0.8, 0.2]], [[1, 2, 3]], ValueError,
         "Vt must be a 2-D matrix (2, m), one row per column of U, got shape (1, 3)"),
        ([[0.6], [-0.8]], np.ones((1, 2, 2)), ValueError, "Vt must be a 2-D matrix (1, m), one row per column of U, got shape (1, 2, 2)"),
        ([[0.6], [-0.8]], [1.0, 2.0], ValueError, "Vt must be a 2-D matrix (1, m), one row per column of U, got shape (2,)"),
    ],
)
def test_sign_convention_names_a_bad_u_or_vt(U, Vt, kind, message):
    with pytest.raises(kind) as info:
        sign_convention(U, Vt)
    assert str(info.value) == message


def test_sign_convention_accepts_integers_and_float32_and_returns_float64():
    U, Vt = sign_convention(np.array([[3], [-4]], dtype=np.int8), np.array([[1.5, -2.0]], dtype=np.float32))
    assert U.tolist() == [[-3.0], [4.0]] and Vt.tolist() == [[-1.5, 2.0]]
    assert U.dtype == Vt.dtype == np.float64


@pytest.mark.parametrize("bad", ["no", 1, None])
def test_cooccurrence_flags_must_be_true_or_false(bad):
    with pytest.raises(TypeError) as info:
        cooccurrence([[0, 1, 2]], 3, 1, sparse=bad)  # "no" gave a sparse matrix
    assert str(info.value) == f"sparse must be True or False, got {bad!r}"
    with pytest.raises(TypeError) as info:
        cooccurrence([[0, 1, 2]], 3, 1, symmetric=bad)
    assert str(info.value) == f"symmetric must be True or False, got {bad!r}"


def test_counts_given_as_time_spans_are_not_counts():
    # NumPy counts timedelta64 as an integer type
    with pytest.raises(TypeError) as info:
        ppmi(np.ones((2, 2), dtype="m8[s]"))
    assert str(info.value) == "counts must be numeric, got dtype timedelta64[s]"


@pytest.mark.parametrize("alpha", [0.75, 1.0, 2.0, 1e10, 1e14, 1e15, 1e16, 1e17, 1e300])
def test_ppmi_keeps_the_context_normaliser_for_any_alpha(alpha):
    # equal column sums: P_alpha(c) = 1/2 for every alpha, so PMI(0, 1) = log(0.5 / (0.5 * 0.5)) = ln 2;
    # alpha log n_c absorbed the log-sum-exp correction: 0.75 at alpha = 1e15, 1.0 at 1e16, 0.0 at 1e17
    assert ppmi([[0.0, 2.0], [2.0, 0.0]], alpha)[0, 1] == pytest.approx(np.log(2.0), rel=1e-15)
    sparse = ppmi(scipy.sparse.csr_array([[0.0, 2.0], [2.0, 0.0]]), alpha)
    assert sparse[0, 1] == pytest.approx(np.log(2.0), rel=1e-15)


def test_ppmi_refuses_sparse_counts_that_are_not_real_numbers():
    for dtype in (complex, bool):  # complex lost its imaginary part with SciPy's ComplexWarning; bool was accepted
        with pytest.raises(TypeError, match=f"^counts must be numeric, got dtype {np.dtype(dtype)}$"):
            ppmi(scipy.sparse.csr_array(np.array([[0, 2], [2, 0]], dtype=dtype)))


def test_svd_vectors_refuses_a_power_that_leaves_float64():
    C = np.diag([4.0, 0.5, 0.0])
    with pytest.raises(ValueError, match=r"^power=1e\+308 takes the singular value 4.0 beyond float64's range \(4.0\*\*1e\+308 overflows\)$"):
        svd_vectors(C, 2, power=1e308)  # was inf, with an overflow warning
    with pytest.raises(ValueError, match=r"^power=1100.0 takes the singular value 0.5 beyond float64's range \(0.5\*\*1100.0 underflows to 0\)$"):
        svd_vectors(np.diag([1.0, 0.5, 0.0]), 2, power=1100.0)  # 1**1100 is fine, 0.5**1100 is below 5e-324
    np.testing.assert_allclose(np.abs(svd_vectors(C, 2, power=2.0)), [[16.0, 0.0], [0.0, 0.25], [0.0, 0.0]])


def test_cooccurrence_bounds_the_vocabulary():
    with pytest.raises(ValueError, match=r"^vocab_size must be an integer in \[1, 268435456\], got 1000000000$"):
        cooccurrence([[0, 1]], 10**9, sparse=True)  # did not return within seconds
    with pytest.raises(ValueError, match=r"^vocab_size \(a dense matrix; sparse=True holds only the pairs seen\): "
                                         r"a result of shape \(20000, 20000\) would hold 400000000 entries"):
        cooccurrence([[0, 1]], 20_000)
    assert cooccurrence([[0, 1]], 20_000, sparse=True).nnz == 2


def test_ppmi_refuses_a_masked_entry_and_a_longdouble_float64_cannot_hold():
    masked = np.ma.array([[1.0, 2.0], [3.0, 4.0]], mask=[[True, False], [False, False]])
    tiny = np.array([[np.longdouble("1e-4000"), 1], [1, 1]], dtype=np.longdouble)
    for name, fn in (("counts", ppmi), ("matrix", lambda m: truncated_svd(m, 1))):
        with pytest.raises(TypeError, match=rf"^{name} is a NumPy masked array with 1 masked entry; lib does not read masks"):
            fn(masked)
        with pytest.raises(ValueError, match=rf"^{name} holds np.longdouble\('1e-4000'\), below float64's smallest subnormal"):
            fn(tiny)
    # a longdouble float64 holds is its float64 value: the same PPMI as the float64 matrix
    counts = [[2.0, 1.0], [1.0, 4.0]]
    assert np.array_equal(ppmi(np.array(counts, dtype=np.longdouble)), ppmi(np.array(counts)))


def test_ppmi_reads_a_tensor_and_names_a_ragged_matrix():
    import torch

    with pytest.raises(ValueError, match=r"^counts must be a 2-D matrix, got rows of different lengths$"):
        ppmi([[1.0, 2.0], [3.0]])  # was NumPy's "inhomogeneous shape"
    counts = [[0.0, 2.0], [2.0, 0.0]]
    expected = ppmi(np.array(counts))  # ln 2 off the diagonal
    np.testing.assert_array_equal(ppmi(torch.tensor(counts, requires_grad=True)), expected)  # was torch's RuntimeError
    np.testing.assert_array_equal(truncated_svd(torch.tensor(counts, requires_grad=True), 1).S,
                                  truncated_svd(np.array(counts), 1).S)
    with pytest.raises(TypeError, match=r"^matrix is a PyTorch tensor on the meta device"):
        truncated_svd(torch.zeros(2, 2, device="meta"), 1)


def test_truncated_svd_refuses_integers_float64_would_round():
    for matrix in (np.array([[2**53 + 1, 0], [0, 1]]), [[2**70, 0], [0, 1]], np.array([[0, 2**63 + 5], [1, 0]], dtype=np.uint64)):
        with pytest.raises(ValueError, match=r"^matrix holds the integer \d+, beyond 2\*\*53: float64"):
            truncated_svd(matrix, 1)
    np.testing.assert_array_equal(truncated_svd(np.array([[2**53, 0], [0, 1]]), 1).S, [2.0**53])  # exact: kept
