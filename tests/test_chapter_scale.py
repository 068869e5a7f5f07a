"""lib.chapters.scale: the chapter's tables of measured steps and trained models, its measured-value
formats, the sharding check on local processes and under torchrun, and the data of its exchange figure."""

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lib.chapters import scale
from lib.processes import spawn
from lib.sparse_updates import StepResult
from lib.toylang import make_corpus
from lib.tying import TyingResult

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 120  # seconds for one process group, start-up included


def _step(method, touched, changed, grad, state):
    return StepResult(method, 3000, 8, 64, 0.01, (0.01, 0.02), touched, changed, grad, state, 96_000)


def test_step_table_keeps_the_counts_and_formats_the_bytes_by_hand():
    steps = {"dense_adam": _step("dense_adam", 60, 2300, 96_000, 192_000), "sparse_sgd": _step("sparse_sgd", 60, 60, 2_560, 0)}
    assert scale.step_table(steps).splitlines() == [
        "| method | rows touched | rows changed | gradient | optimiser state |",
        "| --- | ---: | ---: | ---: | ---: |",
        "| dense gradient, Adam | 60 | 2,300 | 96.0 kB | 192.0 kB |",
        "| sparse gradient, SGD | 60 | 60 | 2.6 kB | 0 B |",
    ]


def test_footprint_table_gives_every_part_in_decimal_units():
    lines = scale.footprint_table().splitlines()
    assert lines[0] == ("| setup | total | bytes per parameter | weights | gradients | fp32 master copy "
                        "| optimiser state |")
    # 1,000,000 x 768 values: 3.072 GB per fp32 copy, 1.536 GB per bf16 copy
    assert lines[2] == "| fp32 SGD | 6.1 GB | 8 | 3.1 GB | 3.1 GB | - | - |"
    assert lines[4] == "| fp32 Adam | 12.3 GB | 16 | 3.1 GB | 3.1 GB | - | 6.1 GB |"
    assert lines[6] == "| bf16 Adam, fp32 master | 12.3 GB | 16 | 1.5 GB | 1.5 GB | 3.1 GB | 6.1 GB |"


def test_shard_table_by_hand_and_its_error():
    assert scale.shard_table([2501, 2500], [3799, 1107]).splitlines()[2:] == ["| 0 | 2,501 | 3,799 |", "| 1 | 2,500 | 1,107 |"]
    with pytest.raises(ValueError, match="one entry per rank"):
        scale.shard_table([1, 2], [3])
    with pytest.raises(ValueError, match=r"^sizes\[0\] must be an integer >= 0 \(rows a rank holds\), got -1$"):
        scale.shard_table([-1, 2], [1, 1])  # was a table with "-1 rows held"
    with pytest.raises(TypeError, match=r"^served\[1\] must be an integer >= 0 \(rows a rank looked up\), got 1.5$"):
        scale.shard_table([1, 2], [1, 1.5])


def test_measured_value_formats():
    assert scale.format_duration(0.41234) == "412.3 ms"
    assert scale.format_duration(0) == "0.0 ms"
    assert scale.format_fold(0.7, 0.02) == "35-fold"
    assert scale.format_fold(0.01, 0.02) == "<1-fold"
    with pytest.raises(ValueError, match="seconds must be a finite number >= 0"):
        scale.format_duration(-1)
    with pytest.raises(ValueError, match="fast must be a finite number > 0, got 0.0"):
        scale.format_fold(1.0, 0.0)


