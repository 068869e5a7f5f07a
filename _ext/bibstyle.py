"""Sphinx extension: one author-year citation style, in the text and in the bibliography.

sphinxcontrib-bibtex cites author-year in the text (``bibtex_reference_style = "author_year"``) but labels
the list with the formatting style's labels, numbers for ``plain`` ([1]-[24]); and its ``year`` counts on
the entry's year alone, so two works by the same authors in the same year are cited alike ("Mikolov et al.,
2013" twice). This extension registers

- ``embook_author_year``, a pybtex formatting style: pybtex's ``plain`` (entries sorted by author, year,
  title) whose labels are author-year, ``Firth, 1957``, ``Levy and Goldberg, 2014``, ``Mikolov et al.,
  2013a`` and ``2013b``: a letter is added, in the list's order, wherever the same authors share a year;
  its titles are in sentence case, with a capital after a ``?`` as at the start; and it links each work
  once: its DOI, else its arXiv id, else its URL (``plain`` prints all three, so a paper with an arXiv id
  and an arXiv URL showed the same paper twice);
- ``embook_author_year``, a sphinxcontrib-bibtex referencing style: the ``author_year`` style with the year
  taken from the label, so that the text says ``[Mikolov et al., 2013a]`` (``{cite}``) and ``Mikolov et al.
  [2013a]`` (``{cite:t}``), as the list does; and with a semicolon between the works of one bracket,
  ``[Kulis and Bartlett, 2010; Toulis and Airoldi, 2017]``, since a comma already separates authors from
  year and the year from a post-text (``[Bengio et al., 2003, §2; Mikolov et al., 2013a]``).

_config.yml selects both with ``bibtex_default_style`` and ``bibtex_reference_style``.
"""

from __future__ import annotations

import codecs
import dataclasses
import re
import string
import unicodedata
from collections import Counter, defaultdict

import latexcodec  # noqa: F401  (registers the "ulatex" codec; a dependency of pybtex)
from pybtex.plugin import register_plugin as register_pybtex_plugin
from pybtex.richtext import Text
from pybtex.style.formatting.plain import Style as PlainStyle
from pybtex.style.template import field, first_of, optional, sentence
from pybtex.style.labels import BaseLabelStyle
from pybtex.style.sorting.author_year_title import SortingStyle as AuthorYearTitleSorting
from sphinxcontrib.bibtex.plugin import register_plugin as register_bibtex_plugin
from sphinxcontrib.bibtex.style.referencing import BracketStyle
from sphinxcontrib.bibtex.style.referencing.author_year import AuthorYearReferenceStyle
from sphinxcontrib.bibtex.style.referencing.basic_author_year import (
    BasicAuthorYearParentheticalReferenceStyle,
    BasicAuthorYearTextualReferenceStyle,
)
from sphinxcontrib.bibtex.style.referencing.extra_year import ExtraYearReferenceStyle
from sphinxcontrib.bibtex.style.template import join, join2, node, post_text, pre_text, reference

NAME = "embook_author_year"
LABEL_YEAR_SEP = ", "
# between the works of one parenthetical citation: "[Vose, 1991; Walker, 1977]"
WORKS_SEP = "; "


def _last_names(person) -> str:
    """``Řehůřek`` for ``{\\v{R}}eh{\\r{u}}{\\v{r}}ek``: the names as text, LaTeX accents decoded."""
    return " ".join(Text.from_latex(name).render_as("text") for name in person.prelast_names + person.last_names)


def _authors(entry) -> str:
    """``Firth``, ``Levy and Goldberg``, ``Mikolov et al.``: as sphinxcontrib-bibtex names them in the text."""
    people = entry.persons.get("author") or entry.persons.get("editor") or []
    if not people:
        return entry.fields.get("title", entry.key)
    names = [_last_names(p) for p in people]
    if len(names) == 1:
        return names[0]
    if len(names) == 2:
        return f"{names[0]} and {names[1]}"
    return f"{names[0]} et al."


class AuthorYearLabelStyle(BaseLabelStyle):
    """Labels ``Authors, year``, with ``a``, ``b``, ... where the same authors share a year."""

    def format_labels(self, sorted_entries):
        entries = list(sorted_entries)
        bases = [f"{_authors(e)}{LABEL_YEAR_SEP}{e.fields.get('year', 'n.d.')}" for e in entries]
        shared = {base for base, n in Counter(bases).items() if n > 1}
        seen = defaultdict(int)
        for base in bases:
            if base in shared:
                suffix = string.ascii_lowercase[seen[base]]
                seen[base] += 1
                yield base + suffix
            else:
                yield base


def _fold(text: str) -> str:
    """``text`` for sorting as a reader alphabetises: LaTeX accents decoded, accents removed, braces dropped,
    case folded (``{\\v{R}}eh{\\r{u}}{\\v{r}}ek`` as rehurek)."""
    decoded = codecs.decode(str(text), "ulatex").replace("{", "").replace("}", "")
    decomposed = unicodedata.normalize("NFKD", decoded)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


