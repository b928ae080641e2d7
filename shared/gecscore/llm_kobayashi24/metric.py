"""LLM-S / LLM-E scoring: per source, the distinct corrections of all systems judged together by one prompt, each
system's sentence scored with its correction's 1-5 score, the mean over the judged sentences.

What gec-metrics 0.1.1 (`llm_kobayashi24`) does and we keep: up to five distinct corrections per source (the most
frequent), in sorted order, the published prompts, the endpoint request, one call per distinct prompt (answers are
kept for the run and reused). What it does not offer and we add: sentence and corpus scores (gec-metrics turns the
scores into pairwise wins for TrueSkill only); an answer that cannot be read (gec-metrics raises) or a correction
left out of the five are flagged and left out of the mean (robust mode: scored 0 on a [0, 1] scale). The paper's
system ranking (`system_ranking`) is gec-metrics': TrueSkill over the judge's pairwise wins, unjudged pairs skipped.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Mapping, Sequence

import numpy as np

from gecscore.common.aggregate import trueskill_ratings
from gecscore.common.bootstrap import Aggregate
from gecscore.common.inputs import check_same_length, check_texts
from gecscore.common.progress import progress_bar
from gecscore.common.results import MetricResult, NOT_JUDGED, UNREADABLE_JUDGEMENT, flag, sentence_core
from gecscore.common.signature import make_signature
from gecscore.common.statistics import Statistics
from gecscore.llm_kobayashi24 import SPEC
from gecscore.llm_kobayashi24.backends import Backend, CachedBackend, ChatEndpoint, LocalModel
from gecscore.llm_kobayashi24.judge import HIGHEST, LOWEST, build_prompt, edit_form, read_scores, select_targets, \
    template_for

#: gec-metrics' default judges.
DEFAULT_MODELS = {"endpoint": "gpt-4o-mini-2024-07-18", "local": "meta-llama/Llama-2-13b-chat-hf"}
#: The settings that determine the scores, in signature order (the backend's name and model are added).
SETTINGS = ("variant", "judge_seed", "criterion", "max_new_tokens", "tokenize", "robust")


# ---------------------------------------------------------------------------------------------------
# The entry points: the statistics, how they are gathered, and the corpus rule (helpers below)

@dataclass(frozen=True, kw_only=True)
class JudgeStatistics(Statistics):
    """One system's statistics (`gecscore.common.statistics`): per sentence, the LLM's 1-5 score of its correction
    (None: not judged or unreadable) and how many corrections were judged together."""

    PER_SENTENCE: ClassVar[tuple[str, ...]] = ("judgements", "targets")

    judgements: tuple[int | None, ...]
    targets: tuple[int, ...]


def check_models(options: Mapping[str, Any]) -> None:
    """Raise now what building the judge would raise, without loading weights or calling the endpoint: a local
    model that cannot be loaded, an endpoint without an API key, a criterion the variant's prompt has no place for
    (the Trainer hook asks when it is built)."""
    from gecscore.common.encoders import check_loadable

    opts = SPEC.resolve(options)
    template_for(opts["variant"], opts["criterion"])  # a criterion the variant's prompt has no place for
    check_decoding(opts)
    model = opts["model"] or DEFAULT_MODELS[opts["backend"]]
    if opts["backend"] == "endpoint":
        backend_for(opts)  # builds the endpoint client only: no request is made
    else:
        check_loadable(model, revision=opts["revision"])


def statistics_systems(sources: Sequence[str], systems: Mapping[str, Sequence[str]], references: Any = None, *,
                       progress: bool = False, **options: Any) -> dict[str, JudgeStatistics]:
    """Every system's sentence judgements (reference-free: the registry refuses references before this runs).
    The systems of one call are judged together: a source's prompt lists their distinct corrections."""
    opts = SPEC.resolve(options)
    check_decoding(opts)
    sources = check_texts("sources", sources)
    systems = {name: check_texts("predictions", texts) for name, texts in systems.items()}
    for texts in systems.values():
        check_same_length(sources=sources, predictions=texts)
    if opts["tokenize"]:
        from gecscore.common.inputs import spacy_tokenize

        sources = spacy_tokenize(sources)
        systems = {name: spacy_tokenize(texts) for name, texts in systems.items()}
    edits = None
    if opts["variant"] == "edit":
        from gecscore.common.edits import get_extractor

        extractor = get_extractor()
        edits = lambda srcs, hyps: extractor.extract(srcs, hyps, keep_unk=True)  # noqa: E731
    backend = backend_for(opts)
    if opts["answer_cache"] is not None:
        backend = CachedBackend(backend, opts["answer_cache"])
    judged = judge_systems(sources, systems, backend, variant=opts["variant"], criterion=opts["criterion"],
                           edits=edits, progress=progress)
    settings = {"backend": backend.name, "model": opts["model"] or DEFAULT_MODELS[opts["backend"]],
                **{k: opts[k] for k in SETTINGS}}
    if opts["decoding"] != "free":  # signatures of free answers stay as they were
        settings["decoding"] = opts["decoding"]
    signature = make_signature("llm_kobayashi24", settings, libraries=())
    kept = {k: v for k, v in opts.items() if k != "api_key"}
    return {name: JudgeStatistics(settings=kept, signature=signature,
                                  degenerate=tuple(j.problems[name] for j in judged if name in j.problems),
                                  judgements=tuple(j.scores[name] for j in judged),
                                  targets=tuple(j.targets for j in judged))
            for name in systems}


