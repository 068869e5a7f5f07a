"""Corpora and what an embedding sees of them: tokens, a vocabulary, context windows, subsampling.

Taught in: chapters/embeddings.md (Levels 2 and 3) and chapters/real_text.md.

Follows the preprocessing of word2vec :cite:p:`mikolov2013negative{§2.3}` and of :cite:t:`levy2015improving` (§3) for count models.
Everything a count-based or predictive embedding sees is decided here, before any optimisation: what
counts as a word (:func:`tokenize`), which items get a row (:class:`Vocabulary`, with an explicit order,
minimum count and unknown-item policy), which (centre, context) pairs a sentence yields
(:func:`context_pairs`, described in words by :func:`describe_context`, the one description of a context
window in ``lib``), and which occurrences of frequent words are dropped (:func:`keep_probability`,
:func:`subsample`). Subsets and repetitions of a corpus for learning curves and benchmarks are
:func:`corpus_fraction` and :func:`repeat_corpus`.

Departures from the sources:

- subsampling follows the paper's discard probability ``1 - sqrt(t / f)`` by default; the word2vec C
  tool's variant ``(sqrt(f / t) + 1) · t / f`` is available as ``formula="word2vec"``;
- a context window here is a fixed ``±w`` (word2vec samples a smaller window per centre word; the
  expected effect of that sampling is a distance weighting, available in :func:`lib.ppmi.cooccurrence`,
  and :mod:`lib.sgns` samples it as word2vec does);
- the tokeniser keeps only the letters a-z and internal apostrophes, where word2vec splits on white
  space and leaves the rest to the corpus's own preprocessing; before that, :func:`fold` folds case and
  accents (as gensim's ``simple_preprocess(deacc=True)`` does: "İstanbul" and "Café" become ``istanbul``
  and ``cafe``), and the benchmark readers of :mod:`lib.evaluation` fold their words with the same
  function, so that a benchmark word and a corpus token are compared under one rule.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections import Counter
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from lib import validate

# --- tokens ---------------------------------------------------------------------------------------

#: A token is a run of ASCII letters, possibly with internal apostrophes ("don't", "year's"): the compiled
#: regular expression ``[a-z]+(?:'[a-z]+)*``, matched against lower-cased text.
#:
#: :meta hide-value:
TOKEN_PATTERN = re.compile(r"[a-z]+(?:'[a-z]+)*")


#: more rounds than :func:`fold` ever needs: one round settles every single code point (every code point was tried)
FOLD_ROUNDS = 8


def _fold_step(text: str) -> str:
    """One round of :func:`fold`: decomposed, case-folded, decomposed again, accents dropped, lower-cased."""
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKD", text).casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


def fold(text: str) -> str:
    """``text`` under the one case rule of ``lib``, shared by the corpus tokeniser and the benchmark readers.

    Unicode's compatibility caseless matching (the Unicode Standard, §3.13, D146: decomposition and case
    folding in turn) with accents dropped: decomposed (NFKD: full-width, ligature, mathematical and
    superscript letters become plain ones, ``"ℍ"`` ``"H"``, ``"ﬁ"`` ``"fi"``), case-folded (``str.casefold``:
    ``"ß"`` becomes ``"ss"``), decomposed again and stripped of combining marks (accents), then lower-cased
    (``str.lower``, which changes only Cherokee, whose case folding Unicode maps to the capitals), repeated
    until nothing changes, and recomposed (NFC); typographic apostrophes (’) become ``'``. Decomposing
    before case folding matters: "ℍ" and "𝐂" have no case mapping of their own and become capitals only
    when decomposed. So the result holds no upper-case letter and folding it again changes nothing
    (``fold(fold(x)) == fold(x)``). Python's ``lower()`` alone
    turns "İstanbul" into ``"i̇stanbul"``, an ``i`` with a combining dot that matches no corpus token;
    here it is ``"istanbul"``, as in gensim's ``simple_preprocess(..., deacc=True)``. ASCII text is
    lower-cased only (it is its own decomposition). Raises ``TypeError`` for a non-string.

    >>> fold("İstanbul"), fold("CAFÉ"), fold("Straße"), fold("ＮＡＳＡ"), fold("year’s")
    ('istanbul', 'cafe', 'strasse', 'nasa', "year's")
    >>> fold("ℍotel"), fold("𝐂𝐚𝐭"), fold("ᴴᴵ"), fold("ϲοσ")
    ('hotel', 'cat', 'hi', 'σοσ')
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if text.isascii():  # the same result, fast: NFKD, accents and the apostrophe leave ASCII as it is
        return text.lower()
    folded = _fold_step(text)
    for _ in range(FOLD_ROUNDS):
        again = _fold_step(folded)
        if again == folded:
            return unicodedata.normalize("NFC", folded).replace("\u2019", "'")
        folded = again
    raise AssertionError(f"fold did not settle within {FOLD_ROUNDS} rounds on {text!r}")  # never seen: see the tests


#: a UTF-8 byte-order mark (the bytes EF BB BF) decoded as cp1252 or Latin-1 and saved again as UTF-8: "ï»¿"
MOJIBAKE_BYTE_ORDER_MARK = "\u00ef\u00bb\u00bf"


