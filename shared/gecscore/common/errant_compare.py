"""ERRANT's official scorer (`errant_compare`, ERRANT 3.0.2), re-implemented over plain edit tuples.

What it does, in words (`docs/errant-compare.md` has the long form):

* Each M2 block holds the edits of one or more coders (annotators, or hypothesis variants). A coder's edits are
  grouped under a *key*: `(start, end, correction)` for span-based correction (`cs`, the default), plus the type
  for `cse`, `(start, end)` for span-based detection (`ds`), and one `(t, t+1)` key per touched source token for
  token-based detection (`dt`; an insertion touches the token on its right). A key keeps the list of the types
  filed under it, so duplicated edits count once per copy.
* Before keying, edits are dropped by the filters: `UNK` edits unless detecting, single- or multi-token edits
  (`single`/`multi`), and the listed types (`filt`). A block without any edit gets an explicit `noop` edit of
  coder 0; `noop` keys never count.
* Hypothesis key found among the reference keys: one TP per type filed under the *reference* key; not found: one
  FP per hypothesis type; reference key missing from the hypothesis: one FN per reference type.
* Per sentence, every (hypothesis coder, reference coder) pair is scored and the pair with the largest
  `(F, TP, -FP, -FN)` of *running corpus total + this pair* wins (the first pair keeps ties); F is rounded to
  4 decimals before it is compared, so near-ties go to the earlier pair. The corpus adds the winning pairs.
* P = TP/(TP+FP) (1 when FP = 0), R likewise with FN, F_β as usual (0 when P + R = 0); all printed rounded to
  4 decimals. `-cat 1|2|3` merges the per-type counts to the operation (`M`, `R`, `U`), the main type
  (`NOUN`, ...) or keeps the full type (`R:NOUN`); `UNK` stays `UNK`.

With `language="zh"` this is ChERRANT's `compare_m2_for_evaluation.py` (MuCGEC, char-level M2): the same rules,
but a correction key has its spaces removed, and a sentence whose reference is 无法标注 (one annotator, one `NA`
line) is skipped (it adds nothing). Several alignments of one annotator (`T0-A0`, `T0-A1`) already merge here,
because edits are grouped by the coder id alone, an edit in two alignments counting twice, as ChERRANT does.

Only the corpus rule (`reference_rule`) is shared with the rest of the package: it is ERRANT's greedy
accumulation (`gecscore.common.errant_scoring.FScore` with `decimals=4`), so bootstrap resamples follow it too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Literal, Mapping, Sequence

from gecscore.common.errant_scoring import Counts, FScore
from gecscore.common.m2io import NOT_ANNOTATABLE, M2Sentence

Evaluation = Literal["cs", "cse", "ds", "dt"]
EditSize = Literal["all", "single", "multi"]
EVALUATIONS: tuple[str, ...] = ("cs", "cse", "ds", "dt")
#: The scorer's language: `en` (ERRANT's errant_compare) or `zh` (ChERRANT's char-level compare).
LANGUAGES: tuple[str, ...] = ("en", "zh")
EDIT_SIZES: tuple[str, ...] = ("all", "single", "multi")
TITLES: dict[str, str] = {"cs": " Span-Based Correction ", "cse": " Span-Based Correction + Classification ",
                          "ds": " Span-Based Detection ", "dt": " Token-Based Detection "}
NOOP = "noop"
#: errant_compare's key for "no edit": the noop line `A -1 -1|||noop|||-NONE-|||...` of coder 0.
NOOP_EDIT_CORRECTION = "-NONE-"

Key = tuple
TypeCounts = dict[str, Counts]


@dataclass(frozen=True)
class CompareEdit:
    """One M2 `A` line as errant_compare reads it: span, type, the corrections field as written, coder id."""

    start: int
    end: int
    type: str
    correction: str
    coder: int


def from_m2(sentence: M2Sentence) -> list[CompareEdit]:
    """The edits of an M2 block as errant_compare reads them (the corrections field as written)."""
    return [CompareEdit(e.o_start, e.o_end, e.type, e.raw_corrections if e.raw_corrections is not None
                        else e.to_line().split("|||")[2], e.annotator) for e in sentence.edits]


@dataclass(frozen=True)
class CompareSettings:
    """errant_compare's flags: `-b`, `-cs/-cse/-ds/-dt`, `-single`, `-multi`, `-filt`."""

    beta: float = 0.5
    evaluation: Evaluation = "cs"
    edit_size: EditSize = "all"
    filter_types: frozenset[str] = field(default_factory=frozenset)
    language: str = "en"

    def __post_init__(self) -> None:
        if self.language not in LANGUAGES:
            raise ValueError(f"`language` must be one of {list(LANGUAGES)}, got {self.language!r}")
        if self.evaluation not in EVALUATIONS:
            raise ValueError(f"`evaluation` must be one of {list(EVALUATIONS)}, got {self.evaluation!r}")
        if self.edit_size not in EDIT_SIZES:
            raise ValueError(f"`edit_size` must be one of {list(EDIT_SIZES)}, got {self.edit_size!r}")
        object.__setattr__(self, "filter_types", frozenset(self.filter_types))

    @property
    def rule(self) -> FScore:
        """F_β with ERRANT's zero-division rule and F rounded to 4 decimals before comparisons."""
        return FScore(self.beta, "errant", decimals=4)

    @property
    def detecting(self) -> bool:
        """True for span- or token-based detection (which keeps `UNK` edits)."""
        return self.evaluation in ("ds", "dt")


