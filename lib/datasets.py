"""The data sets the book reads, found in a pinned package, described, and identified by their hashes.

Taught in: chapters/real_text.md ("The data ships with gensim").

Follows the practice of data cards and datasheets :cite:p:`gebru2021datasheets` in the small: every file the
book reads has a title, what it holds, the source to cite and its licence as far as it is known
(:data:`DATA_FILES`), and every provenance record names the exact bytes by their SHA-256
(:func:`dataset_hashes`, :func:`provenance_extra`). Departure: the files are not downloaded; they arrive
with gensim's wheel (pinned ``gensim==4.4.0`` in ``requirements.txt``) as its test data in
``gensim/test/test_data/``, so that nothing is fetched at run time:

- ``lee_background.cor``: the Lee background corpus, 300 short news documents (one per line, about
  60 000 words) from the Australian Broadcasting Corporation's news mail service, around 2000–2001,
  collected by :cite:t:`lee2005empirical` and given to gensim by M. D. Lee;
- ``wordsim353.tsv``: WordSim-353, 353 word pairs with mean human relatedness scores on 0–10
  :cite:p:`finkelstein2002placing`;
- ``simlex999.txt``: SimLex-999, 999 pairs scored for similarity (not relatedness) on 0–10
  :cite:p:`hill2015simlex`;
- ``questions-words.txt``: the word2vec analogy questions, 19 544 questions in 14 sections
  :cite:p:`mikolov2013efficient{§4.1}`.

This module finds them through the installed package (:func:`data_path`, without importing gensim,
which takes a second), says what is missing and how to get it when they are absent
(:class:`MissingDataError`), hashes them, and reads the corpus as documents (:func:`read_documents`) and
token lists (:func:`load_corpus`, with :func:`lib.corpus.tokenize`). The benchmark files are parsed by
:mod:`lib.evaluation`, which finds them here (:func:`locate`).

Every text file in ``lib`` (the corpus, the benchmark files, trace programs) is read by
:func:`read_text` and split by :func:`text_lines`: UTF-8, or the encoding that a byte-order mark at the
start names (many Windows editors save UTF-8 with the mark ``EF BB BF``, and "Unicode" as UTF-16), the
mark itself removed, so that it never sticks to the first word or command; lines end at ``\\n``,
``\\r\\n`` or ``\\r``, as a text editor counts them.

Licences, as far as they are known (the chapter repeats them): gensim is LGPL-2.1; the Lee corpus is
news text whose copyright stays with its publisher, redistributed in gensim's test data with no
separate licence; WordSim-353 and SimLex-999 are published on their authors' web pages (the header line
of each file names the page), and the copies in gensim carry no licence text; the analogy questions come
with the word2vec tool, released under the Apache License 2.0.
"""

from __future__ import annotations

import codecs
import hashlib
import importlib.util
import os
import re
import unicodedata
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Dict, Iterable, List, Union

from lib import validate
from lib.corpus import MOJIBAKE_BYTE_ORDER_MARK, stray_byte_order_mark, tokenize

GENSIM_PIN = "gensim==4.4.0"


@dataclass(frozen=True)
class DataFile:
    """One shipped data file: its ``filename`` in gensim's test data, a ``title``, what it ``contains``,
    the ``source`` to cite (a key of ``references.bib``) and its ``licence`` as far as it is known."""

    filename: str
    title: str
    contains: str
    source: str
    licence: str


#: The four files chapters/real_text.md uses, a :class:`DataFile` each, by short name: ``"lee"`` (the Lee
#: background corpus, ``lee_background.cor``), ``"wordsim353"`` (WordSim-353, ``wordsim353.tsv``),
#: ``"simlex999"`` (SimLex-999, ``simlex999.txt``) and ``"analogies"`` (the word2vec analogy questions,
#: ``questions-words.txt``), each with its title, contents, source and licence.
#:
#: :meta hide-value:
DATA_FILES: Dict[str, DataFile] = {
    "lee": DataFile(
        "lee_background.cor",
        "Lee background corpus",
        "300 news documents, one per line, from the Australian Broadcasting Corporation's news mail "
        "service (about 2000-2001)",
        "lee2005empirical",
        "news text, copyright of its publisher; redistributed in gensim's test data (gensim: LGPL-2.1) "
        "with no separate licence",
    ),
    "wordsim353": DataFile(
        "wordsim353.tsv",
        "WordSim-353",
        "353 word pairs with mean human relatedness judgements on a 0-10 scale",
        "finkelstein2002placing",
        "published on its authors' web page (named in the file's header); no licence text in the copy",
    ),
    "simlex999": DataFile(
        "simlex999.txt",
        "SimLex-999",
        "999 word pairs with mean human similarity (not relatedness) judgements on a 0-10 scale",
        "hill2015simlex",
        "published on its authors' web page (named in the file's header); no licence text in the copy",
    ),
    "analogies": DataFile(
        "questions-words.txt",
        "word2vec analogy questions",
        "19,544 questions 'a is to b as c is to d' in 14 sections (5 semantic, 9 syntactic)",
        "mikolov2013efficient",
        "from the word2vec tool, released under the Apache License 2.0",
    ),
}


