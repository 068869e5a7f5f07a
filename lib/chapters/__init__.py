"""Each chapter's own code: one module per chapter that needs any, named like ``chapters/<name>.md``.

A module here runs its chapter's experiments and holds its data (settings, published numbers to compare
with, the constructed examples); it imports the concept modules of ``lib`` and never the other way round.
Its figures are in ``lib/figures/<name>.py``.
"""
