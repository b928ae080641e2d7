"""errant_compare parity: `gecscore.common.errant_compare` (and `gecscore score errant` with
`convention='errant_compare'`) against ERRANT 3.0.2's own `errant_compare`, run unchanged (`errant_oracle`)."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from errant_oracle import errant_compare, errant_parallel_many
from gecscore import registry
from gecscore.common import errant_compare as ec
from gecscore.common.errant_scoring import Counts, FScore
from gecscore.common.m2io import parse_m2, read_m2

FLAGS = [[], ["-ds"], ["-dt"], ["-cse"], ["-single"], ["-multi"], ["-ds", "-multi"], ["-dt", "-single"],
         ["-filt", "R:NOUN", "UNK"], ["-b", "1"], ["-b", "2", "-dt"]]
TYPES = ["M:DET", "R:NOUN", "R:NOUN:NUM", "U:PUNCT", "R:VERB:SVA", "R:OTHER", "UNK", "M:PREP"]
WORDS = ["", "the", "a", "cats", "is", "are", "of the", "in a big", ","]


def settings_from(flags: list[str]) -> ec.CompareSettings:
    """Our settings for errant_compare's flags."""
    evaluation = next((f[1:] for f in flags if f in ("-ds", "-dt", "-cse")), "cs")
    size = next((f[1:] for f in flags if f in ("-single", "-multi")), "all")
    beta = float(flags[flags.index("-b") + 1]) if "-b" in flags else 0.5
    filt = flags[flags.index("-filt") + 1:] if "-filt" in flags else []
    return ec.CompareSettings(beta, evaluation, size, frozenset(filt))


def ours(hyp: Path, ref: Path, flags: list[str], level: int | None) -> str:
    """Our printout for the same files and flags."""
    settings = settings_from(flags)
    scored = ec.score_corpus([ec.from_m2(b) for b in read_m2(hyp)], [ec.from_m2(b) for b in read_m2(ref)], settings)
    return ec.report(scored.counts, scored.types, settings, level) + "\n"


def random_block(rng: random.Random, coders: int) -> str:
    """One M2 block over a 6-token source: random spans, corrections, types, duplicates, noops and gaps."""
    lines = ["S w0 w1 w2 w3 w4 w5"]
    for coder in range(coders):
        if rng.random() < 0.15:
            continue  # a coder without lines (errant_parallel writes none when annotate finds no edit)
        if rng.random() < 0.15:
            lines.append(f"A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||{coder}")
            continue
        for _ in range(rng.randint(1, 4)):
            start = rng.randint(0, 5)
            end = start + rng.choice([0, 1, 1, 2, 3]) if start < 5 else start
            line = f"A {start} {min(end, 6)}|||{rng.choice(TYPES)}|||{rng.choice(WORDS)}|||REQUIRED|||-NONE-|||{coder}"
            lines.append(line)
            if rng.random() < 0.1:
                lines.append(line)  # duplicated edit
    return "\n".join(lines)


@pytest.mark.parametrize("seed", range(6))
def test_random_m2_files_print_exactly_what_errant_compare_prints(tmp_path, seed):
    rng = random.Random(seed)
    hyp, ref = tmp_path / "hyp.m2", tmp_path / "ref.m2"
    hyp.write_text("\n\n".join(random_block(rng, rng.choice([1, 1, 2])) for _ in range(40)) + "\n\n")
    ref.write_text("\n\n".join(random_block(rng, rng.choice([1, 2, 3])) for _ in range(40)) + "\n\n")
    for flags in FLAGS:
        for level in (None, 1, 2, 3):
            cat = [] if level is None else ["-cat", str(level)]
            assert ours(hyp, ref, flags, level) == errant_compare(hyp, ref, *flags, *cat), (flags, level)


