"""Tests for lib.memory: table bytes against the source's numbers, and the footprint against torch.optim."""

from fractions import Fraction

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from lib.memory import (
    bytes_per_value,
    canonical_dtype,
    format_bytes,
    table_bytes,
    training_footprint,
)


def test_source_case_250k_by_1024_two_bytes_is_512_mb():
    # Four-level chapter, Level 4: V = 250,000, D = 1,024, two-byte weights -> about 512 MB (decimal).
    n = table_bytes(250_000, 1_024, "fp16")
    assert n == 512_000_000
    assert format_bytes(n) == "512.0 MB"
    assert table_bytes(250_000, 1_024, "bf16") == n


def test_exercise_one_million_by_768():
    # Exercise 19 of the four-level chapter, by hand: 10**6 * 768 * q.
    assert table_bytes(10**6, 768, "fp32") == 3_072_000_000
    assert table_bytes(10**6, 768, "fp16") == 1_536_000_000
    assert table_bytes(10**6, 768, "int8") == 768_000_000
    assert format_bytes(768_000_000, "binary") == "732.4 MiB"  # 768e6 / 2**20 = 732.42


@pytest.mark.parametrize(
    "dtype, torch_dtype",
    [("fp32", torch.float32), ("fp16", torch.float16), ("bf16", torch.bfloat16), ("int8", torch.int8)],
)
def test_bytes_per_value_matches_torch_element_size(dtype, torch_dtype):
    assert bytes_per_value(dtype) == torch.empty(0, dtype=torch_dtype).element_size()
    assert table_bytes(7, 3, dtype) == torch.empty(7, 3, dtype=torch_dtype).nbytes
    assert canonical_dtype(torch_dtype) == dtype


def test_aliases_and_numpy_dtypes():
    assert canonical_dtype("float32") == "fp32"
    assert canonical_dtype("BFloat16") == "bf16"
    assert canonical_dtype(np.dtype("float16")) == "fp16"
    assert canonical_dtype(np.dtype("int8")) == "int8"
    assert table_bytes(np.int64(10), np.int32(4), "int8") == 40


def _torch_footprint(dtype, optimizer):
    """Bytes that torch really allocates: param, grad and per-value optimiser state after one step."""
    V, D = 11, 6
    p = torch.nn.Parameter(torch.randn(V, D, generator=torch.Generator().manual_seed(0)).to(dtype))
    if optimizer == "sgd":
        opt = torch.optim.SGD([p], lr=0.1)
    elif optimizer == "momentum":
        opt = torch.optim.SGD([p], lr=0.1, momentum=0.9)
    else:
        opt = torch.optim.Adam([p], lr=0.1)
    (p.float() ** 2).sum().backward()
    opt.step()
    state = {k: v.nbytes for k, v in opt.state[p].items() if torch.is_tensor(v) and v.shape == p.shape}
    return V, D, p.nbytes, p.grad.nbytes, state