def kept(edit: CompareEdit, settings: CompareSettings) -> bool:
    """Whether the filters keep an edit (`UNK` unless detecting, edit size, filtered types)."""
    if edit.type == "UNK" and not settings.detecting:
        return False
    multi_token = edit.end - edit.start >= 2 or len(edit.correction.split()) >= 2
    if settings.edit_size == "single" and multi_token:
        return False
    if settings.edit_size == "multi" and not multi_token:
        return False
    return edit.type not in settings.filter_types


def keys_of(edit: CompareEdit, evaluation: Evaluation, language: str = "en") -> list[Key]:
    """The keys an edit is filed under (ChERRANT, `zh`: the correction without its spaces)."""
    if language == "zh" and evaluation in ("cs", "cse"):
        edit = CompareEdit(edit.start, edit.end, edit.type, edit.correction.replace(" ", ""), edit.coder)
    if evaluation == "dt":
        if edit.start == -1:
            return [(-1, -1)]
        if edit.start == edit.end:
            return [(edit.start, edit.start + 1)]
        return [(t, t + 1) for t in range(edit.start, edit.end)]
    if evaluation == "ds":
        return [(edit.start, edit.end)]
    if evaluation == "cse":
        return [(edit.start, edit.end, edit.type, edit.correction)]
    return [(edit.start, edit.end, edit.correction)]


def coder_keys(edits: Sequence[CompareEdit], settings: CompareSettings) -> dict[int, dict[Key, list[str]]]:
    """Per coder (in order of first appearance), every key with the types filed under it.

    A coder appears even when the filters drop all its edits; a block without edits is one `noop` of coder 0."""
    if not edits:
        edits = [CompareEdit(-1, -1, NOOP, NOOP_EDIT_CORRECTION, 0)]
    coders: dict[int, dict[Key, list[str]]] = {}
    for edit in edits:
        keys = coders.setdefault(edit.coder, {})
        if kept(edit, settings):
            for key in keys_of(edit, settings.evaluation, settings.language):
                keys.setdefault(key, []).append(edit.type)
    return coders


def compare(hyp: Mapping[Key, list[str]], ref: Mapping[Key, list[str]]) -> TypeCounts:
    """TP/FP/FN per type of one hypothesis coder against one reference coder (TPs under the reference types)."""
    by_type: TypeCounts = {}

    def add(kind: str, types: Iterable[str]) -> None:
        for t in types:
            by_type[t] = by_type.get(t, Counts()) + Counts(**{kind: 1.0})

    for key, types in hyp.items():
        if types[0] == NOOP:
            continue
        add("tp", ref[key]) if key in ref else add("fp", types)
    for key, types in ref.items():
        if types[0] != NOOP and key not in hyp:
            add("fn", types)
    return by_type


@dataclass(frozen=True)
class Candidate:
    """One (hypothesis coder, reference coder) pair of a sentence with its per-type counts."""

    hyp_coder: int
    ref_coder: int
    types: TypeCounts

    @property
    def counts(self) -> Counts:
        """The pair's TP/FP/FN over all types."""
        tp = fp = fn = 0.0
        for c in self.types.values():
            tp, fp, fn = tp + c.tp, fp + c.fp, fn + c.fn
        return Counts(tp, fp, fn)


def not_annotatable(ref: Sequence[CompareEdit]) -> bool:
    """ChERRANT's 无法标注 reference: one coder whose only edit is `NA`."""
    return len(ref) == 1 and ref[0].type == NOT_ANNOTATABLE


