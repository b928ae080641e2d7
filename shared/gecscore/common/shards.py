"""What a metric declares so that `gecscore.sharding` merges its shards without naming it.

Each metric package has a module `shards` (named by its `MetricSpec.shards`) with:

* `PER_SENTENCE_DETAILS`: the result details that hold one entry per sentence (the merge concatenates them in
  corpus order);
* `needs(name, resolved, references) -> dict[str, str]`: the outputs the merge needs besides the default ones, as
  option -> the details key it fills (dropped again after the merge); raises `NotShardableError` for settings whose
  numbers depend on the whole corpus;
* `refusal(name, resolved, result) -> str | None`: why one shard's result cannot be merged exactly (None: it can);
* `merge(name, resolved, result)`: re-applies the metric's corpus rule to `result`, which holds the shards' sentence
  records, per-sentence details and joined corpus statistic in corpus order: sets its scores and the details and
  per-sentence fields that the corpus rule decides (chosen references, per-type tables, totals).
"""

from __future__ import annotations


class NotShardableError(ValueError):
    """This metric, with these options, cannot be scored in shards with the numbers of one process."""
