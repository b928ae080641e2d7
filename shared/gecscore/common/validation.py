"""Input checks shared by every metric: each error names the argument and the position."""

from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

# A word with sentence punctuation glued to it ("word," "end.") betrays untokenised text.
#: A whole whitespace-delimited token that is a word with punctuation glued to it ("word," or "word.").
_GLUED_TOKEN = re.compile(r"(?<!\S)(?:[A-Za-z]{2,}[,;:!?]|[a-z]{2,}\.)(?!\S)")


def check_texts(name: str, values: Any, *, allow_empty_list: bool = False) -> list[str]:
    """Return `values` as a list of strings or raise naming `name` and the bad index."""
    if values is None:
        raise ValueError(f"`{name}` is None; expected a list of strings")
    if isinstance(values, str):
        raise TypeError(f"`{name}` must be a list of strings, not a single string")
    try:
        values = list(values)
    except TypeError:
        raise TypeError(f"`{name}` must be a list of strings, got {type(values).__name__}") from None
    if not values and not allow_empty_list:
        raise ValueError(f"`{name}` is empty; expected at least one sentence")
    for i, value in enumerate(values):
        if value is None:
            raise ValueError(f"`{name}[{i}]` is None; expected a string")
        if not isinstance(value, str):
            raise TypeError(f"`{name}[{i}]` must be a string, got {type(value).__name__}")
    return values


def check_same_length(**named: Sequence[Any]) -> int:
    """Check that all named sequences have one length and return it."""
    lengths = {name: len(values) for name, values in named.items()}
    if len(set(lengths.values())) > 1:
        detail = ", ".join(f"{name}={n}" for name, n in lengths.items())
        raise ValueError(f"inputs have different lengths: {detail}")
    return next(iter(lengths.values()), 0)


def check_references(references: Any, n: int, *, name: str = "references") -> list[list[str]]:
    """Normalise references to one list of strings per example (a bare string is one reference). A cell that is
    neither a string nor a list or tuple of strings (a dict from a `datasets` struct column, a number, nested
    lists) is an error naming `name` and the row: read any other way, a perfect prediction would score 0."""
    if references is None:
        raise ValueError(f"`{name}` is None; expected one string or a list of strings per example")
    if isinstance(references, (str, Mapping)):
        raise TypeError(f"`{name}` must be a list with one entry per example, not a single "
                        f"{'string' if isinstance(references, str) else 'mapping'}")
    references = list(references)
    if len(references) != n:
        raise ValueError(f"`{name}` has {len(references)} entries but there are {n} predictions")
    return [reference_cell(refs, f"{name}[{i}]") for i, refs in enumerate(references)]


def reference_cell(refs: Any, where: str, *, allow_empty: bool = False) -> list[str]:
    """One example's references (`where`, e.g. `references[3]`, names it in errors): a string is one reference; a
    list or tuple (or a NumPy array, a pandas Series) holds strings; anything else is an error. `allow_empty`: None
    and an empty list are no references (a cell of one of several reference columns)."""
    if refs is None or (isinstance(refs, (list, tuple)) and not refs):
        if allow_empty:
            return []
        raise ValueError(f"`{where}` is None" if refs is None else f"`{where}` is an empty list; give at least one "
                         "reference")
    if isinstance(refs, str):
        return [refs]
    if hasattr(refs, "tolist") and not isinstance(refs, Mapping):  # a NumPy array or a pandas Series
        refs = refs.tolist()
    if not isinstance(refs, Sequence) or isinstance(refs, (bytes, Mapping)):
        raise TypeError(f"`{where}` must be a string or a list of strings, got {type(refs).__name__} ({_shown(refs)})")
    return check_texts(where, refs, allow_empty_list=True)


def _shown(value: Any) -> str:
    """A short repr for an error message."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


class UnusedReferencesWarning(UserWarning):
    """References were given that the metric, as published, does not read (GoToScorer scores against one reference
    per sentence, `ref_id`). The command line refuses them instead: a file given for nothing is a mistake there."""


class UntokenisedTextWarning(UserWarning):
    """Text that is clearly not whitespace-tokenised is scored as given (pass tokenize=True to tokenise it)."""


def untokenised(name: str, values: Sequence[str], *, max_share: float = 0.1) -> str | None:
    """What `check_tokenised` finds, as text naming the argument and the first sentence (None: looks tokenised)."""
    flagged = [i for i, text in enumerate(values) if _GLUED_TOKEN.search(text)]
    if not flagged:
        return None
    non_empty = sum(1 for text in values if text.strip())
    if len(flagged) > max_share * non_empty:
        i = flagged[0]
        token = _GLUED_TOKEN.search(values[i]).group()
        return (f"`{name}[{i}]` does not look whitespace-tokenised (token {token!r}; {len(flagged)} of {non_empty} "
                "sentences have punctuation glued to words)")
    return None


def check_tokenised(name: str, values: Sequence[str], *, max_share: float = 0.1) -> None:
    """Reject text that is clearly not whitespace-tokenised (punctuation glued to words).

    Real tokenised corpora contain a few glued tokens ("etc.", annotator slips), so the check fires only
    when more than `max_share` of the non-empty sentences have one.
    """
    finding = untokenised(name, values, max_share=max_share)
    if finding is not None:
        raise ValueError(f"{finding}; tokenise it (e.g. 'word , word .') or pass tokenize=True")
