"""Chinese edits from parallel text (`errant` with `language="zh"` and no M2 files): gecscore's own extraction writes
the char-level M2 that ChERRANT's `parallel_to_m2.py -g char` wrote for MuCGEC dev and its demo
(../shared/golden/cherrant, made by running the reference unmodified), byte for byte, and then scores as ChERRANT
does, through the library, the command line and the evaluate module.

The edit-based metrics that read one edit list per pair (M², SentM², PT-M2) read ChERRANT's first alignment, held
to ChERRANT's M2 here too; they have no Chinese reference implementation, so they are held to their own M2 path
over ChERRANT's edits.

The lexicon is tests/zh_lexicon/mucgec_dev.json: ChERRANT's Cilin codes and confusion sets restricted to the
characters of these texts (tests/zh_lexicon/make.py says how it was made). This file takes about a minute and a
half on one core, because the parity is over the whole dev set: its 1,137 sources, 2,466 references and the example
prediction are aligned once, by the module fixture (about 30 s; every later test reads the aligner's cache), and
PT-M2 runs twice with a tiny encoder.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import REPO
from test_cherrant import agree_with_cherrant
from gecscore import registry
from gecscore.common import chinese_edits as ce
from gecscore.common.results import DegenerateOutputWarning

LEXICON = Path(__file__).parent / "zh_lexicon" / "mucgec_dev.json"
ZH = {"convention": "errant_compare", "language": "zh", "zh_lexicon": str(LEXICON)}


@pytest.fixture(scope="module")
def dev(shared_data, golden):
    """MuCGEC dev as (sources, references, predictions), our M2 of references and prediction, and ChERRANT's."""
    folder = shared_data / "MuCGEC" / "MuCGEC"
    rows = [line.split("\t") for line in (folder / "MuCGEC_dev.txt").read_text(encoding="utf-8").strip().split("\n")]
    predictions = [line.split("\t")[2] for line in
                   (folder / "example_pred_dev.txt").read_text(encoding="utf-8").strip().split("\n")]
    sources, references = [r[1] for r in rows], [r[2:] for r in rows]
    lexicon = ce.load_lexicon(LEXICON)
    ours = (ce.cherrant_m2(sources, [[p] for p in predictions], lexicon), ce.cherrant_m2(sources, references, lexicon))
    root = golden / "cherrant" / "mucgec_dev"
    theirs = tuple((root / name).read_text(encoding="utf-8")
                   for name in ("example_pred_dev.hyp.m2.char", "MuCGEC_dev.ref.m2.char"))
    record = json.loads((golden / "cherrant" / "cherrant_char_mucgec_dev_example_pred.json").read_text(encoding="utf-8"))
    return sources, references, predictions, ours, theirs, record


def _blocks(m2: str) -> list[str]:
    return m2.strip().split("\n\n")


def test_mucgec_dev_m2_from_text_is_cherrants_byte_for_byte(dev):
    """The references (1-7 per sentence, 48 blocks with several equally cheap alignments, 没有错误 and 无法标注)
    and the example prediction: every block, every alignment, in ChERRANT's order."""
    *_, ours, theirs, _ = dev
    for mine, reference in zip(ours, theirs):
        differing = [i for i, (a, b) in enumerate(zip(_blocks(mine), _blocks(reference))) if a != b]
        assert differing == [] and mine == reference


def test_the_demo_m2_from_text_is_the_shipped_one(shared_data):
    samples = shared_data / "MuCGEC" / "ChERRANT" / "samples"
    rows = [line.split("\t") for line in (samples / "demo.hyp.para").read_text(encoding="utf-8").strip().split("\n")]
    m2 = ce.cherrant_m2([r[1] for r in rows], [r[2:] for r in rows], ce.load_lexicon(LEXICON))
    assert m2 == (samples / "demo.hyp.m2.char").read_text(encoding="utf-8")


def _from_text(dev, **options):
    sources, references, predictions, *_ = dev
    with pytest.warns(DegenerateOutputWarning, match="not annotatable: 3"):
        return registry.run("errant", sources, predictions, references, **ZH, **options)


@pytest.mark.parametrize("mode,options", [("corpus", {}), ("cse", {"evaluation": "cse"}),
                                          ("ds", {"evaluation": "ds"}), ("dt", {"evaluation": "dt"}),
                                          ("cs_beta1", {"beta": 1.0})])