def test_counts_follow_errant_compare_rules():
    """Hand-computed: TPs under the reference type, duplicated keys counted per type, UNK only when detecting."""
    hyp = parse_m2("S a b c d\nA 0 1|||R:NOUN|||x|||REQUIRED|||-NONE-|||0\n"
                   "A 2 3|||R:VERB|||y|||REQUIRED|||-NONE-|||0\nA 2 3|||R:VERB|||y|||REQUIRED|||-NONE-|||0\n")[0]
    ref = parse_m2("S a b c d\nA 0 1|||R:VERB:SVA|||x|||REQUIRED|||-NONE-|||0\n"
                   "A 0 1|||R:OTHER|||x|||REQUIRED|||-NONE-|||0\nA 3 4|||UNK|||d|||REQUIRED|||-NONE-|||0\n")[0]
    cands = ec.candidates(ec.from_m2(hyp), ec.from_m2(ref), ec.CompareSettings())
    assert cands[0].types == {"R:VERB:SVA": Counts(1, 0, 0), "R:OTHER": Counts(1, 0, 0), "R:VERB": Counts(0, 2, 0)}
    spans = ec.candidates(ec.from_m2(hyp), ec.from_m2(ref), ec.CompareSettings(evaluation="ds"))[0]
    assert spans.types["UNK"] == Counts(0, 0, 1)
    tokens = ec.coder_keys([ec.CompareEdit(2, 2, "M:DET", "the", 0), ec.CompareEdit(0, 2, "R:X", "y", 0)],
                           ec.CompareSettings(evaluation="dt"))
    assert tokens == {0: {(2, 3): ["M:DET"], (0, 1): ["R:X"], (1, 2): ["R:X"]}}


def test_references_are_chosen_on_f_rounded_to_four_decimals():
    """Two candidates whose exact F differ below 5e-5: errant_compare keeps the first; the exact rule does not."""
    grid = [Counts(tp, fp, fn) for tp in range(1, 40) for fp in range(0, 40, 3) for fn in range(0, 40, 3)]
    f = {c: FScore().prf(c).f for c in grid}
    by_rounded: dict[float, list[Counts]] = {}
    for c in grid:
        by_rounded.setdefault(round(f[c], 4), []).append(c)
    found = next(((a, b) for group in by_rounded.values() for a in group for b in group
                  if f[b] > f[a] and FScore().key(b)[1:] < FScore().key(a)[1:]), None)
    assert found is not None
    a, b = found
    assert FScore().best_reference([a, b]) == 1
    assert FScore(decimals=4).best_reference([a, b]) == 0
    assert FScore(decimals=4).aggregate([[a, b]]).corpus_refs == [0]


def test_edits_of_sentences_are_errant_parallel_s(nlp):
    """A reference equal to its source is a noop line; the errant_compare convention keeps UNK edits."""
    result = registry.run("errant", ["He go to school ."], ["He goes to school ."],
                          [["He go to school .", "He goes to school ."]], convention="errant_compare",
                          return_types=3)
    record = result.sentences[0]
    assert record["coders"] == [[0, 0], [0, 1]] and record["per_ref"] == [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]
    assert result.details["types"]["rows"] == {"R:VERB:SVA": {"tp": 1.0, "fp": 0.0, "fn": 0.0, "precision": 1.0,
                                                              "recall": 1.0, "f0.5": 1.0}}
    assert "convention:errant_compare|evaluation:cs" in result.signature


def test_errant_compare_options_need_the_convention():
    with pytest.raises(ValueError, match="`evaluation` is errant_compare's option"):
        registry.run("errant", ["a b"], ["a c"], [["a c"]], evaluation="ds")
    with pytest.raises(ValueError, match="does not apply to variant 'uot'"):
        registry.run("uot_errant", ["a b"], ["a c"], [["a c"]], convention="errant_compare")


def test_m2_files_score_without_a_parser(tmp_path):
    m2 = "S a b c\nA 0 1|||R:NOUN|||x|||REQUIRED|||-NONE-|||0\n\n"
    result = registry.run("errant", None, None, hyp_m2=m2, ref_m2=m2, convention="errant_compare", return_types=1)
    assert result.scores["tp"] == 1.0 and result.details["types"]["rows"]["R"]["tp"] == 1.0
    with pytest.raises(ValueError, match="convention='errant_compare'"):
        registry.run("errant", None, None, hyp_m2=m2, ref_m2=m2)
    with pytest.raises(ValueError, match="differs from `ref_m2` sentence 0"):
        registry.run("errant", None, None, hyp_m2=m2, ref_m2=m2.replace("a b c", "a b d"),
                     convention="errant_compare")


