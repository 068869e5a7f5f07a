"""Byte-level byte-pair encoding (BPE): where a language model's token ids come from.

Taught in: chapters/tokenization.md.

What it follows:

- :cite:t:`sennrich2016neural`, "Neural Machine Translation of Rare Words with Subword Units", §3.2
  and Algorithm 1: start from single symbols, count every pair of adjacent symbols over a dictionary of
  words weighted by their frequency, replace the most frequent pair everywhere by a new symbol, and repeat
  for a chosen number of merges. Pairs never cross a word boundary.
- GPT-2 as :cite:t:`radford2019language` describe it in "Language Models are Unsupervised Multitask Learners",
  §2.2: the starting symbols are the 256 byte values of the UTF-8 encoding, so that every string has an
  encoding and no token is ever unknown; the text is first split into chunks by a regular expression (runs of letters,
  runs of digits, runs of other symbols, whitespace, English contractions), and merges stay inside a chunk,
  so that a word never merges with the punctuation after it. A space stays at the front of the word it
  precedes (``" the"`` is one chunk).
- **karpathy's minbpe** for the shape of the code: :func:`train`, and a tokenizer (:class:`BPE`) with
  ``encode`` and ``decode``, built on two small data-to-data steps, :func:`count_pairs` and :func:`merge`.

Ids: 0–255 are the bytes; the ``k``-th merge (counting from 0) creates id ``256 + k``. A vocabulary of
``V`` tokens is therefore the 256 bytes plus the first ``V - 256`` merges, and the merges of a smaller
vocabulary are a prefix of those of a larger one trained on the same text (:meth:`BPE.truncate`): training
is greedy, so stopping earlier gives the same first merges.

**Tie rule** (deterministic, documented because counts tie often on small corpora): among the pairs with
the largest count, the pair ``(a, b)`` with the smallest ``(rank(a), rank(b))`` is merged, comparing
``rank(a)`` first. A merged token's rank is its id; a byte's rank is its position in ``byte_order``,
by default its value (so ``(97, 98)``, "ab", goes before ``(97, 99)``, "ac", and before ``(256, 97)``). The
rank never depends on the order of the documents or on Python's hash seed. Hugging Face ``tokenizers``
breaks ties the same way on its own ids, which number the bytes in a different order (see
chapters/tokenization.md); passing that order as ``byte_order`` reproduces its merges.

Where this departs from the sources:

- **Incremental pair counts.** Algorithm 1 of Sennrich et al. recounts every pair after each merge. Here the
  counts are updated only for the words that contain the merged pair, and the largest count is found with a
  heap whose stale entries are skipped. The merges are the same; only the time differs.
- **The split pattern** is GPT-2's, rewritten for Python's ``re``, which has no ``\\p{L}`` (letter) or
  ``\\p{N}`` (number) class: letters are ``[^\\W\\d_]``, digits ``\\d``, and the underscore goes with the
  other symbols as in GPT-2. The two split ASCII text identically; elsewhere they can differ (GPT-2 treats
  ``²`` and ``Ⅻ`` as numbers, this pattern as letters). ``pattern=None`` splits nothing.
- **Tokens are bytes.** GPT-2 stores its vocabulary as text by mapping each byte to a printable character
  (``bytes_to_unicode`` in its ``encoder.py``); here a token is a ``bytes`` object.
- **No special tokens** (GPT-2's ``<|endoftext|>``) and no training across chunk boundaries.
- **Training stops early** when no pair is left to merge (every chunk of the text has become one token); the
  vocabulary is then smaller than asked, and :attr:`BPE.vocab_size` says so.
- **Encoding remembers** the ids of every chunk it has encoded (as GPT-2's ``encoder.py`` does), so a
  repeated word costs one dictionary lookup.
"""

from __future__ import annotations

import heapq
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Sequence, Tuple

import numpy as np

from lib import validate

#: Number of byte tokens, ids 0..255: every vocabulary starts with them.
N_BYTES = 256

