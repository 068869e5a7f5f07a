"""benchmarks/*.py: a bad argument is argparse's one-line error with status 2, before anything is loaded or run."""

import importlib.util
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def script(name):
    spec = importlib.util.spec_from_file_location(f"benchmark_{name}", BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name, argv, message", [
    ("trace_interpreter", ["--sizes", "10", "--repeats", "0"], r"--repeats must be an integer in [1, 268435456] "
                                                               r"(runs per size), got 0"),
    ("trace_interpreter", ["--sizes", "10", "-5"], "--sizes[1] must be an integer in [1, 268435456] (token rows "
                                                   "of a program), got -5"),
    ("trace_interpreter", ["--sizes", "0"], "--sizes[0] must be an integer in [1, 268435456]"),
    ("tokenization_bpe", ["--vocab-size", "10"], "--vocab-size must be an integer in [256, 268435456] (the 256 "
                                                 "bytes and the merges), got 10"),
    ("tokenization_bpe", ["--repeats", "0"], "--repeats must be an integer in [1, 268435456] (runs of each), got 0"),
    ("real_text_race", ["--repeats", "1000"], "--repeats must be an integer in [1, 100], got 1000"),
    ("real_text_race", ["--scales", "1", "1001"], "--scales[1] must be an integer in [1, 1000] (times the corpus is "
                                                  "repeated), got 1001"),
    ("real_text_race", ["--workers", "1000"], "--workers must be an integer in [1, 256] (threads), got 1000"),
    ("real_text_race", ["--json", "/no/such/folder/runs.json"], "--json '/no/such/folder/runs.json': the folder "
                                                                "'/no/such/folder' does not exist"),
    ("sgns_quality", ["--arms", "nope", "--seeds", "1", "--scales", "1"], "--arms[0] must be one of ('gensim', "
                                                                          "'book', 'book, plain step'"),
    ("sgns_quality", ["--seeds", "0", "--scales", "1", "--arms", "gensim"], "--seeds must be an integer in "
                                                                            "[1, 268435456] (seeds per arm), got 0"),
    ("sgns_quality", ["--scales", "0"], "--scales[0] must be an integer in [1, 1000]"),
    ("sgns_quality", ["--json", "/no/such/folder/q.json"], "--json '/no/such/folder/q.json': the folder '/no/such/folder' does not exist"),
])
def test_a_bad_argument_is_one_line_and_status_2(name, argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        script(name).main(argv)
    out, err = capsys.readouterr()
    assert exit_.value.code == 2 and out == ""
    lines = err.strip().splitlines()
    assert lines[0].startswith("usage: ") and "Traceback" not in err
    assert f": error: {message}" in lines[-1]  # argparse's usage, then the one line
