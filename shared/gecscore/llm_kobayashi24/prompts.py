"""The published prompts of LLM-S and LLM-E (Kobayashi, Mita & Komachi 2024), as data.

Source: gec-metrics 0.1.1 (MIT), `gec_metrics/metrics/llm_kobayashi24.py`, the `instruction_template` defaults of
`LLMKobayashi24` (LLM-S) and `LLMKobayashi24OpenAIEdit` / `LLMKobayashi24HFEdit` (LLM-E), which follow the paper's
appendix. They are quoted character for character (two of their quirks are the paper's / gec-metrics', kept: the
schema asks for keys `target1_score` while the answer format gec-metrics enforces and reads is `target_score1`,
and LLM-E's template breaks the line after "in the"). `[SOURCE]` and `[CORRECTION]` are replaced by the source and
the targets, one per line.
"""

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
