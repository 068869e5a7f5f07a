"""lib: the code behind the book *Token embeddings and positional encodings*.

Every number the book prints and every figure it shows is computed here; the chapters import these
modules and explain them. One concept per module (see each module's docstring for what it follows and
where it departs from its source):

- ``lib.embedding``   embedding-table lookup, one-hot, similarity measures, nearest neighbours
- ``lib.positional``  sinusoidal and learned position tables (Vaswani et al. 2017, §3.5)
- ``lib.trace``       the trace exercise's command language, interpreter, CLI and checker
- ``lib.notebook``    small helpers the chapters use to show figures and glue numbers into prose
- ``lib.figures``     one module per chapter, each function returning a ``matplotlib.figure.Figure``

Numeric modules never import matplotlib; only ``lib.figures`` and ``lib.notebook`` do.
"""

__version__ = "0.1.0"
