"""Sentence examples that several metrics' Spaces show: real CoNLL-2014 test sources with outputs of SEEDA's systems
and references (`SpaceText.sentence_examples`), written once."""

from __future__ import annotations

from gecscore.common.options import SettingsExample

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

#: Written for gecscore (not from a corpus): a Chinese sentence with a doubled character and a missing verb, as raw
#: text (every character a token with language='zh'), and two references.
CHINESE = ("我昨天在图书馆看书书，然后公园散步。", "我昨天在图书馆看书，然后去公园散步。",
           "我昨天在图书馆看书，然后去公园散步。\n昨天我在图书馆看书，然后去公园散步了。")
#: Written for gecscore: a French sentence with a participle that does not agree and a missing article, tokenised.
FRENCH = ("Elle est allé à école hier .", "Elle est allée à école hier .",
          "Elle est allée à l' école hier .\nHier , elle est allée à l' école .")
#: The other-language examples of a reference-based page whose only language setting is `language`.
LANGUAGE_EXAMPLES: tuple[SettingsExample, ...] = (SettingsExample(CHINESE, (("language", "zh"),)),
                                                  SettingsExample(FRENCH, (("language", "fr"),)))
