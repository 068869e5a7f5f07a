"""Positional encodings: the sinusoidal table of :cite:t:`vaswani2017attention` (§3.5) and a learned table.

Taught in: chapters/lesson.md (learned and sinusoidal position tables), chapters/trace_exercise.md, and
chapters/position_schemes.md (RoPE and ALiBi in a trained model).

Sinusoidal encoding, for position ``pos`` and dimension ``k`` of a model of width ``d``::

    pair  = k // 2
    angle = pos / base ** (2 * pair / d)            # radians, base = 10000
    PE[pos, k] = sin(angle) if k is even else cos(angle)

Dimensions ``2i`` and ``2i + 1`` share one angular frequency ``ω_i = base ** (-2i / d)`` (radians per
position), so each (sin, cos) pair is a point on the unit circle turning at its own speed. Three facts
follow, each with a function here and a test:

- shifting the position by ``k`` rotates every pair by the fixed angle ``k ω_i`` (:func:`shift_rotation`);
- ``PE[i] · PE[j] = Σ_i cos((i − j) ω_i)`` depends only on the offset, and ``PE[i] · PE[i] = d / 2`` for
  even ``d`` (:func:`dot_by_offset`);
- the wavelengths ``2π / ω_i`` grow geometrically from ``2π`` to about ``2π · base`` positions
  (:func:`wavelengths`).

Departures from the paper: the paper states the formula for even ``d``; here any width ``d >= 1`` is
defined by the same formula (for odd ``d`` the last dimension is the sine of a pair without its cosine).
The paper's PE is added to embeddings scaled by ``sqrt(d_model)``; this module returns the encoding alone
and :func:`add_positions` adds it without scaling, as the book's chapters do.

Positions are integers in ``[0, MAX_POSITION]``, ``MAX_POSITION = 2**20`` (1,048,576; above the 10**6 of
the trace language, far above every sequence of the book). Every angle is a float64 product, rounded once:
``pos * ω_i`` (twice for RoPE with position interpolation, ``(m / s) * θ_i``), so it is within
``2**-53`` (``2**-52``) of the exact angle *relatively*: an absolute error of up to ``pos * 2**-53``
radians (``pos * 2**-52``), as ``ω_i <= 1``. Up to ``2**20`` that is at most ``2**-33`` rad (``2**-32``,
2.3e-10), so every sine and cosine here is within 1e-9 of the sine and cosine of the exact angle (``pos``
times the float64 frequency of :func:`angular_frequencies`): the tolerance the bound is chosen for. Beyond
it the error grows with the position: about 1e-5 at 10**12 (5e-5 at width 512), and from 0.05 to 0.5
near 2**53, where the product no longer says where the position is on the circle. A larger position is refused, naming the argument and the bound,
rather than reduced in extended precision, which no position of the book needs.

The learned table (:class:`LearnedPositionTable`) is the alternative used by GPT-2
:cite:p:`radford2019language`: one trainable row per position up to a maximum length, and nothing beyond it.

Two schemes put position inside attention instead of adding it to the input:

- **RoPE**, rotary position embedding :cite:p:`su2021roformer{§3.2.2 and §3.4.2}`: a query or key vector at
  position ``m`` has each pair ``(x_2i, x_2i+1)`` rotated by the angle ``m θ_i``, ``θ_i = base ** (-2i / d)``
  (:func:`rope`, :func:`rope_matrix`); the score of a rotated query and key then depends on the offset only.
  Test-time extensions: position interpolation :cite:p:`chen2023interpolation` divides ``m`` by a factor ``s``
  (``interpolation=s``); the NTK-aware base :cite:p:`bloc97_2023_ntk`, named in YaRN :cite:p:`peng2023yarn`, raises the
  base instead (:func:`ntk_base`).
- **ALiBi**, attention with linear biases :cite:p:`press2022alibi{§3}`: head ``h`` adds ``-m_h (i - j)`` to
  the score of query ``i`` and key ``j``, with the head slopes of :func:`alibi_slopes` (:func:`alibi_bias`).

The PyTorch versions that the model of
:mod:`lib.transformer` uses are tested against the NumPy functions here. RoPE's pairs are the interleaved
pairs of the paper's eq. (15), ``(x_0, x_1), (x_2, x_3), ...``; some libraries (GPT-NeoX, Hugging Face's
LLaMA) pair ``x_i`` with ``x_{i + d/2}`` instead, which is the same rotation of permuted coordinates.
"""

