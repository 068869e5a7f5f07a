"""An independent reference for the centring of lib.geometry.centred_rows and the principal coordinates
built on it (tests/test_geometry.py, tests/test_chapter_position_schemes.py): rows centred with exact
fractions, and the seeded random tables with a constant column that a float64 mean centres inexactly."""

from __future__ import annotations

from fractions import Fraction

import numpy as np


def exactly_centred(rows) -> np.ndarray:
    """``rows`` ``(V, D)`` minus their mean row, computed in exact fractions and rounded once to float64."""
    X = [[Fraction(float(v)) for v in row] for row in rows]
    V = len(X)
    mean = [sum(column) / V for column in zip(*X)]
    return np.array([[float(v - m) for v, m in zip(row, mean)] for row in X])


def principal_coordinates(rows, k: int) -> np.ndarray:
    """The top ``k`` principal coordinates ``U_k S_k`` of the exactly centred ``rows`` (NumPy's SVD), each
    column's sign unfixed: compare up to sign."""
    C = exactly_centred(rows)
    U, S, _ = np.linalg.svd(C, full_matrices=False)
    return U[:, :k] * S[:k]


def tables_with_a_constant_column(n: int, seed: int = 0):
    """``n`` seeded random tables ``(V, 1 + m)``: column 0 constant at a value whose float64 mean over ``V``
    rows is inexact for most ``V`` (0.1, 0.3, 1.1, ...), then ``m`` (1 or 2) columns of small spread,
    1e-18 to 1e-13, so that a residue of one unit in the last place of the constant would show."""
    rng = np.random.default_rng(seed)
    for _ in range(n):
        V = int(rng.integers(3, 9))
        m = int(rng.integers(1, 3))
        constant = float(rng.choice([0.1, 0.3, 0.7, 1.1, 3.3, 1e300 / 3, 1e-300 / 3]))
        spread = 10.0 ** rng.uniform(-18, -13)
        varying = rng.normal(size=(V, m)) * spread
        yield np.column_stack([np.full(V, constant), varying])
