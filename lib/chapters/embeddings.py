"""The chapter "Embeddings" (chapters/embeddings.md): its constructed corpus, its examples, and the
comparison of its skip-gram run with the numbers its source printed.

Concepts used: :mod:`lib.embedding`, :mod:`lib.corpus`, :mod:`lib.ppmi`, :mod:`lib.skipgram`,
:mod:`lib.geometry`, :mod:`lib.provenance`, :mod:`lib.memory`.

The constructed animal/vehicle corpus (:data:`ANIMAL_VEHICLE_CORPUS`) is the source chapter's: 13
three-word sentences whose counts and fitted vectors can be inspected by hand. It is evidence about
mechanics, not about natural-language semantics. :data:`SOURCE_NEIGHBOURS` are the cosine neighbours the
source printed after its full-softmax skip-gram run (constructed corpus, seed 17, D = 8, Adam 0.04, 350
full-batch steps): the external reference that :func:`lib.skipgram.train_skipgram` reproduces, compared
at the end of the chapter by :func:`compare_neighbours`.
"""

from __future__ import annotations

from typing import Dict, List, Mapping, NamedTuple, Sequence, Tuple

from lib import tables
from lib.notebook import fmt

#: The chapter's constructed corpus: 13 three-word sentences about pets and vehicles (39 tokens, 15 types).
ANIMAL_VEHICLE_CORPUS: Tuple[Tuple[str, ...], ...] = (
    ("cat", "pet", "soft"),
    ("kitten", "pet", "soft"),
    ("dog", "pet", "loyal"),
    ("puppy", "pet", "loyal"),
    ("cat", "kitten", "pet"),
    ("dog", "puppy", "pet"),
    ("car", "vehicle", "road"),
    ("truck", "vehicle", "road"),
    ("car", "carries", "people"),
    ("truck", "carries", "cargo"),
    ("car", "truck", "vehicle"),
    ("kitten", "young", "cat"),
    ("puppy", "young", "dog"),
)
#: The name under which the constructed corpus appears in provenance records.
ANIMAL_VEHICLE_NAME = "constructed animal/vehicle corpus"
#: The eight terms the chapter's figures show; the first five are drawn as the animal group.
FOCUS_TERMS: Tuple[str, ...] = ("cat", "kitten", "dog", "puppy", "car", "truck", "pet", "vehicle")
ANIMAL_TERMS: Tuple[str, ...] = ("cat", "kitten", "dog", "puppy", "pet")

#: The chapter's four vectors: a reference, the same direction three times longer, a short vector
#: at another angle, and the opposite vector (figure "emb-metrics").
FOUR_VECTORS: Dict[str, Tuple[float, float]] = {
    "reference": (1.0, 0.5),
    "same direction, larger": (3.0, 1.5),
    "nearby, different angle": (0.65, 0.85),
    "opposite": (-1.0, -0.5),
}

#: The cosine neighbours the chapter's source printed after its full-softmax run, at the precision it
#: printed them (``tests/test_skipgram.py`` holds them at four decimals to pin :func:`lib.skipgram.train_skipgram`).
SOURCE_NEIGHBOURS: Dict[str, Tuple[Tuple[str, float], ...]] = {
    "cat": (("kitten", 0.5262460708618164), ("soft", 0.45443016290664673), ("dog", 0.3860318064689636), ("pet", 0.19947943091392517)),
    "truck": (("people", 0.4025770127773285), ("vehicle", 0.3929774761199951), ("road", 0.21301373839378357), ("pet", 0.17421948909759521)),
    "pet": (("young", 0.6845836639404297), ("puppy", 0.43096989393234253), ("kitten", 0.40482303500175476), ("people", 0.38753506541252136)),
}


def animal_vehicle_corpus() -> List[List[str]]:
    """The constructed corpus as a new list of sentences (lists of ``str``), safe to modify."""
    return [list(s) for s in ANIMAL_VEHICLE_CORPUS]


class NeighbourComparison(NamedTuple):
    """The result of :func:`compare_neighbours`: the side-by-side ``table`` (plain text) and ``all_same``,
    whether every neighbour and rounded score agrees."""

    table: str
    all_same: bool


def compare_neighbours(
    got: Mapping[str, Sequence], published: Mapping[str, Sequence], digits: int = 4
) -> NeighbourComparison:
    """Neighbours side by side, ``term, rank, this chapter, source, same``, and whether all agree.

    ``got`` and ``published`` map a query term to ``[(token, score), ...]``; scores are rounded to
    ``digits`` places before they are compared, and "same" is ``yes`` when token and rounded score agree.
    Raises ``ValueError`` when the two do not hold the same terms and the same number of neighbours.

    >>> result = compare_neighbours({"cat": [("dog", 0.52)]}, {"cat": [("dog", 0.52001)]})
    >>> print(result.table)
    term  rank  this chapter  source       same
    cat   1     dog 0.5200    dog 0.5200   yes
    >>> result.all_same
    True
    """
    if list(got) != list(published) or any(len(got[t]) != len(published[t]) for t in got):
        raise ValueError("got and published must list the same terms with the same number of neighbours")
    rows, same = [], []
    for term in got:
        for rank, ((tok_a, s_a), (tok_b, s_b)) in enumerate(zip(got[term], published[term]), start=1):
            a, b = fmt(s_a, f".{digits}f"), fmt(s_b, f".{digits}f")  # as printed: rounded once, in lib.notebook
            same.append((tok_a, a) == (tok_b, b))
            rows.append([term, str(rank), f"{tok_a} {a}", f"{tok_b} {b}", "yes" if same[-1] else "NO"])
    table = tables.text(["term", "rank", "this chapter", "source", "same"], rows)
    return NeighbourComparison(table, all(same))