def test_scores_from_text_equal_cherrant_in_every_mode(dev, mode, options):
    record = dev[-1]
    expected = record["corpus"] if mode == "corpus" else record["corpus_other_modes"][mode]
    result = _from_text(dev, **options)
    f_name = "f" + format(options.get("beta", 0.5), "g")
    got = {"tp": result.scores["tp"], "fp": result.scores["fp"], "fn": result.scores["fn"],
           "p": round(result.scores["precision"], 4), "r": round(result.scores["recall"], 4),
           "f": round(result.scores[f_name], 4)}
    assert got == expected
    assert f"edits:cherrant-char|zh_lexicon:{ce.load_lexicon(LEXICON).digest}" in result.signature


def test_every_sentence_and_type_from_text_equals_cherrant(dev, golden):
    """Each sentence's counts and chosen annotators; the 无法标注 sentences listed as degenerate; -cat 3's table."""
    record = dev[-1]
    result = _from_text(dev, return_sentence_scores=True, return_types=3)
    assert [d["index"] for d in result.details["degenerate_sentences"]] == [97, 463, 1076]
    for expected, ours in zip(record["sentences"], result.sentences, strict=True):
        k = [tuple(pair) for pair in ours["coders"]].index((0, ours["corpus_ref"]))
        assert ours["per_ref"][k] == [expected["tp"], expected["fp"], expected["fn"]], expected["index"]
        if not expected["skipped_not_annotatable"]:
            assert (0, ours["corpus_ref"]) == (expected["chosen_hyp"], expected["chosen_ref"]), expected["index"]
    rows = result.details["types"]["rows"]
    assert {k: [rows[k]["tp"], rows[k]["fp"], rows[k]["fn"]] for k in rows} == {
        "M": [306, 322, 1129], "R": [278, 350, 557], "S": [486, 951, 1105], "W": [14, 12, 212]}


def _first_single_reference(dev, count):
    """The first `count` sentences with one reference: sources, predictions, references, and those blocks of
    ChERRANT's two M2 files."""
    sources, references, predictions, _, theirs, _ = dev
    picked = [i for i, refs in enumerate(references) if len(refs) == 1][:count]
    hyp, ref = (_blocks(m2) for m2 in theirs)
    return ([sources[i] for i in picked], [predictions[i] for i in picked], [references[i][0] for i in picked],
            "".join(hyp[i] + "\n\n" for i in picked), "".join(ref[i] + "\n\n" for i in picked))


def test_the_cli_from_text_prints_what_cherrant_prints_from_its_m2(dev, tmp_path):
    """`gecscore score errant --language zh --zh-lexicon L --sources S --predictions H --references R -cat 3` on
    60 sentences prints the table that the same command prints from ChERRANT's own M2 of them."""
    sources, predictions, references, hyp_m2, ref_m2 = _first_single_reference(dev, 60)
    files = {}
    for name, lines in (("src", sources), ("hyp", predictions), ("ref", references)):
        files[name] = tmp_path / f"{name}.txt"
        files[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    for name, text in (("hyp_m2", hyp_m2), ("ref_m2", ref_m2)):
        files[name] = tmp_path / f"{name}.m2"
        files[name].write_text(text, encoding="utf-8")

    def printed(*args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "gecscore.cli", "score", "errant", "--language", "zh", "-cat",
                               "3", *args], capture_output=True, text=True, check=True)
        return done.stdout

    from_text = printed("--zh-lexicon", str(LEXICON), "--sources", str(files["src"]), "--predictions",
                        str(files["hyp"]), "--references", str(files["ref"]))
    from_m2 = printed("-hyp", str(files["hyp_m2"]), "-ref", str(files["ref_m2"]))
    table, signature = from_text.rsplit("\n", 2)[0], from_text.split("\n")[-2]
    assert table == from_m2.rsplit("\n", 2)[0] and "TP" in table
    assert "language:zh|scorer:cherrant|edits:cherrant-char|zh_lexicon:" in signature


def test_the_evaluate_module_from_text_equals_cherrants_m2(dev):
    import evaluate

    sources, predictions, references, hyp_m2, ref_m2 = _first_single_reference(dev, 40)
    module = evaluate.load(str(REPO / "metrics" / "uot_errant"), variant="errant", **ZH)
    with pytest.warns(DegenerateOutputWarning, match=r"not annotatable: 1 \[23\]"):  # MuCGEC dev's sentence 97
        out = module.compute(sources=sources, predictions=predictions, references=[[r] for r in references])
    with pytest.warns(DegenerateOutputWarning, match=r"not annotatable: 1 \[23\]"):
        expected = registry.run("errant", None, None, None, hyp_m2=hyp_m2, ref_m2=ref_m2,
                                convention="errant_compare", language="zh")
    assert [out[k] for k in ("tp", "fp", "fn", "f0.5")] == [expected.scores[k] for k in ("tp", "fp", "fn", "f0.5")]
    assert [d["index"] for d in out["degenerate_sentences"]] == [23]