from __future__ import annotations

import math

import numpy as np

from lib import validate

BASE = 10000.0
#: the largest position (and the largest offset in size): up to it the float64 angle pos * ω is within
#: 2**-32 rad of the exact one, and each sine and cosine within 1e-9 (see the module docstring)
MAX_POSITION = 2**20
#: why the bound: said in every message that refuses a position beyond it
_BOUND = "2**20, up to which the float64 angle is within 2**-32 rad of the exact one"


def _integer_positions(pos, name: str):
    """``pos`` (an int or an integer array) as an array of integers >= 0: ``int64``, or an object array of
    Python ints for one beyond ``int64``. ``TypeError`` for entries that are not integers, ``ValueError``
    naming ``name`` for a negative one. An empty list is no positions (as in
    :func:`lib.validate.integer_array`)."""
    try:
        arr = np.asarray(pos)
    except ValueError:  # a ragged nesting such as [[0], 1]
        raise TypeError(f"{name} must be an integer (or an integer array), got {pos!r}") from None
    if arr.size == 0 and arr.dtype == np.float64:  # np.asarray([]) is float64: an empty list holds no float
        arr = arr.astype(np.int64)
    if not validate.integer_dtype(arr.dtype):
        # Python ints beyond int64 become an object array, and a mix of negative and uint64-only ones
        # ([-1, 2**63]) a float64 one: integers all the same, so a range error
        big = validate._python_integers(pos) if arr.dtype.kind not in "mM" else []
        arr = np.array(big, dtype=object)
        if not big:
            raise TypeError(f"{name} must be an integer (or an integer array), got dtype {np.asarray(pos).dtype}")
    if (arr < 0).any():
        raise ValueError(f"{name} must be >= 0, got {validate.shown(int(arr[arr < 0].flat[0]))}")
    return arr


def _check_positions(pos, name: str = "position") -> np.ndarray:
    """``pos`` (an int or an integer array) as ``int64``, after checking every entry is in
    ``[0, MAX_POSITION]``. ``TypeError`` for entries that are not integers; ``ValueError`` naming ``name``
    and the range for one outside it, also for a Python ``int`` beyond ``int64`` (``10**300``, ``[0, 2**70]``,
    which NumPy holds as objects): it is an integer, out of range."""
    arr = _integer_positions(pos, name)
    if (arr > MAX_POSITION).any():  # checked before the int64 cast, so a uint64 cannot wrap around
        raise ValueError(f"{name} must be <= {MAX_POSITION} ({_BOUND}), got {validate.shown(int(arr.max()))}")
    return arr.astype(np.int64)


def _check_position(pos, name: str) -> int:
    """One position (an integer in ``[0, MAX_POSITION]``, as ``_check_positions`` checks it) as an
    ``int``; ``TypeError`` naming ``name`` for an array of positions."""
    arr = _check_positions(pos, name)
    if arr.ndim:
        raise TypeError(f"{name} must be one integer, got an array of shape {arr.shape}")
    return int(arr)


def angular_frequencies(d: int, base: float = BASE) -> np.ndarray:
    """Angular frequency of each dimension, ``(d,)`` float64, radians per position: ``base ** (-2 (k // 2) / d)``.

    Dimensions ``2i`` and ``2i + 1`` share a value. Raises ``ValueError`` for ``d < 1`` or ``base <= 1``.

    >>> angular_frequencies(4)
    array([1.  , 1.  , 0.01, 0.01])
    """
    d, base = validate.size(d, "width d", low=1), validate.number(base, "base", gt=1)
    pair = np.arange(d) // 2  # integer division: neighbouring dimensions share a frequency
    return base ** (-2.0 * pair / d)  # float exponent: never an integer power