class MissingDataError(FileNotFoundError):
    """A shipped data file (or gensim itself) is not where it should be; the message says how to fix it."""


def _resolve(name: str) -> DataFile:
    if not isinstance(name, str):
        raise TypeError(f"data file name must be a str, got {type(name).__name__}")
    if name in DATA_FILES:
        return DATA_FILES[name]
    for entry in DATA_FILES.values():
        if entry.filename == name:
            return entry
    known = ", ".join(f"{k!r} ({v.filename})" for k, v in DATA_FILES.items())
    raise ValueError(f"unknown data file {name!r}; known: {known}")


def gensim_test_data_dir() -> Path:
    """The folder ``gensim/test/test_data`` of the installed gensim, found without importing gensim.

    Raises :class:`MissingDataError` (a ``FileNotFoundError``) when gensim is not installed or its wheel
    has no test data folder, with the install command in the message.
    """
    spec = importlib.util.find_spec("gensim")
    if spec is None or not spec.submodule_search_locations:
        raise MissingDataError(
            f"gensim is not installed, and the corpus and benchmarks of this chapter ship inside it: "
            f"pip install {GENSIM_PIN}"
        )
    folder = Path(next(iter(spec.submodule_search_locations))) / "test" / "test_data"
    if not folder.is_dir():
        raise MissingDataError(
            f"gensim is installed at {folder.parents[1]} but has no test data folder {folder}; "
            f"reinstall it from the wheel: pip install --force-reinstall {GENSIM_PIN}"
        )
    return folder


def data_path(name: str) -> Path:
    """Path of a shipped data file, by short name (``"lee"``, ``"wordsim353"``, ``"simlex999"``,
    ``"analogies"``) or by file name (``"lee_background.cor"``).

    Raises ``ValueError`` for a name that is not one of :data:`DATA_FILES`, ``TypeError`` for a
    non-string, and :class:`MissingDataError` naming the file and the folder searched when it is absent.
    """
    entry = _resolve(name)
    folder = gensim_test_data_dir()
    path = folder / entry.filename
    if not path.is_file():
        raise MissingDataError(
            f"{entry.title} ({entry.filename}) is missing from {folder}; it ships with gensim's wheel: "
            f"pip install --force-reinstall {GENSIM_PIN}"
        )
    return path