def _reference_files(shared_data) -> tuple[Path, Path, list[Path]]:
    """MuCGEC dev as its README's derived files: sources, the example prediction and REF0..REF6, the line of
    reference k empty where a sentence has fewer than k+1 references."""
    folder = shared_data / "MuCGEC" / "derived"
    return folder / "INPUT.txt", folder / "PRED_example.txt", [folder / f"REF{k}.txt" for k in range(7)]


@pytest.mark.parametrize("mode,flags", [("corpus", []), ("cse", ["-cse"]), ("ds", ["-ds"]), ("dt", ["-dt"]),
                                        ("cs_beta1", ["-b", "1.0"])])
def test_the_cli_from_mucgec_reference_files_equals_cherrant(dev, shared_data, tmp_path, capsys, mode, flags):
    """`gecscore score errant --language zh ... --references REF0.txt ... REF6.txt` on the whole dev set: an empty
    line is no such reference (5,492 of the 7 × 1,137 lines), so every mode's corpus counts and (written by
    --sentences) every sentence's counts are ChERRANT's, and the 无法标注 sentences are listed as degenerate. Run in
    this process, the alignments are the module fixture's (cached)."""
    from gecscore.cli import main
    from gecscore.common.inputs import EmptyReferencesWarning

    record = dev[-1]
    sources, predictions, references = _reference_files(shared_data)
    out = tmp_path / "sentences.jsonl"
    with pytest.warns(EmptyReferencesWarning, match=r"5492 empty reference\(s\) in 1136 sentence\(s\)"), \
            pytest.warns(DegenerateOutputWarning, match="not annotatable: 3"):
        assert main(["score", "errant", "--language", "zh", "--convention", "errant_compare", "--zh-lexicon",
                     str(LEXICON), "--sources", str(sources), "--predictions", str(predictions), "--references",
                     *map(str, references), "--json", "--sentences", str(out), *flags]) == 0
    printed = json.loads(capsys.readouterr().out)
    expected = record["corpus"] if mode == "corpus" else record["corpus_other_modes"][mode]
    f_name = "f1" if mode == "cs_beta1" else "f0.5"
    assert {"tp": printed["tp"], "fp": printed["fp"], "fn": printed["fn"], "p": round(printed["precision"], 4),
            "r": round(printed["recall"], 4), "f": round(printed[f_name], 4)} == expected
    assert [d["index"] for d in printed["degenerate_sentences"]] == [97, 463, 1076]
    if mode == "corpus":
        agree_with_cherrant(record, [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()])


def test_the_evaluate_module_from_mucgec_reference_columns_equals_cherrant(dev, shared_data):
    """The same seven columns, empty cells and all, through `evaluate.load`: ChERRANT's corpus and sentence counts,
    the 无法标注 sentences listed."""
    import evaluate

    from gecscore.common.inputs import EmptyReferencesWarning

    sources, _, predictions, *_, record = dev
    columns = [path.read_text(encoding="utf-8").split("\n")[:len(sources)] for path in _reference_files(shared_data)[2]]
    module = evaluate.load(str(REPO / "metrics" / "uot_errant"), variant="errant", **ZH)
    with pytest.warns(EmptyReferencesWarning, match="5492"), pytest.warns(DegenerateOutputWarning, match="annotatable"):
        out = module.compute(sources=sources, predictions=predictions, references=[list(r) for r in zip(*columns)],
                             return_sentence_scores=True)
    assert [out["tp"], out["fp"], out["fn"], round(out["f0.5"], 4)] == [1084, 1635, 3003, record["corpus"]["f"]]
    assert [d["index"] for d in out["degenerate_sentences"]] == [97, 463, 1076]
    agree_with_cherrant(record, out["sentence_scores"])