def sinusoidal_encoding(pos, d: int, base: float = BASE) -> np.ndarray:
    """Sinusoidal encoding of ``pos``: ``(d,)`` float64 for an int, ``pos.shape + (d,)`` for an array.

    :cite:t:`vaswani2017attention`, §3.5, with ``pair = k // 2``. ``pos`` is an integer in ``[0, 2**20]``
    (``MAX_POSITION``); each entry is within 1e-9 of the sine or cosine of the exact angle ``pos * ω_k``
    (``ω_k`` the float64 frequency of :func:`angular_frequencies`; the float64 product is within ``2**-33``
    rad of it). Raises ``TypeError`` for a non-integer position and ``ValueError`` for one outside
    ``[0, 2**20]`` (also a Python ``int`` beyond ``int64``, such as ``10**300``), for ``d < 1`` or
    ``base <= 1``.

    >>> sinusoidal_encoding(3, 4)  # [sin 3, cos 3, sin 0.03, cos 0.03]
    array([ 0.1411, -0.99  ,  0.03  ,  0.9996])
    """
    pos = _check_positions(pos)
    angles = pos[..., None] * angular_frequencies(d, base)  # (..., d) radians
    out = np.empty_like(angles)
    out[..., 0::2] = np.sin(angles[..., 0::2])  # even dimensions: sine
    out[..., 1::2] = np.cos(angles[..., 1::2])  # odd dimensions: cosine
    return out


def sinusoidal_table(n_positions: int, d: int, base: float = BASE) -> np.ndarray:
    """The sinusoidal table for positions ``0 .. n_positions - 1``: ``(n_positions, d)`` float64.

    Raises ``ValueError`` for ``n_positions < 1`` and as :func:`sinusoidal_encoding`.

    >>> sinusoidal_table(2, 4).round(4)
    array([[0.    , 1.    , 0.    , 1.    ],
           [0.8415, 0.5403, 0.01  , 1.    ]])
    """
    n_positions = validate.size(n_positions, "n_positions", low=1)
    validate.entries((n_positions, validate.size(d, "width d")), "n_positions and width d")
    return sinusoidal_encoding(np.arange(n_positions), d, base)


def wavelengths(d: int, base: float = BASE) -> np.ndarray:
    """Wavelength of each (sin, cos) pair in positions, ``(ceil(d / 2),)`` float64: ``2π / ω_i``.

    The first pair repeats every ``2π ≈ 6.28`` positions; the last every ``2π · base ** ((d − 2) / d)``.
    Raises ``ValueError`` as :func:`angular_frequencies`, and for a ``base`` so large that the last wavelength
    is beyond the float64 range (about 1.8e308; ``base = 1e308`` with ``d = 4096``).

    >>> wavelengths(4)  # 2π and 2π · 100 positions
    array([  6.2832, 628.3185])
    """
    with np.errstate(over="ignore"):  # reported below, naming base
        out = 2.0 * np.pi / angular_frequencies(d, base)[0::2]
    if not np.all(np.isfinite(out)):
        raise ValueError(f"base must keep the longest wavelength, 2π · base ** ((d - 2) / d), within float64 "
                         f"(about 1.8e308), got base = {float(base)!r} with width d = {d}: that wavelength is "
                         f"{validate.BEYOND_FLOAT64}")
    return out


def shift_rotation(k: int, d: int, base: float = BASE) -> np.ndarray:
    """The ``(d, d)`` matrix ``R_k`` with ``sinusoidal_encoding(p + k) == R_k @ sinusoidal_encoding(p)``.

    Block diagonal: for each pair ``i`` the 2×2 block maps ``(sin a, cos a)`` to
    ``(sin(a + kω_i), cos(a + kω_i))``; it depends on ``k`` only, never on ``p``. For odd ``d`` the last,
    unpaired dimension has no exact rotation and ``ValueError`` is raised. ``k`` may be negative;
    ``|k| > 2**20`` raises ``ValueError`` (``MAX_POSITION``: up to it each entry is within 1e-9 of the
    cosine or sine of the exact angle ``k ω_i``).

    >>> R = shift_rotation(1, 2)
    >>> bool(np.allclose(R @ sinusoidal_encoding(5, 2), sinusoidal_encoding(6, 2)))
    True
    """
    d = validate.size(d, "width d", low=1)
    if d % 2:
        raise ValueError(f"the shift is a rotation of (sin, cos) pairs and needs an even width, got d = {d}")
    k = validate.integer(k, "offset k", low=-MAX_POSITION, high=MAX_POSITION, hint=_BOUND)
    theta = k * angular_frequencies(d, base)[0::2]  # (d/2,) radians
    c, s = np.cos(theta), np.sin(theta)
    R = np.zeros((d, d))
    idx = np.arange(0, d, 2)
    # sin(a + t) = sin a cos t + cos a sin t;  cos(a + t) = cos a cos t - sin a sin t
    R[idx, idx], R[idx, idx + 1] = c, s
    R[idx + 1, idx], R[idx + 1, idx + 1] = -s, c
    return R


