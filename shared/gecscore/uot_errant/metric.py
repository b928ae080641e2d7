"""UOT-ERRANT (Goto, Sakai & Watanabe): ERRANT edits as edit vectors, matched by unbalanced optimal transport.

Orchestration around the pure pieces: ERRANT edits (`gecscore.common.edits`), edit vectors and transport
(`gecscore.uot_errant.transport`), counts and reference choice (`gecscore.common.errant_scoring`). Every text a corpus needs (each
corrected sentence and each leave-one-out variant, for every system and every reference) is collected first
and embedded in one encoder call; texts that the encoder's tokenizer maps to the same token ids are embedded
once and share one vector, so an edit the encoder cannot see (a case-only edit under an uncased model, or an edit
beyond `max_length`) gets an exactly zero vector, as in the reference implementation.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, ClassVar, Mapping, Sequence

import numpy as np

from gecscore.common.caller import warn
from gecscore.common.chinese_edits import check_lexicon_option, token_texts
from gecscore.common.edits import Edit
from gecscore.common.encoders import check_loadable
from gecscore.common.errant_compare import CompareResult, CompareSettings
from gecscore.common.errant_scoring import PRF, Counts, FScore, errant_greedy, total, typed_edit_counts
from gecscore.common.error_types import as_lists, corpus_types, type_table
from gecscore.common.inputs import check_encoder_work, metric_texts, prepare
from gecscore.common.plain_edits import PLAIN_TYPES, extractor_for
from gecscore.common.progress import progress_bar
from gecscore.common.results import (
    DEGENERATE_TRANSPORT, NOT_ANNOTATABLE, OVER_TRANSPORT, TRUNCATED, ZERO_WEIGHT_EDITS, DegenerateOutputWarning,
    MetricResult, flag, merge, sentence_core,
)
from gecscore.common.signature import language_setting, make_signature
from gecscore.common.statistics import Statistics
from gecscore.uot_errant import SPEC, compare
from gecscore.uot_errant.transport import (
    Transport, edit_masses, edit_vectors, perfect_transport, transport, typed_transport_counts, variant_texts,
)

if TYPE_CHECKING:
    from spacy.language import Language

_DEFAULTS = SPEC.defaults
DEFAULT_MODEL: str = _DEFAULTS["model"]


# ---------------------------------------------------------------------------------------------------
# The entry points: the statistics, how they are gathered, and the corpus rule (helpers below)

@dataclass(frozen=True, kw_only=True)
class UOTStatistics(Statistics):
    """One system's statistics (`gecscore.common.statistics`): per sentence, the counts per error type against
    every reference (ERRANT edit counts, or transported mass) and the references' ids; with `return_alignments`,
    the edits, norms, masses and transport plans."""

    PER_SENTENCE: ClassVar[tuple[str, ...]] = ("typed", "ids", "alignments")

    #: Per sentence and reference: {error type: counts} (insertion order is the order they are added in).
    typed: tuple[tuple[Mapping[str, Counts], ...], ...]
    #: Per sentence and reference: its position; with convention 'errant_compare', (hypothesis coder, reference
    #: coder) of each pair ERRANT's scorer compares.
    ids: tuple[tuple[Any, ...], ...]
    alignments: tuple[Mapping[str, Any], ...] | None = None


def check_models(options: Mapping[str, Any]) -> None:
    """Raise now, without loading weights, the error a run with `options` would raise loading its encoder."""
    opts = SPEC.resolve(options)
    if opts["variant"] == "uot":
        check_loadable(opts["model"])


def statistics_systems(sources: Sequence[str] | None, systems: Mapping[str, Sequence[str] | None],
                       references: Sequence[Any] | None = None, *, progress: bool = False,
                       **options: Any) -> dict[str, UOTStatistics]:
    """Every system's statistics against shared references (every text embedded once); `score` turns each into
    its result."""
    opts = SPEC.resolve(options)
    config = UOTConfig(**{k: v for k, v in opts.items() if k in SPEC.names("setting")})
    if opts["hyp_m2"] is not None or opts["ref_m2"] is not None:
        if config.convention != "errant_compare":
            raise ValueError("`hyp_m2`/`ref_m2` score M2 files as errant_compare does: pass "
                             "convention='errant_compare'")
        scored = compare.score_m2(opts["hyp_m2"], opts["ref_m2"], config.compare_settings)
        return {name: _compare_statistics(scored, opts, config.signature()) for name in systems}
    if config.language == "zh" and config.variant == "errant":
        return _chinese_statistics(sources, systems, references, opts, config, progress=progress)
    scorer = UOTErrant(config, progress=progress, warn=False, max_tokens=opts["max_tokens"], from_input_layer=True)
    if config.variant == "errant" and config.convention == "errant_compare":
        edits = scorer.edits(sources, systems, references)
        return {name: _compare_statistics(compare.score_sentences(edits.sources, edits.hyps[name], edits.refs,
                                                                  edits.hyp_edits[name], edits.ref_edits,
                                                                  config.compare_settings), opts,
                                     config.signature())
                for name in systems}
    if config.variant == "errant" and not opts["return_alignments"]:  # the counts alone: `score` chooses
        edits = scorer.edits(sources, systems, references)
        return {name: UOTStatistics(
            settings=opts, signature=config.signature(), degenerate=(),
            typed=tuple(tuple(typed_edit_counts(h, r) for r in rs) for h, rs in zip(edits.hyp_edits[name],
                                                                                    edits.ref_edits)),
            ids=tuple(tuple(range(len(rs))) for rs in edits.ref_edits)) for name in systems}
    results = scorer.score_systems(sources, systems, references)
    return {name: UOTStatistics(
        settings=opts, signature=config.signature(), degenerate=tuple(result.degenerate),
        typed=tuple(tuple(s.per_ref_types) for s in result.sentences),
        ids=tuple(tuple(range(len(s.per_ref))) for s in result.sentences),
        alignments=tuple(result.alignment(i) for i in range(len(result.sentences)))
        if opts["return_alignments"] else None) for name, result in results.items()}


def score(stats: UOTStatistics) -> MetricResult:
    """The result of one system's statistics: each sentence's best reference and its P/R/F, the greedy corpus
    choice of references and the corpus P/R/F (`FScore.aggregate`), the per-type table of the corpus choice, and
    the corpus rule as a resamplable statistic (`errant_greedy`)."""
    opts = stats.settings
    config = UOTConfig(**{k: v for k, v in opts.items() if k in SPEC.names("setting")})
    compared = config.variant == "errant" and config.convention == "errant_compare"
    rule, f_name = config.compare_settings.rule if compared else config.rule, config.f_name
    per_ref = [[total(types.values()) for types in refs] for refs in stats.typed]
    agg = rule.aggregate(per_ref)
    sentences = []
    for i, (refs, k, corpus_k) in enumerate(zip(per_ref, agg.sentence_refs, agg.corpus_refs)):
        p, r, f = rule.prf(refs[k])
        record = {**sentence_core(f, k, [c.as_dict() for c in refs]), "precision": p, "recall": r, f_name: f,
                  "tp": refs[k].tp, "fp": refs[k].fp, "fn": refs[k].fn}
        if compared:
            ids = stats.ids[i]
            record.update(chosen_ref=ids[k][1], corpus_ref=ids[corpus_k][1], coders=[list(pair) for pair in ids])
        else:
            record["chosen_ref"] = k
        record.update(per_ref=[[c.tp, c.fp, c.fn] for c in refs], types=as_lists(stats.typed[i][k]),
                      per_ref_types=[as_lists(types) for types in stats.typed[i]])
        sentences.append(record)
    p, r, f = rule.prf(agg.corpus)
    scores = {"precision": p, "recall": r, f_name: f, "tp": agg.corpus.tp, "fp": agg.corpus.fp, "fn": agg.corpus.fn}
    details: dict[str, Any] = {"degenerate_sentences": [dict(d) for d in stats.degenerate]}
    if stats.alignments is not None:
        details["alignments"] = [{**a, "chosen_ref": k} for a, k in zip(stats.alignments, agg.sentence_refs)]
    if opts["return_types"]:
        chosen = [refs[k] for refs, k in zip(stats.typed, agg.corpus_refs)]
        details["types"] = type_table(corpus_types(chosen), opts["return_types"], rule, f_name)
    return MetricResult("uot_errant", scores, f_name, sentences, errant_greedy(per_ref, rule), stats.signature,
                        details)


# ---------------------------------------------------------------------------------------------------
# Helpers


class DegenerateTransportWarning(DegenerateOutputWarning):
    """Some transports hit POT's numerical failure modes; their scores follow the reference but are not sound.

    Raised by `UOTErrant` used directly; through the registry (evaluate module, CLI, Spaces) the one summary
    `DegenerateOutputWarning` covers these sentences with every other degenerate one."""


@dataclass(frozen=True)
class UOTConfig:
    """Every setting of UOT-ERRANT: the options of kind `setting` in `SPEC`, with their defaults (the reference
    implementation's), each checked by its option (type, choices, range); this class adds only the rule between
    options."""

    model: str = DEFAULT_MODEL
    beta: float = _DEFAULTS["beta"]
    reg: float = _DEFAULTS["reg"]
    reg_m: float = _DEFAULTS["reg_m"]
    cost: str = _DEFAULTS["cost"]
    mass: str = _DEFAULTS["mass"]
    vectorize: str = _DEFAULTS["vectorize"]
    max_length: int = _DEFAULTS["max_length"]
    batch_size: int = _DEFAULTS["batch_size"]
    robust: bool = _DEFAULTS["robust"]
    variant: str = _DEFAULTS["variant"]
    tokenize: bool = _DEFAULTS["tokenize"]
    device: str | None = _DEFAULTS["device"]
    convention: str = _DEFAULTS["convention"]
    evaluation: str = _DEFAULTS["evaluation"]
    edit_size: str = _DEFAULTS["edit_size"]
    filter_types: tuple[str, ...] = _DEFAULTS["filter_types"]
    language: str = _DEFAULTS["language"]
    zh_lexicon: str | None = _DEFAULTS["zh_lexicon"]

    def __post_init__(self) -> None:
        for setting in fields(self):
            object.__setattr__(self, setting.name, SPEC.option(setting.name).check(getattr(self, setting.name)))
        if self.convention != "errant_compare":
            changed = [n for n in ("evaluation", "edit_size", "filter_types") if getattr(self, n) != _DEFAULTS[n]]
            changed += ["language"] if self.language == "zh" and self.variant == "errant" else []
            if changed:
                raise ValueError(f"`{changed[0]}` is errant_compare's option: it needs variant='errant' and "
                                 "convention='errant_compare'")
        check_lexicon_option(self.language, self.zh_lexicon)
        foreign = [t for t in self.filter_types if t not in (*PLAIN_TYPES, "UNK")]
        if self.plain_edits and foreign:
            raise ValueError(f"`filter_types` {foreign} are ERRANT's English error types; with "
                             f"language={self.language!r} edits are typed only {', '.join(PLAIN_TYPES)}")

    @property
    def plain_edits(self) -> bool:
        """Whether edits come from `plain_edits` (a language other than English and Chinese)."""
        return self.language not in ("en", "zh")

    @property
    def rule(self) -> FScore:
        """F_β with UOT-ERRANT's zero-division rule (P = 1 if TP+FP == 0), or ERRANT's for `variant='errant'`."""
        return FScore(self.beta, "denominator" if self.variant == "uot" else "errant")

    @property
    def f_name(self) -> str:
        """Output key of the F score, named for β (`f0.5`)."""
        return f"f{self.beta:g}"

    @property
    def compare_settings(self) -> CompareSettings:
        """errant_compare's flags (`convention='errant_compare'`)."""
        return CompareSettings(self.beta, self.evaluation, self.edit_size, frozenset(self.filter_types),
                               "zh" if self.language == "zh" else "en")

    def signature(self, lexicon: str | None = None) -> str:
        """Version signature of this configuration (`lexicon`: the digest of the Chinese lexicon that extracted
        the edits from text)."""
        settings: dict[str, Any] = {"variant": self.variant, "beta": float(self.beta)}
        if self.variant == "uot":
            settings.update(model=self.model, pooling="mean", max_length=self.max_length, vectorize=self.vectorize,
                            mass=self.mass, cost=self.cost, reg=float(self.reg), reg_m=float(self.reg_m),
                            solver="sinkhorn_stabilized_unbalanced/kl", robust=self.robust)
        if self.variant == "errant" and self.convention == "errant_compare":
            settings.update(convention=self.convention, evaluation=self.evaluation, edit_size=self.edit_size,
                            filter_types=list(self.filter_types) or "none")
            if self.language == "zh":  # English signatures stay as they were
                settings.update(language=self.language, scorer="cherrant")
                if lexicon is not None:
                    settings.update(edits="cherrant-char", zh_lexicon=lexicon)
        if self.plain_edits or (self.language == "zh" and self.variant == "uot"):
            settings.update(language_setting({"language": self.language, "zh_lexicon": self.zh_lexicon}, edits=True))
        settings["tokenize"] = "spacy" if self.tokenize else "none"
        return make_signature("uot_errant", settings)


@dataclass(frozen=True)
class EditSet:
    """One sentence's edits (towards a hypothesis or a reference) with their vectors' norms and masses."""

    edits: tuple[Edit, ...]
    vectors: np.ndarray
    masses: np.ndarray

    @property
    def norms(self) -> np.ndarray:
        """L2 norms of the edit vectors (float32)."""
        return np.linalg.norm(self.vectors, axis=-1) if len(self.edits) else np.zeros(0, np.float32)


@dataclass(frozen=True)
class SystemEdits:
    """Checked texts of every system and the references, with their ERRANT edits."""

    sources: list[str]
    hyps: dict[str, list[str]]
    refs: list[list[str]]
    hyp_edits: dict[str, list[list[Edit]]]
    ref_edits: list[list[list[Edit]]]


@dataclass(frozen=True)
class SentenceResult:
    """One sentence: counts against each reference, the best reference and its scores."""

    per_ref: list[Counts]
    chosen_ref: int
    scores: PRF
    per_ref_types: list[dict[str, Counts]]

    @property
    def counts(self) -> Counts:
        """Counts against the chosen reference."""
        return self.per_ref[self.chosen_ref]


@dataclass
class UOTResult:
    """Corpus and sentence scores of one system, with everything needed to explain them."""

    config: UOTConfig
    scores: PRF
    counts: Counts
    corpus_refs: list[int]
    sentences: list[SentenceResult]
    hyp_sets: list[EditSet]
    ref_sets: list[list[EditSet]]
    transports: list[list[Transport | None]]
    degenerate: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self, *, sentence_scores: bool = False, alignments: bool = False) -> dict[str, Any]:
        """Plain-Python result: corpus precision/recall/F (named for β), optional details, the signature."""
        f_name = self.config.f_name
        out: dict[str, Any] = {
            "precision": self.scores.p, "recall": self.scores.r, f_name: self.scores.f,
            "tp": self.counts.tp, "fp": self.counts.fp, "fn": self.counts.fn,
        }
        if self.config.variant == "uot":
            out["degenerate_sentences"] = self.degenerate
        if sentence_scores:
            out["sentence_scores"] = [
                {**sentence_core(s.scores.f, s.chosen_ref, [c.as_dict() for c in s.per_ref]),
                 "precision": s.scores.p, "recall": s.scores.r, f_name: s.scores.f, "tp": s.counts.tp,
                 "fp": s.counts.fp, "fn": s.counts.fn, "chosen_ref": s.chosen_ref,
                 "per_ref": [[c.tp, c.fp, c.fn] for c in s.per_ref],
                 "types": as_lists(s.per_ref_types[s.chosen_ref]),
                 "per_ref_types": [as_lists(types) for types in s.per_ref_types]}
                for s in self.sentences
            ]
        if alignments:
            out["alignments"] = [{**self.alignment(i), "chosen_ref": s.chosen_ref} for i, s in enumerate(self.sentences)]
        out["signature"] = self.config.signature()
        return out

    def alignment(self, i: int) -> dict[str, Any]:
        """Sentence `i`'s edits (with norms and masses) towards its hypothesis and every reference, and the plans."""
        hyp = self.hyp_sets[i]
        refs = []
        for r, ref in enumerate(self.ref_sets[i]):
            t = self.transports[i][r]
            refs.append({
                "edits": [edit_row(e) for e in ref.edits], "norms": ref.norms.tolist(), "masses": ref.masses.tolist(),
                "plan": None if t is None else t.plan.tolist(),
                "issues": [] if t is None else list(t.issues),
            })
        return {"hyp_edits": [edit_row(e) for e in hyp.edits], "hyp_norms": hyp.norms.tolist(),
                "hyp_masses": hyp.masses.tolist(), "references": refs}