# ---------------------------------------------------------------------------------------------------
# Every SEEDA-subset system, edits extracted by errant_parallel (the oracle) and by gecscore


@pytest.fixture(scope="module")
def seeda_m2(shared_data, tmp_path_factory):
    """The SEEDA subset's systems and references, and their M2 files made by errant_parallel."""
    root, out = shared_data / "SEEDA", tmp_path_factory.mktemp("seeda_m2")
    source = root / "outputs" / "subset" / "INPUT.txt"
    systems = sorted(p for p in (root / "outputs" / "subset").glob("*.txt"))
    refs = [root / "derived" / "REF0.txt", root / "derived" / "REF1.txt"]
    errant_parallel_many([(source, refs, out / "ref.m2")] + [(source, [p], out / f"{p.stem}.m2") for p in systems])
    return source, systems, refs, out


@pytest.mark.real_model
def test_every_seeda_system_per_type_equals_errant_compare(seeda_m2):
    source, systems, refs, out = seeda_m2
    lines = [p.read_text(encoding="utf-8").rstrip("\n").split("\n") for p in (source, *refs)]
    predictions = {p.stem: p.read_text(encoding="utf-8").rstrip("\n").split("\n") for p in systems}
    references = [list(r) for r in zip(*lines[1:])]
    assert len(systems) == 15
    for flags in ([], ["-ds"], ["-dt"], ["-single"], ["-multi"], ["-filt", "R:SPELL", "M:PUNCT"], ["-b", "1"]):
        settings = settings_from(flags)
        options = dict(convention="errant_compare", evaluation=settings.evaluation, edit_size=settings.edit_size,
                       filter_types=sorted(settings.filter_types), beta=settings.beta, return_types=3)
        results = registry.run_systems("errant", lines[0], predictions, references, **options)
        for name, result in results.items():
            counts = Counts(result.scores["tp"], result.scores["fp"], result.scores["fn"])
            types = {t: Counts(r["tp"], r["fp"], r["fn"]) for t, r in result.details["types"]["rows"].items()}
            for level in ((None, 1, 2, 3) if flags in ([], ["-ds"], ["-dt"]) else (3,)):
                cat = [] if level is None else ["-cat", str(level)]
                expected = errant_compare(out / f"{name}.m2", out / "ref.m2", *flags, *cat)
                assert ec.report(counts, types, settings, level) + "\n" == expected, (name, flags, level)
                assert ours(out / f"{name}.m2", out / "ref.m2", flags, level) == expected, (name, flags, level)
    printed = _cli("--sources", str(source), "--references", *map(str, refs), "--predictions",
                   str(systems[0]), "-cat", "2", "-ds")
    assert printed.startswith(errant_compare(out / f"{systems[0].stem}.m2", out / "ref.m2", "-ds", "-cat", "2"))


def _cli(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "gecscore.cli", "score", "errant", *args], capture_output=True,
                          text=True, check=True)
    return done.stdout


def test_cli_on_m2_files_prints_what_errant_compare_prints(tmp_path):
    """`gecscore score errant -hyp H -ref R FLAGS` in place of `errant_compare -hyp H -ref R FLAGS`."""
    rng = random.Random(7)
    hyp, ref = tmp_path / "hyp.m2", tmp_path / "ref.m2"
    hyp.write_text("\n\n".join(random_block(rng, 1) for _ in range(30)) + "\n\n")
    ref.write_text("\n\n".join(random_block(rng, 2) for _ in range(30)) + "\n\n")
    for flags in (["-cat", "3"], ["-ds", "-cat", "2"], ["-dt", "-single", "-cat", "1"], ["-b", "1.0"]):
        printed = _cli("-hyp", str(hyp), "-ref", str(ref), *flags)
        expected = errant_compare(hyp, ref, *flags)
        assert printed.startswith(expected) and "convention:errant_compare" in printed.split("\n")[-2], flags


def test_cli_refuses_errant_compare_flags_elsewhere(tmp_path):
    done = subprocess.run([sys.executable, "-m", "gecscore.cli", "score", "pt_m2", "--sources", "x", "--predictions",
                           "x", "--references", "x", "-ds"], capture_output=True, text=True)
    assert done.returncode != 0 and "apply to metric errant" in done.stderr
