"""Option schemas: each metric declares its name, variants and options once (`MetricSpec`), and every entry point
(evaluate scripts, CLI, Trainer hook, `combine`, meta-evaluation, Spaces, cards) reads them from there.

Pure data and checks; importing this module loads nothing heavy, so `--help` and validation stay fast.
"""

from __future__ import annotations

import difflib
import numbers
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Literal, Mapping

Kind = Literal["setting", "output", "input", "text"]
#: Names that all ask for per-sentence scores; every metric maps them to its own `sentence_option`.
SENTENCE_SCORE_NAMES = ("return_sentence_scores", "sentence_scores", "sentences")


@dataclass(frozen=True)
class Option:
    """One option: its type, default, allowed values or range, and one line of documentation.

    `kind` says what it is: a `setting` changes the score (it goes into the signature), an `output` only asks for
    more of the result, an `input` is data given another way (an M2 file instead of sentences), a `text` option is
    applied by the input layer (`gecscore.common.inputs`) before the metric runs. `variants` names the variants it
    applies to (empty: all).
    """

    name: str
    type: str
    default: Any
    doc: str
    choices: tuple[Any, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False
    nullable: bool = False
    kind: Kind = "setting"
    variants: tuple[str, ...] = ()
    #: Values a user interface offers (a Space's dropdown, the cards), where any other well-formed value is accepted
    #: too (`choices` refuses all but its own).
    suggested: tuple[Any, ...] = ()

    def check(self, value: Any) -> Any:
        """`value` checked against the type, choices and range (lists become tuples); raises naming the option."""
        if value is None:
            if self.nullable or self.default is None:
                return None
            raise ValueError(f"`{self.name}` must not be None")
        checker = _CHECKS.get(self.type)
        if checker is None:
            raise AssertionError(f"option {self.name!r} has unknown type {self.type!r}")
        value = checker(self.name, value)
        if self.choices and value not in self.choices:
            raise ValueError(f"`{self.name}` must be one of {list(self.choices)}, got {value!r}"
                             + did_you_mean([value], self.choices))
        if self.minimum is not None and (value <= self.minimum if self.exclusive_minimum else value < self.minimum):
            relation = ">" if self.exclusive_minimum else ">="
            raise ValueError(f"`{self.name}` must be {relation} {self.minimum:g}, got {value!r}")
        if self.maximum is not None and value > self.maximum:
            raise ValueError(f"`{self.name}` must be <= {self.maximum:g}, got {value!r}")
        return value

    @property
    def type_doc(self) -> str:
        """The type as documentation shows it."""
        return {"alpha": "4 floats", "path_or_text": "str or path", "device": "str",
                "str_list": "list of str", "language": "str"}.get(self.type, self.type)

    @property
    def allowed_doc(self) -> str:
        """The allowed values as documentation shows them (choices, a language code, or the range)."""
        if self.choices:
            return ", ".join(f"`{c}`" for c in self.choices)
        if self.type == "language":
            return "any " + _language_doc(self.suggested, "`{}`")
        return _range_doc(self)


def _bool(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"`{name}` must be True or False, got {value!r}")
    return value


def _int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"`{name}` must be an integer, got {value!r}")
    return int(value)


def _float(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"`{name}` must be a number, got {value!r}")
    if value != value:  # NaN passes every range check (all its comparisons are False)
        raise ValueError(f"`{name}` must be a number, got {value!r}")
    return value  # kept as given: an int stays an int, so signatures and key names do not change