def test_an_empty_reference_is_no_reference_in_chinese_only():
    """Chinese: an empty (or blank) reference is dropped, warned, and a sentence left with none is an error naming
    it. Other languages keep it as a reference that deletes the sentence, as ERRANT and GLEU read an empty line."""
    from gecscore.common.inputs import EmptyReferencesWarning

    sources, predictions = ["他很喜欢看书书。", "我明天去公园"], ["他很喜欢看书。", "我明天去公园"]
    kept = [["他很喜欢看书。"], ["我明天去公园。"]]
    for metric, options in (("errant", ZH), ("gleu", {"language": "zh"})):
        with pytest.warns(EmptyReferencesWarning, match=r"2 empty reference\(s\) in 2 sentence\(s\), the first "
                                                        r"`references\[0\]\[0\]`"):
            blank = registry.run(metric, sources, predictions, [["", "他很喜欢看书。"], ["我明天去公园。", " "]],
                                 **options)
        assert blank.scores == registry.run(metric, sources, predictions, kept, **options).scores, metric
        with pytest.raises(ValueError, match=r"`references\[1\]` has no reference: all its 2 are empty"):
            registry.run(metric, sources, predictions, [["他很喜欢看书。"], ["", ""]], **options)
    english, hyp = ["He go to school ."], ["He to school ."]
    for metric in ("errant", "gleu"):
        with warnings.catch_warnings():
            warnings.simplefilter("error", EmptyReferencesWarning)
            deletion = registry.run(metric, english, hyp, [["He goes to school .", ""]])
        assert len(deletion.sentences[0]["per_reference"]) == 2, metric  # the empty reference was scored too


def test_setup_mistakes_are_errors_naming_the_option(monkeypatch, tmp_path):
    monkeypatch.delenv(ce.LEXICON_ENV, raising=False)
    with pytest.raises(ValueError, match="pass `zh_lexicon`.*GECSCORE_ZH_LEXICON.*cilin.txt"):
        registry.run("errant", ["他很喜欢看书书。"], ["他很喜欢看书。"], [["他很喜欢看书。"]],
                     convention="errant_compare", language="zh")
    with pytest.raises(ValueError, match="`zh_lexicon` is the lexicon of language='zh'"):
        registry.run("errant", ["I has a apple ."], ["I have a apple ."], [["I have an apple ."]],
                     convention="errant_compare", zh_lexicon=str(LEXICON))
    with pytest.raises(ValueError, match="without ChERRANT's cilin.txt and confusion_dict.txt"):
        ce.load_lexicon(tmp_path)
    monkeypatch.setenv(ce.LEXICON_ENV, str(LEXICON))  # the environment names it as well as the option
    result = registry.run("errant", ["他很喜欢看书书。"], ["他很喜欢看书。"], [["他很喜欢看书。"]],
                          convention="errant_compare", language="zh")
    assert result.scores["f0.5"] == 1.0


def test_a_cherrant_folder_reads_as_its_json(tmp_path):
    """ChERRANT's file formats (GBK thesaurus, a later line winning; confusion sets), read from a folder written
    here, give the lexicon that `to_json` and the JSON reader give back."""
    lexicon = ce.ChineseLexicon({"人": "Aa01A01=", "士": "Aa01A02=", "书": "Dk01B01="}, {"书": frozenset("输术")})
    folder = tmp_path
    (folder / "cilin.txt").write_bytes("Aa01A01= 人 士\nAa01A02= 士\nDk01B01= 书\n".encode("gbk"))
    (folder / "confusion_dict.txt").write_text("书 输 术\n", encoding="utf-8")
    (folder / "lexicon.json").write_text(lexicon.to_json(), encoding="utf-8")
    from_folder, from_json = ce._read_cherrant(folder), ce._read_json(folder / "lexicon.json")
    assert dict(from_folder.semantic) == dict(from_json.semantic) == dict(lexicon.semantic)
    assert dict(from_folder.confusion) == dict(from_json.confusion) == dict(lexicon.confusion)
    assert from_folder.digest == from_json.digest == lexicon.digest