def stray_byte_order_mark(text: str) -> str:
    """The one rule for a byte-order mark (U+FEFF) that is not at the start of a file, in every reader (benchmark
    files, trace programs, the corpus: :func:`lib.datasets.read_text`), every function given words and the
    tokens of a :class:`Vocabulary`: ``""`` when ``text`` holds none, else the problem to report after the
    place (file and line, or the argument). One mark at the start of a file is removed
    (:func:`lib.datasets.read_text`, :func:`lib.datasets.text_lines`); anywhere else, a second one directly
    after it included, it is an invisible character glued to a word. U+FFFE (a byte-order mark with its
    bytes swapped, a noncharacter) is refused everywhere, the start of a file included, and so is ``ï»¿``
    (``MOJIBAKE_BYTE_ORDER_MARK``): a UTF-8 mark decoded as cp1252 and saved again as UTF-8, which would
    stick to the first word as three visible letters. Raises ``TypeError`` for a ``text`` that is not a ``str``.

    >>> stray_byte_order_mark("cat"), stray_byte_order_mark("\ufeffcat").split(",")[0]
    ('', 'holds a byte-order mark (U+FEFF)')
    >>> stray_byte_order_mark("\u00ef\u00bb\u00bfcat").split(",")[0]
    "starts with 'ï»¿'"
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if "\ufffe" in text:  # checked first: it is refused even at the start of a file
        return ("holds the character U+FFFE, a byte-swapped byte-order mark (a noncharacter, never text: the "
                "file's bytes were swapped, or it was read in the wrong byte order); remove it, or save the file "
                "as UTF-8")
    if MOJIBAKE_BYTE_ORDER_MARK in text:
        where = "starts with" if text.startswith(MOJIBAKE_BYTE_ORDER_MARK) else "holds"
        return (f"{where} {MOJIBAKE_BYTE_ORDER_MARK!r}, a byte-order mark decoded as cp1252 (the UTF-8 mark EF BB BF "
                "read as Windows-1252 or Latin-1, then saved again); remove it, or re-save the file as UTF-8")
    if "\ufeff" not in text:
        return ""
    return ("holds a byte-order mark (U+FEFF), allowed only at the start of a file (were two files joined, or a "
            "file read with encoding='utf-8' rather than 'utf-8-sig'?); remove it")


def hidden_character(text: str, *, allow: str = "") -> str:
    """``""`` when ``text`` holds no invisible format character (Unicode category Cf: U+200B ZERO WIDTH SPACE,
    U+2060 WORD JOINER, U+FEFF) and no control character (category Cc: the C0 codes U+0000 to U+001F, DEL
    U+007F and the C1 codes U+0080 to U+009F, such as ESC U+001B) but those in ``allow`` (a tab where a
    format separates its fields with one), else the problem to report, naming the code point: the corpus
    tokeniser drops a format character and splits a word at a control character, so a word holding either
    would match no token. A byte-order mark (or ``ï»¿``) is reported as :func:`stray_byte_order_mark` does.
    The rule of the benchmark readers (:mod:`lib.evaluation`) and of the tokens of a :class:`Vocabulary`.
    ``TypeError`` for a ``text`` that is not a ``str``.

    >>> hidden_character("cat"), hidden_character("c\u200bat").split(" (")[0]
    ('', 'holds the invisible format character U+200B')
    >>> hidden_character("c\x1bat").split(",")[0]
    'holds the control character U+001B'
    >>> hidden_character("a\tb", allow="\t")
    ''
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if text.isascii() and text.isprintable():  # U+0020 to U+007E: no mark, no format or control character
        return ""
    mark = stray_byte_order_mark(text)
    if mark:
        return mark
    hidden = next((c for c in text if unicodedata.category(c) == "Cf"), None)
    if hidden is not None:
        return (f"holds the invisible format character U+{ord(hidden):04X} ({unicodedata.name(hidden, 'unnamed')}), "
                "which the corpus tokeniser drops, so a word holding it would match no token; remove it")
    control = next((c for c in text if unicodedata.category(c) == "Cc" and c not in allow), None)
    if control is not None:
        return (f"holds the control character U+{ord(control):04X}, at which the corpus tokeniser splits a word, "
                "so a word holding it would match no token; remove it")
    return ""


def tokenize(text: str) -> List[str]:
    """Fold ``text`` (:func:`fold`) and return its tokens: runs of letters ``a-z`` with internal apostrophes.

    The policy, stated because every count depends on it: case and accents are folded (``"Café"`` gives
    ``cafe``); digits, punctuation and hyphens separate tokens and are dropped (``"south-west"`` gives
    ``south``, ``west``; ``"4:00pm"`` gives ``pm``); an apostrophe between letters stays inside the token
    (``"year's"``); typographic apostrophes are first mapped to ``'``; letters with no a-z form after
    folding (Greek, Cyrillic, ...) separate tokens too; invisible format characters (Unicode category Cf:
    the soft hyphen U+00AD, U+200B ZERO WIDTH SPACE, U+2060 WORD JOINER, U+FEFF, common in web text) are
    removed, so a word holding one is read whole (``"infor\u00admation"`` gives ``information``), while a
    control character (category Cc, such as a tab) separates tokens. Raises ``TypeError`` for a non-string.

    >>> tokenize("New Year's Eve, south-west of Sydney at 4:00pm.")
    ['new', "year's", 'eve', 'south', 'west', 'of', 'sydney', 'at', 'pm']
    >>> tokenize("İstanbul's Café"), tokenize("infor\u00admation")
    (["istanbul's", 'cafe'], ['information'])
    """
    folded = fold(text)
    if not folded.isascii():  # ASCII holds no format character
        folded = "".join(c for c in folded if c.isascii() or unicodedata.category(c) != "Cf")
    return TOKEN_PATTERN.findall(folded)