def sha256_file(path) -> str:
    """SHA-256 of a file's bytes, 64 hex digits. Raises ``OSError`` for a file that cannot be opened
    (``FileNotFoundError`` for a missing one, ``IsADirectoryError`` for a folder), ``TypeError`` for a
    ``path`` that is not a ``str`` or a ``Path`` (an int would be taken for a file descriptor) and
    ``ValueError`` for the empty string."""
    digest = hashlib.sha256()
    with open(_checked_path(path), "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def dataset_hashes(names: Iterable[str] = tuple(DATA_FILES)) -> Dict[str, str]:
    """``{file name: SHA-256}`` of the named shipped files (default all four), for provenance records.

    Raises ``TypeError`` naming ``names`` when it is not a collection (one string ``"lee"`` would be read
    letter by letter, ``3`` not at all), and like :func:`data_path` for each name.
    """
    names = validate.collection(names, "names", "a collection of data-file names (e.g. names=['lee'])")
    return {_resolve(n).filename: sha256_file(data_path(n)) for n in names}


def provenance_extra(names: Iterable[str] = tuple(DATA_FILES)) -> Dict[str, str]:
    """Entries for :class:`lib.provenance.Provenance` ``extra``: ``{"data file <name>": "sha256 <hex>"}``
    plus the gensim version the files came from; the 64 hex digits are written in groups of 16, so that a
    table cell can wrap them. Raises like :func:`dataset_hashes`."""
    out = {f"data file {fname}": "sha256 " + " ".join(digest[i:i + 16] for i in range(0, len(digest), 16))
           for fname, digest in dataset_hashes(names).items()}
    out["data files from"] = f"gensim {metadata.version('gensim')} test data"
    return out


def locate(source: Union[str, Path]) -> Path:
    """A path as given, or the shipped file for a short name of :data:`DATA_FILES` (``"wordsim353"``).

    Raises ``TypeError`` for anything but a ``str`` or a ``Path``, ``ValueError`` for the empty string
    (which ``Path`` reads as the current folder), and like :func:`data_path` for a short name whose file is
    missing.
    """
    if isinstance(source, str) and source in DATA_FILES:
        return data_path(source)
    if not isinstance(source, (str, Path)):
        raise TypeError(f"source must be a path or a data-file name, got {type(source).__name__}")
    return _checked_path(source, "source")


#: The byte-order marks :func:`read_text` recognises and the codec each one names (UTF-32 before UTF-16:
#: the UTF-32 little-endian mark begins with the UTF-16 one), as ``(mark, codec)`` pairs: UTF-8 (``utf-8-sig``),
#: UTF-32 little- and big-endian (``utf-32``), UTF-16 little- and big-endian (``utf-16``). Each codec removes
#: its mark.
#:
#: :meta hide-value:
BYTE_ORDER_MARKS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


class NotTextError(UnicodeDecodeError):
    """A file that is not text in the encoding :func:`read_text` reads it in. A ``UnicodeDecodeError`` (so a
    ``ValueError``) whose message names the file, the line and the byte, and says what to do."""

    def __init__(self, codec: str, data: bytes, start: int, reason: str, message: str):
        super().__init__(codec, data, start, start + 1, reason)
        self.message = message

    def __str__(self) -> str:
        return self.message


class StrayMarkError(ValueError):
    """A byte-order mark where no mark belongs (a second one at the start, U+FFFE, or ``ï»¿``), found by
    :func:`read_text`: a ``ValueError`` whose message names the file and the line, with the 1-based ``line``
    and the ``reason`` (the words of :func:`lib.corpus.stray_byte_order_mark`) as attributes, so that a
    reader reports it as it reports the same mark found further on (:func:`lib.trace.run_file`)."""

    def __init__(self, name: str, line: int, reason: str):
        super().__init__(f"{name}, line {line}: {reason}")
        self.line, self.reason = line, reason


#: the codec that encodes text without a mark, byte for byte as after each byte-order mark
_BARE_CODECS = {codecs.BOM_UTF32_LE: "utf-32-le", codecs.BOM_UTF32_BE: "utf-32-be",
                codecs.BOM_UTF16_LE: "utf-16-le", codecs.BOM_UTF16_BE: "utf-16-be"}

#: how :func:`read_text` names an encoding in its messages
_ENCODING_NAMES = {"utf-8": "UTF-8", "utf-8-sig": "UTF-8", "utf-16": "UTF-16", "utf-32": "UTF-32"}


def read_text(path) -> str:
    """The text of the file at ``path``: UTF-8, or the encoding its byte-order mark names, without the mark.

    ``path`` is a ``str`` or a ``Path`` (``TypeError`` otherwise: ``open`` would take an int, or a ``bool``,
    for a file descriptor, such as the process's stdout; ``ValueError`` for the empty string, the current
    folder to ``Path``). Raises ``OSError`` for a file that cannot be opened
    and :class:`NotTextError` (a ``UnicodeDecodeError``, so a ``ValueError``) naming the file, the line and
    the byte for bytes that are not text in that encoding (a Latin-1 file: "save the file as UTF-8"), or
    that hold a NUL character (no text file does; UTF-16 saved without a byte-order mark does, in every
    other byte). One byte-order mark at the start is the encoding's and is removed; a second one directly
    after it, or a byte-swapped mark U+FFFE there, is a :class:`StrayMarkError` (a ``ValueError``) naming line 1
    and the character, and so are ``ï»¿`` (a UTF-8 mark decoded as cp1252 and saved again as UTF-8), U+FEFF and
    U+FFFE on any later line or within a line (two files joined), naming the first such line
    (:func:`lib.corpus.stray_byte_order_mark`, the rule of every reader and of :func:`lib.trace.run`).
    """
    path = _checked_path(path)
    data = path.read_bytes()
    codec = next((name for mark, name in BYTE_ORDER_MARKS if data.startswith(mark)), "utf-8")
    encoding = _ENCODING_NAMES[codec]
    try:
        text = data.decode(codec)
    except UnicodeDecodeError as exc:
        # the utf-8-sig codec counts exc.start from after the mark it removed; the UTF-16 and UTF-32 codecs
        # count from the start of the data: the offset of the bad byte in the file is the same either way
        at = exc.start + (len(codecs.BOM_UTF8) if codec == "utf-8-sig" else 0)
        line = len(text_lines(data[:at].decode(codec, errors="replace")))
        raise NotTextError(
            codec, data, at, exc.reason,
            f"{path.name}, line {line}: not {encoding} text (byte 0x{data[at]:02x} at byte {at}); "
            "save the file as UTF-8",
        ) from None
    if text.startswith(("\ufeff", "\ufffe")):  # after the mark the codec removed: the text's first character
        raise StrayMarkError(path.name, 1, stray_byte_order_mark(text[0]))
    stray = [text.find(mark) for mark in (MOJIBAKE_BYTE_ORDER_MARK, "\ufeff", "\ufffe") if mark in text]
    if stray:  # "ï»¿", or a mark after the start (two files joined): no text holds it, and it would stick to a word
        number = len(text_lines(text[: min(stray) + 1]))
        raise StrayMarkError(path.name, number, stray_byte_order_mark(text_lines(text)[number - 1]))
    if "\x00" in text:
        i = text.index("\x00")
        mark = next((mark for mark, _ in BYTE_ORDER_MARKS if data.startswith(mark)), b"")
        at = len(mark) + len(text[:i].encode(_BARE_CODECS.get(mark, "utf-8")))  # the NUL's byte, after the mark
        raise NotTextError(
            codec, data, at, "a NUL character",
            f"{path.name}, line {len(text_lines(text[:i]))}: a NUL character at byte {at}: not {encoding} text "
            "(UTF-16 without a byte-order mark?)",
        )
    return text


def _checked_path(path, name: str = "path") -> Path:
    """``path`` as a ``Path``; ``TypeError`` for anything but a ``str`` or an ``os.PathLike``, ``ValueError``
    for the empty string (``Path("")`` is the current folder: surely a mistake)."""
    if isinstance(path, (bool, int)) or not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{name} must be a str or a Path, got {type(path).__name__}")
    if isinstance(path, str) and not path:
        raise ValueError(f"{name} must name a file, got the empty string '' (read as the current folder)")
    return Path(path)


_LINE_END = re.compile(r"\r\n|\r|\n")


def text_lines(text: str) -> List[str]:
    r"""``text`` split into lines at ``\n``, ``\r\n`` and ``\r`` (only these, as an editor numbers lines),
    after removing one byte-order mark (U+FEFF) at its start (a second is left for the readers to refuse,
    :func:`lib.corpus.stray_byte_order_mark`). Line ``i`` of a file is item ``i - 1``.

    >>> text_lines("\ufeffWIDTH 2\r\nTOKEN a 1 2\x0c\n")
    ['WIDTH 2', 'TOKEN a 1 2\x0c', '']
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return _LINE_END.split(text.removeprefix("\ufeff"))


#: characters that ``str.splitlines`` takes for line ends but an editor (and :func:`text_lines`) does not: in a
#: text file they would silently join two lines into one, or split one line's words where none is seen. Each
#: maps to the name a message gives it: U+000B, U+000C, U+001C, U+001D, U+001E, U+0085 (NEL), U+2028 (LINE
#: SEPARATOR) and U+2029 (PARAGRAPH SEPARATOR).
#:
#: :meta hide-value:
OTHER_LINE_ENDS = {"\v": "U+000B", "\f": "U+000C", "\x1c": "U+001C", "\x1d": "U+001D", "\x1e": "U+001E",
                   "\x85": "U+0085 (NEL)", "\u2028": "U+2028 (LINE SEPARATOR)", "\u2029": "U+2029 (PARAGRAPH SEPARATOR)"}


def other_line_end(line: str) -> str:
    r"""The one rule of every line-based reader (benchmark files, trace programs): ``""`` when ``line``
    holds none of ``OTHER_LINE_ENDS``, else the problem to report after the file and line number.

    ``TypeError`` for a ``line`` that is not a ``str``.

    >>> other_line_end("a b"), other_line_end("a\u2028b").split(",")[0]
    ('', 'holds the character U+2028 (LINE SEPARATOR)')
    """
    if not isinstance(line, str):
        raise TypeError(f"line must be a str, got {type(line).__name__}")
    for char, name in OTHER_LINE_ENDS.items():
        if char in line:
            return (f"holds the character {name}, a line end that this reader does not split at "
                    "(lines end with \\n, \\r\\n or \\r); replace it with a newline")
    return ""


def read_documents(name: str = "lee") -> List[str]:
    """The documents of a corpus file: one ``str`` per non-empty line, in file order (:func:`read_text`).

    Raises like :func:`data_path`.
    """
    return [line.strip() for line in text_lines(read_text(data_path(name))) if line.strip()]


def load_corpus(name: str = "lee") -> List[List[str]]:
    """The corpus as token lists, one per document (:func:`lib.corpus.tokenize` of :func:`read_documents`)."""
    return [tokenize(doc) for doc in read_documents(name)]


__all__ = [
    "BYTE_ORDER_MARKS",
    "NotTextError",
    "OTHER_LINE_ENDS",
    "DATA_FILES",
    "DataFile",
    "GENSIM_PIN",
    "MissingDataError",
    "data_path",
    "dataset_hashes",
    "gensim_test_data_dir",
    "load_corpus",
    "locate",
    "other_line_end",
    "provenance_extra",
    "read_documents",
    "read_text",
    "sha256_file",
    "StrayMarkError",
    "text_lines",
]