def _naive_operations(aligner: ce.ChineseAligner, src: list[str], tgt: list[str]) -> list[list[tuple[str, ...]]]:
    """The alignment's operations as the reference behaviour states them, with no shortcut: every transposition
    length tried by sorting both blocks, every tie listed in the order T, S, I, D."""
    n, m = len(src), len(tgt)
    cost = [[float(i + j) if i == 0 or j == 0 else 0.0 for j in range(m + 1)] for i in range(n + 1)]
    ops = [[() if i == j == 0 else ("D",) if j == 0 else ("I",) for j in range(m + 1)] for i in range(n + 1)]
    for i in range(n):
        for j in range(m):
            if src[i] == tgt[j]:
                cost[i + 1][j + 1], ops[i + 1][j + 1] = cost[i][j], ("M",)
                continue
            candidates = [float("inf"), cost[i][j] + aligner.substitution_cost(src[i], tgt[j]),
                          cost[i + 1][j] + 1, cost[i][j + 1] + 1]
            k = 1
            while i - k >= 0 and j - k >= 0 and cost[i - k + 1][j - k + 1] != cost[i - k][j - k]:
                if sorted(src[i - k:i + 1]) == sorted(tgt[j - k:j + 1]):
                    candidates[0] = cost[i - k][j - k] + k
                    break
                k += 1
            best = min(candidates)
            cost[i + 1][j + 1] = best
            ops[i + 1][j + 1] = tuple(name for name, c in zip((f"T{k + 1}", "S", "I", "D"), candidates) if c == best)
    return ops


@settings(max_examples=300, deadline=None)
@given(st.text("他她它们的了书很好，。", max_size=12), st.text("他她它们的了书很好，。", max_size=12),
       st.integers(0, 2**32 - 1))
def test_the_alignment_equals_its_plain_statement(source, target, seed):
    """The transposition shortcut (token-key sums, the first possible block length) and the tie order change
    nothing: every cell's operations equal those of the plain statement, over random lexicons."""
    rng = random.Random(seed)
    chars = sorted(set("他她它们的了书很好，。"))
    lexicon = ce.ChineseLexicon({c: rng.choice(["Aa01A01=", "Aa01B01=", "Ab02A01=", "Ba01A01="]) for c in chars
                                 if rng.random() < 0.7},
                                {c: frozenset(rng.sample(chars, 3)) for c in chars if rng.random() < 0.5})
    aligner = ce.ChineseAligner(lexicon)
    src, tgt = ce.char_tokens(source), ce.char_tokens(target)
    assert aligner.operations(src, tgt) == _naive_operations(aligner, src, tgt)


@pytest.mark.parametrize("assumption", ["dependent", "independent"])
def test_cleme_from_text_equals_cleme_chinese_mode(dev, golden, assumption):
    """CLEME v1 (2025 code, length weights) from the Chinese text, under both assumptions: the same M2, read as
    CLEME's Chinese mode (`lang=zho`) reads ChERRANT's files (`test_cherrant.cleme_zh_golden`): the corpus score,
    the sentence-level score, every sentence's chosen reference at both levels."""
    from test_cherrant import cleme_zh_golden

    sources, references, predictions, *_ = dev
    gold = cleme_zh_golden(golden, assumption)
    options = {"language": "zh", "zh_lexicon": str(LEXICON), "release": "2025", "assumption": assumption}
    corpus = registry.run("cleme", sources, predictions, references, **options)
    sentence = registry.run("cleme", sources, predictions, references, level="sentence", **options)
    assert corpus.score == gold["headline"]["CLEME_corpus_weighted_f"] == {"dependent": 0.3155,
                                                                           "independent": 0.3343}[assumption]
    assert sentence.score == pytest.approx(gold["headline"]["SentCLEME_weighted_f"], abs=1e-12)
    assert [s["reference"] for s in sentence.sentences] == [e["chosen_ref_sentence_weighted"]
                                                             for e in gold["sentences"]]
    assert "language:zh|edits:cherrant-char|alignment:first|zh_lexicon:" in corpus.signature


@settings(max_examples=200, deadline=None)
@given(st.text("他她的了书", max_size=10), st.text("他她的了书", max_size=10))
def test_the_alignment_count_is_the_number_walked(source, target):
    aligner = ce.ChineseAligner(ce.ChineseLexicon({}, {}))
    ops = aligner.operations(ce.char_tokens(source), ce.char_tokens(target))
    assert ce.alignment_count(ops) == sum(1 for _ in aligner.alignments(ops))


def test_a_pair_with_too_many_alignments_is_refused_naming_the_sentence():
    """Unrelated text (150 random characters of 6) has billions of equally cheap alignments, which ChERRANT would
    enumerate without end: refused at once, naming the sentence."""
    rng = random.Random(1)
    pair = ["".join(rng.choice("甲乙丙丁你好") for _ in range(150)) for _ in range(2)]
    aligner = ce.ChineseAligner(ce.ChineseLexicon({}, {}))
    assert ce.alignment_count(aligner.operations(list(pair[0]), list(pair[1]))) > ce.MAX_ALIGNMENTS
    with pytest.raises(ValueError, match=r"sentence 1: [\d,]+ equally cheap alignments .*MAX_ALIGNMENTS=10,000"):
        aligner.m2(["他很喜欢看书书。", pair[0]], [["他很喜欢看书。"], [pair[1]]])


