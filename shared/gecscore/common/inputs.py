"""The one input layer: every sentence given to any metric (evaluate module, CLI, Spaces, Trainer hook, registry)
passes here before any work starts.

- Control characters (and line breaks inside a sentence) are refused with the argument, sentence and column: no
  metric can say what they mean.
- Invisible characters (Unicode format characters such as zero-width spaces, soft hyphens, direction marks, a
  stray byte-order mark) and text not in Unicode NFC look identical to clean text but change tokens, edits and
  encoder inputs, so a visually perfect correction can score 0. They are reported in one `TextHygieneWarning`
  naming sentence and column, and changed only when the user asks: `normalize=True` removes the invisible
  characters and applies NFC to sources, predictions and references alike (recorded in the signature).
- Sentences longer than `max_tokens` whitespace tokens are refused up front, naming the sentence, its length and
  the option, because the edit alignment is quadratic in the length (a 5,000-token sentence takes minutes); so
  are predictions and references that change more than `max_changed_run` consecutive tokens (ERRANT's edit
  merging is quartic in such a run), and — in the metrics that encode one edited copy per edit — sentences whose
  copies would cost the encoder more than `WORK_PER_TOKEN * max_tokens` tokens (`check_encoder_work`).
- Empty or whitespace-only predictions of non-empty sources are flagged as degenerate; with `robust=True` they are
  scored as the unchanged source (`gecscore.common.degenerate`).
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from gecscore.common.degenerate import empty_predictions, robust_predictions
from gecscore.common.text_input import control_character
from gecscore.common.validation import check_references, check_texts
from gecscore.common.caller import warn


class TextHygieneWarning(UserWarning):
    """Some sentences hold invisible characters or text not in NFC (see `normalize=True`)."""


@dataclass
class Prepared:
    """Checked (and, when asked, normalised) texts with the degenerate records found on the way."""

    sources: list[str]
    systems: dict[str, list[str]]
    references: list[list[str]] | None
    flags: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


def hygiene_problem(text: str) -> tuple[int, str] | None:
    """(1-based column, what) of the first invisible character or non-NFC character of `text`, else None."""
    if text.isascii():  # no ASCII character is a format character, and ASCII text is NFC: the common case, at C speed
        return None
    for column, char in enumerate(text, 1):
        if unicodedata.category(char) == "Cf":
            return column, f"invisible character U+{ord(char):04X} ({unicodedata.name(char, 'format character')})"
    if not unicodedata.is_normalized("NFC", text):
        column = next(k for k in range(1, len(text) + 1) if not unicodedata.is_normalized("NFC", text[:k]))
        return column, f"text not in Unicode NFC (U+{ord(text[column - 1]):04X}; normalize=True composes it)"
    return None


def normalize_text(text: str) -> str:
    """`text` without invisible (format) characters, in NFC."""
    return unicodedata.normalize("NFC", "".join(c for c in text if unicodedata.category(c) != "Cf"))


def _where(name: str, i: int) -> str:
    """`name[i]`, or for a per-example reference group (`references[k][]`) `references[k][i]`."""
    return f"`{name}[{i}]`" if "[" not in name else f"`{name}`".replace("[]", f"[{i}]")


def check_clean(name: str, texts: Sequence[str], *, normalize: bool, max_tokens: int | None,
                found: list[str]) -> list[str]:
    """`texts` checked (control characters, length), normalised when asked; hygiene findings go to `found`."""
    out = []
    for i, text in enumerate(texts):
        problem = control_character(text)
        if problem is not None:
            raise ValueError(f"{_where(name, i)} has control character {problem[1]} at column {problem[0]}; remove "
                             "it (no metric can say what it means)")
        if max_tokens is not None and len(text) > max_tokens:  # no more characters than the limit: no more tokens
            length = len(text.split())
            if length > max_tokens:
                raise ValueError(f"{_where(name, i)} has {length} tokens, more than max_tokens={max_tokens}; pass "
                                 f"max_tokens={length} (or None) to score it anyway — edit alignment time grows "
                                 "with the square of the length")
        hygiene = hygiene_problem(text)
        if hygiene is not None:
            found.append(f"{_where(name, i)} column {hygiene[0]}: {hygiene[1]}")
            if normalize:
                text = normalize_text(text)
        out.append(text)
    return out


def longest_changed_run(source: str, text: str) -> int:
    """The most consecutive tokens of `source` or `text` inside one replaced block of their token alignment.

    Pure insertions and deletions do not count: ERRANT merges a run of those in one step."""
    matcher = difflib.SequenceMatcher(None, source.split(), text.split(), autojunk=False)
    return max((max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag == "replace"),
               default=0)


def check_changed_runs(name: str, sources: Sequence[str], texts: Sequence[str], limit: int | None) -> None:
    """Refuse a text whose changes against its source form a run longer than `limit` tokens (see the option)."""
    if limit is None:
        return
    for i, (source, text) in enumerate(zip(sources, texts)):
        if len(source.split()) > limit or len(text.split()) > limit:
            run = longest_changed_run(source, text)
            if run > limit:
                where = _where(name, i)
                raise ValueError(f"{where} changes {run} consecutive tokens of its source, more than "
                                 f"max_changed_run={limit} (ERRANT's edit merging takes minutes on such runs: a "
                                 f"misaligned line or a full rewrite?); pass max_changed_run={run} (or None) to "
                                 "score it anyway")


def prepare(sources: Any, systems: Mapping[str, Any], references: Any, *, normalize: bool = False,
            max_tokens: int | None = None, robust: bool = False, max_changed_run: int | None = None) -> Prepared:
    """Every input checked before any work; see the module docstring for what happens to what."""
    sources = check_texts("sources", sources)
    n = len(sources)
    found: list[str] = []
    sources = check_clean("sources", sources, normalize=normalize, max_tokens=max_tokens, found=found)
    checked: dict[str, list[str]] = {}
    for system, predictions in systems.items():
        label = "predictions" if len(systems) == 1 else f"predictions of {system!r}"
        predictions = check_texts(label, predictions)
        if len(predictions) != n:
            raise ValueError(f"{label} has {len(predictions)} sentences but `sources` has {n}")
        checked[system] = check_clean(label, predictions, normalize=normalize, max_tokens=max_tokens, found=found)
    refs = None
    if references is not None:
        refs = check_references(references, n)
        refs = [check_clean(f"references[{i}][]", group, normalize=normalize, max_tokens=max_tokens, found=found)
                for i, group in enumerate(refs)]
    for system, predictions in checked.items():
        label = "predictions" if len(systems) == 1 else f"predictions of {system!r}"
        check_changed_runs(label, sources, predictions, max_changed_run)
    for i, group in enumerate(refs or []):
        check_changed_runs(f"references[{i}][]", [sources[i]] * len(group), group, max_changed_run)
    if found:
        shown = "; ".join(found[:5]) + (f"; ... ({len(found)} in all)" if len(found) > 5 else "")
        action = "normalised (normalize=True)" if normalize else "scored as given; pass normalize=True to clean them"
        warn(f"{len(found)} sentence(s) hold invisible or non-NFC characters that change tokens and edits "
             f"without changing how the text looks — {shown}. They were {action}.", TextHygieneWarning)
    flags = {system: empty_predictions(sources, predictions) for system, predictions in checked.items()}
    if robust:
        checked = {system: robust_predictions(sources, predictions) for system, predictions in checked.items()}
    return Prepared(sources, checked, refs, flags)


#: Encoder tokens one sentence may cost, per `max_tokens`: 50 × 700 = 35,000 by default, about 10 s of a base-size
#: encoder on 2 CPU cores. Metrics that encode one edited copy of a sentence per edit (PT-M2's BERTScore weights,
#: UOT-ERRANT's edit vectors, CLEME2.0's similarity weights) multiply the length by the number of edits.
WORK_PER_TOKEN = 50


def check_encoder_work(metric: str, texts_by_sentence: Mapping[int, Sequence[str]], window: int,
                       max_tokens: int | None, *, argument: str = "sources") -> None:
    """Refuse, before the encoder runs, a sentence whose edited copies would cost more than
    `WORK_PER_TOKEN * max_tokens` encoder tokens (whitespace tokens + 2 specials, each text cut at `window`)."""
    if max_tokens is None:
        return
    budget = WORK_PER_TOKEN * max_tokens
    for index, texts in texts_by_sentence.items():
        cost = sum(min(len(text.split()) + 2, window) for text in texts)
        if cost > budget:
            needed = -(-cost // WORK_PER_TOKEN)
            raise ValueError(
                f"`{argument}[{index}]`: {metric} would encode {len(texts)} texts for this sentence (one edited copy "
                f"per edit; about {cost} encoder tokens, more than {WORK_PER_TOKEN} × max_tokens = {budget}, "
                f"roughly 10 s with a base-size encoder on 2 CPU cores); pass max_tokens={needed} (or None) to score "
                "it anyway")


def tokenise_or_check(sources: list[str], predictions: Sequence[list[str]], references: list[list[str]], *,
                      tokenize: bool, fixed: bool = False, nlp: Any = None
                      ) -> tuple[list[str], list[list[str]], list[list[str]]]:
    """The texts of the edit-based metrics spaCy-tokenised (`tokenize=True`, as ERRANT's `parse(tokenise=True)`;
    with `fixed`, the predictions only: a gold M2 fixes the source and reference tokens), or checked to be
    whitespace-tokenised (`ValueError` naming the argument when punctuation is clearly glued to words).

    `predictions` holds one list per system; a reference's index in an error counts references in reading order.
    """
    from gecscore.common.validation import check_tokenised

    flat = [r for group in references for r in group]
    if tokenize:
        from gecscore.common.edits import tokenize as spacy_tokenize

        predictions = [spacy_tokenize(texts, nlp) for texts in predictions]
        if fixed:
            return sources, predictions, references
        it = iter(spacy_tokenize(flat, nlp))
        return spacy_tokenize(sources, nlp), predictions, [[next(it) for _ in group] for group in references]
    check_tokenised("sources", sources)
    for texts in predictions:
        check_tokenised("predictions", texts)
    try:
        check_tokenised("references", flat)
    except ValueError as error:
        raise ValueError(f"{error} (index counts references in reading order)") from None
    return sources, list(predictions), references


#: A run of Chinese characters longer than any word: text that was never segmented into words.
_UNSEGMENTED = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]{8,}")


def characters(text: str) -> str:
    """Every character of `text` but white space as a token, joined by spaces: Chinese at ChERRANT's char level
    (Latin letters and digits are characters too)."""
    return " ".join(char for char in text if not char.isspace())


def metric_texts(form: str, sources: list[str], systems: Mapping[str, list[str]],
                 references: list[list[str]] | None, *, tokenize: bool, language: str = "en", nlp: Any = None
                 ) -> tuple[list[str], dict[str, list[str]], list[list[str]] | None]:
    """The checked texts in the form a metric declares (`MetricSpec.text_form`), every system at once: "tokens"
    through `tokenise_or_check`, "raw" spaCy-tokenised only with `tokenize`.

    `language` (`options.LANGUAGES`): with "zh" every character is a token (`characters`); `tokenize` uses spaCy's
    English pipeline for "en" (or `nlp`, a pipeline of the caller's) and the language's own tokenizer rules
    otherwise (`language_tokenizer`). Unsegmented
    Chinese sources where words are read are an error naming `language`: each sentence would be one token, and an
    n-gram metric would score it 0 without a word."""
    names = list(systems)
    if language == "zh":
        if tokenize:
            raise ValueError("`tokenize` does not apply to language='zh': every character is a token (ChERRANT's char "
                             "level); drop `tokenize`")
        return ([characters(t) for t in sources], {n: [characters(t) for t in systems[n]] for n in names},
                None if references is None else [[characters(t) for t in group] for group in references])
    if tokenize and language != "en":
        nlp = language_tokenizer(language)  # for "en", `nlp` or (None) ERRANT's English pipeline
    if form == "tokens":
        if not tokenize:
            _check_segmented(sources)
        sources, predictions, refs = tokenise_or_check(sources, [systems[n] for n in names], references or [],
                                                       tokenize=tokenize, nlp=nlp)
        return sources, dict(zip(names, predictions)), None if references is None else refs
    if form != "raw":
        raise ValueError(f"unknown text form {form!r}")
    if not tokenize:
        return sources, dict(systems), references
    from gecscore.common.edits import tokenize as spacy_tokenize

    return (spacy_tokenize(sources, nlp), {n: spacy_tokenize(systems[n], nlp) for n in names},
            None if references is None else [spacy_tokenize(group, nlp) for group in references])


def _check_segmented(sources: Sequence[str]) -> None:
    """Refuse unsegmented Chinese where words are read (a whole sentence would be one token)."""
    for i, text in enumerate(sources):
        if _UNSEGMENTED.search(text):
            raise ValueError(f"`sources[{i}]` is Chinese not segmented into words, so each sentence would be one "
                             "token; pass language='zh' (every character a token) where the metric has it, or "
                             "split the text into words")


#: spaCy's tokenizer rules per language, loaded once (`spacy.blank`: no model, nothing downloaded).
_TOKENIZERS: dict[str, Any] = {}


def language_tokenizer(language: str) -> Any:
    """A blank spaCy pipeline of `language`, whose tokenizer is the language's rules (French elision, German
    contractions, ...)."""
    if language not in _TOKENIZERS:
        import spacy

        _TOKENIZERS[language] = spacy.blank(language)
    return _TOKENIZERS[language]


def check_reference_index(references: list[list[str]] | None, option: str, index: int, metric: str) -> None:
    """Every sentence has reference `index` (the one reference a metric scores against, named by `option`)."""
    for i, refs in enumerate(references or []):
        if index >= len(refs):
            raise ValueError(f"`{option}` is {index} but `references[{i}]` has {len(refs)} reference(s); {metric} "
                             "scores against one reference, present in every sentence")
