"""lib: the code behind the book *Token embeddings and positional encodings*.

Every number the book prints and every figure it shows is computed here; the chapters import these
modules and explain them. What the book teaches is written out in NumPy :cite:p:`harris2020array`, and in
PyTorch :cite:p:`paszke2019pytorch` where a model is trained; what it does not teach comes from well-kept
libraries, SciPy :cite:p:`virtanen2020scipy` among them (sparse matrices, truncated SVD, bootstrap
intervals). The folder a module sits in says what it holds:

- ``lib/<concept>.py``: one concept, named by the field's term. Its docstring names the chapters that
  teach it, on a line "Taught in:" (on the book's page, their titles, linked; in Python's ``help()``, their
  files under ``chapters/``), the source it follows and where it departs from it, and every
  function that turns data into data carries a worked example whose output is what the function returns.
  Lookup and similarity (``embedding``), byte-pair encoding (``bpe``), positions (``positional``), the toy
  language and its bigram models (``toylang``, ``bigram``), the command language of
  chapters/trace_exercise.md (``trace``), a tiny
  causal transformer with five position schemes (``transformer``) and the exact best predictor of the toy
  language (``forward_filter``), corpora and vocabularies
  (``corpus``), counts and PPMI-SVD (``ppmi``), skip-gram (``skipgram``, and ``sgns`` at scale),
  provenance records (``provenance``), measurements of a fitted space (``geometry``), data sets
  (``datasets``), intrinsic evaluation (``evaluation``), three methods raced against gensim :cite:p:`rehurek2010software` (``race``),
  memory (``memory``), sparse updates (``sparse_updates``), weight tying (``tying``), sharded tables
  (``distributed``) and the processes that run them (``processes``).
- ``lib/chapters/<chapter>.py``: a chapter's own code, named like ``chapters/<chapter>.md`` (one module
  per chapter that needs any: ``lesson``, ``tokenization``, ``position_schemes``, ``embeddings``,
  ``real_text``, ``scale``): its settings, its
  experiments, the numbers of its source it compares with.
- ``lib/figures/<chapter>.py``: a chapter's figures, each module with a registry ``FIGURES``;
  ``lib/figures/style.py`` is the one look they share.
- Shared by all and taught nowhere: ``validate`` (argument checks), ``tables`` (Markdown and text
  tables), ``notebook`` and ``progress`` (what a chapter cell needs to show and glue), ``threads``.

Imports run one way, each at the top of its module: figures import chapter code and concepts, chapter
code imports concepts, concepts import concepts and the shared modules; there is no import cycle
(in the whole package). Numeric modules never import matplotlib :cite:p:`hunter2007matplotlib`; only ``lib.figures`` does, and
``lib.notebook`` renders figures through its style.
"""

__version__ = "0.1.0"