# --- tokenised corpora ----------------------------------------------------------------------------


def check_sentences(sentences, name: str = "sentences") -> List[List[str]]:
    """``sentences`` as a new list of lists of ``str`` after checking that it is a sequence of token
    sequences (not a string, and no sentence a string). Raises ``TypeError`` naming ``name`` otherwise.

    >>> check_sentences((("a", "b"), ["c"]))
    [['a', 'b'], ['c']]
    """
    if isinstance(sentences, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of sentences (sequences of str), got a single string")
    sentences = validate.collection(sentences, name, "a sequence of sentences (sequences of str)")
    out = []
    for k, sentence in enumerate(sentences):
        if isinstance(sentence, (str, bytes)):
            raise TypeError(f"{name}[{k}] must be a sequence of str tokens, got a string; split it into tokens first")
        tokens = validate.collection(sentence, f"{name}[{k}]", "a sequence of str tokens")
        for tok in tokens:
            if not isinstance(tok, str):
                raise TypeError(f"{name}[{k}] contains a non-string token {tok!r}")
        out.append(tokens)
    return out


def _documents(docs) -> List[List[str]]:
    docs = check_sentences(docs, "docs")
    if not docs:
        raise ValueError("docs must contain at least one document")
    return docs


def corpus_hash(sentences) -> str:
    """SHA-256 of a tokenised corpus (hex, 64 characters), the corpus identity in provenance records.

    The hash covers the tokens and the sentence boundaries (the corpus is serialised as JSON, a list of
    lists of strings), so splitting a sentence differently changes it. Raises ``TypeError`` if
    ``sentences`` is not a sequence of token sequences.

    >>> corpus_hash([["a", "b"], ["c"]])[:16]  # SHA-256 of '[["a","b"],["c"]]'
    '6540752a513beaee'
    """
    sents = check_sentences(sentences)
    payload = json.dumps(sents, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return hashlib.sha256(payload).hexdigest()


def corpus_fraction(docs: Sequence[Sequence[str]], fraction: float, *, seed: int = 0) -> List[List[str]]:
    """A random subset of whole documents holding about ``fraction`` of them: ``round(fraction · D)``
    documents (at least one), in their original order.

    The documents are ranked once by a permutation drawn with ``numpy.random.default_rng(seed)`` and the
    first ones kept, so for one seed the subsets are nested (the 25 % subset lies inside the 50 % one),
    which is what a learning curve needs. Raises ``ValueError`` for ``fraction`` outside ``(0, 1]`` or
    an empty corpus, ``TypeError`` for malformed documents.

    >>> corpus_fraction([["a"], ["b"], ["c"], ["d"]], 0.5, seed=0)
    [['a'], ['c']]
    """
    docs = _documents(docs)
    fraction = validate.number(fraction, "fraction", gt=0, le=1)
    seed = validate.seed(seed)
    n = max(1, int(round(fraction * len(docs))))
    keep = np.sort(np.random.default_rng(seed).permutation(len(docs))[:n])
    return [docs[i] for i in keep]


def repeat_corpus(docs: Sequence[Sequence[str]], times: int) -> List[List[str]]:
    """The corpus repeated ``times`` times in a row (``times · D`` documents), for measuring how cost
    grows with corpus size on text with the same statistics. Raises ``ValueError`` for ``times < 1``.

    >>> repeat_corpus([["a", "b"], ["c"]], 2)
    [['a', 'b'], ['c'], ['a', 'b'], ['c']]
    """
    docs = _documents(docs)
    times = validate.size(times, "times", low=1)
    validate.entries((times, len(docs)), "times and the number of documents")
    return [list(d) for _ in range(times) for d in docs]


# --- vocabulary --------------------------------------------------------------------------------------

ORDERS = ("count", "alphabetical", "given")
UNKNOWN_POLICIES = ("error", "skip", "map")


class Vocabulary:
    """A fixed mapping between tokens and integer ids ``0 .. V-1``, with counts and a stated policy.

    Build one from sentences with :meth:`from_sentences`, or directly from an ordered list of tokens.

    Parameters
    ----------
    tokens:
        The items, in id order (``tokens[i]`` gets id ``i``). Must be unique strings.
    counts:
        Optional occurrence count of each token (``int``, ``>= 0``), same length as ``tokens``; default
        all zeros. Kept as ``counts`` ``(V,) int64`` for the noise distribution and subsampling.
    unknown:
        What :meth:`encode` does with a token that has no row: ``"error"`` (raise
        :class:`UnknownTokenError`),
        ``"skip"`` (drop it), or ``"map"`` (use the row of ``unknown_token``, which must then be one of
        ``tokens``).
    unknown_token:
        The token whose row absorbs unknown items under ``unknown="map"`` (default ``"<unk>"``).
    order, min_count:
        How the order was decided and the minimum count used, recorded for provenance only.

    Raises ``ValueError`` for duplicate tokens, a token holding an invisible format character such as a
    byte-order mark (U+FEFF, or ``ï»¿``, a mark decoded as cp1252: :func:`hidden_character`, the rule of the
    benchmark readers, since such a token would match no word they read), mismatched or negative counts, an
    unknown policy, or ``unknown="map"`` without ``unknown_token`` among the tokens; ``TypeError`` for
    non-string tokens.
    """

    def __init__(
        self,
        tokens: Sequence[str],
        counts: Sequence[int] | None = None,
        *,
        unknown: str = "error",
        unknown_token: str = "<unk>",
        order: str = "given",
        min_count: int = 1,
    ):
        if isinstance(tokens, (str, bytes)):
            raise TypeError("tokens must be a sequence of str, got a single string")
        tokens = tuple(validate.collection(tokens, "tokens", "a sequence of str"))
        for i, tok in enumerate(tokens):
            if not isinstance(tok, str):
                raise TypeError(f"tokens must be str, got {tok!r}")
            problem = hidden_character(tok)  # the benchmark readers' rule for a word: it would match no word read
            if problem:
                raise ValueError(f"tokens[{i}] {tok!r} {problem}")
        if len(tokens) == 0:
            raise ValueError("a vocabulary needs at least one token")
        index: Dict[str, int] = {}
        for i, tok in enumerate(tokens):
            if tok in index:
                raise ValueError(f"token {tok!r} appears twice in the vocabulary (ids {index[tok]} and {i})")
            index[tok] = i
        if counts is None:
            cnt = np.zeros(len(tokens), dtype=np.int64)
        else:
            cnt = validate.integer_array(counts, "counts", f"a 1-D array of {len(tokens)} counts")
            if cnt.shape != (len(tokens),):
                raise ValueError(f"counts must have shape ({len(tokens)},) to match tokens, got {cnt.shape}")
            cnt = _counts_in_range(cnt)
        validate.choice(unknown, "unknown", UNKNOWN_POLICIES)
        if unknown == "map" and unknown_token not in index:
            raise ValueError(f"unknown='map' needs unknown_token {unknown_token!r} among the tokens")
        validate.choice(order, "order", ORDERS)
        validate.integer(min_count, "min_count", low=1)
        self.tokens: Tuple[str, ...] = tokens
        self.counts: np.ndarray = cnt
        self.counts.setflags(write=False)
        self.unknown = unknown
        self.unknown_token = unknown_token if unknown == "map" else None
        self.order = order
        self.min_count = int(min_count)
        self._index = index

    # construction ---------------------------------------------------------------------------------

    @classmethod
    def from_sentences(
        cls,
        sentences,
        *,
        min_count: int = 1,
        order: str = "count",
        unknown: str = "error",
        unknown_token: str = "<unk>",
        max_size: int | None = None,
    ) -> "Vocabulary":
        """Count the tokens of ``sentences`` (sequences of ``str``) and keep those seen ``min_count`` times.

        ``order``: ``"count"`` (count descending, ties by token in code-point order: the usual word2vec
        order) or ``"alphabetical"`` (token in code-point order, as :ref:`the textbook chapter Embeddings <sources>` does with
        ``sorted``). The result is deterministic for a given corpus. ``max_size`` keeps only the first
        ``max_size`` items of that order (after ``min_count``). With ``unknown="map"`` a row for
        ``unknown_token`` is put first (id 0) and its count is the number of occurrences of the dropped
        items; the other policies add no row.

        Raises ``ValueError`` for ``min_count < 1``, ``max_size < 1``, an unknown ``order``/``unknown``, a
        corpus in which no token reaches ``min_count``, or a corpus that already contains
        ``unknown_token`` under ``unknown="map"``; ``TypeError`` for a malformed corpus.

        >>> sents = [["b", "a", "b"], ["c", "b"]]
        >>> vocab = Vocabulary.from_sentences(sents, min_count=1)
        >>> vocab.tokens, vocab.counts.tolist()
        (('b', 'a', 'c'), [3, 1, 1])
        """
        sents = check_sentences(sentences)
        validate.integer(min_count, "min_count", low=1)
        if order not in ("count", "alphabetical"):
            raise ValueError(f"order must be 'count' or 'alphabetical' when building from sentences, got {order!r}")
        if max_size is not None:
            validate.integer(max_size, "max_size", low=1)
        counter = Counter(tok for s in sents for tok in s)
        if unknown == "map" and unknown_token in counter:
            raise ValueError(f"the corpus already contains the unknown_token {unknown_token!r}; choose another")
        kept = [(tok, c) for tok, c in counter.items() if c >= min_count]
        if order == "count":
            kept.sort(key=lambda tc: (-tc[1], tc[0]))
        else:
            kept.sort(key=lambda tc: tc[0])
        if max_size is not None:
            kept = kept[: int(max_size)]
        if not kept:
            raise ValueError(f"no token occurs at least min_count={min_count} times")
        tokens = [t for t, _ in kept]
        counts = [c for _, c in kept]
        if unknown == "map":
            dropped = sum(counter.values()) - sum(counts)
            tokens = [unknown_token] + tokens
            counts = [dropped] + counts
        return cls(
            tokens, counts, unknown=unknown, unknown_token=unknown_token, order=order, min_count=min_count
        )

    # mapping --------------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.tokens)

    def __contains__(self, token) -> bool:
        return isinstance(token, str) and token in self._index  # a list or a number is never a token

    def __iter__(self):
        return iter(self.tokens)

    def __repr__(self) -> str:
        return f"Vocabulary(size={len(self)}, order={self.order!r}, min_count={self.min_count}, unknown={self.unknown!r})"

    @property
    def index(self) -> Dict[str, int]:
        """A copy of the ``{token: id}`` mapping."""
        return dict(self._index)

    def id(self, token: str) -> int:
        """The id of ``token``; an unknown token follows the policy (``"skip"`` raises here too).

        Raises :class:`UnknownTokenError` (a ``KeyError`` and a ``ValueError``) naming the token when it
        has no row and the policy is not ``"map"``, and ``TypeError`` for a token that is not a ``str``.
        """
        if not isinstance(token, str):
            raise TypeError(f"token must be a str, got {token!r}")
        i = self._index.get(token)
        if i is not None:
            return i
        if self.unknown == "map":
            return self._index[self.unknown_token]
        raise UnknownTokenError(f"token {token!r} is not in the vocabulary of {len(self)} (unknown-item policy {self.unknown!r})")

    def token(self, i) -> str:
        """The token with id ``i``; ``ValueError`` if ``i`` is outside ``[0, V)``, ``TypeError`` if ``i`` is
        not one integer (a float, a ``bool``, a list ``[0]``: :meth:`decode` takes a sequence of ids).

        >>> Vocabulary(["a", "b"]).token(1)
        'b'
        """
        return self.tokens[validate.one_id(i, len(self))]

    def encode(self, tokens: Sequence[str]) -> np.ndarray:
        """Ids of a sentence, ``(n,) int64``, applying the unknown-item policy.

        ``"error"`` raises :class:`UnknownTokenError`; ``"skip"`` drops the token (the output is shorter and the
        surrounding tokens become adjacent, as word2vec does); ``"map"`` uses the unknown row. A token that
        is not a ``str`` is a ``TypeError`` under every policy, and a token holding an invisible format
        character such as a byte-order mark a ``ValueError`` (:func:`hidden_character`), never dropped or
        mapped as an unknown word.

        >>> Vocabulary(["a", "b"], unknown="skip").encode(["b", "z", "a"])
        array([1, 0])
        """
        if isinstance(tokens, (str, bytes)):
            raise TypeError("encode takes a sequence of tokens, got a single string; split it first")
        tokens = validate.collection(tokens, "tokens", "a sequence of str tokens")
        ids = []
        for k, tok in enumerate(tokens):
            if not isinstance(tok, str):  # not even the "skip" policy drops a number or a list silently
                raise TypeError(f"tokens[{k}] must be a str, got {tok!r}")
            i = self._index.get(tok)
            if i is None:
                problem = hidden_character(tok)  # a word read with its byte-order mark is no unknown word
                if problem:
                    raise ValueError(f"tokens[{k}] {tok!r} {problem}")
                if self.unknown == "skip":
                    continue
                i = self.id(tok)  # raises for "error", maps for "map"
            ids.append(i)
        return np.asarray(ids, dtype=np.int64)

    def encode_sentences(self, sentences) -> List[np.ndarray]:
        """:meth:`encode` applied to every sentence: a list of ``(n_s,) int64`` arrays."""
        return [self.encode(s) for s in check_sentences(sentences)]

    def decode(self, ids) -> List[str]:
        """Tokens for a 1-D sequence of ids (a list, a tuple, an array, a tensor; an object array of Python
        ints too); ``ValueError`` for an id outside ``[0, V)`` or ids that are not 1-D, ``TypeError`` for ids
        that are not integers or for a generator, which holds no array of ids until read
        (:func:`lib.validate.ids`).

        >>> Vocabulary(["a", "b"]).decode([1, 1, 0])
        ['b', 'b', 'a']
        """
        arr = validate.ids(ids, len(self))
        if arr.ndim != 1:
            raise ValueError(f"decode takes a 1-D sequence of ids, got shape {arr.shape}")
        return [self.tokens[i] for i in arr]

    def describe(self) -> Dict[str, object]:
        """The vocabulary's part of a provenance record: size, order, minimum count, unknown-item policy."""
        order = {
            "count": "by count, descending; ties by token",
            "alphabetical": "alphabetical (code-point order)",
            "given": "as given",
        }[self.order]
        if self.unknown == "map":
            unk = f"map to {self.unknown_token!r} (id {self._index[self.unknown_token]})"
        else:
            unk = {"error": "error (no unknown row)", "skip": "skip (dropped, no unknown row)"}[self.unknown]
        return {"vocabulary_size": len(self), "vocabulary_order": order, "min_count": self.min_count, "unknown_policy": unk}


class UnknownTokenError(KeyError, ValueError):
    """A token with no row under the ``"error"`` policy; a ``KeyError`` and a ``ValueError`` alike."""

    def __str__(self) -> str:  # KeyError would show the message with quotes around it
        return str(self.args[0]) if self.args else ""


def token_index(vocab) -> Dict[str, int]:
    """``{token: row}`` of a :class:`Vocabulary` or of a sequence of tokens (the rows of a table, in order).

    Raises ``TypeError`` for a single string or a non-string token and ``ValueError`` for a token that
    appears twice.

    >>> token_index(["cat", "dog"])
    {'cat': 0, 'dog': 1}
    """
    if isinstance(vocab, Vocabulary):
        return vocab.index
    if isinstance(vocab, (str, bytes)):
        raise TypeError("vocab must be a Vocabulary or a sequence of tokens, got a single string")
    index: Dict[str, int] = {}
    for i, tok in enumerate(validate.collection(vocab, "vocab", "a Vocabulary or a sequence of tokens")):
        if not isinstance(tok, str):
            raise TypeError(f"vocabulary tokens must be str, got {tok!r}")
        if tok in index:
            raise ValueError(f"token {tok!r} appears twice in the vocabulary")
        index[tok] = i
    return index


# --- context windows ---------------------------------------------------------------------------------


def _as_id_sentences(sentences, vocab_size: int | None) -> List[np.ndarray]:
    if isinstance(sentences, np.ndarray) and sentences.ndim == 1:
        raise TypeError("sentences must be a sequence of id sequences; wrap a single sentence in a list")
    out = []
    for k, s in enumerate(validate.collection(sentences, "sentences", "a sequence of id sequences")):
        try:
            arr = np.asarray(validate.array_input(s, f"sentence {k}"))
        except ValueError:  # a ragged nesting such as [[0, 1], [2]]
            raise ValueError(f"sentence {k} must be a 1-D sequence of ids, got rows of different lengths") from None
        if arr.size == 0:
            out.append(np.zeros(0, dtype=np.int64))
            continue
        if arr.ndim != 1:
            raise ValueError(f"sentence {k} must be a 1-D sequence of ids, got shape {arr.shape}")
        if vocab_size is None:
            if not validate.integer_dtype(arr.dtype):
                raise TypeError(f"sentence {k} must hold integer ids, got dtype {arr.dtype}; encode it with a Vocabulary")
            if (arr < 0).any():
                raise ValueError(f"sentence {k} holds a negative id {int(arr[arr < 0][0])}")
            if (arr > np.iinfo(np.int64).max).any():  # before the cast: a uint64 id must not wrap around
                raise ValueError(f"sentence {k} holds an id above 2**63 - 1: {int(arr.max())}")
            arr = arr.astype(np.int64)
        else:
            arr = validate.ids(arr, vocab_size)
        out.append(arr)
    return out


def context_pairs(
    sentences,
    window: int | None = None,
    *,
    symmetric: bool = True,
    vocab_size: int | None = None,
    return_distance: bool = False,
):
    """(centre, context) id pairs from encoded sentences: ``(n, 2) int64``, centre in column 0.

    ``sentences`` is a sequence of 1-D integer id arrays (see :meth:`Vocabulary.encode_sentences`);
    pairs never cross a sentence boundary. ``window=None`` pairs every position with every other
    position of its sentence (as in the textbook chapter *Embeddings*); ``window=w`` with the positions at distance
    ``1..w``. ``symmetric=True`` takes context on both sides; ``symmetric=False`` only the positions
    *after* the centre, so that the pairs of ``symmetric=True`` are those of ``symmetric=False`` plus
    their reversals. Order: sentence by sentence, centre position ascending, then context position
    ascending (the nested loop ``for i: for j != i``), so the result is deterministic.

    With ``return_distance=True`` also returns ``(n,) int64`` distances ``|i - j|`` (>= 1), used for
    distance weighting. ``vocab_size`` (optional) validates every id against ``[0, vocab_size)``.

    Cost is ``O(L · w)`` per sentence of length ``L`` (``O(L²)`` for the whole sentence). Raises
    ``ValueError`` for ``window < 1``, a non-1-D sentence or an id out of range; ``TypeError`` for
    non-integer ids, or a ``symmetric`` or ``return_distance`` that is not ``True`` or ``False``.

    >>> # (centre, context), within the sentence
    >>> context_pairs([[7, 8, 9]], window=1, vocab_size=10)
    array([[7, 8],
           [8, 7],
           [8, 9],
           [9, 8]])
    """
    window = validate.window(window)
    symmetric = validate.flag(symmetric, "symmetric")
    return_distance = validate.flag(return_distance, "return_distance")
    return _pairs(_as_id_sentences(sentences, vocab_size), window, symmetric, return_distance)


def _pairs(sents, window, symmetric, return_distance):
    """:func:`context_pairs` on checked id arrays and a checked window (the shared core)."""
    pieces, dists = [], []
    for s in sents:
        n = s.shape[0]
        if n < 2:
            continue
        w = n - 1 if window is None else min(window, n - 1)
        offsets = np.arange(1, w + 1) if not symmetric else np.concatenate([np.arange(-w, 0), np.arange(1, w + 1)])
        centre = np.arange(n)[:, None]
        ctx = centre + offsets[None, :]  # (n, len(offsets)), rows ascending in context position
        valid = (ctx >= 0) & (ctx < n)
        ci = np.broadcast_to(centre, ctx.shape)[valid]  # boolean indexing keeps row-major order
        cj = ctx[valid]
        pieces.append(np.stack([s[ci], s[cj]], axis=1))
        dists.append(np.abs(cj - ci))
    if pieces:
        pairs = np.concatenate(pieces).astype(np.int64)
        dist = np.concatenate(dists).astype(np.int64)
    else:
        pairs = np.zeros((0, 2), dtype=np.int64)
        dist = np.zeros(0, dtype=np.int64)
    return (pairs, dist) if return_distance else pairs


#: what one sequence of a corpus is, for :func:`describe_context`: no window reaches across it
CONTEXT_UNITS = ("sentence", "document")
#: the distance weightings of the co-occurrence counts (:func:`lib.ppmi.cooccurrence`); ``None``: none
WEIGHTINGS = (None, "harmonic", "linear")


def describe_context(
    window: Optional[int],
    symmetric: bool = True,
    *,
    unit: str = "sentence",
    dynamic: bool = False,
    weighting: Optional[str] = None,
) -> str:
    """The one description, in words, of a context window, for provenance records.

    ``window`` and ``symmetric`` as in :func:`context_pairs`; ``unit``: what a sequence of the corpus is
    (``"sentence"`` or ``"document"``), across which no window reaches; ``dynamic``: word2vec's window
    that shrinks at random per centre word (:mod:`lib.sgns`, gensim), for a symmetric integer window
    only; ``weighting``: a distance weighting of the counts (:func:`lib.ppmi.cooccurrence`). Raises
    ``ValueError`` for a bad window, a dynamic window that is one-sided or the whole sentence, a ``unit``
    not in ``CONTEXT_UNITS`` or a ``weighting`` not in ``WEIGHTINGS`` (``None``, ``"harmonic"``,
    ``"linear"``); ``TypeError`` for a ``symmetric`` or ``dynamic`` that is not ``True`` or ``False``.

    >>> describe_context(2)
    '±2 positions within the sentence'
    >>> describe_context(5, unit="document", dynamic=True)
    'dynamic window ±5 within the document'
    >>> describe_context(None, weighting="harmonic")
    'every other word of the sentence, harmonic distance weighting'
    """
    window = validate.window(window)
    symmetric, dynamic = validate.flag(symmetric, "symmetric"), validate.flag(dynamic, "dynamic")
    validate.choice(unit, "unit", CONTEXT_UNITS)
    validate.choice(weighting, "weighting", WEIGHTINGS)
    if dynamic and (window is None or not symmetric):
        raise ValueError("a dynamic window needs an integer window on both sides of the centre")
    if window is None:
        text = f"every other word of the {unit}" + ("" if symmetric else " that follows the centre")
    elif dynamic:
        text = f"dynamic window ±{window} within the {unit}"
    elif symmetric:
        text = f"±{window} positions within the {unit}"
    else:
        text = f"the {window} following positions within the {unit}"
    return text if weighting is None else f"{text}, {weighting} distance weighting"


# --- subsampling of frequent words --------------------------------------------------------------------

SUBSAMPLING_FORMULAS = ("paper", "word2vec")


def keep_probability(counts, t: float = 1e-5, *, formula: str = "paper") -> np.ndarray:
    """Probability of keeping each occurrence of an item under frequent-word subsampling, ``(V,) float64``.

    With relative frequency ``f = count / sum(counts)`` and threshold ``t``, each occurrence is discarded with probability
    ``1 - sqrt(t / f)`` :cite:p:`mikolov2013negative{§2.3, equation 5}`:

    - ``formula="paper"``: ``keep = min(1, sqrt(t / f))``;
    - ``formula="word2vec"``: ``keep = min(1, (sqrt(f / t) + 1) · t / f)``, the C tool's variant, which
      keeps more (an item with ``f = t`` is always kept).

    Items with a zero count get probability 1 (they never occur). Exact at every scale of ``t`` and the
    counts: where ``t / f`` leaves float64's range (``t = 1e-320``, ``t = 1e300``), ``sqrt(t / f)`` is taken
    as ``sqrt(t) / sqrt(f)``, so that nothing overflows or rounds to 0 first. Raises ``ValueError`` for
    ``t`` not finite and positive, an unknown formula, and counts as :func:`check_counts` (negative, all
    zero, another shape); ``TypeError`` for non-integer counts (bools too).

    >>> # f = 0.01 and 0.99: keep min(1, sqrt(t / f))
    >>> keep_probability([1, 99], t=0.01)
    array([1.    , 0.1005])
    """
    cnt = check_counts(counts)
    t = validate.number(t, "subsampling threshold t", gt=0)
    validate.choice(formula, "formula", SUBSAMPLING_FORMULAS)
    total = cnt.sum(dtype=np.float64)  # a float sum: int64 counts near 2**62 would overflow
    f = cnt / total
    keep = np.ones_like(f)
    seen = f > 0
    f = f[seen]
    with np.errstate(over="ignore", under="ignore"):
        ratio = t / f  # inf for a huge t (keep 1), subnormal or 0 for a tiny one
        if formula == "paper":
            keep[seen] = np.sqrt(ratio)
        else:
            keep[seen] = (np.sqrt(f / t) + 1.0) * t / f  # as written, so that every in-range value is unchanged
        # where t / f leaves float64's normal range, sqrt(t / f) as sqrt(t) / sqrt(f), which stays in it
        # (word2vec's form is sqrt(t / f) + t / f): t = 1e-320 keeps an item of f = 0.5 with 1.4e-160, not 1
        odd = ~((ratio >= np.finfo(np.float64).tiny) & (ratio <= np.finfo(np.float64).max))
        root = np.sqrt(t) / np.sqrt(f[odd])
        keep[np.flatnonzero(seen)[odd]] = root if formula == "paper" else root + root * root
    return np.minimum(keep, 1.0)


def subsample(sentences, counts, t: float = 1e-5, *, seed=0, formula: str = "paper") -> List[np.ndarray]:
    """Drop occurrences of frequent items at random: a new list of ``(n_s',) int64`` id arrays.

    Each occurrence of item ``i`` is kept independently with probability ``keep_probability(counts, t)[i]``
    :cite:p:`mikolov2013negative{§2.3}`. Apply it before :func:`context_pairs`, as word2vec does, so that the
    remaining words move closer together. ``seed`` is an ``int`` or a ``numpy.random.Generator``; the
    global NumPy state is never used. ``counts`` is ``(V,)`` and every id must lie in ``[0, V)``.
    Raises like :func:`keep_probability` and ``ValueError`` for ids out of range.

    >>> # both items far above t: almost all dropped
    >>> subsample([[0, 1, 0, 1]], [1, 1000], t=1e-9, seed=0)
    [array([], dtype=int64)]
    """
    keep = keep_probability(counts, t, formula=formula)
    rng = validate.rng(seed)
    sents = _as_id_sentences(sentences, keep.shape[0])
    out = []
    for s in sents:
        u = rng.random(s.shape[0])
        out.append(s[u < keep[s]])
    return out


def check_counts(counts) -> np.ndarray:
    """``counts``, a count per item, as a ``(V,) int64`` array after checking that it is a non-empty 1-D array
    of integers in ``0 .. 2**63 - 1``, not all zero: the rule of every function that takes token counts
    (:func:`keep_probability`, :func:`subsample`, :func:`lib.sgns.train_sgns`). ``TypeError`` for entries
    that are not integers (floats, and bools: ``[True, False]`` is a mask, not counts) and ``ValueError``
    for another shape, a ragged nesting, a negative count or counts that are all zero.

    >>> check_counts([3, 0, 2])
    array([3, 0, 2])
    >>> check_counts([True, False])
    Traceback (most recent call last):
    ...
    TypeError: counts must be integers, got dtype bool
    """
    cnt = validate.integer_array(counts, "counts", "a non-empty 1-D array of counts")
    if cnt.ndim != 1 or cnt.shape[0] < 1:
        raise ValueError(f"counts must be a non-empty 1-D array, got shape {cnt.shape}")
    cnt = _counts_in_range(cnt)
    if not cnt.any():  # not cnt.sum() == 0: int64 counts such as [2**62] * 4 sum to 0
        raise ValueError("counts must not all be zero")
    return cnt


def _counts_in_range(cnt: np.ndarray) -> np.ndarray:
    """``cnt`` (integer dtype) as int64, after checking every count lies in ``0 .. 2**63 - 1``: a uint64
    count of 2**63 or more would wrap around to a negative int64."""
    if (cnt < 0).any():
        raise ValueError("counts must be >= 0")
    return validate.within_int64(cnt, "counts").astype(np.int64)


def token_counts(sentences, vocab_size: int) -> np.ndarray:
    """Occurrences of each id in encoded ``sentences``: ``(vocab_size,) int64``; ``ValueError`` for bad ids.

    >>> token_counts([[0, 2, 2], [2]], 4)
    array([1, 0, 3, 0])
    """
    vocab_size = validate.size(vocab_size, "vocab_size")
    sents = _as_id_sentences(sentences, vocab_size)
    flat = np.concatenate(sents) if sents else np.zeros(0, dtype=np.int64)
    return np.bincount(flat, minlength=vocab_size).astype(np.int64)


__all__ = [
    "MOJIBAKE_BYTE_ORDER_MARK",
    "TOKEN_PATTERN",
    "UnknownTokenError",
    "Vocabulary",
    "check_counts",
    "check_sentences",
    "context_pairs",
    "corpus_fraction",
    "corpus_hash",
    "describe_context",
    "fold",
    "hidden_character",
    "keep_probability",
    "repeat_corpus",
    "stray_byte_order_mark",
    "subsample",
    "token_counts",
    "token_index",
    "tokenize",
]