def test_a_reward_refuses_only_the_row_with_too_many_alignments():
    """In a training signal (lenient sentence scores), the pair with too many equally cheap alignments is model
    output wrong on its row: that row is refused and flagged with the reason, scored 0; the other rows of the batch
    keep their scores, equal to their scores alone."""
    from gecscore.sentence_scorer import SentenceScorer

    rng = random.Random(1)
    source, unrelated = ("".join(rng.choice("甲乙丙丁你好") for _ in range(150)) for _ in range(2))
    scorer = SentenceScorer("errant", lenient=True, **ZH)
    sources = ["他很喜欢看书书。", source, "我们明天去公园玩。"]
    predictions = ["他很喜欢看书。", unrelated, "我们明天去公园。"]
    references = [["他很喜欢看书。"], [source], ["我们明天去公园玩。"]]
    batch = scorer.score(sources, predictions, references)
    assert [d["index"] for d in batch.degenerate if d["reason"] == "refused"] == [1]
    assert "MAX_ALIGNMENTS" in next(d["why"] for d in batch.degenerate if d["index"] == 1)
    assert batch.values[1] == 0.0 and batch.scores[1] is None
    alone = [scorer.score([sources[i]], [predictions[i]], [references[i]]).values[0] for i in (0, 2)]
    assert [batch.values[0], batch.values[2]] == alone and alone[0] > alone[1]


def _first_alignments(m2: str) -> str:
    """ChERRANT M2 with only each annotator's first alignment (`T<k>-A0` and its edits, the markers kept)."""
    from gecscore.common.m2io import format_m2, parse_m2

    blocks = parse_m2(m2)
    for block in blocks:
        block.targets[:] = [t for t in block.targets if t[1] in (None, 0)]
        block.edits[:] = [e for e in block.edits if e.alignment == 0]
    return format_m2(blocks)


def test_the_one_list_extractor_reads_cherrants_first_alignment(dev):
    """What PT-M2 and M² read in Chinese: each annotator's first alignment, span, type and correction, as in
    ChERRANT's M2 of every MuCGEC dev reference and prediction."""
    from gecscore.common.m2io import parse_m2

    sources, references, predictions, _, theirs, _ = dev
    extractor = ce.extractor_for_lexicon(ce.load_lexicon(LEXICON))
    pairs = [(i, k, refs[k]) for i, refs in enumerate(references) for k in range(len(refs))]
    mine = extractor.extract([sources[i] for i, _, _ in pairs], [text for *_, text in pairs])
    ref_blocks, hyp_blocks = parse_m2(theirs[1]), parse_m2(theirs[0])

    def first(block, annotator):
        return sorted((e.o_start, e.o_end, e.type, " ".join(e.corrections)) for e in block.edits
                      if e.annotator == annotator and e.alignment == 0 and e.type not in ("noop", "NA"))

    for (i, k, _), edits in zip(pairs, mine):
        assert sorted((e.o_start, e.o_end, e.type, e.c_str) for e in edits) == first(ref_blocks[i], k), (i, k)
    for i, edits in enumerate(extractor.extract(sources, predictions)):
        assert sorted((e.o_start, e.o_end, e.type, e.c_str) for e in edits) == first(hyp_blocks[i], 0), i


@pytest.mark.parametrize("variant", ["m2", "sentm2"])
def test_m2_from_chinese_text_equals_m2_of_cherrants_first_alignments(dev, variant):
    """M² (and SentM²) from the text with language='zh' equals M² with ChERRANT's reference M2 (first alignments)
    as the gold, over the predictions' char tokens, on 150 dev sentences."""
    sources, references, predictions, _, theirs, _ = dev
    n = 150
    gold = _first_alignments("".join(b + "\n\n" for b in _blocks(theirs[1])[:n]))
    ours = registry.run(variant, sources[:n], predictions[:n], references[:n], language="zh", zh_lexicon=str(LEXICON))
    expected = registry.run(variant, [ce.token_text(s, correction=False) for s in sources[:n]],
                            [ce.token_text(p) for p in predictions[:n]], None, gold_m2=gold)
    assert ours.scores == expected.scores and ours.score > 0
    assert "language:zh|edits:cherrant-char|alignment:first|zh_lexicon:" in ours.signature