def candidates(hyp: Sequence[CompareEdit], ref: Sequence[CompareEdit], settings: CompareSettings) -> list[Candidate]:
    """Every (hypothesis coder, reference coder) pair of one sentence, hypothesis coders outermost (ChERRANT: one
    empty pair for a sentence it skips)."""
    hyp_coders, ref_coders = coder_keys(hyp, settings), coder_keys(ref, settings)
    if settings.language == "zh" and not_annotatable(ref):
        return [Candidate(next(iter(hyp_coders)), ref[0].coder, {})]
    return [Candidate(h, r, compare(hk, rk)) for h, hk in hyp_coders.items() for r, rk in ref_coders.items()]


@dataclass(frozen=True)
class CompareResult:
    """The chosen pair of every sentence (ERRANT's greedy accumulation) and the corpus counts per type."""

    settings: CompareSettings
    sentences: list[list[Candidate]]
    chosen: list[int]
    counts: Counts
    types: TypeCounts
    #: ChERRANT (`zh`): the sentences skipped for a 无法标注 reference.
    skipped: tuple[int, ...] = ()

    def chosen_candidates(self) -> list[Candidate]:
        """The winning pair of every sentence."""
        return [cands[k] for cands, k in zip(self.sentences, self.chosen)]


def score_corpus(hyp: Sequence[Sequence[CompareEdit]], ref: Sequence[Sequence[CompareEdit]],
                 settings: CompareSettings | None = None) -> CompareResult:
    """errant_compare on aligned hypothesis and reference blocks (edit lists)."""
    settings = settings or CompareSettings()
    if len(hyp) != len(ref):
        raise ValueError(f"the hypothesis has {len(hyp)} sentences but the reference has {len(ref)}")
    sentences = [candidates(h, r, settings) for h, r in zip(hyp, ref)]
    aggregate = settings.rule.aggregate([[c.counts for c in cands] for cands in sentences])
    types: TypeCounts = {}
    for cands, k in zip(sentences, aggregate.corpus_refs):
        types = merge_types(types, cands[k].types)
    skipped = tuple(i for i, r in enumerate(ref) if settings.language == "zh" and not_annotatable(r))
    return CompareResult(settings, sentences, aggregate.corpus_refs, aggregate.corpus, types, skipped)


def merge_types(total: TypeCounts, more: TypeCounts) -> TypeCounts:
    """`total` plus `more`, type by type (new types appended in order)."""
    out = dict(total)
    for t, c in more.items():
        out[t] = out[t] + c if t in out else c
    return out


def category_of(error_type: str, level: int) -> str:
    """The category an error type is reported under at `-cat` level 1 (operation), 2 (main type) or 3 (full)."""
    if level not in (1, 2, 3):
        raise ValueError(f"the category level must be 1, 2 or 3, got {level!r}")
    if error_type == "UNK" or level == 3:
        return error_type
    return error_type[0] if level == 1 else error_type[2:]


def categories(types: Mapping[str, Counts], level: int) -> dict[str, Counts]:
    """Per-type counts merged to `level` (`category_of`), sorted by category."""
    out: dict[str, Counts] = {}
    for t, c in types.items():
        name = category_of(t, level)
        out[name] = out[name] + c if name in out else c
    return dict(sorted(out.items()))


def rounded_prf(c: Counts, beta: float) -> tuple[float, float, float]:
    """P, R, F_β rounded to 4 decimals, as errant_compare prints (and compares) them."""
    p, r, f = FScore(beta, "errant").prf(c)
    return round(p, 4), round(r, 4), round(f, 4)


def report(counts: Counts, types: Mapping[str, Counts] | None, settings: CompareSettings,
           level: int | None = None, *, merged: bool = False) -> str:
    """The text errant_compare prints: the category table (with `level`; `merged`: `types` are already that
    level's categories, as a result's `types` rows are) and the overall scores."""
    title = TITLES[settings.evaluation]
    f_name = "F" + str(float(settings.beta))
    lines: list[str] = []
    if level:
        lines += ["", f"{title:=^66}", " ".join(["Category".ljust(14), "TP".ljust(8), "FP".ljust(8),
                                                   "FN".ljust(8), "P".ljust(8), "R".ljust(8), f_name])]
        rows = dict(sorted((types or {}).items())) if merged else categories(types or {}, level)
        for name, c in rows.items():
            p, r, f = rounded_prf(c, settings.beta)
            lines.append(" ".join([name.ljust(14), _int(c.tp).ljust(8), _int(c.fp).ljust(8), _int(c.fn).ljust(8),
                                   str(p).ljust(8), str(r).ljust(8), str(f)]))
    lines += ["", f"{title:=^46}", "\t".join(["TP", "FP", "FN", "Prec", "Rec", f_name]),
              "\t".join([_int(counts.tp), _int(counts.fp), _int(counts.fn)]
                        + [str(x) for x in rounded_prf(counts, settings.beta)]),
              "=" * 46, ""]
    return "\n".join(lines)


def _int(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)
