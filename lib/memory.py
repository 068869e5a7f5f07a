"""Memory of an embedding table: the weights alone, and the training footprint with gradients and optimiser state.

Taught in: chapters/scale.md ("A table's memory is rows times columns times bytes", "Training needs more than
the weights") and
chapters/embeddings.md (Level 4, systems costs).

A table of ``V`` rows and ``D`` columns stored at ``q`` bytes per value occupies ``V · D · q`` bytes
(Level 4 of :ref:`the textbook chapter Embeddings <sources>`, "Embedding tables create systems costs": for ``V = 250,000``,
``D = 1,024`` and two-byte weights, about 512 MB in decimal units). Training needs more than the weights:

- a gradient of the same shape (PyTorch stores ``param.grad`` in the parameter's dtype);
- optimiser state, per parameter value: none for plain SGD, one momentum buffer for SGD with momentum
  (``torch.optim.SGD(momentum>0)``, ``state["momentum_buffer"]``), two moment estimates for Adam
  ``m_t`` and ``v_t`` :cite:p:`kingma2015adam{Algorithm 1}`, PyTorch's ``state["exp_avg"]`` and
  ``state["exp_avg_sq"]``;
- with mixed precision (``master_weights=True``), an fp32 master copy of the weights and fp32 optimiser
  state beside the 16-bit weights and gradients: ``2 + 2 + 12 = 16`` bytes per parameter for Adam, the
  count of :cite:t:`rajbhandari2020zero` (ZeRO, §3.1 "Model States": ``2Ψ + 2Ψ + KΨ`` with ``K = 12``).

Where this follows PyTorch rather than a paper: without master weights the optimiser state has the
parameter's dtype, as ``torch.optim.SGD`` and ``torch.optim.Adam`` allocate it (``torch.zeros_like``).
Adam's scalar step counter (one 4-byte value per parameter tensor, not per row) is left out of the
breakdown. ``int8`` is a storage format here: a table can be *stored* in int8 (:func:`table_bytes`), but
it cannot be trained in int8, so :func:`training_footprint` refuses it with a ``ValueError``.

Sizes are exact integer byte counts; :func:`format_bytes` prints them in decimal (MB = 10**6 bytes) or
binary (MiB = 2**20 bytes) units.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Dict, List, Tuple

import numpy as np

from lib import validate
from lib.notebook import log_shown, logging_numbers

# Bytes per stored value, by canonical dtype name.
DTYPE_BYTES: Dict[str, int] = {"fp32": 4, "fp16": 2, "bf16": 2, "int8": 1}
# Other spellings accepted for the same dtypes (NumPy / PyTorch names).
_ALIASES = {
    "float32": "fp32",
    "float": "fp32",
    "float16": "fp16",
    "half": "fp16",
    "bfloat16": "bf16",
    "qint8": "int8",
}
TRAINABLE_DTYPES = ("fp32", "fp16", "bf16")
OPTIMIZERS = ("sgd", "momentum", "adam")
# Optimiser state tensors per parameter tensor, named as torch.optim names them in optimizer.state[p].
OPTIMIZER_STATE: Dict[str, Tuple[str, ...]] = {
    "sgd": (),
    "momentum": ("momentum_buffer",),
    "adam": ("exp_avg", "exp_avg_sq"),
}


def canonical_dtype(dtype) -> str:
    """Return the canonical name (``"fp32"``, ``"fp16"``, ``"bf16"`` or ``"int8"``) of ``dtype``.

    ``dtype`` is a string (``"fp32"``, ``"float32"``, ``"bfloat16"``, ...; case-insensitive), a
    ``torch.dtype`` / ``numpy.dtype`` or a NumPy scalar type (``np.float16``) of one of these four types:
    ``"float16"``, ``np.float16``, ``np.dtype("float16")`` and ``torch.float16`` are all ``"fp16"``. Raises
    ``ValueError`` naming the allowed dtypes for anything else (``"fp64"``, ``"int4"``, ``np.float64``) and
    ``TypeError`` for a non-dtype argument, a value included (``np.float16(1.0)``, an array or a tensor: its
    ``.dtype`` is the dtype).

    >>> canonical_dtype("bfloat16")
    'bf16'
    >>> canonical_dtype(np.float16), canonical_dtype(np.dtype("float32"))
    ('fp16', 'fp32')
    """
    torch = sys.modules.get("torch")  # not imported here: until it is, nothing is a torch.dtype
    if isinstance(dtype, str):
        name = dtype
    elif isinstance(dtype, type) and issubclass(dtype, np.generic):  # a NumPy scalar type: np.float16
        name = np.dtype(dtype).name
    elif isinstance(dtype, np.dtype):
        name = dtype.name
    elif torch is not None and isinstance(dtype, torch.dtype):
        name = str(dtype)
    else:  # a value (np.float16(1.0), an array, a tensor) is not its dtype: x.dtype is
        raise TypeError(f"dtype must be a string such as 'fp16' or a torch/numpy dtype, got {dtype!r}")
    name = name.strip().lower().removeprefix("torch.")
    name = _ALIASES.get(name, name)
    if name not in DTYPE_BYTES:
        raise ValueError(f"unknown dtype {dtype!r}: allowed {', '.join(DTYPE_BYTES)} (or float32, float16, bfloat16)")
    return name


def bytes_per_value(dtype) -> int:
    """Bytes that one stored value of ``dtype`` takes: 4 (fp32), 2 (fp16, bf16) or 1 (int8). ``dtype`` is
    read by :func:`canonical_dtype` (a name, a NumPy or torch dtype, or a NumPy scalar type such as
    ``np.float16``), which raises its errors.

    >>> bytes_per_value("fp16")
    2
    """
    return DTYPE_BYTES[canonical_dtype(dtype)]


def table_bytes(V: int, D: int, dtype="fp32") -> int:
    """Bytes of a ``(V, D)`` embedding table stored as ``dtype``: exactly ``V * D * bytes_per_value(dtype)``.

    ``V`` (rows, vocabulary size) and ``D`` (columns, embedding width) are integers >= 1. Returns an
    ``int`` in bytes. int8 counts the stored values only; a quantised table also keeps a scale per row or
    per tensor, which is not included. Raises ``TypeError`` for a non-integer size, ``ValueError`` for a
    size below 1 or an unknown dtype. Source: the textbook chapter *Embeddings*, Level 4 (``V D q`` bytes).

    >>> table_bytes(250_000, 1_024, "bf16")
    512000000
    """
    V = validate.integer(V, "V (vocabulary size)", low=1)
    D = validate.integer(D, "D (embedding width)", low=1)
    return V * D * bytes_per_value(dtype)


@dataclass(frozen=True)
class Footprint:
    """The training memory of one ``(V, D)`` table, in bytes, by component.

    ``weights`` (the table in its own dtype), ``gradients`` (one dense gradient), ``master_weights`` (an
    fp32 copy, mixed precision only, else 0) and ``optimizer_state`` (``{state name: bytes}``, named as
    ``torch.optim`` names them). :attr:`total` sums them; :meth:`breakdown` lists them in order.
    """

    V: int
    D: int
    dtype: str
    optimizer: str
    weights: int
    gradients: int
    master_weights: int = 0
    optimizer_state: Dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        """All components together, in bytes."""
        return self.weights + self.gradients + self.master_weights + sum(self.optimizer_state.values())

    @property
    def bytes_per_parameter(self) -> float:
        """``total / (V * D)``: 4, 8 or 12 for fp32 SGD / momentum / Adam; 16 for mixed-precision Adam."""
        return self.total / (self.V * self.D)

    def breakdown(self) -> List[Tuple[str, int]]:
        """``[(component, bytes), ...]`` in the order weights, gradients, master weights, optimiser state.

        Components of zero bytes (no master copy, plain SGD's empty state) are left out.
        """
        rows = [("weights", self.weights), ("gradients", self.gradients)]
        if self.master_weights:
            rows.append(("fp32 master weights", self.master_weights))
        rows.extend((f"optimizer: {name}", n) for name, n in self.optimizer_state.items())
        return rows


def training_footprint(
    V: int, D: int, dtype="fp32", optimizer: str = "adam", *, master_weights: bool = False
) -> Footprint:
    """Training memory of a ``(V, D)`` table with a dense gradient and ``optimizer``'s state.

    ``dtype``: the weights' dtype, one of fp32, fp16, bf16 (int8 cannot be trained: ``ValueError``).
    ``optimizer``: ``"sgd"`` (no state), ``"momentum"`` (one buffer) or ``"adam"`` (two moments).
    ``master_weights=True`` (mixed precision, 16-bit ``dtype`` only) adds an fp32 copy of the weights and
    keeps the optimiser state in fp32, as in :cite:t:`rajbhandari2020zero` (§3.1): 16 bytes per parameter for
    Adam. Without it, state has the weights' dtype, as ``torch.optim`` allocates it.

    Returns a :class:`Footprint` (all sizes in bytes). Raises ``TypeError`` / ``ValueError`` for bad
    sizes (see :func:`table_bytes`), an unknown or untrainable dtype, an unknown optimiser, or
    ``master_weights`` with fp32 weights (the copy would duplicate them).

    >>> # weights, gradients, two moments
    >>> training_footprint(1_000, 10, "fp32", "adam").bytes_per_parameter
    16.0
    """
    name = canonical_dtype(dtype)
    if name not in TRAINABLE_DTYPES:
        raise ValueError(
            f"dtype {name!r} is a storage format and cannot be trained: "
            f"training dtypes are {', '.join(TRAINABLE_DTYPES)}"
        )
    optimizer = validate.choice(optimizer.lower() if isinstance(optimizer, str) else optimizer, "optimizer", OPTIMIZERS)
    validate.flag(master_weights, "master_weights")
    if master_weights and name == "fp32":
        raise ValueError(
            "master_weights=True needs 16-bit weights (fp16 or bf16); fp32 weights are their own master copy"
        )
    weights = table_bytes(V, D, name)
    state_dtype = "fp32" if master_weights else name
    state_one = table_bytes(V, D, state_dtype)
    return Footprint(
        V=int(V),
        D=int(D),
        dtype=name,
        optimizer=optimizer,
        weights=weights,
        gradients=weights,  # param.grad has the parameter's dtype and shape
        master_weights=table_bytes(V, D, "fp32") if master_weights else 0,
        optimizer_state={s: state_one for s in OPTIMIZER_STATE[optimizer]},
    )


# Units from the smallest to the largest; exabytes cover every int64 byte count (up to 9.2 EB).
_DECIMAL = (("kB", 10**3), ("MB", 10**6), ("GB", 10**9), ("TB", 10**12), ("PB", 10**15), ("EB", 10**18))
_BINARY = (("KiB", 2**10), ("MiB", 2**20), ("GiB", 2**30), ("TiB", 2**40), ("PiB", 2**50), ("EiB", 2**60))


#: format_bytes writes numbers of fewer digits than this (Python writes no integer of more than 4300 digits)
MAX_BYTES_DIGITS = 4000


def _in_units(n: int, size: int, digits: int) -> int:
    """``n / size`` in units of ``10**-digits``, rounded half to even, computed exactly with integers."""
    q, r = divmod(n * 10**digits, size)
    if 2 * r > size or (2 * r == size and q % 2 == 1):
        q += 1
    return q


def format_bytes(n: int, units: str = "decimal", digits: int = 1) -> str:
    """``n`` bytes as a short string: ``"512.0 MB"`` (``units="decimal"``, powers of 1000) or
    ``"488.3 MiB"`` (``units="binary"``, powers of 1024), with ``digits`` decimals.

    The unit is the largest that ``n`` reaches (bytes below 1000, or 1024, are written as an integer,
    ``"999 B"``), and the number is always below 1000 (1024): when rounding to ``digits`` decimals
    would write 1000.0 of a unit, the next unit is used (``format_bytes(999_950)`` is ``"1.0 MB"``, not
    ``"1000.0 kB"``); only the largest unit, EB (EiB), goes on past it. The number is ``n`` divided by the
    unit exactly, in integers, and rounded to ``digits`` decimals half to even (as Python's ``format``
    rounds a float): every digit written is right, however many are asked for and however large ``n`` is
    (a float quotient would keep only about 16 significant digits and overflow beyond 1.8e308). Raises
    ``ValueError`` for a negative ``n`` or one of ``MAX_BYTES_DIGITS`` (4000) digits or more, an unknown
    ``units`` or a negative ``digits``, ``TypeError`` for a non-integer.

    >>> format_bytes(512_000_000), format_bytes(512_000_000, "binary")
    ('512.0 MB', '488.3 MiB')
    >>> format_bytes(999_950)
    '1.0 MB'
    >>> format_bytes(999_999_999_999_999_999, digits=20)
    '999.99999999999999900000 PB'
    """
    n = validate.integer(n, "n (bytes)", low=0)
    if n >= 10**MAX_BYTES_DIGITS:
        raise ValueError(f"n (bytes) must be an integer in [0, 10**{MAX_BYTES_DIGITS}), got {validate.shown(n)}")
    validate.choice(units, "units", ("decimal", "binary"))
    digits = validate.integer(digits, "digits", low=0, high=MAX_BYTES_DIGITS)
    table = _DECIMAL if units == "decimal" else _BINARY
    base = table[0][1]
    if n < base:
        return f"{n} B"
    i = max(j for j, (_, size) in enumerate(table) if n >= size)
    q = _in_units(n, table[i][1], digits)
    if q >= base * 10**digits and i + 1 < len(table):  # rounded up to 1000 of this unit: 1 of the next
        i += 1
        q = _in_units(n, table[i][1], digits)
    whole, fraction = divmod(q, 10**digits)
    text = f"{whole}.{fraction:0{digits}d}" if digits else f"{whole}"
    if logging_numbers():  # logged as lib.notebook.fmt logs a number, so that tools/codepaths.py finds it shown
        try:
            raw = n / table[i][1]
        except OverflowError:
            raw = float("inf")
        log_shown(raw, f".{digits}f", text)
    return f"{text} {table[i][0]}"
