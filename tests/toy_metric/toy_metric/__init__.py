"""A toy metric packaged outside gecscore (tests/test_toy_metric.py): a prediction scores 1 when it equals one of
its references, else 0; the corpus score is the mean. Its SPEC is all gecscore needs to give it a CLI command, an
evaluate script, a Space, a leaderboard with intervals, shards, rewards and a documentation page."""

from gecscore.common.options import MetricSpec, Option, ScriptText, SpaceText, input_options

SPEC = MetricSpec(
    name="toy",
    title="Toy exact match",
    summary="1 when the prediction equals a reference, else 0; the mean over sentences",
    variants=(),
    runner="toy_metric.metric",
    sentence_option="sentence_scores",
    statistics=("match",),
    options=(
        Option("case_sensitive", "bool", True, "compare the texts as given (False: ignore case)"),
        *input_options(errant=False),
        Option("sentence_scores", "bool", False, "also return each sentence's score", kind="output"),
        Option("progress", "bool", False, "show progress bars", kind="output"),
    ),
    script=ScriptText(
        headline="Toy exact match: 1 when the prediction equals a reference (a test of gecscore's registry).",
        citation="",
        description="1 when the prediction equals one of its references, else 0; the corpus score is the mean.\n",
        inputs="""\
    sources (list of str): source sentences.
    predictions (list of str): corrected sentences, one per source.
    references (list of list of str): one or more references per source.
""",
        returns="""\
    exact (float): the share of predictions equal to a reference.
    signature (str): the versions and settings that produced the score.
""",
        examples="""\
    >>> import evaluate
""",
        codebase_urls=(),
        reference_urls=(),
    ),
    space=SpaceText(
        intro="# Toy exact match\nA prediction scores 1 when it equals one of its references.",
        settings=("case_sensitive",),
        sentence_examples=(("He go home .", "He goes home .", "He goes home .\nHe went home ."),),
    ),
)