def dot_by_offset(start: int, offsets, d: int, base: float = BASE) -> np.ndarray:
    """``PE[start] · PE[start + o]`` for each offset ``o``: ``(len(offsets),)`` float64.

    For even ``d`` this equals ``Σ_i cos(o ω_i)``, the same for every ``start``; at ``o = 0`` it is ``d/2``.
    ``start``, the offsets and ``start + o`` are integers in ``[0, 2**20]`` (``MAX_POSITION``; each encoding
    as :func:`sinusoidal_encoding`, each entry within 1e-9 of its exact value): ``ValueError`` naming the
    one outside it (also for a Python ``int`` beyond ``int64``) and for ``offsets`` of more than one
    dimension, ``TypeError`` for one that is not an integer or a ``start`` that is an array.

    >>> # d / 2 = 2 at offset 0; cos 1 + cos 0.01 at offset 1
    >>> dot_by_offset(10, [0, 1], 4)
    array([2.    , 1.5402])
    """
    start = _check_position(start, "start")
    offsets = np.atleast_1d(_check_positions(offsets, "offset"))
    if offsets.ndim != 1:
        raise ValueError(f"offsets must be one integer or a 1-D array of integers, got shape {offsets.shape}")
    here = sinusoidal_encoding(start, d, base)
    there = sinusoidal_encoding(_check_positions(start + offsets, "start + offset"), d, base)  # (n, d)
    return there @ here


def add_positions(vectors, start: int = 0, base: float = BASE) -> np.ndarray:
    """Return ``vectors + PE[start : start + N]`` for token vectors ``(N, d)``, as a new array.

    The input is never modified (adding in place to looked-up rows that alias the table would change the
    table itself). The encodings are those of :func:`sinusoidal_encoding`. Raises ``ValueError`` unless
    ``vectors`` is 2-D and finite, when the sum overflows float64, or for positions ``start .. start + N - 1``
    not all in ``[0, 2**20]`` (``MAX_POSITION``; also a Python ``int`` beyond ``int64``); ``TypeError`` for
    entries that are not real numbers or a ``start`` that is not one integer.

    >>> add_positions([[0.5, -0.5, 1.0, 0.0]], start=3)
    array([[ 0.6411, -1.49  ,  1.03  ,  0.9996]])
    """
    vectors = validate.real_array(vectors, "vectors")
    if vectors.ndim != 2:
        raise ValueError(f"vectors must have shape (N, d), got {vectors.shape}")
    start = _check_position(start, "start")
    n, d = vectors.shape
    if n:
        _check_positions(start + n - 1, "start + N - 1, the last position,")
    with np.errstate(over="ignore"):  # an overflow is reported by _finite as a ValueError
        out = vectors + sinusoidal_encoding(np.arange(start, start + n), d, base)
    return _finite(out, "vectors + PE")


def _finite(out: np.ndarray, what: str) -> np.ndarray:
    """``out``, after checking that no entry overflowed to infinity (input near float64's 1.8e308)."""
    if not np.all(np.isfinite(out)):
        raise ValueError(f"{what} overflows float64 (an entry's true value is above 1.8e308); scale the input down")
    return out