def edit_row(e: Edit) -> list[Any]:
    """`[o_start, o_end, o_str, c_str, type]` of an edit."""
    return [e.o_start, e.o_end, e.o_str, e.c_str, e.type]


def _chinese_statistics(sources: Sequence[str], systems: Mapping[str, Sequence[str]], references: Sequence[Any],
                        opts: Mapping[str, Any], config: UOTConfig, *, progress: bool) -> dict[str, UOTStatistics]:
    """Chinese text scored as ChERRANT scores it: char-level M2 of the references and of each system, written as
    its parallel_to_m2.py writes them (`chinese_edits`), then its compare script's rules."""
    from gecscore.common.chinese_edits import aligner_for, load_lexicon
    from gecscore.common.m2io import parse_m2

    lexicon = load_lexicon(config.zh_lexicon)
    aligner = aligner_for(lexicon)
    ref_m2 = parse_m2(aligner.m2(sources, references, progress=progress, what="(references)"))
    out = {}
    for name, predictions in systems.items():
        hyp_m2 = parse_m2(aligner.m2(sources, [[p] for p in predictions], progress=progress, what=f"({name})"))
        scored = compare.score_m2(hyp_m2, ref_m2, config.compare_settings)
        out[name] = _compare_statistics(scored, opts, config.signature(lexicon.digest))
    return out