def test_pt_m2_with_a_chinese_encoder(dev, tmp_path):
    """PT-M2 in Chinese with any Hugging Face encoder: a tiny random BERT whose vocabulary holds the characters,
    from the text, equal to PT-M2 with ChERRANT's first alignments as the gold M2 and the same encoder."""
    from conftest import build_tiny_model

    sources, references, predictions, _, theirs, _ = dev
    n = 30
    characters = sorted({c for text in [*sources[:n], *predictions[:n], *sum(references[:n], [])] for c in text})
    model = str(build_tiny_model(tmp_path / "tiny-chinese-bert", "bert", extra_tokens=tuple(characters)))
    options = {"model": model, "layer": 2}
    gold = _first_alignments("".join(b + "\n\n" for b in _blocks(theirs[1])[:n]))
    with pytest.warns(DegenerateOutputWarning, match=r"truncated: 2 \[17, 29\]"):  # past the model's 128 tokens
        ours = registry.run("pt_m2", sources[:n], predictions[:n], references[:n], language="zh",
                            zh_lexicon=str(LEXICON), **options)
    with pytest.warns(DegenerateOutputWarning, match=r"truncated: 2 \[17, 29\]"):
        expected = registry.run("pt_m2", [ce.token_text(s, correction=False) for s in sources[:n]],
                                [ce.token_text(p) for p in predictions[:n]], None, gold_m2=gold, **options)
    assert ours.score == expected.score and 0 < ours.score < 1
    assert ours.details["degenerate_sentences"] == expected.details["degenerate_sentences"]


def _first_alignment(block, annotator: int) -> list:
    """Edit objects of one annotator's first alignment in a ChERRANT M2 block, with the target offsets they imply."""
    from gecscore.common.edits import Edit

    edits, shift = [], 0
    for e in sorted((e for e in block.edits if e.annotator == annotator and e.alignment == 0
                     and e.type not in ("noop", "NA")), key=lambda e: (e.o_start, e.o_end)):
        correction = " ".join(e.corrections).replace("-NONE-", "").split()
        start = e.o_start + shift
        edits.append(Edit(e.o_start, e.o_end, " ".join(block.source.split()[e.o_start:e.o_end]), start,
                          start + len(correction), " ".join(correction), e.type))
        shift += len(correction) - (e.o_end - e.o_start)
    return edits


class FromCherrantM2:
    """An extractor whose edits are read from ChERRANT's own M2 of the first `n` dev sentences (references and
    prediction; first alignments): a metric run over it is the metric over ChERRANT's edits."""

    def __init__(self, dev, n: int) -> None:
        from gecscore.common.m2io import parse_m2

        sources, references, predictions, _, theirs, _ = dev
        self.known = {}
        for blocks, targets in ((parse_m2(theirs[1])[:n], references[:n]),
                                (parse_m2(theirs[0])[:n], [[p] for p in predictions[:n]])):
            for block, group in zip(blocks, targets):
                for k, target in enumerate(group):
                    self.known[(block.source, ce.token_text(target))] = _first_alignment(block, k)

    def extract(self, sources, targets, **_):
        return [[] if source == target else self.known[source, target] for source, target in zip(sources, targets)]


def test_uot_errant_transports_cherrants_first_alignment_edits(dev, tmp_path, monkeypatch):
    """UOT-ERRANT (variant uot) in Chinese with a tiny random Chinese-vocabulary BERT: from the text, equal to the
    same transport over edits read from ChERRANT's own M2 (first alignments; target offsets from applying them)."""
    from conftest import build_tiny_model
    from gecscore.uot_errant import metric as uot

    sources, references, predictions, *_ = dev
    n = 25
    characters = sorted({c for text in [*sources[:n], *predictions[:n], *sum(references[:n], [])] for c in text})
    options = {"model": str(build_tiny_model(tmp_path / "tiny-chinese-bert", "bert", extra_tokens=tuple(characters)))}
    flagged = "truncated: 1 \\[17\\]"  # and, with random weights, a few transports POT flags
    with pytest.warns(DegenerateOutputWarning, match=flagged):
        ours = registry.run("uot_errant", sources[:n], predictions[:n], references[:n], language="zh",
                            zh_lexicon=str(LEXICON), **options)

    monkeypatch.setattr(uot, "extractor_for", lambda *args, **kwargs: FromCherrantM2(dev, n))
    with pytest.warns(DegenerateOutputWarning, match=flagged):
        expected = registry.run("uot_errant", [ce.token_text(s, correction=False) for s in sources[:n]],
                                [ce.token_text(p) for p in predictions[:n]],
                                [[ce.token_text(r) for r in group] for group in references[:n]], **options)
    assert ours.scores == expected.scores and 0 < ours.score < 1
    assert ours.details["degenerate_sentences"] == expected.details["degenerate_sentences"]
    assert "variant:uot" in ours.signature and "language:zh|edits:cherrant-char|alignment:first" in ours.signature