def score(stats: JudgeStatistics) -> MetricResult:
    """The mean sentence score over the judged sentences (robust mode: over all, on [0, 1])."""
    robust = bool(stats.settings["robust"])
    values = [sentence_score(j, robust) for j in stats.judgements]
    sentences = []
    for value, judgement, targets in zip(values, stats.judgements, stats.targets):
        record = sentence_core(value, None, [])
        record.update(judgement=judgement, targets=targets)
        sentences.append(record)
    details: dict[str, Any] = {"degenerate_sentences": [dict(d) for d in stats.degenerate]}
    if not robust:  # a mean of 1-5 judgements: tables must not read it as a rate outside [0, 1]
        details["score_range"] = [float(LOWEST), float(HIGHEST)]
    return MetricResult("llm_kobayashi24", {"score": judged_mean(values)}, "score", sentences,
                        Aggregate(values, judged_mean), stats.signature, details, sentence_output=values)


# ---------------------------------------------------------------------------------------------------
# The paper's system ranking: TrueSkill over the judge's pairwise wins, as gec-metrics 0.1.1 ranks LLM-S/E systems
# (`rank_systems(..., aggregation="trueskill")`: `score_pairwise`, then `run_trueskill`). Per source, two systems
# whose corrections were both judged meet once: the higher 1-5 score wins, equal scores draw (equal corrections
# always do). A pair where either correction has no score is skipped, never counted as a loss or a draw: with more
# than five distinct corrections the judge sees only five (`not judged`), which gec-metrics' tables mark None and its
# TrueSkill skips. An unreadable answer (gec-metrics raises) is skipped the same way; it is flagged already. The
# ranking reads the judgements, not the sentence scores: robust mode (an unjudged sentence scores 0) ranks as the
# published mode does on its inputs (an empty correction replaced by its source).

#: Pairwise tables per source: `tables[s][i][j]` is +1 (system i's correction scored higher), -1, 0 or None.
Tables = list[list[list[int | None]]]


def judged_pairs(results: Mapping[str, MetricResult]) -> Tables:
    """Per source, gec-metrics' `score_pairwise` table of the systems (in `results`' order) from their judgements:
    None where either correction has no score; the systems must have been judged together, in one run."""
    names = list(results)
    if len(names) < 2:
        raise ValueError(f"ranking rates systems against each other: give at least two, got {names}")
    first = results[names[0]]
    for name, result in results.items():
        if result.metric != "llm_kobayashi24":
            raise ValueError(f"system {name!r} was scored by {result.metric!r}; the judge's ranking reads LLM-S/E "
                             "judgements (llm_kobayashi24)")
        if result.signature != first.signature or result.n != first.n:
            raise ValueError(f"systems {names[0]!r} and {name!r} were not judged together (signatures or sentence "
                             "counts differ): rank systems scored in one run, as the judge compares them per source")
    judgements = [[record["judgement"] for record in results[name].sentences] for name in names]
    tables = []
    for sentence in zip(*judgements):
        tables.append([[None if a is None or b is None else (a > b) - (a < b) for b in sentence]
                       for a in sentence])
    return tables