#: GPT-2's split pattern :cite:p:`radford2019language{encoder.py}` for Python's ``re``: contractions, an
#: optional space and a run of letters, of digits or of other symbols, then whitespace.
GPT2_SPLIT_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?[^\W\d_]+| ?\d+| ?(?:[^\s\w]|_)+|\s+(?!\S)|\s+"""

Pair = Tuple[int, int]


# --- the two steps -------------------------------------------------------------------------------------


def count_pairs(ids: Sequence[int], counts: Dict[Pair, int] | None = None, weight: int = 1) -> Dict[Pair, int]:
    """Count each pair of adjacent ids: ``{(a, b): count}``, added into ``counts`` when given.

    Every position counts, overlapping ones too (``[1, 1, 1]`` holds the pair ``(1, 1)`` twice), each
    occurrence adding ``weight`` (the number of times the word occurs). Returns the dict. Raises
    ``TypeError`` for ids or a ``weight`` that are not integers (NumPy integers are taken as Python
    ``int``, so a count can never wrap around) or ``counts`` that is not a dict, and ``ValueError`` for a
    negative id or a ``weight < 1``.

    >>> count_pairs([97, 97, 97, 98])
    {(97, 97): 2, (97, 98): 1}
    """
    ids = validate.integers(ids, "ids", low=0)
    weight = validate.integer(weight, "weight", low=1, hint="the number of times the word occurs")
    if counts is not None and not isinstance(counts, dict):
        raise TypeError(f"counts must be a dict {{(a, b): count}} or None, got {type(counts).__name__}")
    return _count_pairs(ids, {} if counts is None else counts, weight)


def _count_pairs(ids, counts: Dict[Pair, int], weight: int) -> Dict[Pair, int]:
    """:func:`count_pairs` on checked arguments (the training loop's)."""
    for pair in zip(ids, ids[1:]):
        counts[pair] = counts.get(pair, 0) + weight
    return counts


def merge(ids: Sequence[int], pair: Pair, new_id: int) -> List[int]:
    """Replace every occurrence of ``pair`` in ``ids`` by ``new_id``, scanning left to right.

    Occurrences do not overlap: in ``[1, 1, 1]`` the pair ``(1, 1)`` is replaced once, at the left.
    Returns a new list of ints. Raises ``TypeError`` for ids, a ``pair`` of two ids or a ``new_id`` that
    are not integers, and ``ValueError`` for a negative id, or a ``new_id`` that already occurs in ``ids``
    or in ``pair`` (the merged token could not be told from it).

    >>> merge([97, 97, 97, 98], (97, 97), 256)
    [256, 97, 98]
    """
    ids = validate.integers(ids, "ids", low=0)
    pair = validate.integers(pair, "pair", low=0)
    if len(pair) != 2:
        raise ValueError(f"pair must be two ids (a, b), got {len(pair)}")
    new_id = validate.integer(new_id, "new_id", low=0)
    if new_id in pair or new_id in ids:
        raise ValueError(f"new_id {new_id} already occurs in ids or pair: the merged token must have an id of its own")
    return _merge(ids, tuple(pair), new_id)


def _merge(ids, pair: Pair, new_id: int) -> List[int]:
    """:func:`merge` on checked arguments (the tokenizer's and the training loop's)."""
    out, i, n = [], 0, len(ids)
    a, b = pair
    while i < n:
        if i + 1 < n and ids[i] == a and ids[i + 1] == b:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def split(text: str, pattern: str | None = GPT2_SPLIT_PATTERN) -> List[str]:
    """Split ``text`` into the chunks that merges stay inside (pre-tokenisation); ``"".join`` of the
    chunks is ``text``. ``pattern=None`` keeps the whole text as one chunk (none for ``""``).

    Raises ``TypeError`` for a non-string and ``ValueError`` when ``pattern`` does not cover every
    character of ``text`` (a pattern that drops characters would make decoding lose them).

    >>> split("The cat's 2 mats!")
    ['The', ' cat', "'s", ' 2', ' mats', '!']
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if pattern is None:
        return [text] if text else []
    chunks = _compiled(pattern).findall(text)
    if sum(map(len, chunks)) != len(text):
        raise ValueError(f"pattern {pattern!r} does not match every character of the text, so decoding would lose some")
    return chunks


_PATTERNS: Dict[str, "re.Pattern[str]"] = {}


def _compiled(pattern: str) -> "re.Pattern[str]":
    if not isinstance(pattern, str):
        raise TypeError(f"pattern must be a regular expression (str) or None, got {type(pattern).__name__}")
    if pattern not in _PATTERNS:
        try:
            compiled = re.compile(pattern)
        except re.error as err:
            raise ValueError(f"pattern {pattern!r} is not a valid regular expression: {err}") from None
        if compiled.groups:
            raise ValueError(f"pattern {pattern!r} has capturing groups; use (?:...) so that findall returns whole matches")
        _PATTERNS[pattern] = compiled
    return _PATTERNS[pattern]


def _utf8(text: str, name: str = "text") -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as err:
        bad = text[err.start]
        raise ValueError(
            f"{name} holds a lone surrogate U+{ord(bad):04X} at index {err.start}, which has no UTF-8 encoding"
        ) from None


# --- the tokenizer -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BPE:
    """A trained byte-level BPE tokenizer: ``merges`` in the order they were learned, the split
    ``pattern`` (``None``: no split), and the ``counts`` of each merged pair when it was merged (from
    :func:`train`; empty for merges given by hand).

    The vocabulary has :attr:`BPE.vocab_size` ``= 256 + len(merges)`` tokens; token ``256 + k`` is the
    concatenation of the two tokens of ``merges[k]``, each of which has a smaller id. Raises ``ValueError``
    when a merge names an id that does not exist yet, or when ``counts`` does not match ``merges`` or holds
    a negative count; ``TypeError`` for a count that is not an integer.
    """

    merges: Tuple[Pair, ...] = field(repr=False)
    pattern: str | None = GPT2_SPLIT_PATTERN
    counts: Tuple[int, ...] = field(default=(), repr=False)
    _vocab: Tuple[bytes, ...] = field(init=False, repr=False, compare=False)
    _ranks: Dict[Pair, int] = field(init=False, repr=False, compare=False)
    _cache: Dict[bytes, Tuple[int, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        merges = tuple(tuple(validate.integers(pair, f"merges[{k}]", low=0)) for k, pair in enumerate(self.merges))
        for k, pair in enumerate(merges):
            if len(pair) != 2:
                raise ValueError(f"merges[{k}] must be a pair of token ids, got {pair}")
        vocab = [bytes([i]) for i in range(N_BYTES)]
        for k, (a, b) in enumerate(merges):
            if not (0 <= a < N_BYTES + k and 0 <= b < N_BYTES + k):
                raise ValueError(f"merges[{k}] = {(a, b)} names an id outside 0..{N_BYTES + k - 1}, the tokens that exist before it")
            vocab.append(vocab[a] + vocab[b])
        counts = tuple(validate.integers(self.counts, "counts", low=0))  # 2.7 is not a count: no silent int()
        if counts and len(counts) != len(merges):
            raise ValueError(f"counts has {len(counts)} entries for {len(merges)} merges")
        if self.pattern is not None:
            _compiled(self.pattern)
        object.__setattr__(self, "merges", merges)
        object.__setattr__(self, "counts", counts)
        object.__setattr__(self, "_vocab", tuple(vocab))
        object.__setattr__(self, "_ranks", {pair: N_BYTES + k for k, pair in enumerate(merges)})
        object.__setattr__(self, "_cache", {})

    def __repr__(self) -> str:
        return f"BPE(vocab_size={self.vocab_size}, merges={len(self.merges)}, pattern={'GPT-2' if self.pattern == GPT2_SPLIT_PATTERN else self.pattern!r})"

    @property
    def vocab_size(self) -> int:
        """Number of tokens: 256 bytes plus one per merge."""
        return N_BYTES + len(self.merges)

    @property
    def vocab(self) -> Tuple[bytes, ...]:
        """The tokens by id: ``vocab[i]`` is the ``bytes`` that id ``i`` stands for."""
        return self._vocab

    def token_text(self, i: int) -> str:
        """Token ``i`` as text for display: its UTF-8 characters, with ``\\xNN`` for bytes that are part of a
        character split across tokens. Raises ``ValueError`` for an id outside ``[0, vocab_size)``."""
        i = validate.one_id(i, self.vocab_size)
        return self._vocab[i].decode("utf-8", errors="backslashreplace")

    def encode_bytes(self, data: bytes) -> List[int]:
        """Ids of one chunk of bytes, merged by rank: repeatedly replace the adjacent pair that was merged
        earliest in training, until no adjacent pair is a merge. No split: the bytes are one chunk. Raises
        ``TypeError`` unless ``data`` is ``bytes``.

        Applying merges by rank gives the same ids as applying them in training order, because a pair can
        only involve tokens made before it.

        >>> BPE(merges=((97, 97), (256, 98))).encode_bytes(b"aaba")
        [257, 97]
        """
        if not isinstance(data, (bytes, bytearray)):
            raise TypeError(f"data must be bytes, got {type(data).__name__}")
        data = bytes(data)
        hit = self._cache.get(data)
        if hit is not None:
            return list(hit)
        ids = list(data)
        ranks = self._ranks
        while len(ids) >= 2:
            pair = min(zip(ids, ids[1:]), key=lambda p: ranks.get(p, np.inf))  # earliest merge present
            if pair not in ranks:
                break  # no adjacent pair was ever merged
            ids = _merge(ids, pair, ranks[pair])
        self._cache[data] = tuple(ids)
        return ids

    def encode(self, text: str) -> List[int]:
        """Token ids of ``text``: split it (:func:`split` with the tokenizer's pattern), encode each chunk's
        UTF-8 bytes (:meth:`encode_bytes`) and concatenate. ``""`` gives ``[]``. Raises ``TypeError`` for a
        non-string and ``ValueError`` for a lone surrogate (a ``str`` that has no UTF-8 encoding).

        >>> tok = train(["low lower lowest"], 260)
        >>> tok.encode("lowly")
        [257, 108, 121]
        """
        chunks = split(text, self.pattern)
        _utf8(text)  # a clear error for a lone surrogate, with its index in the text
        return [i for chunk in chunks for i in self.encode_bytes(chunk.encode("utf-8"))]

    def decode_bytes(self, ids) -> bytes:
        """The bytes that ``ids`` stand for, concatenated. Raises ``TypeError`` for non-integer ids and
        ``ValueError`` for an id outside ``[0, vocab_size)``."""
        return b"".join(self._vocab[i] for i in _check_id_list(ids, self.vocab_size))

    def decode(self, ids) -> str:
        """Text of ``ids``: :meth:`decode_bytes`, read as UTF-8. ``decode(encode(text)) == text`` for every
        string that has a UTF-8 encoding. A sequence of ids that ends inside a multi-byte character (which
        :meth:`encode` never produces) is decoded with U+FFFD for the broken bytes, as minbpe does.

        >>> tok = train(["low lower lowest"], 260)
        >>> tok.decode([257, 108, 121])
        'lowly'
        """
        return self.decode_bytes(ids).decode("utf-8", errors="replace")

    def truncate(self, vocab_size: int) -> "BPE":
        """The tokenizer with the first ``vocab_size - 256`` merges only: the one that training on the same
        text with this ``vocab_size`` gives. Raises ``ValueError`` unless ``256 <= vocab_size <=``
        :attr:`BPE.vocab_size`."""
        vocab_size = _check_vocab_size(vocab_size, upper=self.vocab_size)
        n = vocab_size - N_BYTES
        return BPE(self.merges[:n], self.pattern, self.counts[:n] if self.counts else ())


def _check_vocab_size(vocab_size, upper: int | None = None) -> int:
    hint = "the byte tokens" if upper is None else ""
    return validate.integer(vocab_size, "vocab_size", low=N_BYTES, high=upper, hint=hint)


def _check_id_list(ids, vocab_size: int) -> List[int]:
    arr = validate.ids(ids, vocab_size)
    if arr.ndim != 1:
        raise ValueError(f"ids must be a 1-D sequence of token ids, got shape {arr.shape}")
    return arr.tolist()


def _check_byte_order(byte_order) -> List[int]:
    if byte_order is None:
        return list(range(N_BYTES))
    order = validate.integers(byte_order, "byte_order", low=0)
    if sorted(order) != list(range(N_BYTES)):
        raise ValueError("byte_order must list each of the 256 byte values 0..255 exactly once")
    return order


# --- training ------------------------------------------------------------------------------------------


def chunk_counts(texts: Iterable[str] | str, pattern: str | None = GPT2_SPLIT_PATTERN) -> Dict[bytes, int]:
    """How often each chunk occurs in ``texts`` (a string or an iterable of documents): ``{UTF-8 bytes:
    count}`` in order of first occurrence. This is the "dictionary of words weighted by frequency" that
    Sennrich et al.'s Algorithm 1 merges in. Raises like :func:`split`.

    >>> chunk_counts(["the cat", "the hat"])
    {b'the': 2, b' cat': 1, b' hat': 1}
    """
    if isinstance(texts, str):
        texts = [texts]
    counts: Dict[bytes, int] = {}
    for k, text in enumerate(validate.collection(texts, "texts", "a str or a sequence of str documents")):
        if not isinstance(text, str):
            raise TypeError(f"texts[{k}] must be a str, got {type(text).__name__}")
        chunks = split(text, pattern)
        _utf8(text, f"texts[{k}]")  # a clear error for a lone surrogate, with its index in the text
        for chunk in chunks:
            key = chunk.encode("utf-8")
            counts[key] = counts.get(key, 0) + 1
    return counts


def train(
    texts: Iterable[str] | str,
    vocab_size: int,
    *,
    pattern: str | None = GPT2_SPLIT_PATTERN,
    byte_order: Sequence[int] | None = None,
) -> BPE:
    """Learn ``vocab_size - 256`` merges from ``texts`` (a string, or an iterable of documents whose chunks
    are pooled) and return the :class:`BPE` tokenizer.

    Each step merges the most frequent adjacent pair over all chunks, each chunk weighted by how often it
    occurs (:func:`chunk_counts`), with the tie rule of the module notes (``byte_order``: a permutation of
    0..255 that ranks the bytes for ties; default their values). Stops early, with a smaller vocabulary, when
    no adjacent pair is left. The merged pair's count at each step is kept in ``BPE.counts``.

    Raises ``TypeError`` for a non-integer ``vocab_size`` or non-string documents; ``ValueError`` for
    ``vocab_size < 256``, a text with no characters at all (nothing to learn from), a lone surrogate, or a
    ``byte_order`` that is not a permutation of 0..255.

    The classic example (Wikipedia's "Byte pair encoding"): ``aa`` is merged first (count 4, overlapping
    occurrences included); then ``Z a`` and ``a b`` tie at 2, and the tie rule takes ``(97, 98)`` over
    ``(256, 97)``; then ``Z Y``.

    >>> tok = train("aaabdaaabac", 259, pattern=None)
    >>> tok.merges, tok.counts
    (((97, 97), (97, 98), (256, 257)), (4, 2, 2))
    >>> [tok.vocab[i] for i in tok.encode("aaabdaaabac")]
    [b'aaab', b'd', b'aaab', b'a', b'c']
    """
    vocab_size = _check_vocab_size(vocab_size)
    rank = [0] * N_BYTES  # rank[b]: the position of byte b in byte_order, for ties
    for position, b in enumerate(_check_byte_order(byte_order)):
        rank[b] = position
    weighted = chunk_counts(texts, pattern)
    if not weighted:
        raise ValueError("the training text is empty: BPE needs at least one character to learn from")

    words = [list(chunk) for chunk in weighted]  # each distinct chunk as a list of ids
    freq = list(weighted.values())
    pair_counts: Dict[Pair, int] = {}
    where: Dict[Pair, set] = defaultdict(set)  # pair -> the words that (may) contain it
    for i, w in enumerate(words):
        _count_pairs(w, pair_counts, freq[i])
        for pair in zip(w, w[1:]):
            where[pair].add(i)
    # max-heap by count via negated counts; ties by rank; entries whose count is out of date are skipped
    heap = [(-c, rank[a], rank[b], a, b) for (a, b), c in pair_counts.items()]
    heapq.heapify(heap)

    merges: List[Pair] = []
    counts: List[int] = []
    while len(merges) < vocab_size - N_BYTES and heap:
        neg, _, _, a, b = heapq.heappop(heap)
        if pair_counts.get((a, b)) != -neg:
            continue  # stale: the pair's count changed after this entry was pushed
        new_id = N_BYTES + len(merges)
        rank.append(new_id)  # a merged token ranks after every byte, in order of creation
        merges.append((a, b))
        counts.append(-neg)
        delta: Counter = Counter()
        for i in where.pop((a, b)):
            old = words[i]
            new = _merge(old, (a, b), new_id)
            if len(new) == len(old):
                continue  # an earlier merge already took this word's occurrences
            for pair in zip(old, old[1:]):
                delta[pair] -= freq[i]
            for pair in zip(new, new[1:]):
                delta[pair] += freq[i]
                where[pair].add(i)
            words[i] = new
        for pair, d in delta.items():
            if d == 0:
                continue
            c = pair_counts.get(pair, 0) + d
            if c > 0:
                pair_counts[pair] = c
                heapq.heappush(heap, (-c, rank[pair[0]], rank[pair[1]], pair[0], pair[1]))
            else:
                del pair_counts[pair]
    return BPE(tuple(merges), pattern, tuple(counts))


__all__ = [
    "BPE",
    "GPT2_SPLIT_PATTERN",
    "N_BYTES",
    "chunk_counts",
    "count_pairs",
    "merge",
    "split",
    "train",
]