def _str(name: str, value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise TypeError(f"`{name}` must be a non-empty string, got {value!r}")
    return value


def _device(name: str, value: Any) -> str:
    if not isinstance(value, str) or not _DEVICE.match(value):
        raise ValueError(f"`{name}` must be 'cpu', 'cuda', 'cuda:N' or 'mps', got {value!r}")
    return value


_DEVICE = re.compile(r"\A(cpu|mps|cuda(:\d+)?)\Z")


def _language(name: str, value: Any) -> str:
    """A language code: two lowercase letters (ISO 639-1) or one of spaCy's longer codes. The three-letter spellings
    of a language that has a two-letter code are refused with the code to use: the signature records one spelling
    per language, so that two runs of one language compare."""
    if not isinstance(value, str):
        raise TypeError(f"`{name}` must be a language code (a string such as 'fr'), got {value!r}")
    if _ISO_639_1.match(value) or value in SPACY_LONG_CODES:
        return value
    if value.lower() in _THREE_LETTER:
        raise ValueError(f"`{name}` takes the two-letter ISO 639-1 code, got {value!r} (did you mean "
                         f"{_THREE_LETTER[value.lower()]!r}?)")
    hint = f" (did you mean {value.lower()!r}?)" if _ISO_639_1.match(value.lower()) else ""
    raise ValueError(f"`{name}` must be a lowercase two-letter ISO 639-1 code such as 'fr' (or one of spaCy's "
                     f"{', '.join(SPACY_LONG_CODES)}), got {value!r}{hint}")


_ISO_639_1 = re.compile(r"\A[a-z]{2}\Z")
#: spaCy's language codes longer than two letters (languages without an ISO 639-1 code): Lower Sorbian, Ancient
#: Greek, Upper Sorbian, Kurmanji Kurdish, Ligurian.
SPACY_LONG_CODES: tuple[str, ...] = ("dsb", "grc", "hsb", "kmr", "lij")
#: ISO 639-2/639-3 spellings of the suggested languages (Mandarin's `cmn` among Chinese's) -> the code to use.
_THREE_LETTER: dict[str, str] = {
    "eng": "en", "zho": "zh", "chi": "zh", "cmn": "zh", "ara": "ar", "arb": "ar", "ces": "cs", "cze": "cs",
    "deu": "de", "ger": "de", "ell": "el", "gre": "el", "spa": "es", "est": "et", "ekk": "et", "fra": "fr",
    "fre": "fr", "isl": "is", "ice": "is", "ita": "it", "lav": "lv", "lvs": "lv", "nld": "nl", "dut": "nl",
    "por": "pt", "rus": "ru", "slv": "sl", "swe": "sv", "ukr": "uk"}


def _alpha(name: str, value: Any) -> tuple[float, ...]:
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError(f"`{name}` must be 4 numbers, got {value!r}")
    values = tuple(value)
    if len(values) != 4 or any(isinstance(v, bool) or not isinstance(v, numbers.Real) for v in values):
        raise ValueError(f"`{name}` must be 4 numbers, got {value!r}")
    return values


def _str_list(name: str, value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = (value,)
    if not hasattr(value, "__iter__") or any(not isinstance(v, str) or not v for v in value):
        raise TypeError(f"`{name}` must be a list of non-empty strings, got {value!r}")
    return tuple(value)


def _any(name: str, value: Any) -> Any:
    return value


#: Longest sentence (whitespace tokens) scored by default; the longest in the shipped meta-evaluation data is 614.
MAX_TOKENS = 700


#: Longest run of consecutive changed tokens ERRANT is asked to merge: its merging time grows with the fourth power
#: of the run (~3 s at 80 tokens, ~14 s at 120 on 2 cores; a misaligned line or a full rewrite is one long run).
MAX_CHANGED_RUN = 80


def input_options(*, tokenize: str = "spaCy-tokenise raw text first (otherwise untokenised text is an error)",
                  robust: str = "", errant: bool = True) -> tuple[Option, ...]:
    """The options every metric shares, with one meaning everywhere (`robust`, `tokenize`, `normalize`,
    `max_tokens`, and `max_changed_run` where ERRANT extracts edits); `robust` may add what it does here."""
    changed_run = (Option("max_changed_run", "int", MAX_CHANGED_RUN, "refuse, before any work, a prediction or "
                          "reference that changes more consecutive tokens than this (ERRANT's edit merging time grows "
                          "with the 4th power of such a run; None: no limit)", minimum=1, nullable=True,
                          kind="text"),) if errant else ()
    return changed_run + (
        Option("robust", "bool", False, "flag-and-fix mode: an empty prediction scores as the unchanged source, "
               "scores stay in [0, 1]" + (f", {robust}" if robust else "") + " (False: the published metric; "
               "degenerate sentences are flagged either way)"),
        Option("tokenize", "bool", False, tokenize),
        Option("normalize", "bool", False, "remove invisible characters and apply Unicode NFC to every sentence "
               "first (False: they are reported in a warning and scored as given)", kind="text"),
        Option("max_tokens", "int", MAX_TOKENS, "refuse sentences longer than this many whitespace tokens before "
               "any work (None: no limit; time grows with the square of the length)", minimum=1, nullable=True,
               kind="text"),
    )


#: The languages a user interface suggests for `language` (a Space's dropdown, the cards): English, Chinese
#: (characters as tokens) and languages whose tokenizer rules spaCy ships without a model (`spacy.blank`), the
#: twelve of MultiGEC-2025 among them. Any other language code is accepted as well (`_language`).
SUGGESTED_LANGUAGES: tuple[str, ...] = ("en", "zh", "ar", "cs", "de", "el", "es", "et", "fr", "is", "it", "lv", "nl",
                                        "pt", "ru", "sl", "sv", "uk")


def zh_lexicon_option(variants: tuple[str, ...] = ()) -> Option:
    """The lexicon of Chinese edits from text (`chinese_edits`): one meaning wherever it appears (`variants`: the
    metric's variants that extract them, () for all)."""
    return Option("zh_lexicon", "str", None, "language='zh' from text: ChERRANT's lexicons, which gecscore does not "
                  "ship, as its data folder (scorers/ChERRANT/data of HillZhang1999/MuCGEC: cilin.txt and "
                  "confusion_dict.txt), a JSON file of them, or 'cherrant' to fetch those two files once from "
                  "MuCGEC's repository at a pinned commit, digests checked, into gecscore's cache (None: "
                  "$GECSCORE_ZH_LEXICON); the signature records their digest", nullable=True, variants=variants)


def language_option(edits: bool = False) -> Option:
    """The `language` of a metric: one meaning wherever it appears. A metric that reads only tokens (GLEU, GREEN)
    counts them in every language; one that extracts edits from text (`edits`) takes ERRANT's English edits, in
    Chinese ChERRANT's char alignment (`zh_lexicon_option`), and in any other language edits with no English rules
    (`gecscore.common.plain_edits`)."""
    if edits:
        return Option("language", "language", "en", "the text's language (ISO 639-1): 'en', ERRANT's English edits, "
                      "`tokenize` by spaCy's English pipeline; 'zh', Chinese text (spaces ignored), every character "
                      "a token and edits as ChERRANT's char-level parallel_to_m2.py writes them (its first alignment "
                      "where a metric reads one edit list; needs `zh_lexicon`); any other, whitespace-separated "
                      "words (`tokenize` by spaCy's tokenizer rules for that language, no model needed; an error "
                      "where spaCy has none) and edits with no English rules (a Levenshtein alignment of the "
                      "tokens, each run of changes one edit, as ERRANT's -lev -merge all-merge), typed only M, R or "
                      "U. Recorded in the signature unless 'en'", suggested=SUGGESTED_LANGUAGES)
    return Option("language", "language", "en", "the text's language (ISO 639-1): 'en', whitespace-separated words, "
                  "`tokenize` by spaCy's English pipeline; 'zh', Chinese, every character a token (ChERRANT's char "
                  "level); any other, whitespace-separated words, `tokenize` by spaCy's tokenizer rules for that "
                  "language (no model needed; an error where spaCy has none). Recorded in the signature unless 'en'",
                  suggested=SUGGESTED_LANGUAGES)


def did_you_mean(given: Iterable[Any], known: Iterable[Any]) -> str:
    """` (did you mean 'x'?)` naming, for each mistyped name in `given`, the closest known one (`'x' for 'y'` when
    several were given; '' when none is close): a list of every option does not show which one was meant."""
    known = [k for k in known if isinstance(k, str)]
    given = list(given)
    close = {name: difflib.get_close_matches(name, known, n=1) for name in given if isinstance(name, str)}
    found = {name: match[0] for name, match in close.items() if match}
    if not found:
        return ""
    if len(given) == 1:
        return f" (did you mean {next(iter(found.values()))!r}?)"
    return f" (did you mean {', '.join(f'{match!r} for {name!r}' for name, match in found.items())}?)"


_CHECKS = {"bool": _bool, "int": _int, "float": _float, "str": _str, "device": _device, "alpha": _alpha,
           "path_or_text": _any, "str_list": _str_list, "language": _language}


@dataclass(frozen=True)
class Unshardable:
    """Settings under which a metric's statistics depend on the whole corpus, so that shards cannot be scored
    apart and concatenated: every option in `when` has one of its listed values (after defaults are filled in)."""

    when: tuple[tuple[str, tuple[Any, ...]], ...]
    reason: str
    #: ... and none of these options has one of its listed values (for options whose other values are free-form,
    #: such as a path: GoToScorer's weight file).
    unless: tuple[tuple[str, tuple[Any, ...]], ...] = ()


@dataclass(frozen=True)
class ScriptText:
    """What a metric's evaluate script says of it: evaluate's `MetricInfo` (description, citation, links) and the
    docstring `evaluate` shows, whose option list the SPEC's options give. `make generate` writes the script
    (`metrics/<name>/<name>.py`) from it, so the script cannot drift from the schema."""

    #: The script's one-line docstring.
    headline: str
    citation: str
    description: str
    #: The `Args:` lines of the sentence inputs (the options follow, from the schema).
    inputs: str
    returns: str
    #: Doctest examples, run by the test suite.
    examples: str
    codebase_urls: tuple[str, ...]
    reference_urls: tuple[str, ...]
    homepage: str = ""


@dataclass(frozen=True)
class Control:
    """One setting of a generated Space: the option it sets, its label and help line (None: the option's doc).

    `value` is shown instead of the option's default (BERTScore's rescaling off for the offline MiniLM). `models`
    makes it a model picker: the listed models (the first shown; custom ids and paths allowed), each with its layer
    where the metric takes one, in which case a Layer control for the `layer` option follows it."""

    option: str
    label: str
    info: str | None = None
    value: Any = None
    models: tuple[tuple[str, int | None], ...] = ()

    @property
    def with_layer(self) -> bool:
        """Whether a Layer control follows this model picker."""
        return any(layer is not None for _, layer in self.models)


@dataclass(frozen=True)
class SettingsExample:
    """A Space's sentence example that needs settings of its own (a Chinese sentence needs `language='zh'`): its
    texts as a sentence example has them and the (option, value) pairs it sets (the other settings keep their
    starting values)."""

    texts: tuple[str, ...]
    settings: tuple[tuple[str, Any], ...]

    @property
    def values(self) -> dict[str, Any]:
        """The settings as a mapping."""
        return dict(self.settings)


#: A Space's view of a one-sentence result: (the sentence's source, the evaluate result) -> Markdown.
SentenceView = Callable[[str, Mapping[str, Any]], str]
#: A Space's row of the Corpus tab's per-sentence table, from one entry of the result's per-sentence list.
CorpusRow = Callable[[Any], Mapping[str, Any]]


@dataclass(frozen=True)
class SpaceText:
    """A Space built from the SPEC alone (`gecscore.spaces.generic`; `make generate` writes its `app.py`): the
    page's introduction, the options it offers as controls (from the schema: values, default and range) and
    sentence examples (source, hypothesis, and the references one per line for a reference-based metric).

    A reference-free metric's page takes several hypotheses of one source and ranks them by their scores
    (`score_key`: the result's corpus score); a reference-based one scores one hypothesis against its references.
    `sentence_view` and `corpus_row` are the metric's own presentation (pure functions of the result, in its
    package); without them the page shows the result's numbers and each sentence's `score`. `setting_examples`
    are sentence examples with settings of their own (other languages)."""

    intro: str
    settings: tuple[str | Control, ...] = ()
    sentence_examples: tuple[tuple[str, ...], ...] = ()
    setting_examples: tuple[SettingsExample, ...] = ()
    source_label: str = "Source"
    hypothesis_label: str = ""
    score_key: str = "score"
    sentence_view: SentenceView | None = None
    corpus_row: CorpusRow | None = None

    @property
    def controls(self) -> tuple[Control, ...]:
        """Every setting as a `Control` (a bare option name labelled from the name)."""
        return tuple(c if isinstance(c, Control) else Control(c, c.replace("_", " ").capitalize())
                     for c in self.settings)


@dataclass(frozen=True)
class MetricSpec:
    """A metric as every entry point sees it: name, title, variants, options, the module of its statistics and
    score, and what its sentence records and shards declare."""

    name: str
    title: str
    summary: str
    variants: tuple[str, ...]
    options: tuple[Option, ...]
    #: The module with its `statistics_systems` and `score` (`gecscore.common.statistics`).
    runner: str
    reference_free: bool = False
    sentence_option: str = "return_sentence_scores"
    #: Input options that replace the sentence lists altogether (CLEME's two M2 files).
    replaces_sentences: tuple[str, ...] = ()
    #: The names of a sentence record's `statistics` (docs/sentence-records.md); empty for a reference-free metric.
    statistics: tuple[str, ...] = ()
    #: The metric's own keys of a sentence record besides the common ones, each with its meaning (some variants
    #: leave some out).
    sentence_fields: tuple[tuple[str, str], ...] = ()
    #: Settings whose statistics do not concatenate (`gecscore.sharding` refuses them by this reason).
    unshardable: tuple[Unshardable, ...] = ()
    #: Before a variant's evaluate config name when the bare variant name is a registry name of another
    #: computation (PT-M2's `m2` is BERTScore-weighted; the registry's `m2` is plain M²): `pt-m2`.
    config_prefix: str = ""
    #: Settings (option, values) under which a system's scores depend on the other systems scored in the same run
    #: (GoToScorer's weights estimated from the systems), so that one system's sentences cannot be scored alone.
    several_systems: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    #: The interval of a sentence's `score` in robust mode, mapped linearly onto [0, 1] where a sentence score is a
    #: reward or a utility (`gecscore.sentence_scorer`); a score outside it is clipped there and counted.
    score_range: tuple[float, float] = (0.0, 1.0)
    #: The same in the published mode (`robust=False`); None: `score_range`.
    published_score_range: tuple[float, float] | None = None
    #: Whether the sentence scorer (rewards, reranking, dataset scoring) scores a built-in example when it is built,
    #: so that a setup that fails every row fails there (False where the probe would be a paid call: an LLM judge).
    probe: bool = True
    #: What rewards and reranking set for this metric unless the user does, beside the defaults for model output
    #: (`gecscore.sentence_scorer.MODEL_OUTPUT_DEFAULTS`): a trained policy must not be paid for fluent text that
    #: drops the source's meaning, so a reference-free metric keeps a meaning check on (IMPARA's similarity gate).
    training_defaults: tuple[tuple[str, Any], ...] = ()
    #: How the input layer hands the metric its text (`gecscore.common.inputs.metric_texts`): "tokens",
    #: whitespace-tokenised (spaCy-tokenised with `tokenize`, else checked to be tokenised already); "raw",
    #: spaCy-tokenised with `tokenize`, else as given; None: the metric prepares its own (its public classes take
    #: text directly, or an M2 file fixes the tokens); "estimator", for a model trained on whitespace-tokenised
    #: text: spaCy-tokenised with `tokenize`, else scored as given with an `UntokenisedTextWarning` when clearly
    #: untokenised.
    text_form: Literal["tokens", "raw", "estimator"] | None = None
    #: The variants that read the sources (None: all of them); the input layer tokenises and checks the sources
    #: of the others not at all (IMPARA-GED scores predictions alone; IMPARA's similarity gate reads sources).
    source_variants: tuple[str, ...] | None = None
    #: The option naming the one reference per sentence the metric scores against (GoToScorer's `ref_id`): every
    #: sentence must have it, checked by the input layer before any work.
    reference_option: str | None = None
    #: The evaluate script's text (`metrics/<name>/<name>.py` is generated from it).
    script: ScriptText | None = None
    #: A Space generated from the SPEC (None: the metric's Space app is written by hand, `spaces/<name>/app.py`).
    space: SpaceText | None = None

    def reads_sources(self, variant: str | None) -> bool:
        """Whether a run of `variant` reads the sources (`source_variants`)."""
        return self.source_variants is None or variant in self.source_variants

    def sentence_range(self, robust: bool) -> tuple[float, float]:
        """The interval of a sentence's `score` in this mode (see `score_range`)."""
        return self.score_range if robust or self.published_score_range is None else self.published_score_range

    def __post_init__(self) -> None:
        names = [o.name for o in self.options]
        if len(set(names)) != len(names):
            raise AssertionError(f"{self.name}: duplicate option names")
        if self.sentence_option not in names or self.variants and self.option("variant").default != self.variants[0]:
            raise AssertionError(f"{self.name}: the sentence option and the default variant must be declared")

    def option(self, name: str) -> Option:
        """The option called `name`."""
        for option in self.options:
            if option.name == name:
                return option
        raise KeyError(name)

    def unshardable_reason(self, resolved: Mapping[str, Any]) -> str | None:
        """Why these resolved settings cannot be scored in shards (None: they can)."""
        for rule in self.unshardable:
            if (all(resolved.get(name) in values for name, values in rule.when)
                    and not any(resolved.get(name) in values for name, values in rule.unless)):
                return rule.reason
        return None

    @property
    def defaults(self) -> dict[str, Any]:
        """Every option with its default."""
        return {o.name: o.default for o in self.options}

    def names(self, *kinds: Kind) -> tuple[str, ...]:
        """Option names of the given kinds (all when none is given)."""
        return tuple(o.name for o in self.options if not kinds or o.kind in kinds)

    def canonical(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """`options` with every per-sentence alias renamed to `sentence_option` (conflicting values raise)."""
        out: dict[str, Any] = {}
        for key, value in options.items():
            name = self.sentence_option if key in SENTENCE_SCORE_NAMES else key
            if name in out and out[name] != value:
                raise TypeError(f"{self.name}: conflicting values for `{name}` and its aliases "
                                f"{list(SENTENCE_SCORE_NAMES)}")
            out[name] = value
        return out

    def check_names(self, options: Mapping[str, Any]) -> None:
        """Raise `TypeError` naming options this metric does not take."""
        unknown = sorted(set(options) - set(self.names()))
        if unknown:
            raise TypeError(f"metric {self.name!r} got unknown option(s) {unknown}"
                            f"{did_you_mean(unknown, self.names())}; known options: "
                            f"{sorted(self.names())}")

    def validate(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """The given options renamed, type-, choice- and range-checked (defaults not filled in)."""
        options = self.canonical(options)
        self.check_names(options)
        return {name: self.option(name).check(value) for name, value in options.items()}

    def check_applicable(self, given: Mapping[str, Any]) -> None:
        """Raise `ValueError` for a given option that does not apply to the chosen variant, or `tokenize` for a
        language spaCy cannot tokenise (never ignored; spaCy is loaded here only for that check)."""
        variant = given.get("variant") or (self.variants[0] if self.variants else None)
        for name in given:
            option = self.option(name)
            if option.variants and variant not in option.variants:
                raise ValueError(f"{self.name}: option `{name}` does not apply to variant {variant!r} (it applies "
                                 f"to {', '.join(repr(v) for v in option.variants)}); drop it or change `variant`")
        if {"language", "tokenize"} <= set(self.names()) and given.get("tokenize", self.option("tokenize").default):
            language = given.get("language", self.option("language").default)
            if language not in ("en", "zh"):  # English: ERRANT's pipeline; Chinese: characters, refused later
                from gecscore.common.inputs import language_tokenizer

                language_tokenizer(language)  # raises, naming `tokenize`, where spaCy cannot tokenise the language

    def resolve(self, *layers: Mapping[str, Any]) -> dict[str, Any]:
        """Defaults overridden by each layer in turn (e.g. load-time, then compute-time options), all checked."""
        merged: dict[str, Any] = self.defaults
        for layer in layers:
            merged.update(self.validate(layer))
        return merged

    def args_doc(self, indent: str = "    ") -> str:
        """The options as an evaluate `Args:` block (generated, so it cannot drift from the schema)."""
        lines = []
        for o in self.options:
            extra = (f" One of {', '.join(map(repr, o.choices))}." if o.choices else
                     f" Any {_language_doc(o.suggested, '{!r}')}." if o.type == "language" else "")
            scope = f" Variants: {', '.join(o.variants)}." if o.variants else ""
            lines.append(f"{indent}{o.name} ({o.type_doc}): {o.doc} (default {o.default!r}).{extra}{scope}")
        return "\n".join(lines)

    def markdown_table(self) -> str:
        """The options as a Markdown table for the cards."""
        rows = ["| option | type | default | allowed | what it does |", "|---|---|---|---|---|"]
        for o in self.options:
            allowed = o.allowed_doc
            doc = o.doc + (f" (variants: {', '.join(o.variants)})" if o.variants else "")
            rows.append(f"| `{o.name}` | {o.type_doc} | `{o.default!r}` | {allowed} | {doc} |")
        return "\n".join(rows)


def _language_doc(suggested: Iterable[str], mark: str) -> str:
    """What a `language` option accepts, each code written by the format `mark` (Markdown or a docstring)."""
    return (f"ISO 639-1 code (or spaCy's {', '.join(mark.format(c) for c in SPACY_LONG_CODES)}); suggested: "
            + ", ".join(mark.format(c) for c in suggested))


def _range_doc(option: Option) -> str:
    low = "" if option.minimum is None else f"{'>' if option.exclusive_minimum else '≥'} {option.minimum:g}"
    high = "" if option.maximum is None else f"≤ {option.maximum:g}"
    return ", ".join(x for x in (low, high) if x) or "—"