class LearnedPositionTable:
    """A learned position table: one trainable row per position, ``(max_len, d)`` float64.

    Used by GPT-2 (1,024 positions × 768). Rows start as ``N(0, scale²)`` from ``seed`` and are trained
    like any embedding row. Unlike the sinusoidal table it has nothing to say about a position it has no
    row for: asking for one raises ``ValueError`` naming the maximum length.
    """

    def __init__(self, max_len: int, d: int, *, seed: int = 0, scale: float = 0.1):
        self.max_len, self.d = validate.size(max_len, "max_len", low=1), validate.size(d, "width d", low=1)
        validate.entries((self.max_len, self.d), "max_len and width d")
        seed = validate.seed(seed)
        scale = validate.number(scale, "scale", ge=0)
        self.weight = np.random.default_rng(seed).standard_normal((self.max_len, self.d)) * scale

    @property
    def num_parameters(self) -> int:
        """Number of trainable values, ``max_len * d``."""
        return self.weight.size

    def __call__(self, positions) -> np.ndarray:
        """Rows for ``positions`` (an int or an integer array): ``positions.shape + (d,)``, a copy."""
        positions = _integer_positions(positions, "position")  # no angle: any integer below max_len
        if (positions >= self.max_len).any():
            worst = validate.shown(int(positions.max()))
            raise ValueError(
                f"position {worst} is beyond the learned table's maximum length of {self.max_len} "
                f"(positions 0..{self.max_len - 1}); a learned table has no row for it"
            )
        return self.weight[positions.astype(np.int64)].copy()

    def for_length(self, n: int) -> np.ndarray:
        """Rows for positions ``0 .. n - 1``: ``(n, d)``. Raises ``ValueError`` if ``n > max_len``."""
        n = validate.size(n, "sequence length n", low=0)
        if n > self.max_len:
            raise ValueError(
                f"a sequence of {n} positions is longer than the learned table's maximum length of {self.max_len}"
            )
        return self(np.arange(n))


# --- RoPE: rotary position embedding (Su et al. 2021) ------------------------------------------------


def _check_even_width(d) -> int:
    d = validate.size(d, "width d", low=2)
    if d % 2:
        raise ValueError(f"width d must be an even integer >= 2 (RoPE rotates pairs of dimensions), got {d}")
    return d


def rope_angles(positions, d: int, base: float = BASE, interpolation: float = 1.0) -> np.ndarray:
    """Rotation angles of RoPE, ``positions.shape + (d // 2,)`` float64, radians: ``(m / s) θ_i``.

    ``θ_i = base ** (-2i / d)`` for pair ``i = 0 .. d/2 - 1`` :cite:p:`su2021roformer{eq. 15}`, the
    frequencies of the sinusoidal table (:func:`angular_frequencies`). ``interpolation = s >= 1`` divides
    every position by ``s``, position interpolation :cite:p:`chen2023interpolation`, so that positions
    ``0 .. sL - 1`` get the angles that ``0 .. L - 1`` had. Each angle is within ``2**-32`` rad (2.3e-10) of
    the exact ``(m / s) θ_i`` (``θ_i`` the float64 frequency; two roundings, a relative error of ``2**-52``
    at most): positions are integers in ``[0, 2**20]`` (``MAX_POSITION``). Raises ``TypeError`` for
    non-integer positions, ``ValueError`` for a position outside ``[0, 2**20]`` (also a Python ``int``
    beyond ``int64``), an odd ``d``, ``base <= 1`` or ``interpolation < 1``.

    >>> rope_angles(3, 4)  # the angles of the worked trace: 3 rad, 0.03 rad
    array([3.  , 0.03])
    """
    positions = _check_positions(positions)
    d = _check_even_width(d)
    s = validate.number(interpolation, "interpolation", ge=1)
    theta = angular_frequencies(d, base)[0::2]  # (d/2,) radians per position
    return (positions[..., None] / s) * theta


def rope(x, positions, base: float = BASE, interpolation: float = 1.0) -> np.ndarray:
    """Rotate the pairs of ``x`` by position: RoPE, ``R^d_{Θ,m} x``
    :cite:p:`su2021roformer{eqs. 14-15 and 34}`.

    ``x`` is ``(..., n, d)`` (vectors at positions ``positions``, ``(n,)`` non-negative integers), ``d`` even;
    returns a new float64 array of the same shape. For each pair ``i`` with angle ``a = m θ_i``
    (:func:`rope_angles`)::

        out[2i]     = x[2i] cos a - x[2i+1] sin a
        out[2i + 1] = x[2i] sin a + x[2i+1] cos a

    a counter-clockwise turn of the point ``(x[2i], x[2i+1])``; ``cos a`` and ``sin a`` are within 1e-9 of
    those of the exact angle (positions up to ``2**20``, as :func:`rope_angles`). Raises ``ValueError`` when the shapes do not
    match, for NaN or infinity in ``x`` or a result beyond float64, and as :func:`rope_angles`; ``TypeError``
    for entries of ``x`` that are not real numbers.

    >>> # [cos 3, sin 3, cos 0.03, sin 0.03]
    >>> rope(np.array([[1.0, 0.0, 1.0, 0.0]]), [3]).round(4)
    array([[-0.99  ,  0.1411,  0.9996,  0.03  ]])
    """
    x = validate.real_array(x, "x")
    positions = np.atleast_1d(_check_positions(positions, "positions"))
    if x.ndim < 2 or positions.ndim != 1 or x.shape[-2] != positions.shape[0]:
        raise ValueError(f"x must have shape (..., n, d) with n = len(positions) = {positions.shape[0]}, "
                         f"got {x.shape}")
    angles = rope_angles(positions, x.shape[-1], base, interpolation)  # (n, d/2)
    cos, sin = np.cos(angles), np.sin(angles)
    even, odd = x[..., 0::2], x[..., 1::2]  # (..., n, d/2) each: the two coordinates of every pair
    out = np.empty_like(x)
    with np.errstate(over="ignore"):  # an overflow is reported by _finite as a ValueError
        out[..., 0::2] = even * cos - odd * sin
        out[..., 1::2] = even * sin + odd * cos
    return _finite(out, "rope(x)")