@pytest.mark.slow
@pytest.mark.parametrize("optimizer", ["sgd", "momentum", "adam"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_footprint_equals_what_torch_optim_allocates(dtype, optimizer):
    V, D, w, g, state = _torch_footprint(dtype, optimizer)
    f = training_footprint(V, D, dtype, optimizer)
    assert f.weights == w
    assert f.gradients == g
    assert f.optimizer_state == state
    assert f.total == w + g + sum(state.values())


def test_bytes_per_parameter_fp32_and_mixed_precision_zero_count():
    assert training_footprint(5, 5, "fp32", "sgd").bytes_per_parameter == 8.0  # weights + grad
    assert training_footprint(5, 5, "fp32", "momentum").bytes_per_parameter == 12.0
    assert training_footprint(5, 5, "fp32", "adam").bytes_per_parameter == 16.0
    # ZeRO (Rajbhandari et al. 2020, sec. 3.1): mixed-precision Adam keeps 2 + 2 + 12 = 16 bytes/param.
    mixed = training_footprint(1000, 10, "fp16", "adam", master_weights=True)
    assert mixed.bytes_per_parameter == 16.0
    assert mixed.breakdown() == [
        ("weights", 20_000),
        ("gradients", 20_000),
        ("fp32 master weights", 40_000),
        ("optimizer: exp_avg", 40_000),
        ("optimizer: exp_avg_sq", 40_000),
    ]


def test_breakdown_leaves_out_empty_components_and_sums_to_total():
    f = training_footprint(250_000, 1_024, "bf16", "sgd")
    assert f.breakdown() == [("weights", 512_000_000), ("gradients", 512_000_000)]
    assert sum(n for _, n in f.breakdown()) == f.total == 1_024_000_000


def test_format_bytes_units():
    assert format_bytes(0) == "0 B"
    assert format_bytes(999) == "999 B"
    assert format_bytes(1000) == "1.0 kB"
    assert format_bytes(1024, "binary") == "1.0 KiB"
    assert format_bytes(3_072_000_000, digits=3) == "3.072 GB"


@pytest.mark.parametrize("V, D", [(0, 4), (4, 0), (-1, 4), (4, -3)])
def test_nonpositive_sizes_are_value_errors(V, D):
    with pytest.raises(ValueError, match=">= 1"):
        table_bytes(V, D, "fp32")
    with pytest.raises(ValueError, match=">= 1"):
        training_footprint(V, D)


@pytest.mark.parametrize("bad", [2.5, "10", True, None])
def test_non_integer_sizes_are_type_errors(bad):
    with pytest.raises(TypeError, match="V .* must be an integer"):
        table_bytes(bad, 4)
    with pytest.raises(TypeError, match="D .* must be an integer"):
        table_bytes(4, bad)


@pytest.mark.parametrize("bad", ["fp64", "int4", "", torch.float64, np.dtype("float64")])
def test_unknown_dtype_names_the_allowed_ones(bad):
    with pytest.raises(ValueError, match="unknown dtype .* allowed fp32, fp16, bf16, int8"):
        table_bytes(3, 3, bad)


def test_non_dtype_argument_is_a_type_error():
    with pytest.raises(TypeError, match="dtype must be"):
        bytes_per_value(4)


def test_training_errors():
    with pytest.raises(ValueError, match="int8.* cannot be trained"):
        training_footprint(3, 3, "int8")
    with pytest.raises(ValueError, match=r"optimizer must be one of \('sgd', 'momentum', 'adam'\), got 'rmsprop'"):
        training_footprint(3, 3, "fp32", "rmsprop")
    with pytest.raises(ValueError, match="master_weights=True needs 16-bit"):
        training_footprint(3, 3, "fp32", "adam", master_weights=True)
    with pytest.raises(TypeError, match="master_weights must be True or False"):
        training_footprint(3, 3, "fp16", "adam", master_weights=1)


def test_format_bytes_errors():
    with pytest.raises(ValueError, match=r"n \(bytes\) must be an integer >= 0"):
        format_bytes(-1)
    with pytest.raises(ValueError, match="units must be"):
        format_bytes(10, "metric")
    with pytest.raises(ValueError, match="digits must be"):
        format_bytes(10, digits=-1)
    with pytest.raises(TypeError, match="must be an integer"):
        format_bytes(1.5)


def test_format_bytes_of_huge_sizes_is_exact_and_never_overflows():
    # attack-15 F13: n / unit was a float: OverflowError from 1.8e326 bytes on, and float noise in the digits
    assert format_bytes(10**327) == "1" + "0" * 309 + ".0 EB"
    assert format_bytes(table_bytes(10**200, 10**200)) == "4" + "0" * 382 + ".0 EB"
    assert format_bytes(10**308) == "1" + "0" * 290 + ".0 EB"  # was 100000000000000006172...
    assert format_bytes(999_999_999_999_999_999, digits=20) == "999.99999999999999900000 PB"  # was 1.000... EB
    assert format_bytes(2**64 - 1, "binary", digits=30) == "15.999999999999999999132638262012 EiB"
    assert format_bytes(10**3999) == "1" + "0" * 3981 + ".0 EB"
    with pytest.raises(ValueError) as info:
        format_bytes(10**4000)  # Python itself writes no integer of more than 4300 digits
    assert str(info.value) == "n (bytes) must be an integer in [0, 10**4000), got an integer of 4001 digits"
    with pytest.raises(ValueError, match=r"^digits must be an integer in \[0, 4000\], got 4001$"):
        format_bytes(10, digits=4001)


@pytest.mark.parametrize(
    "n, units, digits, expected",
    [
        (1_250, "decimal", 1, "1.2 kB"),  # 1.25: a tie, to the even digit (as format() rounds the float 1.25)
        (1_350, "decimal", 1, "1.4 kB"),
        (1_050, "decimal", 1, "1.0 kB"),  # 1.05 exactly: the float 1.05 is 1.0500000000000000444 and gave 1.1
        (1_536, "binary", 0, "2 KiB"),  # 1.5 to even
        (2_560, "binary", 0, "2 KiB"),  # 2.5 to even
    ],
)
def test_format_bytes_rounds_the_exact_quotient_half_to_even(n, units, digits, expected):
    assert format_bytes(n, units, digits) == expected


# --- format_bytes at every unit boundary ----------------------------------------------------------------

UNITS = {
    "decimal": [("kB", 10**3), ("MB", 10**6), ("GB", 10**9), ("TB", 10**12), ("PB", 10**15), ("EB", 10**18)],
    "binary": [("KiB", 2**10), ("MiB", 2**20), ("GiB", 2**30), ("TiB", 2**40), ("PiB", 2**50), ("EiB", 2**60)],
}


@pytest.mark.parametrize(
    "n, units, digits, expected",
    [
        (999_950, "decimal", 1, "1.0 MB"),  # was "1000.0 kB"
        (999_949, "decimal", 1, "999.9 kB"),
        (999_999_999, "decimal", 1, "1.0 GB"),
        (999_950_000_000, "decimal", 1, "1.0 TB"),
        (999_950 * 10**12, "decimal", 1, "1.0 EB"),
        (999_500, "decimal", 0, "1 MB"),
        (999_499, "decimal", 0, "999 kB"),
        (999_999_500, "decimal", 3, "1.000 GB"),
        (1_048_575, "binary", 1, "1.0 MiB"),  # 1023.999 KiB
        (1_048_524, "binary", 1, "1023.9 KiB"),
        (1023, "binary", 1, "1023 B"),
        (2**63 - 1, "decimal", 1, "9.2 EB"),
        (2**63 - 1, "binary", 2, "8.00 EiB"),
        (10**21, "decimal", 1, "1000.0 EB"),  # the largest unit goes on
    ],
)
def test_format_bytes_rolls_over_at_every_unit(n, units, digits, expected):
    assert format_bytes(n, units, digits) == expected


def _near_a_boundary():
    """Byte counts near 1 of a unit and near 1000 (or 1024) of it, where rounding may roll over."""
    sizes = [size for table in UNITS.values() for _, size in table]
    return st.sampled_from(sizes).flatmap(
        lambda size: st.one_of(st.integers(size - 3, size + 3), st.integers(size * 999, size * 1025))
    )


@settings(max_examples=400, deadline=None)
@given(n=st.one_of(st.integers(0, 2**63 - 1), _near_a_boundary()), units=st.sampled_from(["decimal", "binary"]),
       digits=st.integers(0, 4))
def test_format_bytes_property(n, units, digits):
    text, unit = format_bytes(n, units, digits).split(" ")
    table = UNITS[units]
    base = table[0][1]
    if unit == "B":
        assert n < base and text == str(n)
        return
    sizes = dict(table)
    value, size = float(text), sizes[unit]
    assert len(text.partition(".")[2]) == digits
    # rounded, not truncated; compared exactly (in floats, a tie such as 1696 B = 1.65625 KiB shown as 1.6562
    # measured 5.0000000000105e-05 from the true value, past a tolerance of half a unit)
    assert abs(Fraction(text) - Fraction(n, size)) <= Fraction(1, 2 * 10**digits)
    assert value >= 1.0
    reached = [name for name, s in table if n >= s][-1]  # the largest unit that n reaches
    if value >= base:
        assert unit == table[-1][0]  # only past the largest unit
    elif unit != reached:  # rounding reached 1000 (1024) of a unit: written as 1 of the next one
        assert [name for name, _ in table].index(unit) == [name for name, _ in table].index(reached) + 1
        assert value == 1.0


@pytest.mark.parametrize("spellings, name", [
    (("float16", "FP16", "half", np.float16, np.dtype("float16"), torch.float16, torch.half), "fp16"),
    (("float32", np.float32, np.dtype("f4"), torch.float32), "fp32"),
    (("bfloat16", torch.bfloat16), "bf16"),
    (("int8", np.int8, torch.int8), "int8"),
])
def test_every_spelling_of_a_dtype_has_one_name(spellings, name):
    # np.float16 (the scalar type, which NumPy takes wherever it takes a dtype) was "unknown dtype"
    assert [canonical_dtype(s) for s in spellings] == [name] * len(spellings)
    assert {bytes_per_value(s) for s in spellings} == {torch.empty(0, dtype=spellings[-1]).element_size()}


def test_a_numpy_scalar_type_outside_the_four_is_named():
    for bad in (np.float64, np.int64, np.bool_):
        with pytest.raises(ValueError, match=r"^unknown dtype <class 'numpy\.[a-z0-9_]+'>: allowed fp32, fp16, bf16, int8"):
            canonical_dtype(bad)
    with pytest.raises(TypeError, match="^dtype must be a string such as 'fp16' or a torch/numpy dtype, got <class 'float'>$"):
        canonical_dtype(float)


def test_a_value_is_not_its_dtype():
    assert bytes_per_value(np.float16) == 2 and bytes_per_value(np.dtype(np.float16)) == 2  # the type, as its dtype
    # a value (with an itemsize) was read through str(): "unknown dtype np.float16(1.0)", "unknown dtype tensor(...)"
    for value in (np.float16(1.0), np.zeros(2, dtype=np.float16), torch.zeros(2, dtype=torch.float16)):
        with pytest.raises(TypeError, match=r"^dtype must be a string such as 'fp16' or a torch/numpy dtype, got "):
            bytes_per_value(value)
        assert bytes_per_value(value.dtype) == 2