def test_gotoscorer_chunks_cherrants_first_alignment(dev, monkeypatch):
    """GoToScorer in Chinese: chunks of ChERRANT's first char alignment. From the text (two systems, difficulty
    weights estimated from them, per-operation table), equal to the same run over edits read from ChERRANT's own
    M2; main types (return_types=2) and a lexicon without language='zh' are setup errors."""
    from gecscore.gotoscorer import metric as gotoscorer

    sources, references, predictions, *_ = dev
    n = 60
    systems = {"example": predictions[:n], "last-reference": [group[-1] for group in references[:n]]}
    options = {"language": "zh", "zh_lexicon": str(LEXICON), "weights": "systems", "return_types": 1}
    with pytest.warns(DegenerateOutputWarning, match="zero-weight edits"):  # chunks both systems get right
        ours = registry.run_systems("gotoscorer", sources[:n], systems, references[:n], ref_id=0, **options)
    with monkeypatch.context() as patch, pytest.warns(DegenerateOutputWarning, match="zero-weight edits"):
        patch.setattr(gotoscorer, "extractor_for", lambda *args, **kwargs: FromCherrantM2(dev, n))
        expected = registry.run_systems("gotoscorer", sources[:n], systems, references[:n], ref_id=0, **options)
    for name in systems:
        assert ours[name].scores == expected[name].scores
        assert ours[name].details["types"] == expected[name].details["types"]
    assert 0 < ours["example"].score < 1 and 0 < ours["last-reference"].score < 1
    assert set(ours["example"].details["types"]["rows"]) <= {"M", "R", "S", "W", "DUMMY"}
    assert "language:zh|edits:cherrant-char|alignment:first|zh_lexicon:" in ours["example"].signature
    assert "weights:systems" in ours["example"].signature
    with pytest.raises(ValueError, match="`return_types=2`.*language='zh'"):
        registry.run("gotoscorer", sources[:2], predictions[:2], references[:2], **{**options, "return_types": 2,
                                                                                   "weights": "none"})
    with pytest.raises(ValueError, match="`zh_lexicon` is the lexicon of language='zh'"):
        registry.run("gotoscorer", ["a b"], ["a c"], [["a c"]], zh_lexicon=str(LEXICON))


def test_the_parallel_to_m2_command_writes_what_cherrant_writes(dev, shared_data, tmp_path, monkeypatch, capsys):
    """`gecscore parallel-to-m2 -f F -o O` in place of ChERRANT's `parallel_to_m2.py -f F -o O -g char`: the demo
    and the first 200 dev lines (1-7 corrections each) give ChERRANT's M2, byte for byte; without a lexicon, exit 2
    naming the option."""
    from gecscore.cli import main

    samples = shared_data / "MuCGEC" / "ChERRANT" / "samples"
    out = tmp_path / "demo.m2"
    assert main(["parallel-to-m2", "-f", str(samples / "demo.hyp.para"), "-o", str(out), "--zh-lexicon",
                 str(LEXICON)]) == 0
    assert out.read_text(encoding="utf-8") == (samples / "demo.hyp.m2.char").read_text(encoding="utf-8")
    dev_file = tmp_path / "dev.txt"
    dev_file.write_text("\n".join((shared_data / "MuCGEC" / "MuCGEC" / "MuCGEC_dev.txt").read_text(encoding="utf-8")
                                  .split("\n")[:200]) + "\n", encoding="utf-8")
    assert main(["parallel-to-m2", "-f", str(dev_file), "--zh-lexicon", str(LEXICON)]) == 0
    assert capsys.readouterr().out == "".join(block + "\n\n" for block in _blocks(dev[4][1])[:200])
    monkeypatch.delenv(ce.LEXICON_ENV, raising=False)
    assert main(["parallel-to-m2", "-f", str(dev_file)]) == 2
    assert "pass `zh_lexicon` (CLI --zh-lexicon)" in capsys.readouterr().err