def _compare_statistics(scored: CompareResult, opts: Mapping[str, Any], signature: str) -> UOTStatistics:
    skipped = tuple(flag(i, NOT_ANNOTATABLE, note="ChERRANT skips it: it adds no TP, FP or FN")
                    for i in scored.skipped)
    return UOTStatistics(settings=opts, signature=signature, degenerate=skipped,
                         typed=tuple(tuple(c.types for c in cands) for cands in scored.sentences),
                         ids=tuple(tuple((c.hyp_coder, c.ref_coder) for c in cands) for cands in scored.sentences))


class UOTErrant:
    """Scores systems with UOT-ERRANT (or plain ERRANT, `variant='errant'`) against shared references."""

    def __init__(self, config: UOTConfig | None = None, *, nlp: Language | None = None, encoder: Any = None,
                 progress: bool = False, warn: bool = True, max_tokens: int | None = None,
                 from_input_layer: bool = False, **options: Any) -> None:
        self.config = config if config is not None else UOTConfig(**options)
        if config is not None and options:
            raise TypeError("give either `config` or keyword options, not both")
        self._nlp = nlp
        self._encoder = encoder
        self.progress = progress
        self.warn = warn  # the registry reports every degenerate sentence in one warning instead
        self.max_tokens = max_tokens  # bounds the encoder work per sentence (`check_encoder_work`)
        #: The texts come checked and tokenised from the input layer (the registry's runs); a direct call's texts
        #: pass the same checks here (`gecscore.common.inputs`).
        self.from_input_layer = from_input_layer

    @property
    def encoder(self) -> Any:
        """The shared encoder (`gecscore.common.encoders.Encoder.get`), loaded on first use."""
        if self._encoder is None:
            from gecscore.common.encoders import Encoder

            self._encoder = Encoder.get(self.config.model, device=self.config.device)
        return self._encoder

    def score(self, sources: Sequence[str], predictions: Sequence[str], references: Sequence[Any]) -> UOTResult:
        """Score one system; `references` holds one string or a list of strings per example."""
        return self.score_systems(sources, {"system": predictions}, references)["system"]

    def score_systems(self, sources: Sequence[str], systems: Mapping[str, Sequence[str]],
                      references: Sequence[Any]) -> dict[str, UOTResult]:
        """Score several systems on the same sources and references, embedding every distinct text once."""
        cfg = self.config
        edits = self.edits(sources, systems, references)
        sources, hyps, refs, hyp_edits, ref_edits = (edits.sources, edits.hyps, edits.refs, edits.hyp_edits,
                                                     edits.ref_edits)
        n, names = len(sources), list(hyps)

        if cfg.variant == "errant":
            return {name: self._errant_result(hyp_edits[name], ref_edits) for name in names}

        sets = [(sources[i], e) for i, rs in enumerate(ref_edits) for e in rs]
        sets += [(sources[i], e) for name in names for i, e in enumerate(hyp_edits[name])]
        owners = [i for i, rs in enumerate(ref_edits) for _ in rs] + [i for _ in names for i in range(n)]
        vectors = self._edit_vectors(sets, owners)
        cursor = iter(vectors)
        ref_sets = [[next(cursor) for _ in rs] for rs in ref_edits]
        solved: dict[tuple[int, int, tuple[Edit, ...]], tuple[Transport, dict[str, Counts]]] = {}  # shared hypotheses
        results = {name: self._uot_result([next(cursor) for _ in range(n)], ref_sets, name, solved)
                   for name in names}
        cut = self._truncated(sources, refs)
        for name, result in results.items():
            result.degenerate = merge(result.degenerate, cut["sources"], cut["references"],
                                      self._truncated_texts(hyps[name], "prediction"))
        return results

    def edits(self, sources: Sequence[str], systems: Mapping[str, Sequence[str]], references: Sequence[Any]
              ) -> SystemEdits:
        """Checked (and with `tokenize`, tokenised) texts and the ERRANT edits of every hypothesis and reference;
        `UNK` edits are kept for `convention='errant_compare'` (its detection modes count them)."""
        cfg = self.config
        if not systems:
            raise ValueError("`systems` is empty; give at least one system's predictions")
        if not self.from_input_layer:  # a direct call passes the input layer's checks here
            if references is None:  # the input layer takes none (reference-free metrics); this metric needs them
                raise ValueError("`references` is None; expected one string or a list of strings per example")
            checked = prepare(sources, systems, references, language=cfg.language)
            sources, systems, references = checked.sources, checked.systems, checked.references
        if cfg.variant == "uot":
            self.encoder.check_max_length(cfg.max_length)  # before spaCy and the encoder do any work
        if not self.from_input_layer:
            sources, systems, references = metric_texts(SPEC.text_form, sources, systems, references,
                                                        tokenize=cfg.tokenize, nlp=self._nlp)
        if cfg.language == "zh":  # the char tokens ChERRANT's edits index, corrections in simplified characters
            sources, systems, references = token_texts(sources, systems, references)
        hyps, refs, n = dict(systems), references, len(sources)
        extractor = extractor_for(cfg.language, self._nlp, cfg.zh_lexicon)
        keep_unk = cfg.variant == "errant" and cfg.convention == "errant_compare"
        names = list(hyps)
        flat_ref_src = [sources[i] for i, rs in enumerate(refs) for _ in rs]
        every = extractor.extract(flat_ref_src + sources * len(names),  # one extraction: each source parsed once
                                  [r for rs in refs for r in rs] + [h for name in names for h in hyps[name]],
                                  keep_unk=keep_unk, progress=self.progress)
        flat_ref_edits = iter(every[:len(flat_ref_src)])
        ref_edits = [[next(flat_ref_edits) for _ in rs] for rs in refs]
        all_hyp_edits = every[len(flat_ref_src):]
        hyp_edits = {name: all_hyp_edits[k * n:(k + 1) * n] for k, name in enumerate(names)}
        return SystemEdits(sources, hyps, refs, hyp_edits, ref_edits)

    def _truncated(self, sources: list[str], refs: list[list[str]]) -> dict[str, list[dict[str, Any]]]:
        """TRUNCATED records of the sources and of the references (by example index)."""
        flat = [(i, r) for i, rs in enumerate(refs) for r in rs]
        by_ref = self._truncated_texts([r for _, r in flat], "reference")
        return {"sources": self._truncated_texts(sources, "source"),
                "references": [{**record, "index": flat[record["index"]][0]} for record in by_ref]}

    def _truncated_texts(self, texts: list[str], role: str) -> list[dict[str, Any]]:
        limit = self.config.max_length
        lengths = self.encoder.token_lengths(texts)
        return [flag(i, TRUNCATED, text=role, tokens=n, limit=limit) for i, n in enumerate(lengths) if n > limit]

    # ---------------------------------------------------------------------------------------------
    def _edit_vectors(self, sets: list[tuple[str, Sequence[Edit]]], owners: Sequence[int]) -> list[EditSet]:
        """Edit vectors and masses of every edit set (`owners`: its example), from one embedding call over all
        distinct token sequences."""
        cfg = self.config
        texts_per_set = [variant_texts(src, edits, cfg.vectorize) if edits else [] for src, edits in sets]
        by_example: dict[int, list[str]] = {}
        for owner, texts in zip(owners, texts_per_set):
            by_example.setdefault(owner, []).extend(texts)
        check_encoder_work("UOT-ERRANT", {i: list(dict.fromkeys(t)) for i, t in by_example.items()},
                           cfg.max_length, self.max_tokens)
        distinct = list(dict.fromkeys(t for texts in texts_per_set for t in texts))
        rows = {}
        if distinct:
            canonical = self._canonical_texts(distinct)
            unique = list(dict.fromkeys(canonical))
            embedded = self.encoder.embed(unique, pooling="mean", max_length=cfg.max_length,
                                          batch_size=cfg.batch_size, progress=self.progress)
            position = {t: k for k, t in enumerate(unique)}
            rows = {t: embedded[position[c]] for t, c in zip(distinct, canonical)}
        out = []
        for (src, edits), texts in zip(sets, texts_per_set):
            if not edits:
                out.append(EditSet((), np.zeros((0, 0), np.float32), np.zeros(0, np.float32)))
                continue
            emb = np.stack([rows[t] for t in texts])
            vectors = edit_vectors(emb[0], emb[1:], cfg.vectorize)
            out.append(EditSet(tuple(edits), vectors, edit_masses(vectors, cfg.mass)))
        return out

    def _canonical_texts(self, texts: list[str]) -> list[str]:
        """For each text, the first text with the same token ids (as the encoder truncates them)."""
        ids = self.encoder.token_ids(texts, self.config.max_length)
        first: dict[tuple[int, ...], str] = {}
        return [first.setdefault(tuple(seq), text) for seq, text in zip(ids, texts)]

    def _uot_result(self, hyp_sets: list[EditSet], ref_sets: list[list[EditSet]], name: str,
                    solved: dict[tuple[int, int, tuple[Edit, ...]], tuple[Transport, dict[str, Counts]]]
                    ) -> UOTResult:
        """One system's result; `solved` holds the transports and typed counts of (example, reference, hypothesis
        edits) already computed for other systems: the same edits of the same source have the same vectors, hence
        the same plan."""
        cfg = self.config
        per_sentence: list[list[dict[str, Counts]]] = []
        transports: list[list[Transport | None]] = []
        degenerate: list[dict[str, Any]] = []
        pairs = zip(hyp_sets, ref_sets)
        for i, (hyp, refs) in enumerate(progress_bar(pairs, total=len(hyp_sets), desc=f"UOT {name}",
                                             disable=not self.progress, leave=False)):
            row, row_t = [], []
            for r, ref in enumerate(refs):
                if (i, r, hyp.edits) not in solved:
                    t = perfect_transport(hyp.masses) if cfg.robust and hyp.edits == ref.edits else \
                        transport(hyp.vectors, ref.vectors, hyp.masses, ref.masses, cost=cfg.cost, reg=cfg.reg,
                                  reg_m=cfg.reg_m, robust=cfg.robust)
                    solved[i, r, hyp.edits] = t, typed_transport_counts(hyp.edits, ref.edits, hyp.masses,
                                                                        ref.masses, t)
                t, counts = solved[i, r, hyp.edits]
                row.append(dict(counts))  # each system's own dict (the Counts in it are frozen)
                row_t.append(t)
                if t.over_transport:
                    degenerate.append(flag(i, OVER_TRANSPORT, reference=r))
                if t.issues or t.dropped_hyp or t.dropped_ref:
                    degenerate.append(flag(i, DEGENERATE_TRANSPORT if t.issues else ZERO_WEIGHT_EDITS, reference=r,
                                           issues=list(t.issues), dropped_hyp_edits=list(t.dropped_hyp),
                                           dropped_ref_edits=list(t.dropped_ref)))
            per_sentence.append(row)
            transports.append(row_t)
        if cfg.robust:  # a perfect correction is not flagged for what the other references' transports did
            perfect = {i for i, (hyp, refs) in enumerate(zip(hyp_sets, ref_sets))
                       if any(hyp.edits == ref.edits for ref in refs)}
            degenerate = [d for d in degenerate if d["index"] not in perfect]
            unsound = sorted({d["index"] for d in degenerate if any("non-finite" in x for x in d.get("issues", ()))})
            message = "non-finite transport plans (nothing transported there)"
        else:
            unsound = sorted({d["index"] for d in degenerate if d.get("issues")})
            message = ("degenerate transports (zero-mass edits or POT numerical errors); their scores reproduce "
                       "the reference implementation and can exceed 1. See `degenerate_sentences`, or pass "
                       "robust=True")
        if unsound and self.warn:
            shown = ", ".join(map(str, unsound[:10])) + (", ..." if len(unsound) > 10 else "")
            warn(f"UOT-ERRANT ({name}): {len(unsound)} sentence(s) [{shown}] have {message}.",
                 DegenerateTransportWarning)
        return self._result(per_sentence, hyp_sets, ref_sets, transports, degenerate)

    def _errant_result(self, hyp_edits: list[list[Edit]], ref_edits: list[list[list[Edit]]]) -> UOTResult:
        per_sentence = [[typed_edit_counts(h, r) for r in rs] for h, rs in zip(hyp_edits, ref_edits)]
        empty = np.zeros(0, np.float32)
        hyp_sets = [EditSet(tuple(h), np.zeros((len(h), 0), np.float32), empty) for h in hyp_edits]
        ref_sets = [[EditSet(tuple(r), np.zeros((len(r), 0), np.float32), empty) for r in rs] for rs in ref_edits]
        transports: list[list[Transport | None]] = [[None] * len(rs) for rs in ref_edits]
        return self._result(per_sentence, hyp_sets, ref_sets, transports, [])

    def _result(self, typed: list[list[dict[str, Counts]]], hyp_sets: list[EditSet], ref_sets: list[list[EditSet]],
                transports: list[list[Transport | None]], degenerate: list[dict[str, Any]]) -> UOTResult:
        rule = self.config.rule
        per_sentence = [[total(types.values()) for types in refs] for refs in typed]
        agg = rule.aggregate(per_sentence)
        sentences = [SentenceResult(refs, k, rule.prf(refs[k]), types)
                     for refs, k, types in zip(per_sentence, agg.sentence_refs, typed)]
        return UOTResult(self.config, rule.prf(agg.corpus), agg.corpus, agg.corpus_refs, sentences, hyp_sets,
                         ref_sets, transports, degenerate)
