"""Turning every failure of a Space handler into a short message (never a traceback): shown in the page, raised by
`gradio_client`."""

from __future__ import annotations

import functools
import logging
from typing import Any, Callable, Mapping, Sequence

from gecscore.spaces.inputs import InputError

logger = logging.getLogger("gecscore.spaces")
MAX_MESSAGE = 700
#: What the error of a failed handler starts with.
ERROR_PREFIX = "Could not score: "
# Errors whose message is written for users (the metrics raise these with the argument and position named).
_PLAIN = (InputError, ValueError, TypeError, OSError, RuntimeError)


def describe(error: BaseException) -> str:
    """A one-paragraph, user-facing description of an error."""
    text = " ".join(str(error).split()) or type(error).__name__
    if not isinstance(error, _PLAIN):
        text = f"{type(error).__name__}: {text}"
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE - 1] + "\u2026"


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


def guarded(fn: Callable[..., tuple]) -> Callable[..., tuple]:
    """Wrap a handler: any exception becomes a `gr.Error` with a short message ("Could not score: " and
    `describe`), shown in the page and raised by `gradio_client` (an API caller must not parse HTML to learn that
    a call failed). The traceback goes to the server log only."""
    @functools.wraps(fn)
    def wrapper(*args: Any) -> tuple:
        import gradio as gr

        try:
            return fn(*args)
        except Exception as error:  # the user must get a message, whatever went wrong
            if isinstance(error, _PLAIN):
                logger.warning("%s: %s", fn.__name__, error)
            else:
                logger.exception("%s failed", fn.__name__)
            raise gr.Error(ERROR_PREFIX + describe(error), duration=None, print_exception=False) from error
    return wrapper
