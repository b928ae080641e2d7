"""Many systems in one call: `compare(metric, sources, systems, references, baseline=...)` scores every system in
one `registry.run_systems` run (shared parses and encoder caches), gives each its corpus score and 95% percentile
bootstrap interval (one seed for all, so the intervals are comparable), ranks them by the metric's headline score
and, with a baseline, tests every other system against it (paired bootstrap or approximate randomisation, as
sacrebleu does). The `Leaderboard` renders as text, Markdown, LaTeX, CSV or JSON and plots as PNG and SVG.

`aggregation="trueskill"` ranks the systems as SEEDA's human rankings and the LLM-S/E paper rank them: every pair of
systems meets on every sentence, the higher sentence score wins (equal ones draw), and TrueSkill (gec-metrics'
settings, `gecscore.common.aggregate`) rates them; the rows are ordered by its μ, shown beside the corpus score and
its interval, which stay the metric's own.

Every format says what it cannot vouch for (`gecscore.common.trust`): each system's flagged sentences with their
reasons, and a system whose corpus scores leave the metric's range (a published-mode UOT-ERRANT F0.5 of 3479) is
not ranked among the sane ones but listed after them with the reason; per-type cells outside their range are
marked `!`. CSV and JSON carry the signature and the flag counts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Mapping, Sequence

from gecscore import registry
from gecscore.common.aggregate import trueskill_scores
from gecscore.common.bootstrap import (DEFAULT_AR_SAMPLES, DEFAULT_SAMPLES, DEFAULT_SEED, INTERVAL_METHOD, Interval,
                                       confidence_interval, paired_approximate_randomization, paired_bootstrap,
                                       signature_suffix)
from gecscore.common.results import MetricResult
from gecscore.common.tables import FORMATS, Table, render, to_json
from gecscore.common.trust import declared_bounds, flag_counts, flag_note, flagged_sentences, out_of_range

Test = Literal["bs", "ar"]
#: How systems are ranked: by their corpus scores, or by TrueSkill over sentence-level pairwise outcomes.
AGGREGATIONS = ("default", "trueskill")
TEST_NAMES = {"bs": "paired bootstrap", "ar": "approximate randomisation"}
#: Per-type columns printed as integers when every value is whole (ERRANT's counts; UOT-ERRANT's are weights).
COUNT_KEYS = ("tp", "fp", "fn", "tn")
#: A p-value below this is marked (`*`) in text, Markdown and LaTeX.
ALPHA = 0.05
#: After a per-type cell outside its range (text, Markdown, LaTeX).
OUT_OF_RANGE = "!"


@dataclass(frozen=True)
class Row:
    """One system: its rank (None: not ranked, see `unranked`), headline score, 95% percentile interval, against the
    baseline its difference and p-value, and what the row cannot vouch for (flagged sentences, out-of-range
    scores)."""

    rank: int | None
    system: str
    score: float
    interval: Interval | None
    difference: float | None = None
    p_value: float | None = None
    flagged: int = 0
    flags: Mapping[str, int] = field(default_factory=dict)
    unranked: str | None = None
    #: TrueSkill μ over the sentence-level pairwise outcomes (`aggregation="trueskill"`), which orders the rows.
    trueskill: float | None = None

    def as_dict(self) -> dict[str, Any]:
        """Plain-Python fields (the interval with its `low`, `high` and `method`)."""
        return {"rank": self.rank, "system": self.system, "score": self.score,
                "interval": None if self.interval is None else self.interval.as_dict(),
                "difference": self.difference, "p_value": self.p_value, "flagged": self.flagged,
                "flags": dict(self.flags), "unranked": self.unranked, "trueskill": self.trueskill}


@dataclass
class Leaderboard:
    """Systems ranked by one metric: their `MetricResult`s (input order), the ranked rows and the signature (the
    metric's plus the resampling settings)."""

    metric: str
    main: str
    results: dict[str, MetricResult]
    rows: list[Row]
    signature: str
    baseline: str | None = None
    test: Test = "bs"
    n_samples: int = DEFAULT_SAMPLES
    seed: int | None = DEFAULT_SEED
    bootstrap_samples: int = DEFAULT_SAMPLES
    aggregation: str = "default"

    @property
    def n(self) -> int:
        """Number of sentences."""
        return next(iter(self.results.values())).n

    def row(self, system: str) -> Row:
        """The row of `system`."""
        for row in self.rows:
            if row.system == system:
                return row
        raise KeyError(system)

    def as_dict(self) -> dict[str, Any]:
        """Everything as plain Python: settings, signature and per system its row, all scalars and details."""
        return {"metric": self.metric, "main": self.main, "sentences": self.n, "baseline": self.baseline,
                "test": TEST_NAMES[self.test] if self.baseline is not None and self.n_samples else None,
                "n_samples": self.n_samples, "bootstrap_samples": self.bootstrap_samples if self.n_samples else 0,
                "seed": self.seed, "aggregation": self.aggregation, "signature": self.signature,
                "systems": [{**row.as_dict(), "scores": self.results[row.system].scores,
                             "details": self.results[row.system].details} for row in self.rows]}

    def render(self, fmt: str = "text", *, digits: int = 4) -> str:
        """The leaderboard (and each system's per-type table, when its result has one) as text, markdown, latex,
        csv or json; text, Markdown and LaTeX end with the signature."""
        if fmt not in FORMATS:
            raise ValueError(f"unknown format {fmt!r}; choose one of {list(FORMATS)}")
        if fmt == "json":
            return to_json(self.as_dict())
        if fmt == "csv":
            return render([self._csv_table(), *self._type_tables(long=True)], "csv")
        tables = [self._display_table(digits), *self._type_tables(long=False, digits=digits)]
        marked = any(OUT_OF_RANGE in str(cell) for table in tables[1:] for row in table.rows for cell in row)
        notes = [self._legend()]
        if any(r.flagged for r in self.rows):
            notes.append("flagged: sentences the metric scored but cannot vouch for, by reason (each result's "
                         "`degenerate_sentences`; `--sentences` lists them)")
        if marked:
            notes.append(f"{OUT_OF_RANGE}: outside the metric's range (published-mode scores the card explains; "
                         "robust mode keeps them in range)")
        return render(tables, fmt, digits=digits, notes=notes + [f"signature: {self.signature}"])

    def render_types(self, *, digits: int = 4) -> str:
        """Only the per-type tables, as text ('' when no system has one): what a single-system printout adds after
        its scores, the same tables as the leaderboard's."""
        tables = self._type_tables(long=False, digits=digits)
        return render(tables, "text", digits=digits) if tables else ""

    def plot(self, directory: str | Path) -> list[Path]:
        """`leaderboard.png`/`.svg` (scores with intervals) in `directory` and, when the results have per-type
        tables, `types.png`/`.svg` (per-type precision and recall, systems side by side); the written paths."""
        from gecscore.common.leaderboard_plots import leaderboard_figure, save, types_figure

        directory = Path(directory)
        figure = leaderboard_figure(
            [r.system for r in self.rows], [r.score for r in self.rows],
            [None if r.interval is None else (r.interval.low, r.interval.high) for r in self.rows],
            label=f"{self.metric} {self.main}", baseline=self.baseline,
            significant=[r.p_value is not None and r.p_value < ALPHA for r in self.rows],
            title=self._legend(mark="bold:", sep=";\n"))
        paths = save(figure, directory / "leaderboard")
        types = {r.system: self.results[r.system].details["types"]["rows"] for r in self.rows
                 if "types" in self.results[r.system].details}
        if types:
            paths += save(types_figure(types, title=f"{self.metric}: per-type precision and recall"),
                          directory / "types")
        return paths

    def _display_table(self, digits: int) -> Table:
        """Rank, system, score, the interval (when resampled), with a baseline difference and p-value, and the
        flagged sentences and why a system is not ranked, when any."""
        header, align = ["rank", "system", self.main], "rlr"
        rows: list[list[Any]] = [[r.rank, r.system, r.score] for r in self.rows]
        if self.aggregation == "trueskill":
            header, align = header[:2] + ["TrueSkill μ"] + header[2:], align[:2] + "r" + align[2:]
            rows = [row[:2] + [r.trueskill] + row[2:] for row, r in zip(rows, self.rows)]
        if self.n_samples:
            header, align = header + [f"95% CI ({INTERVAL_METHOD})"], align + "l"
            for row, r in zip(rows, self.rows):
                row.append(None if r.interval is None else
                           f"[{r.interval.low:.{digits}f}, {r.interval.high:.{digits}f}]")
        if self.baseline is not None:
            header, align = header + [f"Δ vs {self.baseline}", "p"], align + "rr"
            for row, r in zip(rows, self.rows):
                row += ([None, "baseline"] if r.system == self.baseline else
                        [f"{r.difference:+.{digits}f}", None if r.p_value is None else
                         f"{r.p_value:.{digits}f}{'*' if r.p_value < ALPHA else ' '}"])
        if any(r.flagged for r in self.rows):
            header, align = header + ["flagged"], align + "l"
            for row, r in zip(rows, self.rows):
                row.append(flag_note(self._records(r.system)) or None)
        if any(r.unranked for r in self.rows):
            header, align = header + ["not ranked"], align + "l"
            for row, r in zip(rows, self.rows):
                row.append(r.unranked)
        return Table(header, rows, align=align)

    def _records(self, system: str) -> list[dict[str, Any]]:
        return self.results[system].details.get("degenerate_sentences", [])

    def _csv_table(self) -> Table:
        keys = sorted({k for result in self.results.values() for k in result.scores} - {self.main})
        reasons = sorted({reason for r in self.rows for reason in r.flags})
        header = ["rank", "system", self.main, "trueskill", "low", "high", "interval_method", "sacrebleu_mean",
                  "sacrebleu_half_width", "difference", "p_value",
                  *keys, "flagged", *(f"flagged: {reason}" for reason in reasons), "not_ranked", "signature"]
        rows = [[r.rank, r.system, r.score, r.trueskill,
                 *((None,) * 5 if r.interval is None else (r.interval.low, r.interval.high, r.interval.method,
                                                           r.interval.mean, r.interval.ci)),
                 r.difference, r.p_value, *(self.results[r.system].scores.get(k) for k in keys),
                 r.flagged, *(r.flags.get(reason, 0) for reason in reasons), r.unranked, self.signature]
                for r in self.rows]
        return Table(header, rows)

    def _type_tables(self, *, long: bool, digits: int = 4) -> list[Table]:
        tables = []
        for r in self.rows:
            types = self.results[r.system].details.get("types")
            if not types:
                continue
            table = types["rows"]
            keys = list(next(iter(table.values()), {}))
            whole = {k for k in COUNT_KEYS if all(float(row[k]).is_integer() for row in table.values() if k in row)}
            if long:
                rows = [[name, *(int(row[k]) if k in whole else row[k] for k in keys),
                         ", ".join(out_of_range(row)) or None] for name, row in table.items()]
                tables.append(Table(["system", "level", "type", *keys, "out_of_range"],
                                    [[r.system, types["level"], *row] for row in rows]))
            else:
                rows = [[name, *(_marked(row, k, k in whole, digits) for k in keys)] for name, row in table.items()]
                note = flag_note(self._records(r.system))
                title = f"{r.system}: per type (level {types['level']})" + (
                    f"; flagged sentences: {note}" if note else "")
                tables.append(Table(["type", *keys], rows, title=title, align="l" + "r" * len(keys)))
        if long and tables:  # one long CSV table for all systems
            return [Table(tables[0].header, [row for table in tables for row in table.rows])]
        return tables

    def _legend(self, *, mark: str = "*", sep: str = "; ") -> str:
        """Sentences, resampling and test settings in words; `mark` is how significant rows are shown."""
        if not self.n_samples:
            return f"{self.n} sentences."
        text = (f"{self.n} sentences; 95% CI: {INTERVAL_METHOD} bootstrap, {self.bootstrap_samples} resamples "
                f"(seed {self.seed})")
        if self.baseline is not None:
            text += (f"{sep}p: {TEST_NAMES[self.test]} against {self.baseline} ({self.n_samples} "
                     f"{'resamples' if self.test == 'bs' else 'trials'}), {mark} p < {ALPHA}")
        return text + "."


def compare(metric: str, sources: Sequence[str] | None, systems: Mapping[str, Sequence[str] | Mapping[str, Any]],
            references: Sequence[Any] | None = None, *, gold_m2: Any = None, baseline: str | None = None,
            test: Test = "bs", n_samples: int | None = None, seed: int | None = DEFAULT_SEED,
            aggregation: str = "default", progress: bool = False, **options: Any) -> Leaderboard:
    """Score and rank several systems against the same references in one run; see the module docstring.

    `systems` maps each name to its predictions or, for a metric whose M2 input replaces the sentences (CLEME's
    `hyp_m2`), to that system's input options (`{"hyp_m2": path}`); those run one by one. `n_samples`: bootstrap
    resamples for the intervals and the paired bootstrap (default 1000), or approximate-randomisation trials
    (default 10000; the intervals then use 1000 resamples, as sacrebleu); 0: scores only. `aggregation`:
    "default" (rank by the corpus score) or "trueskill" (see the module docstring). Everything is checked before
    any work.
    """
    n_samples = _check(metric, systems, baseline, test, n_samples, seed, options)
    if aggregation not in AGGREGATIONS:
        raise ValueError(f"`aggregation` must be one of {list(AGGREGATIONS)}, got {aggregation!r}")
    if aggregation == "trueskill" and len(systems) < 2:
        raise ValueError("aggregation='trueskill' rates systems against each other: give at least two")
    sentences = {name: p for name, p in systems.items() if not isinstance(p, Mapping)}
    results = registry.run_systems(metric, sources, sentences, references, gold_m2=gold_m2, progress=progress,
                                   **options) if sentences else {}
    for name, own in systems.items():
        if isinstance(own, Mapping):
            results[name] = registry.run_systems(metric, sources, {name: None}, references, gold_m2=gold_m2,
                                                 progress=progress, **{**options, **own})[name]
    results = {name: results[name] for name in systems}
    sizes = {name: result.n for name, result in results.items()}
    if len(set(sizes.values())) > 1:
        raise ValueError(f"the systems were scored on different numbers of sentences: {sizes}")
    first = next(iter(results.values()))
    boot = n_samples if test == "bs" else DEFAULT_SAMPLES
    skills = _trueskill(results) if aggregation == "trueskill" else None
    intervals, tests = _resample(results, baseline, test, n_samples, boot, seed)
    rows = _rank(results, intervals, tests, skills)
    signature = first.signature + ("|agg:trueskill" if skills else "")
    if n_samples:
        signature += f"|{signature_suffix(n_samples, seed, test)}" + (f"|bs:{boot}" if test == "ar" else "")
    return Leaderboard(metric, first.main, results, rows, signature, baseline, test, n_samples, seed, boot,
                       aggregation)


def _trueskill(results: Mapping[str, MetricResult]) -> dict[str, float]:
    """Each system's TrueSkill μ over the sentence-level pairwise outcomes of all of them; a sentence without a
    score is an error naming it (a draw or a loss would be a guess). LLM-S/E rate the judge's own pairwise wins,
    skipping the pairs it did not judge, as gec-metrics and the paper rank them (`llm_kobayashi24.system_ranking`)."""
    if next(iter(results.values())).metric == "llm_kobayashi24":
        from gecscore.llm_kobayashi24 import system_ranking

        return system_ranking(results)
    scores = {}
    for name, result in results.items():
        values = [s.get(result.main) for s in result.sentences]
        missing = [i for i, v in enumerate(values) if v is None or v != v]
        if missing:
            raise ValueError(f"aggregation='trueskill' compares sentence scores, and system {name!r} has none for "
                             f"{len(missing)} sentence(s) (the first: {missing[0]}); robust=True scores them")
        scores[name] = [float(v) for v in values]
    return dict(zip(scores, trueskill_scores(list(scores.values()))))


def _resample(results: Mapping[str, MetricResult], baseline: str | None, test: Test, n_samples: int, boot: int,
              seed: int | None) -> tuple[dict[str, Interval | None], dict[str, tuple[float, float | None]]]:
    """Each system's interval (`boot` resamples) and, against the baseline, its difference and p-value (`n_samples`
    resamples or trials; none when 0). A paired bootstrap's interval of the system is the one its resamples give
    (the same index sets as `confidence_interval` with the same seed), so it is not drawn twice."""
    intervals: dict[str, Interval | None] = {name: None for name in results}
    tests: dict[str, tuple[float, float | None]] = {}
    if baseline is not None:
        base = results[baseline]
        for name, result in results.items():
            if name == baseline:
                continue
            if not n_samples:
                tests[name] = (result.score - base.score, None)
            elif test == "bs":
                outcome = paired_bootstrap(base.statistic, result.statistic, base.n, n_samples=n_samples, seed=seed)
                tests[name], intervals[name] = (outcome.difference, outcome.p_value), outcome.system
            else:
                trial = paired_approximate_randomization(base.statistic, result.statistic, base.n,
                                                         n_samples=n_samples, seed=seed)
                tests[name] = (trial.difference, trial.p_value)
    if n_samples:
        for name, result in results.items():
            if intervals[name] is None:
                intervals[name] = confidence_interval(result.statistic, result.n, n_samples=boot, seed=seed)
    return intervals, tests


def _check(metric: str, systems: Mapping[str, Any], baseline: str | None, test: str, n_samples: int | None,
           seed: int | None, options: Mapping[str, Any]) -> int:
    """The number of samples (defaults filled in), after checking every argument; raises before any work."""
    spec = registry.spec(metric)
    if not isinstance(systems, Mapping) or not systems:
        raise ValueError("`systems` must be a non-empty mapping of system name to predictions")
    for name, value in systems.items():
        if not isinstance(name, str) or not name:
            raise ValueError(f"system names must be non-empty strings, got {name!r}")
        if isinstance(value, Mapping):
            wrong = sorted(set(value) - set(spec.replaces_sentences))
            if wrong or not value:
                raise ValueError(f"system {name!r}: a mapping gives the input options that replace the sentences "
                                 f"({list(spec.replaces_sentences) or f'{metric} has none'}), got {sorted(value)}")
            registry.check_options(metric, {**options, **value})
    registry.check_options(metric, options)
    if test not in TEST_NAMES:
        raise ValueError(f"`test` must be 'bs' (paired bootstrap) or 'ar' (approximate randomisation), got {test!r}")
    if baseline is not None and baseline not in systems:
        raise ValueError(f"baseline {baseline!r} is not one of the systems: {list(systems)}")
    if baseline is not None and len(systems) < 2:
        raise ValueError(f"a baseline needs at least one other system to test; got only {baseline!r}")
    if test == "ar" and baseline is None:
        raise ValueError("test='ar' (approximate randomisation) compares systems with a baseline; pass `baseline`")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise ValueError(f"`seed` must be an integer or None, got {seed!r}")
    if n_samples is None:
        return DEFAULT_SAMPLES if test == "bs" else DEFAULT_AR_SAMPLES
    if isinstance(n_samples, bool) or not isinstance(n_samples, int) or n_samples < 0:
        raise ValueError(f"`n_samples` must be an integer >= 0 (0: no resampling), got {n_samples!r}")
    return n_samples


def _rank(results: Mapping[str, MetricResult], intervals: Mapping[str, Interval | None],
          tests: Mapping[str, tuple[float, float | None]], skills: Mapping[str, float] | None = None) -> list[Row]:
    """Rows by descending headline score (TrueSkill μ when `skills` are given), ties in input order and sharing a
    rank; a system with a corpus score NaN or outside its range is not ranked but listed after the ranked ones,
    with the reason."""
    broken = {name: "; ".join(f"{key} {result.scores[key]:.4g} {why}" for key, why in
                              out_of_range({result.main: result.score, **result.scores},
                                           declared_bounds(result.main, result.details)).items())
              for name, result in results.items()}
    key = {name: results[name].score if skills is None else skills[name] for name in results}
    order = sorted(results, key=lambda name: (bool(broken[name]), 0.0 if broken[name] else -key[name]))
    rows: list[Row] = []
    for position, name in enumerate(order, 1):
        score, records = results[name].score, results[name].details.get("degenerate_sentences", [])
        tied = rows and key[rows[-1].system] == key[name]
        rank = None if broken[name] else rows[-1].rank if tied else position
        difference, p = tests.get(name, (None, None))
        rows.append(Row(rank, name, score, intervals[name], difference, p, flagged_sentences(records),
                        flag_counts(records), broken[name] or None, None if skills is None else skills[name]))
    return rows


def _marked(row: Mapping[str, Any], key: str, whole: bool, digits: int) -> Any:
    """A per-type cell: the value (an int when the column is whole), with `!` after it when out of range."""
    value = row[key]
    if key not in out_of_range({key: value}):
        return int(value) if whole else value
    return (f"{int(value)}" if whole else f"{value:.{digits}f}") + f" {OUT_OF_RANGE}"
