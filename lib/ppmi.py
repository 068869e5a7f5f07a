"""Count-based embeddings: co-occurrence counts, positive PMI, and a truncated SVD with a fixed sign.

Taught in: chapters/embeddings.md (Level 2, counts and PPMI-SVD) and chapters/real_text.md (PPMI-SVD on the
Lee corpus).

The pipeline of the chapter's Level 2 (and of :cite:t:`levy2015improving`, "Improving Distributional
Similarity with Lessons Learned from Word Embeddings", TACL 3, §2–3):

1. :func:`cooccurrence`: ``C[w, c]`` = (weighted) number of times context ``c`` occurs in the window of
   centre ``w``. The window is the whole sentence (as :ref:`the textbook chapter Embeddings <sources>` counts) or ``±w``
   positions; counts can be one-sided and weighted by distance.
2. :func:`ppmi`: ``PPMI(w, c) = max(0, log[ P(w, c) / (P(w) · P_α(c)) ])`` with natural logarithms,
   ``P(w, c) = C[w, c] / N``, ``P(w) = Σ_c C[w, c] / N`` and the smoothed context distribution
   ``P_α(c) = (Σ_w C[w, c])^α / Σ_c' (Σ_w C[w, c'])^α`` :cite:p:`levy2015improving{§3.2, equation 3}`:
   α = 1 is plain PPMI, α = 0.75 their recommendation. A zero count, and so an empty row or column, gives 0,
   never ``-inf`` or NaN, and no NumPy warning.
3. :func:`truncated_svd` / :func:`svd_vectors`: the ``k`` largest singular triplets and the word vectors
   ``U_k · S_k^p``, the "eigenvalue weighting" of :cite:t:`levy2015improving` (§3.3), ``p = 0.5`` by default.

Every step has a dense NumPy path and a ``scipy.sparse`` path (``csr_array``) for vocabularies of tens of
thousands, and the two give the same numbers: the PPMI formula is applied to the same non-zero entries,
and the SVD follows one sign convention (see :func:`truncated_svd`), so that neither a solver nor a
machine can flip a figure's axis.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, NamedTuple

import numpy as np
import scipy.linalg
import scipy.sparse
import scipy.sparse.linalg
import scipy.special

from lib import validate
from lib.corpus import WEIGHTINGS, context_pairs, describe_context
from lib.provenance import Provenance, for_corpus, software_versions

SOLVERS = ("auto", "dense", "sparse", "propack")
#: relative tolerance within which two entries of a singular vector count as equally large (sign rule)
SIGN_TIE_RTOL = 1e-6


# --- co-occurrence ----------------------------------------------------------------------------------


def cooccurrence(
    sentences,
    vocab_size: int,
    window: int | None = None,
    *,
    symmetric: bool = True,
    weighting: str | None = None,
    sparse: bool = False,
):
    """Co-occurrence matrix ``(vocab_size, vocab_size) float64``: rows centres, columns contexts.

    ``sentences`` are 1-D integer id arrays (:meth:`lib.corpus.Vocabulary.encode_sentences`).
    ``window``/``symmetric`` define the context as in :func:`lib.corpus.context_pairs` (``None`` = every
    other word of the sentence; ``symmetric=False`` counts only contexts after the centre, so the
    symmetric matrix is the one-sided matrix plus its transpose). ``weighting``:

    - ``None``: each pair counts 1;
    - ``"harmonic"``: a pair at distance ``d`` counts ``1 / d`` (GloVe, :cite:t:`pennington2014glove`, §4.2);
    - ``"linear"``: it counts ``(w - d + 1) / w``, the expected weight of word2vec's dynamic window
      :cite:p:`levy2015improving{§3.1}`; needs an integer ``window``.

    ``sparse=True`` returns a ``scipy.sparse.csr_array`` with the same values. Raises ``ValueError`` for
    an id outside ``[0, vocab_size)``, ``window < 1``, an unknown weighting, or ``"linear"`` without a
    window; ``TypeError`` for non-integer ids, or a ``symmetric`` or ``sparse`` that is not ``True`` or
    ``False``.

    >>> cooccurrence([[0, 1, 2]], 3, window=1)
    array([[0., 1., 0.],
           [1., 0., 1.],
           [0., 1., 0.]])
    """
    V = validate.size(vocab_size, "vocab_size", low=1)
    sparse = validate.flag(sparse, "sparse")
    if not sparse:
        validate.entries((V, V), "vocab_size (a dense matrix; sparse=True holds only the pairs seen)")
    validate.choice(weighting, "weighting", WEIGHTINGS)
    if weighting == "linear" and window is None:
        raise ValueError("weighting='linear' needs an integer window (the whole sentence has no window size)")
    pairs, dist = context_pairs(sentences, window, symmetric=symmetric, vocab_size=V, return_distance=True)
    if weighting is None:
        weights = np.ones(dist.shape[0], dtype=np.float64)
    elif weighting == "harmonic":
        weights = 1.0 / dist
    else:
        weights = (window - dist + 1) / window
    if sparse:
        m = scipy.sparse.coo_array((weights, (pairs[:, 0], pairs[:, 1])), shape=(V, V)).tocsr()
        m.sum_duplicates()
        m.sort_indices()
        return m
    dense = np.zeros((V, V), dtype=np.float64)
    np.add.at(dense, (pairs[:, 0], pairs[:, 1]), weights)
    return dense


# --- PPMI ---------------------------------------------------------------------------------------------


def _pmi_values(vals, i, j, row, col, alpha):
    """PMI of the non-zero entries ``vals`` at rows ``i`` and columns ``j`` (all > 0, so no log of 0).

    Computed with logarithms throughout (log P(w, c) = log n_wc - log N, and the smoothed context
    distribution as α log n_c minus its log-sum-exp), so that huge or tiny counts neither overflow nor
    underflow. ``row`` and ``col`` are the plain sums of the counts; where one of them, or their total,
    overflows float64 (counts near 1.8e308), every log is taken instead of the counts divided by
    ``2**E``, ``E`` the exponent of the largest count (``_log_sums``; ``log N`` is the log-sum-exp of
    the rows'): PMI does not change when every count is scaled alike, so it is right at any finite scale,
    and ``E log 2`` never enters the result (parallel rows of 1e308 give exactly 0, not a rounding of 710).
    """
    with np.errstate(over="ignore"):
        total = row.sum()
    if np.all(np.isfinite(row)) and np.all(np.isfinite(col)) and np.isfinite(total):
        log_total, log_vals = np.log(total), np.log(vals)
        log_row = np.log(row, where=row > 0, out=np.zeros_like(row))
        log_col = np.log(col, where=col > 0, out=np.zeros_like(col))
    else:
        E = int(np.frexp(vals.max())[1])
        mantissa, exponent = np.frexp(vals)
        log_vals = np.log(mantissa) + (exponent - E) * np.log(2.0)
        log_row, log_col = _log_sums(vals, i, row.shape[0], E), _log_sums(vals, j, col.shape[0], E)
        log_total = scipy.special.logsumexp(log_row[row > 0])
    # alpha log n_c relative to the largest (<= 0): P_alpha(c) is unchanged, and for a large alpha the log-sum-exp
    # correction is not absorbed by alpha log n_c itself (1e16 * log 2 has no room for a log 2 beside it)
    top = log_col[col > 0].max()
    log_col_a = np.full_like(col, -np.inf)
    np.multiply(alpha, log_col - top, out=log_col_a, where=col > 0)
    log_z = scipy.special.logsumexp(log_col_a[col > 0])
    log_p_c = log_col_a - log_z
    return (log_vals - log_total) - (log_row[i] - log_total) - log_p_c[j]


def _log_sums(vals, index, n: int, E: int) -> np.ndarray:
    """``log(sum of vals[index == k] / 2**E)`` for each ``k`` in ``range(n)`` (0 where there is none), for
    positive ``vals`` of any finite size: each group is scaled by the power of two ``2**-e`` that puts its
    largest value in [0.5, 1) before it is summed (so no sum overflows; a value that underflows in the
    scaling is more than 2**1073 times smaller than the largest and changes nothing), and ``(e - E) log 2``
    is added back (0 for a group whose largest value shares the exponent ``E``)."""
    top = np.zeros(n)
    np.maximum.at(top, index, vals)
    e = np.frexp(top)[1]
    with np.errstate(under="ignore"):
        sums = np.bincount(index, weights=np.ldexp(vals, -e[index]), minlength=n)
    return np.log(sums, where=sums > 0, out=np.zeros(n)) + (e - E) * np.log(2.0)


def ppmi(counts, alpha: float = 1.0):
    """Positive pointwise mutual information of a count matrix (natural log, nats): same shape, ``float64``.

    ``counts`` is a ``(W, C)`` array or ``scipy.sparse`` matrix of non-negative finite (weighted) counts,
    rows words and columns contexts. Implements ``max(0, log[P(w, c) / (P(w) P_α(c))])`` with the
    context distribution raised to ``alpha`` and renormalised :cite:p:`levy2015improving{§3.2}`; ``alpha=1``
    is plain PPMI. Entries with a zero count are 0 (their PMI is ``-inf``, clipped); so are empty rows and
    columns and an all-zero matrix: no NaN, no ``-inf`` and no warning. A sparse input gives a
    ``csr_array`` holding only the positive entries, equal to the dense result. Counts of any finite size
    are allowed: where their sums would overflow float64 (counts near 1.8e308), the logs are taken of
    counts scaled by a power of two (PMI does not change when all counts are scaled alike), so the result
    is that of the scaled-down counts, to float64 rounding.

    Raises ``ValueError`` for a matrix that is not 2-D, has negative or non-finite entries, or for
    ``alpha`` not finite and positive, or a ``longdouble`` count float64 cannot hold; ``TypeError`` for
    counts that are not real numbers (``bool``, complex), dense or sparse, or a masked array with a masked
    entry (the rule of :func:`lib.validate.real_numbers`).

    >>> # log(P(w, c) / (P(w) P(c))) = log(0.5 / 0.25) = ln 2
    >>> ppmi([[0.0, 2.0], [2.0, 0.0]])
    array([[0.    , 0.6931],
           [0.6931, 0.    ]])
    """
    alpha = validate.number(alpha, "alpha", gt=0, hint="1 = no smoothing, 0.75 = Levy et al.")
    if scipy.sparse.issparse(counts):
        if not validate.real_dtype(counts.dtype):  # as the dense path: no bool, and no complex, which SciPy
            # would cast to float64 dropping the imaginary part
            raise TypeError(f"counts must be numeric, got dtype {counts.dtype}")
        m = scipy.sparse.csr_array(counts, dtype=np.float64, copy=True)
        if m.ndim != 2:
            raise ValueError(f"counts must be a 2-D matrix, got {m.ndim} dimensions")
        m.sum_duplicates()
        if not np.all(np.isfinite(m.data)):
            raise ValueError("counts contain NaN or infinity")
        if (m.data < 0).any():
            raise ValueError("counts must be >= 0")
        m.eliminate_zeros()
        m.sort_indices()
        out = m.copy()
        if m.nnz:
            with np.errstate(over="ignore"):  # a sum beyond float64 (inf) makes _pmi_values scale the counts
                row = np.asarray(m.sum(axis=1)).ravel()
                col = np.asarray(m.sum(axis=0)).ravel()
            i = np.repeat(np.arange(m.shape[0]), np.diff(m.indptr))
            out.data = np.maximum(_pmi_values(m.data, i, m.indices, row, col, alpha), 0.0)
            out.eliminate_zeros()
        return out
    try:
        C = np.asarray(validate.array_input(counts, "counts"))  # a tensor as its values, no masked array
    except ValueError:  # a ragged nesting such as [[1, 2], [3]]
        raise ValueError("counts must be a 2-D matrix, got rows of different lengths") from None
    if not validate.real_dtype(C.dtype):
        raise TypeError(f"counts must be numeric, got dtype {C.dtype}")
    C = validate.real_numbers(C, "counts").astype(np.float64)  # a longdouble float64 cannot hold: ValueError
    if C.ndim != 2:
        raise ValueError(f"counts must be a 2-D matrix, got shape {C.shape}")
    if not np.all(np.isfinite(C)):
        raise ValueError("counts contain NaN or infinity")
    if (C < 0).any():
        raise ValueError("counts must be >= 0")
    out = np.zeros_like(C)
    nz = C > 0
    if nz.any():
        i, j = np.nonzero(nz)
        with np.errstate(over="ignore"):  # a sum beyond float64 (inf) makes _pmi_values scale the counts
            row, col = C.sum(axis=1), C.sum(axis=0)
        out[i, j] = np.maximum(_pmi_values(C[i, j], i, j, row, col, alpha), 0.0)
    return out


# --- truncated SVD ------------------------------------------------------------------------------------


class SVDResult(NamedTuple):
    """``U (n, k)``, ``S (k,)`` descending, ``Vt (k, m)``, all ``float64``, after the sign convention."""

    #: ``(n, k) float64``: the left singular vectors, one per column, signs by :func:`sign_convention`.
    U: np.ndarray
    #: ``(k,) float64``: the singular values, largest first.
    S: np.ndarray
    #: ``(k, m) float64``: the right singular vectors, one per row, signs flipped with ``U``'s.
    Vt: np.ndarray


def sign_convention(U: np.ndarray, Vt: np.ndarray | None = None):
    """Flip singular vectors so that in every column of ``U`` the largest-magnitude entry is positive.

    The rule: in column ``j`` of ``U`` ``(n, k)``, among the entries whose magnitude is within a relative
    ``SIGN_TIE_RTOL`` (1e-6) of the largest, take the one with the smallest row index, and flip column
    ``j`` (and row ``j`` of ``Vt``, so that ``U S Vt`` is unchanged) if it is negative. The tolerance
    makes near-ties that differ only by rounding (e.g. two symmetric items ``+a`` and ``-a``) resolve by
    row index on every solver and machine. This is the ``svd_flip`` rule of scikit-learn :cite:p:`pedregosa2011scikit` (u-based)
    with that tie rule added. Returns ``(U, Vt)`` as new ``float64`` arrays (``Vt`` is ``None`` if not given).

    Raises ``ValueError`` for a ``U`` that is not 2-D, a ``Vt`` that is not 2-D with one row per column of
    ``U`` (``(k, m)``), or NaN or infinity in either, and ``TypeError`` for entries that are not real
    numbers (strings, ``None``, complex numbers, bools), each naming ``U`` or ``Vt``.

    What no sign rule can fix: when two singular values are equal the singular vectors are only defined
    up to a rotation of their subspace, so the ``k``-th vector is reproducible only if ``σ_k > σ_{k+1}``.

    >>> # the largest |entry| (-0.8) becomes positive
    >>> sign_convention(np.array([[0.6], [-0.8]]))[0]
    array([[-0.6],
           [ 0.8]])
    """
    U = validate.real_array(U, "U")  # a new float64 array
    if U.ndim != 2:
        raise ValueError(f"U must be a 2-D matrix (n, k), got shape {U.shape}")
    if Vt is not None:
        Vt = validate.real_array(Vt, "Vt")
        if Vt.ndim != 2 or Vt.shape[0] != U.shape[1]:
            raise ValueError(f"Vt must be a 2-D matrix ({U.shape[1]}, m), one row per column of U, got shape {Vt.shape}")
    if U.shape[0] == 0:  # no entries: no sign to fix (np.argmax of an empty column would raise)
        return U, Vt
    mag = np.abs(U)
    top = mag.max(axis=0, initial=0.0)
    near = mag >= top * (1.0 - SIGN_TIE_RTOL)
    first = np.argmax(near, axis=0)  # smallest row index among the near-maximal entries
    signs = np.sign(U[first, np.arange(U.shape[1])])
    signs[signs == 0] = 1.0
    U *= signs
    if Vt is not None:
        Vt = Vt * signs[:, None]
    return U, Vt


def truncated_svd(matrix, k: int, *, solver: str = "auto", seed: int = 0) -> SVDResult:
    """The ``k`` largest singular triplets of ``matrix`` ``(n, m)``, descending, with a fixed sign.

    ``solver``: ``"dense"`` (LAPACK ``gesdd`` via ``scipy.linalg.svd`` on the full matrix),
    ``"sparse"`` (ARPACK via ``scipy.sparse.linalg.svds``, ``tol=0`` so to machine precision, started
    from a fixed vector drawn with ``seed``), ``"propack"`` (PROPACK's Lanczos bidiagonalisation via
    ``svds``, ``tol=0``, random state seeded with ``seed``: the same triplets as ARPACK to rounding, and
    faster for a hundred triplets of a few-thousand-row PPMI matrix), or ``"auto"`` (sparse for a
    ``scipy.sparse`` input with ``k < min(shape)``, dense otherwise). The sign convention of
    :func:`sign_convention` is applied, so the result is the same on every run, solver and machine up to
    rounding, as long as ``σ_k > σ_{k+1}``.

    Scale-robust: the matrix is scaled by a power of two into [-1, 1] before any solver sees it and the
    singular values are scaled back, so entries of 1e-200 or 1e+200 give their true singular values. The
    zero matrix is answered without a solver (ARPACK cannot start on it): ``S`` is ``k`` zeros and ``U``,
    ``Vt`` are the first ``k`` standard basis vectors (``np.eye``), since every unit vector is a singular
    vector of it. The triplets of ARPACK and PROPACK are checked (:data:`TRIPLET_RTOL`) before they are
    returned.

    Raises ``ValueError`` for ``k`` outside ``[1, min(shape)]`` (``[1, min(shape))`` for ARPACK and
    PROPACK), an unknown solver, a ragged nesting, non-finite entries (an integer beyond float64 too), a largest singular
    value beyond float64, a negative ``seed``, or triplets from ARPACK or PROPACK that are not singular
    triplets or did not converge (a matrix of rank below ``k``, or with repeated singular values such as
    the identity's, where PROPACK can fail: use ``solver="dense"``); ``TypeError`` for entries that are not
    real numbers (strings, ``None``, complex numbers, bools: a complex matrix is refused, not cast to its
    real part) and a ``seed`` that is not an integer. ``seed`` is checked whichever solver runs.

    >>> truncated_svd(np.diag([1.0, 3.0, 2.0]), 2).S
    array([3., 2.])
    """
    validate.choice(solver, "solver", SOLVERS)
    seed = validate.seed(seed)
    is_sparse = scipy.sparse.issparse(matrix)
    if is_sparse:
        _check_real_dtype(matrix.dtype)
        A = scipy.sparse.csr_array(matrix, dtype=np.float64)
        data = A.data
    else:
        A = _dense_real(matrix)
        data = A
    if A.ndim != 2 or min(A.shape) < 1:
        raise ValueError(f"matrix must be 2-D and non-empty, got shape {A.shape}")
    if not np.all(np.isfinite(data)):
        if is_sparse and np.all(np.isfinite(scipy.sparse.coo_array(matrix).data)):  # the entries as given
            first = int(np.flatnonzero(~np.isfinite(A.data))[0])  # in CSR order: its row from indptr
            row, col = int(np.searchsorted(A.indptr, first, side="right")) - 1, int(A.indices[first])
            raise ValueError(f"matrix holds duplicate entries at ({row}, {col}) whose sum, as SciPy adds them in "
                             f"order, is {validate.BEYOND_FLOAT64}: each entry is finite, their sum is not")
        raise ValueError("matrix contains NaN or infinity")
    if solver == "auto":
        solver = "sparse" if is_sparse and isinstance(k, (int, np.integer)) and 1 <= k < min(A.shape) else "dense"
    if solver in ("sparse", "propack"):
        if min(A.shape) < 2:
            raise ValueError(f"ARPACK and PROPACK need k < min(shape), impossible for shape {A.shape}: use solver='dense'")
        k = validate.integer(k, "k", low=1, high=min(A.shape) - 1, hint="ARPACK and PROPACK need k < min(shape)")
    else:
        k = validate.integer(k, "k", low=1, high=min(A.shape))
    n, m = A.shape
    if not np.any(data):  # the zero matrix: every singular value is 0 and every unit vector a singular vector
        return SVDResult(np.eye(n, k), np.zeros(k), np.eye(k, m))
    # scale by the power of two that puts the largest |entry| in [0.5, 1): exact, and no solver then squares
    # an entry of 1e200 into inf or one of 1e-200 into 0 (ARPACK works on A^T A); S is scaled back at the end
    e = int(np.frexp(np.max(np.abs(data)))[1])
    if is_sparse:
        A = scipy.sparse.csr_array((np.ldexp(A.data, -e), A.indices, A.indptr), shape=A.shape)
    else:
        A = np.ldexp(A, -e)
    if solver == "dense":
        dense = A.toarray() if is_sparse else A
        U, S, Vt = scipy.linalg.svd(dense, full_matrices=False, lapack_driver="gesdd")
        U, S, Vt = U[:, :k], S[:k], Vt[:k]
    else:
        rng = np.random.default_rng(seed)
        v0 = rng.standard_normal(min(A.shape))
        try:
            if solver == "sparse":
                U, S, Vt = scipy.sparse.linalg.svds(A, k=k, tol=0, v0=v0, solver="arpack")
            else:
                U, S, Vt = scipy.sparse.linalg.svds(A, k=k, tol=0, solver="propack", random_state=rng)
        except (np.linalg.LinAlgError, scipy.sparse.linalg.ArpackError) as exc:  # e.g. PROPACK's "invariant subspace"
            raise ValueError(
                f"{SOLVER_NAMES[solver]} failed for k = {k} ({exc}); this happens when the matrix has fewer "
                f"than k non-zero singular values or repeated singular values (the identity's, for one): use "
                f"solver='dense' or a smaller k"
            ) from None
        order = np.argsort(-S, kind="stable")
        U, S, Vt = U[:, order], np.abs(S[order]), Vt[order]  # abs: ARPACK may return -0.0 for a zero value
        _check_triplets(A, U, S, Vt, solver, k)
    with np.errstate(over="ignore"):
        S = np.ldexp(np.asarray(S, dtype=np.float64), e)
    if not np.all(np.isfinite(S)):
        raise ValueError("the largest singular value overflows float64 (it is above 1.8e308)")
    U, Vt = sign_convention(U, Vt)
    return SVDResult(U, S, Vt)


def _check_real_dtype(dtype) -> None:
    """``TypeError`` unless ``dtype`` is an integer or floating type (not ``bool``, complex, object, text)."""
    if not validate.real_dtype(dtype):
        raise TypeError(f"matrix must be a 2-D array of real numbers, got dtype {dtype}")


def _dense_real(matrix) -> np.ndarray:
    """``matrix`` (not sparse) as a ``float64`` array after checking that its entries are real numbers.

    ``TypeError`` for strings, complex numbers, bools, and for an entry such as ``None``
    or a ``Decimal`` in a list (named with its position), which NumPy would turn into NaN or refuse with its
    own message; ``ValueError`` for a ragged nesting (as every array check of ``lib``), a Python integer beyond float64 (``10**400``), an integer beyond 2**53
    (which float64 would round: :func:`lib.validate.exact_reals`) or a ``longdouble`` entry float64 cannot hold, and ``TypeError`` for a masked array with a masked entry, as
    :func:`lib.validate.real_numbers`.
    """
    try:
        raw = np.asarray(validate.array_input(matrix, "matrix"))  # a tensor as its values, no masked array
    except ValueError:  # a ragged nesting such as [[1, 2], [3]]
        raise ValueError("matrix must be a 2-D array of real numbers, got rows of different lengths") from None
    if raw.dtype == object:  # Python objects: None, Decimal, Fraction, or ints beyond int64
        for index, entry in np.ndenumerate(raw):
            if isinstance(entry, (bool, np.bool_)) or not isinstance(entry, (int, float, np.integer, np.floating)):
                where = ", ".join(map(str, index))
                raise TypeError(f"matrix must be a 2-D array of real numbers, got {entry!r} at [{where}]")
        try:
            raw.astype(np.float64)
        except OverflowError:  # an int such as 10**400
            raise ValueError("matrix contains an integer beyond the float64 range (1.8e308)") from None
        return validate.exact_reals(raw, "matrix")  # 2**53 + 1 would become 2**53: refused, as by every table
    _check_real_dtype(raw.dtype)
    if raw.dtype.kind in "iu":
        return validate.exact_reals(raw, "matrix")
    if raw.dtype.kind == "f" and raw.dtype.itemsize > 8:  # longdouble: 1e-4000 would become 0, 1e4000 inf
        return validate.real_numbers(raw, "matrix")
    return raw.astype(np.float64)


#: how far an iterative solver's triplets may be from exact before :func:`truncated_svd` refuses them:
#: ``|A v - s u|`` and ``|A^T u - s v|`` relative to the largest singular value, and ``|U^T U - I|``, ``|V^T V - I|``
TRIPLET_RTOL = 1e-6


def _check_triplets(A, U, S, Vt, solver: str, k: int) -> None:
    """Raise ``ValueError`` unless ``U (n, k)``, ``S (k,)``, ``Vt (k, m)`` are singular triplets of ``A``.

    ARPACK and PROPACK return the triplets of a full-rank matrix to machine precision, but where the
    matrix has fewer than ``k`` non-zero singular values PROPACK can return vectors that are neither
    orthonormal nor singular (scipy/scipy#11406 reports the kind); that is caught here, not returned.
    """
    eye = np.eye(k)
    residual = max(
        np.max(np.linalg.norm(A @ Vt.T - U * S, axis=0)),
        np.max(np.linalg.norm(A.T @ U - Vt.T * S, axis=0)),
    )
    drift = max(np.max(np.abs(U.T @ U - eye)), np.max(np.abs(Vt @ Vt.T - eye)))
    if residual > TRIPLET_RTOL * S[0] or drift > TRIPLET_RTOL:
        raise ValueError(
            f"{SOLVER_NAMES[solver]} returned inaccurate singular triplets for k = {k} (residual "
            f"{residual / S[0]:.1e} of the largest singular value, orthogonality error {drift:.1e}); this "
            f"happens when the matrix has fewer than k non-zero singular values or repeated singular values: "
            f"use solver='dense' or a smaller k"
        )


def svd_vectors(matrix, k: int, *, power: float = 0.5, solver: str = "auto", seed: int = 0) -> np.ndarray:
    """Word vectors ``U_k · S_k^power`` ``(n, k) float64`` from :func:`truncated_svd` (same sign rule).

    ``power=1`` gives the classic ``U S``, ``0.5`` the symmetric split of :cite:t:`levy2015improving` (§3.3) and
    the textbook chapter *Embeddings*, ``0`` the bare singular vectors. Raises like :func:`truncated_svd` and
    ``ValueError`` for a non-finite ``power`` or one that takes a non-zero singular value beyond float64
    (``S**power`` overflows or underflows to 0).

    >>> svd_vectors(np.diag([4.0, 1.0]), 1)  # U S^0.5
    array([[2.],
           [0.]])
    """
    power = validate.number(power, "power", ge=0)
    U, S, _ = truncated_svd(matrix, k, solver=solver, seed=seed)
    with np.errstate(over="ignore", under="ignore"):
        weights = S**power
    lost = ~np.isfinite(weights) | ((weights == 0) & (S > 0))
    if lost.any():
        s = float(S[lost][0])
        raise ValueError(f"power={power!r} takes the singular value {s!r} beyond float64's range "
                         f"({s!r}**{power!r} {'overflows' if s > 1 else 'underflows to 0'})")
    return U * weights


# --- the whole pipeline with provenance ----------------------------------------------------------------


@dataclass(frozen=True)
class CountEmbedding:
    """A PPMI-SVD embedding: ``vectors (V, k) float64``, ``counts`` and ``ppmi`` ``(V, V)`` (dense or
    sparse as requested), ``singular_values (k,)`` and the :class:`lib.provenance.Provenance` record."""

    vectors: np.ndarray
    counts: np.ndarray | scipy.sparse.csr_array
    ppmi: np.ndarray | scipy.sparse.csr_array
    singular_values: np.ndarray
    provenance: Provenance


SOLVER_NAMES = {
    "dense": "LAPACK gesdd",
    "sparse": "ARPACK (scipy.sparse.linalg.svds)",
    "propack": "PROPACK (scipy.sparse.linalg.svds)",
}


def ppmi_svd_embedding(
    sentences,
    vocab,
    *,
    k: int = 2,
    window: int | None = None,
    symmetric: bool = True,
    weighting: str | None = None,
    alpha: float = 1.0,
    power: float = 0.5,
    sparse: bool = False,
    solver: str | None = None,
    corpus: str = "unnamed corpus",
    unit: str = "sentence",
    extra: Mapping[str, object] | None = None,
) -> CountEmbedding:
    """Counts → PPMI → truncated SVD for tokenised ``sentences`` (sequences of ``str``) and a vocabulary.

    ``vocab`` is a :class:`lib.corpus.Vocabulary` (its unknown-item policy applies while encoding).
    The other arguments go to :func:`cooccurrence`, :func:`ppmi` and :func:`svd_vectors`; ``sparse=True``
    uses the ``scipy.sparse`` path throughout. ``solver`` goes to :func:`truncated_svd`; ``None`` (or ``"auto"``) picks
    ARPACK (``"sparse"``) on the sparse path when ``k < V - 1`` and LAPACK (``"dense"``) otherwise. The
    provenance names the corpus (``corpus``, plus its SHA-256), the context (:func:`lib.corpus.describe_context`;
    ``unit`` says what one of ``sentences`` is, ``"sentence"`` or ``"document"``), α, k, p and the solver,
    and adds ``extra`` (e.g. data-file hashes) after the solver's name. Raises like the functions it calls.
    """
    if not hasattr(vocab, "encode_sentences"):
        raise TypeError(f"vocab must be a lib.corpus.Vocabulary, got {type(vocab).__name__}")
    power = validate.number(power, "power", ge=0)
    k = validate.integer(k, "k", low=1)  # its upper bound, by solver, is truncated_svd's
    ids = vocab.encode_sentences(sentences)
    V = len(vocab)
    C = cooccurrence(ids, V, window, symmetric=symmetric, weighting=weighting, sparse=sparse)
    P = ppmi(C, alpha)
    if solver in (None, "auto"):
        solver = "sparse" if sparse and k < V - 1 else "dense"
    U, S, _ = truncated_svd(P, k, solver=solver)
    vectors = U * S ** float(power)
    context = describe_context(window, symmetric, unit=unit, weighting=weighting)
    prov = for_corpus(
        vocab,
        sentences,
        corpus=corpus,
        context=context,
        subsampling="none",
        objective=f"PPMI (natural log, context smoothing alpha = {float(alpha)}) + truncated SVD",
        dimension=int(k),
        initialisation="none (closed form)",
        optimiser="none (closed form)",
        stopping_rule="exact decomposition" if solver == "dense" else f"{SOLVER_NAMES[solver]}, tol = 0",
        vectors=f"U_k * S_k^{float(power)}; sign: largest |entry| of each U column positive",
        normalisation="none",
        dtype="float64",
        software=software_versions("numpy", "scipy"),
        extra={"SVD solver": SOLVER_NAMES[solver], **dict(extra or {})},
    )
    return CountEmbedding(vectors, C, P, S, prov)


__all__ = [
    "CountEmbedding",
    "SVDResult",
    "TRIPLET_RTOL",
    "cooccurrence",
    "ppmi",
    "ppmi_svd_embedding",
    "sign_convention",
    "svd_vectors",
    "truncated_svd",
]
