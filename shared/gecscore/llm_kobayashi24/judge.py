"""The pure core of LLM-S / LLM-E: which corrections of a source are judged together, the prompt, and the scores
read from the answer.

Per source, the distinct hypotheses of all systems are the targets; with more than five, the five most frequent
(ties in first-seen order), and the targets are listed in sorted order (gec-metrics fixes the order this way for
reproducibility; its seed shuffles nothing). LLM-E shows each target as its ERRANT edits, `o→c` joined by spaces
(an unchanged target is an empty line). An answer is read as JSON (the whole text, else the first ```json block,
else the first {...}); target k's score is key `target_scorek` (the answer format gec-metrics enforces), or
`targetk_score` (the key the prompt names); it must be an integer from 1 to 5.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Sequence


# ---------------------------------------------------------------------------------------------------------------
# The published prompts, as data. Source: gec-metrics 0.1.1 (MIT), `gec_metrics/metrics/llm_kobayashi24.py`, the
# `instruction_template` defaults of `LLMKobayashi24` (LLM-S) and `LLMKobayashi24OpenAIEdit` / `HFEdit` (LLM-E),
# which follow the paper's appendix; quoted character for character (the parity test compares the prompts sent).
# Two quirks are kept: the schema asks for keys `target1_score` while the answer format gec-metrics enforces and
# reads is `target_score1`, and LLM-E's template breaks the line after "in the". `[SOURCE]` and `[CORRECTION]` are replaced by the source and the
# targets, one per line.

SENTENCE_TEMPLATE = '''The goal of this task is to rank the presented targets based on the quality of the sentences.
After reading the source sentence and target sentences, please assign a score from a minimum of 1 point to a maximum of 5 points to each target based on the quality of the sentence (note that you can assign the same score multiple times).

# source
[SOURCE]

# targets
[CORRECTION]

# output format
The output should be a markdown code snippet formatted in the following schema, including the leading and trailing "```json" and "```":
```json
{
"target1_score": int // assigned score for target 1
...
"targetN_score": int // assigned score for target N
}
```
'''

EDIT_TEMPLATE = '''The goal of this task is to rank the presented targets based on the quality of the sentences.
After reading the source sentence and target sentences, please assign a score from a minimum of 1 point to a maximum of 5 points to each target based on the quality of the sentence (note that you can assign the same score multiple times).
For targets without any edits, if the sentence is correct, they will be awarded 5 points; if there is an error, they will receive 1 point.
The edits in each target are indicated as follows:
Insert "the": [→the]
Delete "the": [the→]
Replace "the" with "a": [the→a]

# context
[SOURCE]

# targets
[CORRECTION]

# output format
The output should be a markdown code snippet formatted in the
following schema, including the leading and trailing "```json" and "```":
```json
{
"target1_score": int // assigned score for target 1
...
"targetN_score": int // assigned score for target N
}
```
'''

#: The system message gec-metrics' OpenAI classes send before the prompt.
SYSTEM_MESSAGE = "You are a helpful assistant."

#: Per variant: the template and the criterion sentences gec-metrics offers (`criteria`). A criterion is inserted
#: on its own line before "\n\n# context", which only LLM-E's template has: LLM-S ignores it, as in gec-metrics.
TEMPLATES = {"sent": SENTENCE_TEMPLATE, "edit": EDIT_TEMPLATE}
CRITERIA = {
    "sent": {
        "grammaticality": "Please evaluate each target with a focus on the grammaticality of the sentence.",
        "fluency": "Please evaluate each target with a focus on the fluency of the sentence.",
        "meaning": "Please evaluate each target with a focus on preserving the meaning between each target and the "
                   "source, which is the middle sentence in the context.",
    },
    "edit": {
        "difficulty": "Please evaluate each edit in the target with a focus on the difficulty of corrections.",
        "impact": "Please evaluate each edit in the target with a focus on its impact on the sentence.",
    },
}

# ---------------------------------------------------------------------------------------------------------------
# Targets, prompt, answer

#: The most targets one prompt holds (the paper's and gec-metrics' five).
MAX_TARGETS = 5
LOWEST, HIGHEST = 1, 5
_JSON_BLOCK = re.compile(r"```json\s*(.*?)```", re.S)
_BRACES = re.compile(r"\{.*?\}", re.S)


@dataclass(frozen=True)
class Reading:
    """The scores read from one answer (None when it cannot be read) and why not."""

    scores: tuple[int, ...] | None
    reason: str = ""


def select_targets(hypotheses: Sequence[str], max_targets: int = MAX_TARGETS) -> list[str]:
    """The distinct hypotheses judged together: all, or the `max_targets` most frequent; sorted."""
    counts = Counter(hypotheses)
    if len(counts) > max_targets:
        chosen = [text for text, _ in sorted(counts.items(), key=lambda item: item[1], reverse=True)[:max_targets]]
    else:
        chosen = list(counts)
    return sorted(chosen)


def edit_form(edits: Sequence[Any]) -> str:
    """A target as LLM-E shows it: its edits as `o→c`, joined by spaces."""
    return " ".join(f"{edit.o_str}→{edit.c_str}" for edit in edits)


def template_for(variant: str, criterion: str | None = None) -> str:
    """The published template of `variant` ('sent' or 'edit'), with a criterion sentence where the template has
    a "# context" section (gec-metrics inserts it there only)."""
    template = TEMPLATES[variant]
    if criterion is not None and (criterion not in CRITERIA[variant] or "\n\n# context" not in template):
        raise ValueError(f"criterion={criterion!r} does not apply to variant={variant!r}: that published prompt has "
                         "no place for it (LLM-E, variant='edit', takes 'difficulty' or 'impact')")
    if criterion is not None:
        template = template.replace("\n\n# context", f"\n{CRITERIA[variant][criterion]}\n\n# context")
    return template


def build_prompt(template: str, source: str, targets: Sequence[str]) -> str:
    """The prompt for one source and its targets (one per line)."""
    return template.replace("[SOURCE]", source).replace("[CORRECTION]", "\n".join(targets))


def answer_schema(n: int) -> dict[str, Any]:
    """The JSON schema of an answer with `n` integer scores (`target_score1`..`n`), as gec-metrics requests it."""
    keys = [f"target_score{k}" for k in range(1, n + 1)]
    return {"type": "object", "properties": {k: {"type": "integer"} for k in keys}, "required": keys,
            "additionalProperties": False}


def read_scores(answer: str | None, n: int) -> Reading:
    """The `n` scores of an answer, or why they cannot be read."""
    if answer is None or not answer.strip():
        return Reading(None, "empty answer")
    data = _json_object(answer)
    if data is None:
        return Reading(None, "no JSON object in the answer")
    scores = []
    for k in range(1, n + 1):
        key = next((key for key in (f"target_score{k}", f"target{k}_score") if key in data), None)
        if key is None:
            return Reading(None, f"no score for target {k}")
        value = data[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value):
            return Reading(None, f"target {k}'s score is not an integer: {value!r}")
        if not LOWEST <= value <= HIGHEST:
            return Reading(None, f"target {k}'s score {value!r} is outside {LOWEST}..{HIGHEST}")
        scores.append(int(value))
    return Reading(tuple(scores))


def _json_object(answer: str) -> dict[str, Any] | None:
    """The answer's JSON object: the whole text, else its first ```json block, else its first {...}."""
    candidates = [answer, *(m.group(1) for m in _JSON_BLOCK.finditer(answer)),
                  *(m.group(0) for m in _BRACES.finditer(answer))]
    for text in candidates:
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            continue
        if isinstance(data, dict):
            return data
    return None