def system_ranking(results: Mapping[str, MetricResult]) -> dict[str, float]:
    """Each system's TrueSkill μ over `judged_pairs` (gec-metrics' settings, order and skipped pairs), by name."""
    return dict(zip(results, trueskill_ratings(judged_pairs(results), len(results))))


# ---------------------------------------------------------------------------------------------------
# Helpers


@dataclass(frozen=True)
class Judged:
    """Per source: each system's score (None: not judged or unreadable), the number of targets, and a degenerate
    record per system where its correction got no score."""

    scores: dict[str, int | None]
    targets: int
    problems: dict[str, dict[str, Any]]


def judge_systems(sources: Sequence[str], systems: Mapping[str, Sequence[str]], backend: Backend, *,
                  variant: str = "sent", criterion: str | None = None,
                  edits: Callable[[Sequence[str], Sequence[str]], list[list[Any]]] | None = None,
                  progress: bool = False) -> list[Judged]:
    """Judge every source's distinct corrections with one prompt each (the same prompt is asked once)."""
    template = template_for(variant, criterion)
    answers: dict[str, str | None] = {}
    judged = []
    for i in progress_bar(range(len(sources)), desc="LLM judge", disable=not progress):
        hypotheses = {name: texts[i] for name, texts in systems.items()}
        targets = select_targets(list(hypotheses.values()))
        shown = targets if variant == "sent" else [edit_form(e) for e in edits([sources[i]] * len(targets), targets)]
        prompt = build_prompt(template, sources[i], shown)
        key = hashlib.md5(prompt.encode()).hexdigest()
        if key not in answers:
            answers[key] = backend.answer(prompt, len(targets))
        reading = read_scores(answers[key], len(targets))
        scores: dict[str, int | None] = {}
        problems: dict[str, dict[str, Any]] = {}
        for name, hyp in hypotheses.items():
            if hyp not in targets:
                scores[name] = None
                problems[name] = flag(i, NOT_JUDGED, targets=len(targets),
                                      note="more than 5 distinct corrections of this source; this one was not among "
                                           "the 5 most frequent judged")
            elif reading.scores is None:
                scores[name] = None
                problems[name] = flag(i, UNREADABLE_JUDGEMENT, detail=reading.reason,
                                      answer=(answers[key] or "")[:200])
            else:
                scores[name] = reading.scores[targets.index(hyp)]
        judged.append(Judged(scores, len(targets), problems))
    return judged


def check_decoding(opts: Mapping[str, Any]) -> None:
    """Constrained decoding needs the model's probabilities, which only a local model gives."""
    if opts["decoding"] == "constrained" and opts["backend"] != "local":
        raise ValueError("decoding='constrained' needs backend='local' (an endpoint's answer is free text); pass "
                         "decoding='free' or a local model")


def backend_for(opts: Mapping[str, Any]) -> Backend:
    """The judge the options name."""
    model = opts["model"] or DEFAULT_MODELS[opts["backend"]]
    if opts["backend"] == "endpoint":
        return ChatEndpoint(model, base_url=opts["base_url"], api_key=opts["api_key"], seed=opts["judge_seed"],
                            timeout=opts["timeout"], retries=opts["retries"])
    return LocalModel(model, device=opts["device"], max_new_tokens=opts["max_new_tokens"], revision=opts["revision"],
                      decoding=opts["decoding"])


def sentence_score(judgement: int | None, robust: bool) -> float:
    """A sentence's score: the judgement (NaN when there is none), or in robust mode (s - 1) / 4 and 0 without."""
    if robust:
        return 0.0 if judgement is None else (judgement - LOWEST) / (HIGHEST - LOWEST)
    return float("nan") if judgement is None else float(judgement)


def judged_mean(values: list[float]) -> float:
    """The mean of the sentences that have a score (NaN when none has)."""
    kept = [v for v in values if not np.isnan(v)]
    return float(np.mean(kept)) if kept else float("nan")


