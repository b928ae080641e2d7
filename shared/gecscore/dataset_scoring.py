"""Scoring a whole `datasets.Dataset` or `IterableDataset`: `gecscore.score_dataset`, e.g. to filter or weight
synthetic training pairs with IMPARA-GED.

`score_dataset(dataset, metric, source=..., prediction=..., references=[...], **options)` adds two columns: the
metric's sentence score (`column`, default the metric's name) and `<column>_degenerate` (the sentence's degenerate
reasons, comma-separated, "" for none). Options and defaults are `compute`'s. A sentence's score is its record's
`score` when it is scored alone (`gecscore.sentence_scorer`): the number `compute(..., sentence_scores=True)` gives
it, except where a full run chooses a sentence's reference greedily given the sentences before it (M², corpus-level
PT-ERRANT and CLEME), where alone it takes its own best reference. So rows can be scored batch by batch
(`batch_size` rows), in any order and on any node; settings whose statistics depend on the whole corpus or on other
systems are refused before any work, and bad input raises before its batch is scored, naming the dataset rows.

* A map-style `Dataset` backed by files is scored in chunks of `chunk_size` rows, each one a `Dataset.map` with a
  fingerprint of its own (the dataset's, the rows, the metric and its options, gecscore's version, and the identity
  of every model the options name: a local folder's or file's names, sizes and modification times, a Hub id's
  cached commit, the folders behind `minilm` and `embedded`): a chunk finished before an interruption is read back
  from the datasets cache, so a rerun resumes where it stopped, and a finished run is read back whole. A change to
  the data, an option or any model file (a retrained estimator saved over the old one) makes a new fingerprint, so
  the rows are scored again, never read back from the old model's numbers.
* An `IterableDataset` is mapped lazily: rows are scored as they are read, memory stays bounded. Where its
  columns are unknown until read (`column_names` None), a misnamed one raises at the first batch.
* Under `torch.distributed` (`torchrun`, `accelerate launch`) a map-style dataset is split by node
  (`datasets.distributed.split_dataset_by_node`, contiguous parts), each rank scores its part, and the columns are
  gathered in order, so every rank returns the whole dataset with its scores. An iterable dataset is split by node
  and each rank returns its own part (a stream cannot be gathered).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Sequence

from gecscore import __version__, registry, sharding
from gecscore.common.file_identity import file_identity
from gecscore.common.inputs import reference_cell
from gecscore.common.results import CLIPPED
from gecscore.sentence_scorer import SentenceScorer

__all__ = ["score_dataset"]


def score_dataset(dataset: Any, metric: str, *, source: str = "source", prediction: str = "prediction",
                  references: str | Sequence[str] | None = None, column: str | None = None, batch_size: int = 256,
                  chunk_size: int = 10_000, **options: Any) -> Any:
    """`dataset` with the sentence scores of `metric` (see the module docstring); `references` names one column
    holding a string or a list of strings per row, or several columns holding one string each."""
    import datasets
    from datasets.distributed import split_dataset_by_node

    column = column or metric
    models = _models(metric, options)  # pinned before the scorer loads them, as the embedding cache pins its files
    scorer = SentenceScorer(metric, **options)
    ref_columns = [references] if isinstance(references, str) else list(references or [])
    if scorer.reference_free and ref_columns:
        raise ValueError(f"{metric} is reference-free; give no `references`")
    if not scorer.reference_free and not ref_columns:
        raise ValueError(f"{metric} needs references: name their column(s) with `references=`")
    for kind, batch in (("batch_size", batch_size), ("chunk_size", chunk_size)):
        if not isinstance(batch, int) or batch < 1:
            raise ValueError(f"`{kind}` must be a positive integer, got {batch!r}")
    score_rows = _Rows(scorer, source, prediction, ref_columns, column)
    if dataset.column_names is not None:  # else (a stream of unknown features) each batch checks its own columns
        score_rows.check_columns(dataset.column_names)
    rank, world = sharding.rank_and_world()
    if isinstance(dataset, datasets.IterableDataset):
        if world > 1:
            dataset = split_dataset_by_node(dataset, rank=rank, world_size=world)
        return dataset.map(score_rows, batched=True, batch_size=batch_size, with_indices=True)
    fingerprint = _fingerprint(dataset, metric, options, models, source, prediction, ref_columns, column, batch_size)
    if world == 1:
        return _map_in_chunks(dataset, score_rows, batch_size, chunk_size, fingerprint)
    part = split_dataset_by_node(dataset, rank=rank, world_size=world)
    start = sharding.shard_bounds(len(dataset), world)[rank][0]
    scored = _map_in_chunks(part, score_rows.offset(start), batch_size, chunk_size, f"{fingerprint}-{rank}-{world}")
    gathered: list[Any] = [None] * world
    sharding.distributed().all_gather_object(gathered, (list(scored[column]), list(scored[f"{column}_degenerate"])))
    scores = [value for part_scores, _ in gathered for value in part_scores]
    flags = [value for _, part_flags in gathered for value in part_flags]
    return dataset.add_column(column, scores).add_column(f"{column}_degenerate", flags)


class _Rows:
    """The batched map function: one batch of rows → the score and flag columns."""

    def __init__(self, scorer: SentenceScorer, source: str, prediction: str, references: list[str], column: str,
                 start: int = 0) -> None:
        self.scorer, self.source, self.prediction, self.references = scorer, source, prediction, references
        self.column, self.start = column, start

    def offset(self, start: int) -> "_Rows":
        """The same function for a part of the dataset that starts at row `start`."""
        return _Rows(self.scorer, self.source, self.prediction, self.references, self.column, start)

    def check_columns(self, names: Sequence[str]) -> None:
        """Raise ValueError naming a column this function reads that is not among `names`, or one it adds that
        is (a KeyError or a silently overwritten column would not say which role's name is wrong)."""
        roles = [("source", self.source), ("prediction", self.prediction)]
        for role, name in roles + [("references", r) for r in self.references]:
            if name not in names:
                raise ValueError(f"the dataset has no column {name!r} (`{role}`); its columns: {list(names)}")
        for new in (self.column, f"{self.column}_degenerate"):
            if new in names:
                raise ValueError(f"the dataset already has a column {new!r}; name the score column with `column=`")

    def __call__(self, batch: dict[str, list[Any]], indices: list[int]) -> dict[str, list[Any]]:
        self.check_columns(list(batch))
        where = f"dataset rows {self.start + indices[0]}-{self.start + indices[-1]}" if indices else "dataset"
        references = None
        if self.references:
            references = []
            for i, values in enumerate(zip(*(batch[name] for name in self.references))):
                row = self.start + indices[i]
                group = [r for name, value in zip(self.references, values)
                         for r in reference_cell(value, f"{name}[{row}]", allow_empty=True)]
                if not group:
                    raise ValueError(f"row {row}: references {self.references} hold no reference ({values!r})")
                references.append(group)
        try:
            scored = self.scorer.score(batch[self.source], batch[self.prediction], references)
        except (ValueError, TypeError) as error:
            raise type(error)(f"{where}: {error} (indices count from the batch's first row)") from error
        flags: list[list[str]] = [[] for _ in scored.scores]
        for record in scored.degenerate:
            if record["reason"] != CLIPPED:  # the column holds the metric's own score, not a clipped value
                flags[record["index"]].append(record["reason"])
        return {self.column: scored.scores, f"{self.column}_degenerate": [", ".join(f) for f in flags]}


def _map_in_chunks(dataset: Any, score_rows: _Rows, batch_size: int, chunk_size: int, fingerprint: str) -> Any:
    """`dataset.map(score_rows)` chunk by chunk, each chunk cached under its own fingerprint (see the module)."""
    import datasets

    n = len(dataset)
    if n <= chunk_size or not dataset.cache_files:
        return dataset.map(score_rows, batched=True, batch_size=batch_size, with_indices=True,
                           new_fingerprint=fingerprint, desc=f"{score_rows.column}")
    parts = []
    for start in range(0, n, chunk_size):
        stop = min(n, start + chunk_size)
        chunk = dataset.select(range(start, stop))
        parts.append(chunk.map(score_rows.offset(score_rows.start + start), batched=True, batch_size=batch_size,
                               with_indices=True, new_fingerprint=f"{fingerprint}-{start}-{stop}",
                               desc=f"{score_rows.column} rows {start}-{stop}"))
    return datasets.concatenate_datasets(parts)


def _models(metric: str, options: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Each model name among `metric`'s settings (defaults filled in) → the identity of what it loads
    (`file_identity`), where one is known: the chunk fingerprints change when the weights do, not only the names.

    One rule for every metric: any free-form string setting (one without fixed choices) may name a model, a folder
    or a file, so each is looked up; the aliases `minilm` and `embedded` stand for the folders they load."""
    spec = registry.spec(metric)
    resolved = spec.resolve(registry.check_options(metric, options))
    revisions = list(dict.fromkeys([None, resolved.get("revision")]))
    names: list[str] = []
    for option in spec.options:
        if not option.choices and option.type != "language":  # a choice or a language code is never a file
            value = resolved.get(option.name)
            names += [v for v in (value if isinstance(value, (list, tuple)) else [value]) if isinstance(v, str)]
    found = {name: [i for i in (file_identity(path, revisions) for path in _folders(name)) if i is not None]
             for name in dict.fromkeys(names)}
    return {name: identities for name, identities in found.items() if identities}


def _folders(name: str) -> list[str]:
    """What the model name `name` loads: the PyPI MiniLM for `minilm`, IMPARA's embedded estimator (its delta and
    the MiniLM under it) for `embedded`, else `name` itself."""
    from gecscore.common.encoders import ALIASES, resolve_model
    from gecscore.impara_ged import EMBEDDED, embedded_folders

    try:
        if name == EMBEDDED:
            return [str(folder) for folder in embedded_folders()]
        return [resolve_model(name)] if name.lower() in ALIASES else [name]
    except OSError:  # the alias's package is not installed: loading fails before any score is cached
        return []


def _fingerprint(dataset: Any, metric: str, options: dict[str, Any], *parts: Any) -> str:
    """What the scores depend on: the dataset's own fingerprint, the metric and options, the identities of the
    models (`_models`), the columns, gecscore."""
    described = json.dumps([getattr(dataset, "_fingerprint", None), metric, options, parts, __version__],
                           sort_keys=True, default=repr)
    return hashlib.sha256(described.encode()).hexdigest()[:32]
