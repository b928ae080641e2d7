"""Sentence examples that several metrics' Spaces show: real CoNLL-2014 test sources with outputs of SEEDA's systems
and references (`SpaceText.sentence_examples`), written once."""

from __future__ import annotations

#: A CoNLL-2014 test source with several errors (subject-verb agreement, tense, spelling, a wrong preposition).
DISEASE = "Do one who suffered from this disease keep it a secret of infrom their relatives ?"

#: (source, hypothesis, references one per line) for a reference-based metric's page.
REFERENCE_EXAMPLES: tuple[tuple[str, str, str], ...] = (
    (
        DISEASE,
        "Does someone who suffers from this disease keep it a secret from their relatives ?",
        "Does one who suffers from this disease keep it a secret or inform their relatives ?\n"
        "Does someone who suffers from this disease keep it a secret or inform their relatives ?",
    ),
    (
        "He or she might even be adviced not to get married or have children .",
        "They might even be advised not to get married or have children .",
        "He or she might even be advised not to get married or have children .",
    ),
)