def rope_matrix(m: int, d: int, base: float = BASE) -> np.ndarray:
    """The ``(d, d)`` block-diagonal rotation ``R^d_{Θ,m}`` of :cite:t:`su2021roformer`, eq. 15:
    ``rope(x, [m]) == R @ x``.

    Block ``i`` is ``[[cos mθ_i, -sin mθ_i], [sin mθ_i, cos mθ_i]]``. ``R_m^T R_n = R_{n-m}``, so a rotated
    query and key score ``(R_m q) · (R_n k) = q · R_{n-m} k``: the offset alone enters (eq. 16). ``m`` may be
    negative. Compared with :func:`shift_rotation`, which moves a sinusoidal encoding stored as
    ``(sin, cos)`` pairs, ``shift_rotation(k, d) == rope_matrix(-k, d)``: the same turn, seen in swapped
    coordinates. Each entry is within 1e-9 of the cosine or sine of the exact angle ``m θ_i``. Raises
    ``TypeError`` for a non-integer ``m`` and ``ValueError`` for an odd ``d`` or ``|m| > 2**20``
    (``MAX_POSITION``).

    >>> rope_matrix(1, 2).round(4)   # a turn by 1 rad
    array([[ 0.5403, -0.8415],
           [ 0.8415,  0.5403]])
    """
    m = validate.integer(m, "position m", low=-MAX_POSITION, high=MAX_POSITION, hint=_BOUND)
    d = _check_even_width(d)
    angles = m * angular_frequencies(d, base)[0::2]  # (d/2,) radians
    c, s = np.cos(angles), np.sin(angles)
    R = np.zeros((d, d))
    idx = np.arange(0, d, 2)
    R[idx, idx], R[idx, idx + 1] = c, -s
    R[idx + 1, idx], R[idx + 1, idx + 1] = s, c
    return R


def ntk_base(scale: float, d: int, base: float = BASE) -> float:
    """The NTK-aware RoPE base for extending the context ``scale`` times: ``base * scale ** (d / (d - 2))``.

    :cite:t:`bloc97_2023_ntk`, in a forum post; written as ``b' = b s^{|D|/(|D|-2)}`` by :cite:t:`peng2023yarn`
    (YaRN). With this base the slowest pair turns ``scale`` times more slowly, as under position interpolation, while the fastest
    pair keeps its speed. ``d`` is the width that RoPE rotates (a head's width), even and >= 4. Raises
    ``ValueError`` for ``scale < 1``, ``d < 4`` or an odd ``d``, ``base <= 1``, or a base beyond float64.

    >>> round(ntk_base(2, 8), 1)     # 10000 * 2 ** (8 / 6)
    25198.4
    """
    s = validate.number(scale, "scale", ge=1)
    d = _check_even_width(d)
    if d < 4:
        raise ValueError(f"width d must be an even integer >= 4 for the NTK-aware base (d - 2 > 0), got {d}")
    base = validate.number(base, "base", gt=1)
    try:
        out = base * s ** (d / (d - 2))
    except OverflowError:
        out = math.inf
    if not math.isfinite(out):
        raise ValueError(f"the NTK-aware base {base!r} * scale ** (d / (d - 2)) overflows float64 for scale = {s!r}, "
                         f"d = {d}; use a smaller scale or base")
    return out


