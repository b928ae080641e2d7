"""Turning every failure of a Space handler into a short message in the page (never a traceback)."""

from __future__ import annotations

import functools
import html
import logging
from typing import Any, Callable, Mapping, Sequence

from gecscore.spaces.inputs import InputError

logger = logging.getLogger("gecscore.spaces")
MAX_MESSAGE = 700
# Errors whose message is written for users (the metrics raise these with the argument and position named).
_PLAIN = (InputError, ValueError, TypeError, OSError, RuntimeError)


def describe(error: BaseException) -> str:
    """A one-paragraph, user-facing description of an error."""
    text = " ".join(str(error).split()) or type(error).__name__
    if not isinstance(error, _PLAIN):
        text = f"{type(error).__name__}: {text}"
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE - 1] + "\u2026"


def error_box(message: str) -> str:
    """Markdown/HTML for an error message shown where the results would be."""
    return ('<div role="alert" style="border:1px solid #d9534f;background:#fdf2f2;color:#8a1f1b;'
            f'padding:0.6em 0.9em;border-radius:6px"><b>Could not score:</b> {html.escape(message)}</div>')


def ok_box(message: str, result: Mapping[str, Any] | None = None) -> str:
    """Markdown for the status line after a successful run, with the degenerate sentences of `result` named."""
    return f"\u2713 {message}" + degenerate_note(result)


#: How many flagged sentences a note names per reason.
SHOWN_INDEXES = 8


def position(index: int) -> str:
    """'index i (line i + 1)': the 0-based index of the results next to the 1-based line a user counts in a file."""
    return f"index {index} (line {index + 1})"


def positions(indexes: Sequence[int]) -> str:
    """'sentence index i (line i + 1)' for one, 'sentence indexes i, j (lines i + 1, j + 1)' for several (the first
    `SHOWN_INDEXES`, then how many more)."""
    distinct = sorted(set(indexes))
    if len(distinct) == 1:
        return f"sentence {position(distinct[0])}"
    shown = distinct[:SHOWN_INDEXES]
    more = f" and {len(distinct) - len(shown)} more" if len(distinct) > len(shown) else ""
    return f"sentence indexes {', '.join(map(str, shown))} (lines {', '.join(str(i + 1) for i in shown)}){more}"


def degenerate_note(result: Mapping[str, Any] | None) -> str:
    """' ⚠ ...' naming the flagged sentences by 0-based index and 1-based line, and why, or ''."""
    records = (result or {}).get("degenerate_sentences") or []
    if not records:
        return ""
    reasons: dict[str, list[int]] = {}
    for record in records:
        reasons.setdefault(record["reason"], []).append(record["index"])
    parts = [f"{reason}: {positions(rows)}" for reason, rows in reasons.items()]
    mode = "robust" if "robust:True" in str((result or {}).get("signature", "")) else "published"
    return (f" \u26a0 Degenerate — {'; '.join(parts)} ({mode} mode; see `degenerate_sentences` in the result and the "
            "card's robust mode).")


def guarded(n_results: int) -> Callable[[Callable[..., tuple]], Callable[..., tuple]]:
    """Wrap a handler that returns `(status, *results)`: any exception becomes `(error box, None, ...)`.

    The error also pops up as a Gradio warning; the traceback goes to the server log only.
    """
    def decorate(fn: Callable[..., tuple]) -> Callable[..., tuple]:
        @functools.wraps(fn)
        def wrapper(*args: Any) -> tuple:
            try:
                return fn(*args)
            except Exception as error:  # the page must show a message, whatever went wrong
                if isinstance(error, _PLAIN):
                    logger.warning("%s: %s", fn.__name__, error)
                else:
                    logger.exception("%s failed", fn.__name__)
                message = describe(error)
                _warn(message)
                return (error_box(message),) + (None,) * n_results
        return wrapper
    return decorate


def _warn(message: str) -> None:
    import gradio as gr

    gr.Warning(message)