class FoldedSorting(AuthorYearTitleSorting):
    """pybtex's author-year-title order, alphabetised without regard to case or accents, so that
    "bloc97" and "Řehůřek" sit among the B and R names instead of after Z; an entry without authors sorts
    by its organisation or title."""

    def sorting_key(self, entry):
        author, year, title = super().sorting_key(entry)
        if not author:
            author = entry.fields.get("organization", "") or entry.fields.get("title", "")
        return (_fold(author), year, _fold(title))


# where a new sentence starts inside a title: after a question or exclamation mark and a space
_NEW_SENTENCE = re.compile(r"[?!]\s+")


def sentence_case(text: Text) -> Text:
    """``text`` (a pybtex rich text) in sentence case: lower case but for its first letter and the first letter
    after a ``?`` or ``!`` (a second sentence, "... Homemaker? Debiasing ..."); braced parts keep their case.

    pybtex's own ``capitalize`` lowers everything after the first letter, the start of a second sentence too.
    """
    starts = [0] + [m.end() for m in _NEW_SENTENCE.finditer(str(text))]
    result = text.lower()
    for i in starts:
        if i < len(result):
            result = result[:i] + result[i:i + 1].upper() + result[i + 1:]
    return result


class AuthorYearStyle(PlainStyle):
    """pybtex's ``plain`` (sorted by author, year, title; see :class:`FoldedSorting`) with author-year labels,
    titles in sentence case that starts each sentence of a title with a capital (:func:`sentence_case`), and
    one link per work (:meth:`format_web_refs`)."""

    default_label_style = NAME
    default_sorting_style = NAME

    def format_web_refs(self, e):
        """One link: the DOI (the version of record), else the arXiv id (``eprint``), else the URL."""
        return sentence[first_of[optional[self.format_doi(e)], optional[self.format_eprint(e)],
                                 optional[self.format_url(e)]]]

    def format_title(self, e, which_field, as_sentence=True):
        formatted_title = field(which_field, apply_func=sentence_case)
        return sentence[formatted_title] if as_sentence else formatted_title


@node
def label_year(children, data):
    """The year of the entry's label, with its disambiguating letter (``2013a``)."""
    assert not children
    return Text(data["formatted_entry"].label.rsplit(LABEL_YEAR_SEP, 1)[-1])


@dataclasses.dataclass
class _Parenthetical(BasicAuthorYearParentheticalReferenceStyle):
    def inner(self, role_name):
        return join2(sep1=self.pre_text_sep, sep2=self.post_text_sep)[
            pre_text,
            reference[join(sep=self.author_year_sep)[
                self.person.author_or_editor_or_title(full="s" in role_name), label_year]],
            post_text,
        ]


@dataclasses.dataclass
class _Textual(BasicAuthorYearTextualReferenceStyle):
    def inner(self, role_name):
        return join(sep=self.text_reference_sep)[
            self.person.author_or_editor_or_title(full="s" in role_name),
            join[self.bracket.left,
                 join2(sep1=self.pre_text_sep, sep2=self.post_text_sep)[pre_text, reference[label_year], post_text],
                 self.bracket.right],
        ]


@dataclasses.dataclass
class _Year(ExtraYearReferenceStyle):
    def inner(self, role_name):
        return reference[label_year]


_REPLACE = {
    BasicAuthorYearParentheticalReferenceStyle: _Parenthetical,
    BasicAuthorYearTextualReferenceStyle: _Textual,
    ExtraYearReferenceStyle: _Year,
}


@dataclasses.dataclass
class AuthorYearReferenceStyleWithSuffix(AuthorYearReferenceStyle):
    """sphinxcontrib-bibtex's ``author_year``, the year (with its letter) taken from the entry's label, and the
    works of one parenthetical citation separated by :data:`WORKS_SEP`."""

    bracket_parenthetical: BracketStyle = dataclasses.field(default_factory=lambda: BracketStyle(sep=WORKS_SEP))

    def __post_init__(self):
        AuthorYearReferenceStyle.__post_init__(self)
        for i, style in enumerate(self.styles):
            replacement = _REPLACE.get(type(style))
            if replacement is not None:
                fields = {f.name: getattr(style, f.name) for f in dataclasses.fields(style)}
                self.styles[i] = replacement(**fields)
        # GroupReferenceStyle mapped role names to the replaced styles in __post_init__: map them again
        self.role_style.clear()
        self.role_style.update((role, style) for style in self.styles for role in style.role_names())


register_pybtex_plugin("pybtex.style.labels", NAME, AuthorYearLabelStyle)
register_pybtex_plugin("pybtex.style.sorting", NAME, FoldedSorting)
register_pybtex_plugin("pybtex.style.formatting", NAME, AuthorYearStyle)
register_bibtex_plugin("sphinxcontrib.bibtex.style.referencing", NAME, AuthorYearReferenceStyleWithSuffix)


def setup(app):
    return {"parallel_read_safe": True, "parallel_write_safe": True}