def test_measured_value_formats_refuse_what_would_print_inf_or_a_string():
    """format_duration(1e306) printed 'inf ms' and format_fold(1e308, 1e-10) 'inf-fold'; strings and bools went
    through float(): format_duration("5") was '5000.0 ms', format_duration(True) '1000.0 ms'."""
    with pytest.raises(ValueError, match=r"^seconds must be at most about 1.8e305 \(its milliseconds must fit in float64\), got 1e\+306$"):
        scale.format_duration(1e306)
    assert scale.format_duration(1e305) == f"{1e308:.1f} ms"  # 1e305 s in ms: representable, printed in full
    with pytest.raises(ValueError, match=r"^the ratio slow / fast is beyond float64 \(about 1.8e308\), got slow=1e\+308, fast=1e-10$"):
        scale.format_fold(1e308, 1e-10)
    for bad in ("5", True, None):
        with pytest.raises(TypeError, match=rf"^seconds must be a finite number >= 0, got {re.escape(repr(bad))}$"):
            scale.format_duration(bad)
    with pytest.raises(TypeError, match=r"^slow must be a finite number >= 0, got '3'$"):
        scale.format_fold("3", "1")
    with pytest.raises(TypeError, match=r"^fast must be a finite number > 0, got True$"):
        scale.format_fold(3, True)
    with pytest.raises(ValueError, match=r"^seconds must be a finite number >= 0, got nan$"):
        scale.format_duration(float("nan"))


def test_tying_table_rounds_the_losses_by_hand():
    results = [TyingResult("untied", 8, 650, 1.23456, 1.16789, np.zeros(1)), TyingResult("tied", 8, 1378, 1.2, -0.00001, np.zeros(1)),
               TyingResult("tied_no_hidden", 8, 306, 2.5, 2.5, np.zeros(1))]
    assert scale.tying_table(results).splitlines() == [
        "variant                d  parameters  train loss  val loss",
        "untied                 8         650      1.2346    1.1679",
        "tied                   8       1,378      1.2000    0.0000",
        "tied, no hidden layer  8         306      2.5000    2.5000",
    ]


def test_every_method_and_variant_has_a_name_in_words():
    from lib import sparse_updates, tying
    assert set(scale.METHOD_NAMES) == set(sparse_updates.METHODS)
    assert set(scale.VARIANT_NAMES) == set(tying.VARIANTS)
    assert not any("_" in name for name in [*scale.METHOD_NAMES.values(), *scale.VARIANT_NAMES.values()])


def test_toy_counts_split_the_stream_into_pairs():
    tr, va = scale.toy_counts()
    corpus = make_corpus()
    assert tr.sum() == corpus.train.size - 1 and va.sum() == corpus.val.size - 1  # one pair per adjacent two


def test_footprint_configurations_cost_4_to_16_bytes_per_value():
    per_value = [f.bytes_per_parameter for _, f in scale.footprint_configs()]
    assert per_value == [8.0, 12.0, 16.0, 8.0, 16.0]  # fp32 SGD / momentum / Adam, bf16 Adam, mixed precision


def test_exchange_data_grows_with_the_ranks_and_is_zero_on_one():
    data = scale.exchange_data(worlds=(1, 2, 4))
    for values in data.values():
        assert values[0] == 0 and values[1] < values[2]
    load = scale.load_data(world_size=2)
    assert set(load) == {"uniform ids", "Zipf ids"} and all(len(v) == 2 for v in load.values())


@pytest.mark.slow
def test_sharded_lookup_worker_returns_each_ranks_rows():
    table = np.arange(30.0).reshape(10, 3)
    ids = [[9, 0, 4], [[5, 5], [1, 2]], [7]]
    for scheme in ("row", "column"):
        got = spawn(scale.sharded_lookup, 3, table, ids, scheme=scheme, timeout=TIMEOUT)
        for r in range(3):
            np.testing.assert_array_equal(got[r], table[np.asarray(ids[r])])


@pytest.mark.slow
def test_runs_under_torchrun():
    torchrun = Path(sys.executable).with_name("torchrun")
    cmd = [str(torchrun), "--standalone", "--nproc-per-node", "2", "-m", "lib.chapters.scale", "--V", "101", "--batch", "32"]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "world_size=2" in done.stdout and done.stdout.strip().endswith("OK")


@pytest.mark.slow
def test_runs_as_a_module_on_local_processes():
    cmd = [sys.executable, "-m", "lib.chapters.scale", "--world-size", "2", "--V", "53", "--batch", "16"]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().endswith("OK")
    # was a runpy RuntimeWarning per rank: the forkserver had preloaded the module the ranks run as __mp_main__
    assert done.stderr == ""