# --- ALiBi: attention with linear biases (Press et al. 2022) -----------------------------------------


def alibi_slopes(n_heads: int) -> np.ndarray:
    """The head slopes of ALiBi, ``(n_heads,)`` float64 :cite:p:`press2022alibi{§3}`.

    For ``n`` heads, ``n`` a power of two, the geometric sequence that starts at ``2 ** (-8 / n)`` with that
    same ratio: ``m_h = 2 ** (-8 h / n)`` for ``h = 1 .. n`` (8 heads: 1/2, 1/4, ..., 1/256). For other ``n``
    the authors' code takes the slopes of the nearest smaller power of two ``p`` and adds every other slope of
    ``2p`` heads; this function does the same. Raises ``ValueError`` for ``n_heads < 1``.

    >>> alibi_slopes(4).tolist()
    [0.25, 0.0625, 0.015625, 0.00390625]
    """
    n = validate.size(n_heads, "n_heads", low=1)
    p = 2 ** int(math.floor(math.log2(n)))  # the largest power of two <= n
    slopes = 2.0 ** (-8.0 * np.arange(1, p + 1) / p)
    if p < n:
        extra = 2.0 ** (-8.0 * np.arange(1, 2 * p + 1) / (2 * p))[0::2][: n - p]
        slopes = np.concatenate([slopes, extra])
    return slopes


def alibi_bias(n: int, n_heads: int, slopes=None) -> np.ndarray:
    """ALiBi's bias on the attention scores of a causal window of ``n`` positions: ``(n_heads, n, n)`` float64.

    ``bias[h, i, j] = -m_h (i - j)`` for a key ``j <= i``, added to the score of query ``i`` before the softmax,
    ``softmax(q_i K^T + m · [-(i-1), ..., -2, -1, 0])`` :cite:p:`press2022alibi{§3}`; ``-inf`` for ``j > i``,
    a key that a causal model may not see. ``slopes`` (``(n_heads,)``, finite, >= 0) defaults to
    :func:`alibi_slopes`. Raises ``ValueError`` for ``n < 1``, bad slopes, and as :func:`alibi_slopes`;
    ``TypeError`` for slopes that are not real numbers. A slope whose bias at the farthest visible key,
    ``-m_h (n - 1)``, is beyond float64 (about 1.8e308) is a ``ValueError``: it would become ``-inf``, the
    value of a masked key.

    >>> alibi_bias(3, 1)[0]          # one head, slope 2 ** -8
    array([[ 0.        ,        -inf,        -inf],
           [-0.00390625,  0.        ,        -inf],
           [-0.0078125 , -0.00390625,  0.        ]])
    """
    n = validate.size(n, "window length n", low=1)
    if slopes is None:
        slopes = alibi_slopes(n_heads)
        validate.entries((slopes.shape[0], n, n), "n_heads and window length n")
    else:
        n_heads = validate.size(n_heads, "n_heads", low=1)
        wanted = f"slopes must be {n_heads} finite numbers >= 0, one per head, got {slopes!r}"
        try:
            slopes = validate.real_array(slopes, "slopes")  # TypeError for str, bool, complex
        except ValueError:  # NaN, infinity, a ragged nesting
            raise ValueError(wanted) from None
        if slopes.shape != (n_heads,) or not np.all(np.isfinite(slopes)) or (slopes < 0).any():
            raise ValueError(wanted)
        validate.entries((n_heads, n, n), "n_heads and window length n")
    i = np.arange(n)
    offset = (i[None, :] - i[:, None]).astype(np.float64)  # (n, n): j - i for query i, key j; <= 0 in the past
    with np.errstate(over="ignore"):  # a bias beyond float64 is refused below, naming the slope
        bias = slopes[:, None, None] * offset               # (H, n, n)
        if not np.all(np.isfinite(bias)):
            h = int(np.flatnonzero(~np.all(np.isfinite(bias), axis=(1, 2)))[0])
            limit = np.finfo(np.float64).max / (n - 1)
            raise ValueError(f"slopes must keep the bias -m (n - 1) of the farthest key within float64 (about "
                             f"1.8e308), at most about {limit:.4g} for a window of n = {n}, got slopes[{h}] = {float(slopes[h])!r}; "
                             f"a bias of -inf would mask a visible key")
    bias[:, offset > 0] = -np.inf                           # the future is masked
    return bias
