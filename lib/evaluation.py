"""Intrinsic evaluation of word vectors: similarity judgements, analogies, neighbours, frequency strata.

Taught in: chapters/real_text.md (WordSim-353, SimLex-999 and the analogy questions, with their coverage).

Two standard tests, each reported with its coverage, because on a small corpus many benchmark words
have no vector and a score over the few pairs left can look better or worse than it is:

- **word similarity** (:func:`word_similarity`): Spearman's rank correlation ρ between the cosine of
  the two words' vectors and the mean human score, over the pairs whose two words are both in the
  vocabulary (WordSim-353 :cite:p:`finkelstein2002placing`, SimLex-999 :cite:p:`hill2015simlex`). The result
  says how many pairs were used and the out-of-vocabulary (OOV) rate; fewer than two usable pairs, or scores
  without any variation, raise a ``ValueError`` that says so, instead of SciPy's NaN and warning. A human
  score that is not a finite number (NaN, infinity) is an error naming the pair, not a pair dropped
  and counted like an OOV pair: a word without a vector is expected on a small corpus, a NaN in a
  benchmark is a broken file, and a ρ over the pairs left would hide it. The same holds for a word that
  is not a ``str`` or holds an invisible format character (a byte-order mark glued to the first word of a
  file read with ``encoding="utf-8"``): an error naming the pair, in :func:`analogy_accuracy` too, never a
  pair or question counted like an out-of-vocabulary one.
- **analogies** (:func:`analogy_accuracy`): "a is to b as c is to ?" answered by 3CosAdd, the word
  whose unit vector is closest in cosine to ``b̂ - â + ĉ`` with the three query words excluded
  :cite:p:`mikolov2013efficient{§4.1}`, the rule of :func:`lib.embedding.analogy` batched, over the
  questions whose four words are all in the vocabulary. Accuracy is over those questions; coverage is
  their share of all questions.

Also: the benchmark-file readers (:func:`read_word_pairs`, :func:`read_analogies`; the shipped files are
found by :func:`lib.datasets.locate`) and similarity by frequency stratum (:func:`similarity_by_frequency`).
A word's neighbours and their agreement across runs are :func:`lib.geometry.named_neighbours` and
:func:`lib.geometry.neighbour_overlap`.

Words are matched after folding case and accents with :func:`lib.corpus.fold`, the rule by which
:func:`lib.corpus.tokenize` makes the corpus's tokens ("İstanbul" is ``istanbul`` on both sides; Python's
``lower()`` would give ``i̇stanbul``, with a combining dot, which no token matches); gensim's evaluations
compare upper-cased words instead. ``lowercase=False`` keeps a file's words as written. A vocabulary is
given as a :class:`lib.corpus.Vocabulary` or as the sequence of tokens of the table's rows.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Dict, List, Mapping, Sequence, Tuple

import numpy as np
import scipy.stats

from lib import validate
from lib.corpus import TOKEN_PATTERN, fold, hidden_character, tokenize
from lib.datasets import locate, other_line_end, read_text, text_lines
from lib.embedding import check_table, cosine_scores, normalize_rows, top_k, unit_pair_cosines
from lib.geometry import vocabulary_table
from lib.notebook import logging_numbers, record_gap

WordPair = Tuple[str, str, float]
Question = Tuple[str, str, str, str]


# --- readers --------------------------------------------------------------------------------------------


def _file_lines(path):
    """``(number, line)`` for the lines of the text file ``path`` (:func:`lib.datasets.text_lines`), each
    stripped of surrounding whitespace. Raises ``ValueError`` naming the line for a line-end character an
    editor does not break lines at (U+2028, NEL, ...) or a byte-order mark (U+FEFF) after the first line's
    start (two files joined together): either would silently join lines or glue the mark to a word; and
    for an invisible format or control character other than a tab (:func:`lib.corpus.hidden_character`)."""
    for number, line in enumerate(text_lines(read_text(path)), start=1):
        line = line.strip()  # such a character at either end joins nothing
        problem = other_line_end(line) or hidden_character(line, allow="\t")  # a tab separates fields
        if problem:
            raise ValueError(f"{path.name}, line {number}: {problem}")
        yield number, line


def _word(written: str, lowercase: bool, where: str, which: int, line: str) -> str:
    """Word ``which`` (1, 2, ...) of a benchmark ``line`` as the readers keep it: folded
    (:func:`lib.corpus.fold`) when ``lowercase``. ``ValueError`` naming ``where`` (the file and line) for a
    word that is empty, or that folding turns into nothing (a lone combining accent) or into several words
    (a spacing accent such as ``´`` decomposes to a space and an accent): it could match no corpus token."""
    word = fold(written) if lowercase else written
    how = " after folding case and accents (lib.corpus.fold)" if lowercase and written else ""
    if not word:
        raise ValueError(f"{where}: word {which} {written!r} is empty{how}, in {line!r}")
    if len(word.split()) != 1 or word != word.strip():
        raise ValueError(f"{where}: word {which} {written!r} is {word!r}{how}, not one word, in {line!r}")
    return word


class NotATokenWarning(UserWarning):
    """Warned by :func:`read_word_pairs` and :func:`read_analogies` (with ``lowercase=True``) for a file that
    holds words :func:`lib.corpus.tokenize` never returns as one token, its count and examples in the
    message. Such a word is kept as read, so the pairs and questions holding it are counted as
    out-of-vocabulary by :func:`word_similarity` and :func:`analogy_accuracy`: this says why, beforehand."""


#: examples of words that are not tokens named in a :class:`NotATokenWarning`; the count names the rest
NOT_A_TOKEN_EXAMPLES = 5


def _warn_not_tokens(path, found: List[Tuple[int, str, str]], n_holding: int, n_total: int, unit: str) -> None:
    """Warn (:class:`NotATokenWarning`) that ``n_holding`` of the ``n_total`` ``unit`` (``"pairs"``,
    ``"questions"``) of the file ``path`` hold a word that is not a corpus token; ``found`` lists
    ``(line, word as written, word as kept)`` for each such word in file order."""
    if not found:
        return
    shown = ", ".join(f"line {line} {written!r} (tokenize gives {tokenize(written)})"
                      for line, written, _ in found[:NOT_A_TOKEN_EXAMPLES])
    more = f", and {len(found) - NOT_A_TOKEN_EXAMPLES} more" if len(found) > NOT_A_TOKEN_EXAMPLES else ""
    warnings.warn(
        f"{path.name}: {n_holding} of {n_total} {unit} {'holds' if n_holding == 1 else 'hold'} a word that "
        f"lib.corpus.tokenize never returns as one token (a hyphen, a letter with no a-z form such as œ, ł or "
        f"Greek), so {'it counts' if n_holding == 1 else 'they count'} as out-of-vocabulary; {len(found)} such "
        f"word{'' if len(found) == 1 else 's'}: {shown}{more}",
        NotATokenWarning, stacklevel=3,
    )


def _not_a_token(word: str) -> bool:
    """True for a folded benchmark word that :func:`lib.corpus.tokenize` never returns as one token."""
    return TOKEN_PATTERN.fullmatch(word) is None


def read_word_pairs(source, *, lowercase: bool = True) -> List[WordPair]:
    """Read a word-similarity file: ``[(word1, word2, score), ...]`` in file order, ``score`` a float.

    ``source`` is a path or a short name known to :func:`lib.datasets.data_path` (``"wordsim353"``,
    ``"simlex999"``), read by :func:`lib.datasets.read_text` (UTF-8, a byte-order mark at the start
    removed). Lines starting with ``#`` and blank lines are skipped; every other line must be
    ``word1 <tab> word2 <tab> score``, the score written with ASCII digits (:func:`lib.validate.read_number`);
    spaces around a field are dropped. Lines end at ``\\n``, ``\\r\\n`` or ``\\r`` only.
    Raises ``ValueError`` naming the line for another line-end character (U+2028, NEL), a byte-order mark
    after the start of the file, an invisible format character (Unicode category Cf: U+200B ZERO WIDTH
    SPACE, U+2060 WORD JOINER), a malformed line, an empty word (also one that folds to nothing, such as a
    lone combining accent, or to two words, such as ``don´t``) or a score that is not a finite number
    (naming the pair for NaN or infinity; for a score that holds a character other than ASCII, naming
    that character by code point and what to write instead, :func:`lib.validate.digits_hint`), a file
    without any pair (only blank lines and comments), ``FileNotFoundError`` for a missing file and
    :class:`lib.datasets.NotTextError` (a ``ValueError``) naming the line for a file that is not UTF-8. A
    score that is nonzero but below float64's smallest subnormal (``1e-400``, which ``float`` reads as 0.0),
    written with more than 100 digits, or written as an integer beyond 2**53 in size (``9007199254740993``,
    which float64 would round to its neighbour, as :func:`word_similarity` refuses such an ``int``) is a
    ``ValueError`` naming the file, the line and the pair. With
    ``lowercase=True`` each word is folded by :func:`lib.corpus.fold`, the corpus tokeniser's rule, and
    a word that :func:`lib.corpus.tokenize` would not return as that one token (``south-west``, ``œuvre``:
    tokenize gives ``['uvre']``, a Greek word: ``[]``) is kept but counted and reported: one
    :class:`NotATokenWarning` for the file, naming how many pairs hold such a word and the first ones with
    their lines, since every such pair will count as out-of-vocabulary. ``lowercase=False`` (words kept as
    written, for a vocabulary of one's own) checks nothing of the kind.
    """
    lowercase = validate.flag(lowercase, "lowercase")
    path = locate(source)
    pairs: List[WordPair] = []
    not_tokens: List[Tuple[int, str, str]] = []
    n_holding = 0
    for number, line in _file_lines(path):
        if not line or line.startswith("#"):
            continue
        parts = [part.strip() for part in line.split("\t")]  # a space around a field is not part of it
        if len(parts) != 3:
            raise ValueError(f"{path.name}, line {number}: expected 'word1<TAB>word2<TAB>score', got {line!r}")
        try:
            score = validate.read_number(parts[2])
        except ValueError as exc:  # too many digits, or nonzero but below float64's smallest subnormal (1e-400)
            raise ValueError(f"{path.name}, line {number}: the score of ({parts[0]!r}, {parts[1]!r}): {exc}") from None
        if score is None:
            raise ValueError(
                f"{path.name}, line {number}: score {parts[2]!r} is not a number{validate.digits_hint(parts[2])}"
            )
        if not math.isfinite(score):  # also 1e999: finite as written, beyond float64
            raise ValueError(
                f"{path.name}, line {number}: the score of ({parts[0]!r}, {parts[1]!r}) is "
                f"{validate.non_finite_text(parts[2])}: {parts[2]!r}"
            )
        written = validate.read_number(parts[2], integer=True)  # None unless written as an integer
        if written is not None and abs(written) > _EXACT_INTEGERS:  # the rule of word_similarity's int scores
            raise ValueError(
                f"{path.name}, line {number}: the score of ({parts[0]!r}, {parts[1]!r}) is "
                f"{validate._written_integer(written)}, beyond 2**53: float64, in which scores are ranked, does "
                f"not hold it exactly, so it could tie with its neighbours; write the scores on a smaller scale"
            )
        where = f"{path.name}, line {number}"
        words = [_word(written, lowercase, where, which, line) for which, written in enumerate(parts[:2], start=1)]
        pairs.append((words[0], words[1], score))
        if lowercase:
            odd = [(number, written, word) for written, word in zip(parts[:2], words) if _not_a_token(word)]
            not_tokens += odd
            n_holding += bool(odd)
    if not pairs:  # an empty benchmark is a broken file, not a score over no pair
        raise ValueError(f"{path.name}: no word pair in the file (it holds only blank lines and '#' comments)")
    _warn_not_tokens(path, not_tokens, n_holding, len(pairs), "pairs")
    return pairs


def read_analogies(source, *, lowercase: bool = True) -> Dict[str, List[Question]]:
    """Read an analogy file in word2vec's format: ``{section: [(a, b, c, d), ...]}`` in file order.

    ``source`` is a path or ``"analogies"``, read by :func:`lib.datasets.read_text` (UTF-8, a byte-order
    mark at the start removed). A line ``: name`` opens a section; every other non-blank
    line holds four words "a b c d" (a is to b as c is to d). Raises ``ValueError`` naming the line for
    a line-end character other than ``\\n``, ``\\r\\n``, ``\\r`` (U+2028, NEL), a byte-order mark after the
    start of the file, an invisible format character (Unicode category Cf), a question before any section
    (word2vec's format has no comments: a ``#`` line is read as a question, and one before any section is
    named as such), a section line without a name (``:`` alone), a section opened a second time (naming the
    line of the first), a section that holds no question (naming the line that opened it), a file without
    any question (only blank lines), a
    line without exactly four words, or a word that folds to nothing or to several words, and like
    :func:`read_word_pairs` for a file that is not UTF-8. The line is split into words first and each word
    is then folded by :func:`lib.corpus.fold` (with ``lowercase=True``), the corpus tokeniser's rule; a word
    that :func:`lib.corpus.tokenize` would not return as that one token is kept, counted and reported in
    one :class:`NotATokenWarning`, as in :func:`read_word_pairs`.
    """
    lowercase = validate.flag(lowercase, "lowercase")
    path = locate(source)
    sections: Dict[str, List[Question]] = {}
    current = None
    not_tokens: List[Tuple[int, str, str]] = []
    n_holding = n_questions = 0
    opened: Dict[str, int] = {}  # section: the line that opened it
    for number, line in _file_lines(path):
        if not line:
            continue
        if line.startswith(":"):
            _no_empty_section(path, current, opened, sections)
            current = line[1:].strip()
            if not current:
                raise ValueError(f"{path.name}, line {number}: a section line needs a name (': name'), got {line!r}")
            if current in opened:
                raise ValueError(f"{path.name}, line {number}: section {current!r} is opened again (first at line "
                                 f"{opened[current]}); a section is one run of questions under one ': name' line")
            opened[current] = number
            sections[current] = []
            continue
        written = line.split()  # split as written, then fold each word: folding may not change the count
        if current is None:
            what = "a comment ('#' is not a comment in this format)" if line.startswith("#") else "a question"
            raise ValueError(f"{path.name}, line {number}: {what} before the first ': section' line; a line is a "
                             f"section (': name') or a question (four words a b c d), got {line!r}")
        if len(written) != 4:
            raise ValueError(f"{path.name}, line {number}: expected four words, got {line!r}")
        where = f"{path.name}, line {number}"
        words = [_word(w, lowercase, where, which, line) for which, w in enumerate(written, start=1)]
        sections[current].append(tuple(words))
        n_questions += 1
        if lowercase:
            odd = [(number, w, word) for w, word in zip(written, words) if _not_a_token(word)]
            not_tokens += odd
            n_holding += bool(odd)
    _no_empty_section(path, current, opened, sections)
    if not sections:  # an empty benchmark is a broken file, not an accuracy over no question
        raise ValueError(f"{path.name}: no analogy question in the file (it holds only blank lines)")
    _warn_not_tokens(path, not_tokens, n_holding, n_questions, "questions")
    return sections


def _no_empty_section(path, name, opened: Dict[str, int], sections: Dict[str, List[Question]]) -> None:
    """``ValueError`` naming the line that opened section ``name`` (``None``: no section yet) when it holds
    no question: a section line followed by another, or by the end of the file."""
    if name is not None and not sections[name]:
        raise ValueError(f"{path.name}, line {opened[name]}: section {name!r} holds no question (a section line "
                         f"must be followed by at least one line of four words)")


# --- word similarity --------------------------------------------------------------------------------------


def _check_word(word, where: str) -> str:
    """``word`` after checking that it is a ``str`` (``TypeError`` naming ``where`` otherwise: ``None``, a
    number, a NaN that pandas reads from an empty cell) without an invisible format or control character
    (``ValueError`` naming ``where`` and the word: a byte-order mark glued to the first word of a file read
    with ``encoding="utf-8"``, a U+200B, an ESC U+001B or a tab), the rule of the file readers
    (:func:`lib.corpus.hidden_character`). Such a word could match no token, and would be counted like an
    out-of-vocabulary word, lowering the coverage without a word said."""
    if not isinstance(word, str):
        raise TypeError(f"{where} must be a str, got {word!r}")
    problem = hidden_character(word)
    if problem:
        raise ValueError(f"{where} {word!r} {problem}")
    return word


#: the largest integer a float64 holds exactly together with its neighbours: human scores are ranked as float64
_EXACT_INTEGERS = 2**53


def _check_pairs(pairs) -> List[WordPair]:
    """``pairs`` as a list of ``(word1, word2, score)`` with ``str`` words and a finite ``float`` score.

    Raises ``TypeError`` for an entry that is not three values, a word that is not a string or a score
    that is not an ``int`` or a float (Python or NumPy), and ``ValueError`` naming the pair for a word
    holding an invisible format character (``_check_word``), a score that is NaN or infinite, or an
    integer score beyond 2**53 or a ``longdouble`` score that float64 does not hold exactly, which float64
    (in which scores are ranked) would merge with its neighbours.
    """
    pairs = validate.collection(pairs, "pairs", "a sequence of (word1, word2, score)")
    out = []
    for i, pair in enumerate(pairs):
        try:
            three = not isinstance(pair, (str, bytes)) and len(pair) == 3
        except TypeError:  # no length: a number, None, a 0-d tensor
            three = False
        if not three:
            raise TypeError(f"pairs[{i}] must be (word1, word2, score), got {pair!r}")
        a, b, score = pair
        if not (isinstance(a, str) and isinstance(b, str)):
            raise TypeError(f"pairs[{i}] must have two str words, got {a!r} and {b!r}")
        for which, word in enumerate((a, b), start=1):
            _check_word(word, f"pairs[{i}] ({a!r}, {b!r}): word {which}")
        name = f"the human score of pair {i} ({a!r}, {b!r})"
        try:
            value = validate.number(score, name, keep_int=True)
        except TypeError:  # a Fraction, a Decimal, a 0-d array or tensor: numbers, but not of the accepted types
            raise TypeError(f"{name} must be an int or a float (Python or NumPy), got {score!r} "
                            f"of type {type(score).__name__}") from None
        if isinstance(value, int) and abs(value) > _EXACT_INTEGERS:
            raise ValueError(f"{name} is {validate._written_integer(value)}, beyond 2**53: float64, in which "
                             "scores are ranked, does not hold it exactly, so it could tie with its neighbours; "
                             "give the scores as floats or on a smaller scale")
        if isinstance(score, np.floating) and score.dtype.itemsize > 8 and np.isfinite(score) \
                and score != score.dtype.type(value):  # a longdouble float64 rounds: the rule of integers
            raise ValueError(f"{name} is the longdouble {score!r}, which float64, in which scores are "
                             f"ranked, does not hold exactly (it becomes {value!r}), so it could tie with "
                             f"its neighbours; give the scores as float64 or on a coarser scale")
        out.append((a, b, float(value)))
    return out


@dataclass(frozen=True)
class SimilarityResult:
    """Spearman's ``rho`` (float in [-1, 1]) over ``n_used`` of ``n_total`` pairs; ``oov_rate`` is the
    fraction of pairs left out because at least one word has no vector (``1 - n_used / n_total``).
    :func:`word_similarity` never builds one with no pairs; ``oov_rate`` of one built by hand with
    ``n_total == 0`` raises ``ValueError`` (undefined)."""

    rho: float
    n_used: int
    n_total: int

    @property
    def oov_rate(self) -> float:
        """``1 - n_used / n_total``; ``ValueError`` when ``n_total`` is 0 (no pairs: the rate is undefined)."""
        if self.n_total == 0:
            raise ValueError("oov_rate is undefined for a SimilarityResult with n_total = 0 pairs")
        return 1.0 - self.n_used / self.n_total


def word_similarity(vectors, vocab, pairs: Sequence[WordPair]) -> SimilarityResult:
    """Spearman's ρ between cosine similarity and human scores over the in-vocabulary pairs.

    ``vectors`` ``(V, d)``; ``vocab`` the tokens of its rows (:class:`lib.corpus.Vocabulary` or a
    sequence); ``pairs`` from :func:`read_word_pairs`. A pair is used when both words have a row; the
    cosine of a zero vector is 0 (:func:`lib.embedding.similarity`). ρ is SciPy's ``spearmanr`` (ties
    get average ranks). Raises ``ValueError`` when fewer than 2 pairs are usable ("2 of 353 pairs ...")
    or when the human scores or the cosines of the usable pairs are all equal (ρ undefined), for a human
    score that is NaN or infinite, an integer beyond 2**53 or a ``longdouble`` that float64 does not hold
    exactly (refused, not rounded: float64, in which scores are ranked, would merge 2**60 and 2**60 + 1), for a word holding an invisible format character such as
    a byte-order mark (U+FEFF; the readers' rule, :func:`lib.corpus.hidden_character`), each naming the
    pair whether or not its words have rows, and for a table that does not match the vocabulary or holds
    NaN; ``TypeError`` for a pair that is not ``(str, str, number)``, the number an ``int`` or a float
    (Python or NumPy: a ``Fraction``, a ``Decimal`` or a 0-d array is named with its type).

    >>> table = [[1.0, 0.0], [0.9, 0.1], [0.0, 1.0]]
    >>> pairs = [("cat", "dog", 9.0), ("cat", "car", 1.0), ("dog", "car", 2.0)]
    >>> word_similarity(table, ["cat", "dog", "car"], pairs)
    SimilarityResult(rho=1.0, n_used=3, n_total=3)
    """
    cosine, human, used = pair_cosines(vectors, vocab, pairs)
    if used.sum() < 2:
        raise ValueError(
            f"only {int(used.sum())} of {used.shape[0]} word pairs have both words in the vocabulary; "
            f"Spearman's rho needs at least 2"
        )
    _not_constant(human, "human scores", f"{cosine.shape[0]} usable pairs")
    _not_constant(cosine, "cosine similarities", f"{cosine.shape[0]} usable pairs")
    rho = scipy.stats.spearmanr(cosine, human).statistic
    return SimilarityResult(float(rho), int(used.sum()), used.shape[0])


def _not_constant(scores: np.ndarray, what: str, pairs: str) -> None:
    """The one check of every rank correlation here (:func:`word_similarity`, :func:`spearman_interval`):
    ``ValueError`` when ``scores`` (finite, at least one) are all equal, since Spearman's ρ is then undefined
    (one shared rank, nothing to correlate). ``what`` names the scores (the argument), ``pairs`` how many."""
    # min == max, not np.ptp(...) == 0: the range of scores such as -1e308 and 1e308 overflows (with a warning)
    if scores.min() == scores.max():
        raise ValueError(f"the {what} of the {pairs} are all equal, so Spearman's rho is undefined")


def pair_cosines(vectors, vocab, pairs: Sequence[WordPair]) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The cosines and human scores of the pairs whose two words have a row: ``(cosine (m,) float64,
    human (m,) float64, used (n,) bool)``, ``used[k]`` saying whether pair ``k`` of ``pairs`` is among the
    ``m``. Arguments as for :func:`word_similarity`. The cosines are
    :func:`lib.embedding.unit_pair_cosines` of the unit rows: parallel rows give exactly 1.0 (antiparallel
    -1.0) at any scale, the same bits as :func:`lib.embedding.similarity` and
    :func:`lib.embedding.cosine_scores` give near ±1, and within about ``d * 2**-53`` of ``similarity``'s
    elsewhere. Raises ``ValueError`` for no pairs, a table that does not match the vocabulary, or NaN in it, and
    for pairs as :func:`word_similarity` does (a non-finite score, an integer score beyond 2**53, a word
    holding an invisible format character); ``TypeError`` for a pair that is not ``(str, str, number)``.

    >>> table = [[1.0, 0.0], [0.0, 2.0]]
    >>> pairs = [("cat", "car", 1.0), ("cat", "dog", 5.0)]
    >>> cos, human, used = pair_cosines(table, ["cat", "car"], pairs)
    >>> cos.tolist(), human.tolist(), used.tolist()
    ([0.0], [1.0], [True, False])
    """
    table, index = vocabulary_table(vectors, vocab)
    pairs = _check_pairs(pairs)
    if not pairs:
        raise ValueError("no word pairs given")
    used = np.array([a in index and b in index for a, b, _ in pairs], dtype=bool)
    ia = np.array([index[a] for (a, b, _), u in zip(pairs, used) if u], dtype=np.int64)
    ib = np.array([index[b] for (a, b, _), u in zip(pairs, used) if u], dtype=np.int64)
    human = np.array([s for (_, _, s), u in zip(pairs, used) if u], dtype=np.float64)
    unit = normalize_rows(table)  # scale-robust: each row divided by its largest |entry| first
    cosine = unit_pair_cosines(unit[ia], unit[ib])  # exactly ±1 for parallel rows, as similarity's
    return cosine.astype(np.float64), human, used


# --- bootstrap intervals ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Interval:
    """A statistic on ``n`` pairs with its bootstrap confidence interval ``[low, high]`` at level
    ``confidence``, from ``n_resamples`` resamples of the pairs."""

    statistic: float
    low: float
    high: float
    confidence: float
    n: int
    n_resamples: int


#: the methods of ``scipy.stats.bootstrap`` that :func:`spearman_interval` accepts (in any case)
BOOTSTRAP_METHODS = ("BCa", "percentile", "basic")
#: the most resamples :func:`spearman_interval` draws
MAX_RESAMPLES = 10**7
#: entries of resampled data held at once by :func:`spearman_interval` (SciPy's ``batch``)
BOOTSTRAP_BATCH = 2**24


def _spearman_along_last_axis(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's ρ of ``x`` and ``y`` along their last axis (average ranks for ties): the Pearson
    correlation of the ranks, for every leading index at once. A constant resample gives NaN."""
    rx = scipy.stats.rankdata(x, axis=-1)
    ry = scipy.stats.rankdata(y, axis=-1)
    rx = rx - rx.mean(axis=-1, keepdims=True)
    ry = ry - ry.mean(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (rx * ry).sum(axis=-1) / np.sqrt((rx * rx).sum(axis=-1) * (ry * ry).sum(axis=-1))


def spearman_interval(
    predicted,
    human,
    *,
    baseline=None,
    confidence: float = 0.95,
    n_resamples: int = 2000,
    seed: int = 0,
    method: str = "BCa",
) -> Interval:
    """Spearman's ρ between ``predicted`` and ``human`` scores ``(n,)`` with a paired bootstrap interval:
    the ``n`` pairs are resampled with replacement, each resample keeping a pair's scores together, and
    the interval is SciPy's BCa interval :cite:p:`efron1993introduction{ch. 14}` at level
    ``confidence`` (``scipy.stats.bootstrap``, ``paired=True``).

    With ``baseline`` (another ``(n,)`` score for the same pairs, e.g. a second model's cosines), the
    statistic is the difference ``ρ(predicted, human) - ρ(baseline, human)``, resampled jointly, so that
    the interval answers whether the two models differ on these pairs. Resamples come from
    ``numpy.random.default_rng(seed)``: the same inputs give the same interval.

    ``method`` is SciPy's: ``"BCa"`` (the default), ``"percentile"`` or ``"basic"``, in any case. SciPy holds
    every resample at once; when ``max(n_resamples, n) * n`` exceeds ``BOOTSTRAP_BATCH`` (2**24) entries,
    the resamples (and BCa's jackknife) are drawn in batches of ``BOOTSTRAP_BATCH // n`` to bound the
    memory, which draws different resamples from the same seed than one batch would.

    ``confidence`` is kept as written: a float32 ``np.float32(0.95)`` is read as the shortest decimal that
    rounds to it (0.95), not as its binary value 0.949999988079071 (:func:`lib.validate.confidence_level`).

    Raises ``ValueError`` for inputs of different lengths, fewer than 3 pairs, non-finite scores, scores
    that are all equal (``predicted``, ``human`` or ``baseline``, named: ρ is undefined), integer
    scores beyond 2**53 (float64, in which they are ranked, would merge neighbours), ``confidence`` outside (0, 1), ``n_resamples`` outside ``[100, 10**7]``, a negative ``seed``, an
    unknown ``method``, or a bootstrap interval that is undefined: ρ the same in every resample (perfectly
    monotone pairs give ±1 in every one), or undefined in some (too few distinct pairs: a resample that
    repeats one pair has no ranks to correlate); ``TypeError`` for scores that are not real numbers
    (strings, ``None``, bools), a ``confidence`` that is not a number, or an ``n_resamples`` or ``seed``
    that is not an integer.
    """
    names = ["predicted", "human"] + (["baseline"] if baseline is not None else [])
    given = [predicted, human] + ([baseline] if baseline is not None else [])
    arrays = [validate.ranked_numbers(a, name) for a, name in zip(given, names)]
    n = arrays[0].shape[0] if arrays[0].ndim == 1 else -1
    if any(a.ndim != 1 or a.shape[0] != n for a in arrays):
        raise ValueError(f"predicted, human (and baseline) must be 1-D of one length, got shapes {[a.shape for a in arrays]}")
    if n < 3:
        raise ValueError(f"a bootstrap interval needs at least 3 pairs, got {n}")
    for a, name in zip(arrays, names):
        if not np.isfinite(a).all():
            raise ValueError(f"{name} scores must be finite (no NaN or infinity)")
    for a, name in zip(arrays, names):
        _not_constant(a, f"{name} scores", f"{n} pairs")  # not "too few distinct pairs" from the resamples
    confidence = validate.confidence_level(confidence)  # np.float32(0.95): 0.95, as written
    n_resamples = validate.integer(n_resamples, "n_resamples", low=100, high=MAX_RESAMPLES)
    seed = validate.seed(seed)
    method = validate.choice(method, "method", BOOTSTRAP_METHODS, ignore_case=True)
    batch = None if max(n_resamples, n) * n <= BOOTSTRAP_BATCH else max(1, BOOTSTRAP_BATCH // n)

    def statistic(p, h, *rest, axis=-1):
        rho = _spearman_along_last_axis(p, h)
        return rho - _spearman_along_last_axis(rest[0], h) if rest else rho

    # SciPy warns for a degenerate distribution and divides by zero in BCa's acceleration when every resample
    # gives the same value: both are reported below as a ValueError instead
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore", scipy.stats.DegenerateDataWarning)
        result = scipy.stats.bootstrap(
            tuple(arrays), statistic, paired=True, vectorized=True, n_resamples=n_resamples, batch=batch,
            confidence_level=float(confidence), method=method, rng=np.random.default_rng(seed),
        )
    value = float(statistic(*arrays))
    ci = result.confidence_interval
    if not (np.isfinite(ci.low) and np.isfinite(ci.high)):
        what = "Spearman's rho" if baseline is None else "the difference in Spearman's rho"
        values = result.bootstrap_distribution
        if np.all(values == values[0]):
            why = " (the pairs are perfectly monotone, so every resample is too)" if baseline is None else ""
            raise ValueError(
                f"{what} is {float(values[0])} in every one of the {n_resamples} resamples of these {n} pairs{why}, "
                f"so the {method} interval is undefined"
            )
        raise ValueError(
            f"{what} is undefined in some resamples of these {n} pairs (too few distinct pairs: a resample that "
            f"repeats one pair has no ranks to correlate), so the {method} interval is undefined: use more pairs"
        )
    return Interval(value, float(ci.low), float(ci.high), float(confidence), n, n_resamples)


def similarity_by_frequency(
    vectors, vocab, counts, pairs: Sequence[WordPair], edges: Sequence[float]
) -> List[Tuple[str, SimilarityResult]]:
    """:func:`word_similarity` within frequency strata: ``[(label, result), ...]``, one per stratum.

    A usable pair falls in stratum ``i`` when the count of its *rarer* word lies in
    ``[edges[i], edges[i+1])``; ``edges`` are increasing (use ``np.inf`` as the last to close the top
    stratum). ``counts`` ``(V,)`` are the token counts of the rows. Labels read ``"10-49"`` or ``"50+"``
    (a count beyond ``int64``, which no count reaches, with 6 significant digits: ``"0-1e+308"``).
    ``n_total`` of each result is the number of usable pairs in the stratum (all of them in-vocabulary).
    Raises ``ValueError`` for fewer than two edges, edges not increasing, an edge that is NaN or
    infinite (only the last may be ``np.inf``), counts of the wrong length, negative or beyond ``int64``, a human score
    that is NaN or infinite, or a stratum with fewer than 2 pairs (as :func:`word_similarity`);
    ``TypeError`` for counts that are not integers and pairs as in :func:`word_similarity`.
    """
    table, index = vocabulary_table(vectors, vocab)
    counts = validate.integer_array(counts, "counts", f"a 1-D array of {len(index)} counts")
    if counts.shape != (len(index),):
        raise ValueError(f"counts must have shape ({len(index)},), got {counts.shape}")
    if (counts < 0).any():
        raise ValueError("counts must be >= 0")
    validate.within_int64(counts, "counts")
    edges = validate.collection(edges, "edges", "a sequence of at least two increasing numbers")
    if len(edges) < 2:
        raise ValueError(f"edges must be at least two increasing numbers, got {edges}")
    last = edges[-1]
    # integer edges stay Python ints, compared exactly with the integer counts (2**53 + 1 is no float)
    edges = [validate.number(e, f"edges[{i}]", keep_int=True) for i, e in enumerate(edges[:-1])]
    top_open = isinstance(last, (float, np.floating)) and last == math.inf  # np.inf closes the top stratum
    edges.append(math.inf if top_open else validate.number(last, "the last edge", hint="or np.inf", keep_int=True))
    if any(b <= a for a, b in zip(edges, edges[1:])):
        raise ValueError(f"edges must be at least two increasing numbers, got {edges}")
    pairs = _check_pairs(pairs)
    usable = [(a, b, s) for a, b, s in pairs if a in index and b in index]
    rarer = [min(int(counts[index[a]]), int(counts[index[b]])) for a, b, _ in usable]  # exact, as Python ints
    out = []
    for lo, hi in zip(edges, edges[1:]):
        first = int(math.ceil(lo))  # the smallest integer count in [lo, hi): edges need not be integers
        label = f"{_count(first)}+" if math.isinf(hi) else f"{_count(first)}-{_count(int(math.ceil(hi)) - 1)}"
        chosen = [p for p, r in zip(usable, rarer) if lo <= r < hi]
        if not chosen:
            raise ValueError(f"stratum {label}: no usable pair has its rarer word's count in it "
                             f"({len(usable)} usable pairs in all); choose other edges")
        try:
            out.append((label, word_similarity(table, vocab, chosen)))
        except ValueError as err:
            raise ValueError(f"stratum {label}: {err}") from None
    return out


def _count(n: int) -> str:
    """A stratum's edge count for its label: all its digits within ``int64``, where every count lies (an edge
    of 2**53 + 1 is exact), beyond that 6 significant digits (``1e+308``), not the 309 digits of the integer
    nearest an edge of 1e308."""
    return str(n) if abs(n) < 2**63 else f"{float(n):.6g}"


# --- analogies ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AnalogyResult:
    """3CosAdd results: ``correct`` of ``attempted`` questions (all four words in the vocabulary) out of
    ``total``; ``by_section`` maps each section to ``(correct, attempted, total)``. :func:`analogy_accuracy`
    never builds one with no question attempted; ``accuracy`` (``coverage``) of one built by hand with
    ``attempted == 0`` (``total == 0``) raises ``ValueError`` (undefined)."""

    correct: int
    attempted: int
    total: int
    by_section: Dict[str, Tuple[int, int, int]]

    @property
    def accuracy(self) -> float:
        """``correct / attempted`` (the usual report: accuracy over the covered questions); ``ValueError``
        when ``attempted`` is 0."""
        if self.attempted == 0:
            raise ValueError("accuracy is undefined for an AnalogyResult with attempted = 0 questions")
        return self.correct / self.attempted

    @property
    def coverage(self) -> float:
        """``attempted / total``: the share of questions the vocabulary can answer at all; ``ValueError``
        when ``total`` is 0."""
        if self.total == 0:
            raise ValueError("coverage is undefined for an AnalogyResult with total = 0 questions")
        return self.attempted / self.total


def analogy_predictions(vectors, questions: np.ndarray, *, chunk: int = 2048, expected=None) -> np.ndarray:
    """3CosAdd answers ``(n,) int64`` for ``questions`` ``(n, 3) int`` rows ``(a, b, c)``.

    For each question the answer is the row maximising the cosine with ``b̂ - â + ĉ`` (unit rows), the
    three query rows excluded, near-ties to the smaller row index (:func:`lib.embedding.top_k`: cosines
    within ``TIE_RTOL``, 1e-12, of the best): the same answer as
    ``lib.embedding.analogy(vectors, a, b, c)[0][0]``, bit for bit: the cosines are
    :func:`lib.embedding.cosine_scores`', which do not depend on the other questions; ``chunk`` (an integer
    in ``[1, lib.validate.MAX_SIZE]``) questions are scored at a time. ``expected`` ``(n,)`` (the rows of the right answers), if
    given, is used only for the record of rounding margins (:func:`lib.notebook.record_gap`): how close the
    closest question came to changing from right to wrong or back; it is checked whether or not recording
    is on. Raises ``ValueError`` for ids (in ``questions`` or ``expected``) outside the table, fewer than 4
    rows, ``expected`` of another shape than ``(n,)`` or ``chunk`` outside its range, ``TypeError`` for a ``chunk`` or
    ids that are not integers.

    >>> table = [[1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0],
    ...          [0.0, 1.0, 1.0], [0.0, 1.0, 0.0]]
    >>> analogy_predictions(table, np.array([[0, 1, 2]]))
    array([3])
    """
    chunk = validate.size(chunk, "chunk", hint="questions scored at a time")
    table = check_table(vectors, "vectors", finite=True).astype(np.float64, copy=False)
    if table.shape[0] < 4:
        raise ValueError(f"an analogy needs at least 4 rows (3 are excluded), got {table.shape[0]}")
    q = validate.ids(questions, table.shape[0], "analogy row")
    if q.ndim != 2 or q.shape[1] != 3:
        raise ValueError(f"questions must have shape (n, 3), got {q.shape}")
    if expected is not None:
        expected = validate.ids(expected, table.shape[0], "expected row")
        if expected.shape != (q.shape[0],):
            raise ValueError(f"expected must have shape ({q.shape[0]},), one row per question, got {expected.shape}")
    unit = normalize_rows(table)
    answers = np.empty(q.shape[0], dtype=np.int64)
    closest, scale = np.inf, 0.0  # |score of the right answer - best other score| of the closest question
    allowed = np.ones(table.shape[0], dtype=bool)
    for start in range(0, q.shape[0], chunk):
        part = q[start : start + chunk]
        target = unit[part[:, 1]] - unit[part[:, 0]] + unit[part[:, 2]]  # (m, d)
        # cosines, not target · unit: the near-tie tolerance is on the cosine, as in lib.embedding.analogy
        scores = cosine_scores(unit, target).reshape(part.shape[0], -1)  # (m, V): lib.embedding.analogy's cosines
        for i, query in enumerate(part):
            allowed[query] = False  # the three query words are never an answer
            candidates = np.flatnonzero(allowed)
            answers[start + i] = candidates[top_k(scores[i, candidates], 1)[0]]
            allowed[query] = True
        if expected is not None and logging_numbers():
            rows = np.arange(part.shape[0])[:, None]
            scores[rows, part] = -np.inf
            right = expected[start : start + chunk]
            right_score = scores[rows[:, 0], right].copy()
            scores[rows[:, 0], right] = -np.inf
            closest = min(closest, float(np.abs(right_score - scores.max(axis=1)).min()))
            scale = max(scale, float(np.abs(right_score[np.isfinite(right_score)]).max(initial=0.0)))
    if expected is not None and logging_numbers():
        record_gap(f"analogy accuracy: right answer against the best other, {q.shape[0]} questions", closest, scale)
    return answers


def _check_questions(questions, section) -> List[Question]:
    """The questions of ``section`` as a list of four-``str`` tuples (see :func:`analogy_accuracy`)."""
    questions = validate.collection(questions, f"section {section!r}", "a sequence of questions (a, b, c, d)")
    out = []
    for i, question in enumerate(questions):
        where = f"section {section!r}, question {i}"
        if isinstance(question, (str, bytes)):
            raise TypeError(f"{where} must be four words (a, b, c, d), got the single string {question!r}")
        try:
            words = tuple(question)
        except TypeError:  # not iterable: None, a number
            raise TypeError(f"{where} must be four words (a, b, c, d), got {question!r}") from None
        if len(words) != 4:
            raise ValueError(f"{where} must be four words (a, b, c, d), got {len(words)}: {question!r}")
        out.append(tuple(_check_word(w, f"{where}, word {which}") for which, w in enumerate(words, start=1)))
    return out


def analogy_accuracy(vectors, vocab, sections: Mapping[str, Sequence[Question]]) -> AnalogyResult:
    """3CosAdd accuracy and coverage over analogy ``sections`` (:func:`read_analogies`).

    ``sections`` maps a section's name to its questions, each four ``str`` words ``(a, b, c, d)``. A
    question is attempted when all four words have a row; it is correct when :func:`analogy_predictions`
    returns the row of the fourth word. Every question is checked before any is answered, as
    :func:`word_similarity` checks its pairs: a word that is not a ``str`` (``None``, a number, the NaN
    that pandas reads from an empty cell) is an error, never a question counted like an out-of-vocabulary
    one. Raises ``TypeError`` for ``sections`` that is not a mapping, a section that is not a sequence of
    questions, a question that is not a sequence (one string ``"abcd"`` is not four words) or a word that is
    not a ``str``, each naming the section and the question; ``ValueError`` naming them for a question
    without exactly four words or a word holding an invisible format character such as a byte-order mark
    (U+FEFF; the rule of :func:`read_analogies`), when no question is attempted (accuracy undefined), for
    a table that does not match the vocabulary, and for a table whose rows are all zero (every cosine is 0,
    so each answer would be the tie rule's, not the vectors': accuracy undefined, as :func:`word_similarity`
    refuses cosines that all tie).

    >>> table = [[1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0],
    ...          [0.0, 1.0, 1.0], [0.0, 1.0, 0.0]]
    >>> questions = {"s": [("a", "b", "c", "d"), ("a", "b", "c", "z")]}
    >>> analogy_accuracy(table, list("abcde"), questions)
    AnalogyResult(correct=1, attempted=1, total=2, by_section={'s': (1, 1, 2)})
    """
    table, index = vocabulary_table(vectors, vocab)
    if not isinstance(sections, Mapping):
        raise TypeError(f"sections must be a mapping {{section: [(a, b, c, d), ...]}} (read_analogies), "
                        f"got {type(sections).__name__}")
    if not np.any(table):
        raise ValueError(f"vectors: all {table.shape[0]} rows are zero, so every cosine is 0 and every answer "
                         f"would be the tie rule's: analogy accuracy is undefined")
    rows, expected, owner = [], [], []
    by_section: Dict[str, Tuple[int, int, int]] = {}
    names = list(sections)
    questions = {name: _check_questions(sections[name], name) for name in names}
    totals = {name: len(questions[name]) for name in names}
    for name in names:
        for a, b, c, d in questions[name]:
            if a in index and b in index and c in index and d in index:
                rows.append((index[a], index[b], index[c]))
                expected.append(index[d])
                owner.append(name)
    total = sum(totals.values())
    if not rows:
        raise ValueError(f"none of the {total} analogy questions has all four words in the vocabulary")
    hits = analogy_predictions(table, np.array(rows), expected=np.array(expected)) == np.array(expected)
    owner = np.array(owner)
    for name in names:
        mine = owner == name
        by_section[name] = (int(hits[mine].sum()), int(mine.sum()), totals[name])
    return AnalogyResult(int(hits.sum()), len(rows), total, by_section)


__all__ = [
    "BOOTSTRAP_BATCH",
    "BOOTSTRAP_METHODS",
    "MAX_RESAMPLES",
    "NOT_A_TOKEN_EXAMPLES",
    "NotATokenWarning",
    "AnalogyResult",
    "Interval",
    "SimilarityResult",
    "analogy_accuracy",
    "analogy_predictions",
    "pair_cosines",
    "read_analogies",
    "read_word_pairs",
    "similarity_by_frequency",
    "spearman_interval",
    "word_similarity",
]