def test_exchange_table_by_hand_and_its_error():
    s = dict(col_count_bytes=8, col_id_bytes=4096, col_row_bytes=1_000_000, col_grad_bytes=1_000_000, col_total_bytes=2_004_104)
    assert scale.exchange_table(s, ["col"]).splitlines()[2] == "| column-wise | 8 | 4,096 | 1,000,000 | 1,000,000 | 2.0 MB |"
    with pytest.raises(ValueError, match="scheme"):
        scale.exchange_table(s, ["diagonal"])


def test_sharded_workers_refuse_a_rank_outside_the_world():
    table, ids = np.eye(4), [np.array([0, 1]), np.array([2])]
    for rank in (-1, 2):  # -1 took the last rank's ids, a wrap-around
        with pytest.raises(ValueError, match=rf"^rank must be an integer in \[0, 1\], got {rank}$"):
            scale.sharded_lookup(rank, 2, table, ids)
        with pytest.raises(ValueError, match=rf"^rank must be an integer in \[0, 1\], got {rank}$"):
            scale.check_sharding(rank, 2, {"table": table, "ids_per_rank": ids})
    with pytest.raises(ValueError, match=r"^world_size must be an integer in \[1, 256\] \(ranks\), got 0$"):
        scale.sharded_lookup(0, 0, table, ids)
    with pytest.raises(ValueError, match=r"^dtype must be one of \('float32', 'float64'\), got 'float8'$"):
        scale.check_sharding(0, 2, {"table": table, "ids_per_rank": ids}, dtype="float8")  # was AttributeError
    with pytest.raises(TypeError, match=r"^case\['ids_per_rank'\]\[1\] must be integers, got dtype float64$"):
        scale.check_sharding(0, 2, {"table": table, "ids_per_rank": [np.array([0]), np.array([1.7])]})  # was id 1


@pytest.mark.parametrize("changes, error, message", [
    # were NumPy's "negative dimensions are not allowed", "'float' object cannot be interpreted as an integer",
    # "expected non-negative integer" and a MemoryError of 7.28 TiB; d = 0 and N = 0 made empty tables
    (dict(V=-1), ValueError, "V must be an integer in [1, 268435456], got -1"),
    (dict(V=2.5), TypeError, "V must be an integer in [1, 268435456], got 2.5"),
    (dict(d=0), ValueError, "d must be an integer in [1, 268435456], got 0"),
    (dict(N=0), ValueError, "N must be an integer in [1, 268435456], got 0"),
    (dict(seed=-1), ValueError, "seed must be an integer >= 0, got -1"),
    (dict(V=10**6, d=10**6), ValueError, "V and d: a result of shape (1000000, 1000000) would hold 1000000000000 entries"),
    # were a RankError traceback from the ranks, after they had started
    (dict(V=2, world_size=3), ValueError, "cannot shard 2 rows (V) over 3 ranks: each rank needs at least one"),
    (dict(d=1, world_size=2), ValueError, "cannot shard 1 columns (d) over 2 ranks: each rank needs at least one"),
])
def test_make_case_names_a_bad_size_or_seed(changes, error, message):
    arguments = {**dict(V=10, d=4, world_size=2, batch=8, N=8, seed=0), **changes}
    with pytest.raises(error, match=f"^{re.escape(message)}"):
        scale.make_case(**arguments)


def test_main_reports_a_bad_argument_or_ctrl_c_on_one_line(capsys, monkeypatch):
    assert scale.main(["--V", "-5"]) == 2  # was a traceback from NumPy
    assert capsys.readouterr().err == "python -m lib.chapters.scale: error: V must be an integer in [1, 268435456], got -5\n"
    assert scale.main(["--V", "2", "--world-size", "3"]) == 2  # was a RankError traceback and status 1
    assert capsys.readouterr().err == ("python -m lib.chapters.scale: error: cannot shard 2 rows (V) over 3 ranks: each "
                                       "rank needs at least one (need rows (V) >= world_size)\n")

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(scale, "make_case", interrupted)
    assert scale.main([]) == 130
    assert capsys.readouterr().err == "python -m lib.chapters.scale: interrupted\n"
    with pytest.raises(SystemExit) as info:  # an unknown backend: argparse's line, not a rank's traceback
        scale.main(["--backend", "nope"])
    assert info.value.code == 2 and "invalid choice: 'nope'" in capsys.readouterr().err
