"""Meta-evaluation data sets read from a directory laid out like the handouts' `data/`.

Layout (the public repositories' own paths; `gecscore.meta_eval.download` recreates it):
`SEEDA/{outputs,scores,data}`, `CoNLL-2014/PT-M2/data/reference.m2` (the official combined M2),
`GJG15/data/{judgments.xml,original/official_submissions/*}`, `SN-8GEC/annotations/**`, `GMEG-Data/data/**`.
Nothing here reads the hand-made `derived/` folders: the SEEDA subset and the official raw references are
rebuilt from the upstream files, so a fresh download gives the same data.
"""

from __future__ import annotations

import csv
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Sequence

if TYPE_CHECKING:
    from gecscore.common.m2io import M2Sentence

CONLL_SIZE = 1312

#: The 15 SEEDA systems in the alphabetical order of `scores/human/*.txt` (also the TrueSkill rating order).
SEEDA_SYSTEMS: tuple[str, ...] = (
    "BART", "BERT-fuse", "GECToR-BERT", "GECToR-ens", "GPT-3.5", "INPUT", "LM-Critic", "PIE", "REF-F", "REF-M",
    "Riken-Tohoku", "T5", "TemplateGEC", "TransGEC", "UEDIN-MS",
)
_SEEDA_DROPPED = {
    "base": ("INPUT", "REF-F", "GPT-3.5"),
    "+input": ("REF-F", "GPT-3.5"),
    "+fluency": ("INPUT",),
    "all": (),
}
SEEDA_SYSTEM_SETS: dict[str, tuple[str, ...]] = {
    name: tuple(s for s in SEEDA_SYSTEMS if s not in dropped) for name, dropped in _SEEDA_DROPPED.items()
}
#: Upstream spellings of the SEEDA system sets.
SYSTEM_SET_ALIASES = {"+REF-F_GPT-3.5": "+fluency", "+INPUT": "+input", "+flunecy": "+fluency"}
_SEEDA_HUMAN_FILES = {"ew_edit": "EW_edit", "ew_sent": "EW_sent", "ts_edit": "TS_edit", "ts_sent": "TS_sent"}

#: The 13 GJG15 systems in the order of GJG15 Table 3(b) (Expected Wins), which gec-metrics rates in.
GJG15_SYSTEMS: tuple[str, ...] = (
    "AMU", "RAC", "CAMB", "CUUI", "POST", "UFC", "PKU", "UMC", "IITB", "SJTU", "INPUT", "NTHU", "IPN",
)
GJG15_SYSTEM_SETS: dict[str, tuple[str, ...]] = {
    "all": GJG15_SYSTEMS,
    "-input": tuple(s for s in GJG15_SYSTEMS if s != "INPUT"),
}
# Grundkiewicz et al. (2015) Table 3 (b) and (c): the human scores every paper correlates with.
_GJG15_EW = (0.628, 0.566, 0.561, 0.550, 0.539, 0.513, 0.506, 0.495, 0.485, 0.463, 0.456, 0.437, 0.300)
_GJG15_TS = (0.273, 0.114, 0.182, 0.105, 0.080, -0.041, -0.001, -0.022, -0.055, -0.074, -0.062, -0.142, -0.358)
GJG15_HUMAN: dict[str, dict[str, float]] = {
    "ew": dict(zip(GJG15_SYSTEMS, _GJG15_EW)),
    "ts": dict(zip(GJG15_SYSTEMS, _GJG15_TS)),
}
# Chollampatt & Ng (2018)'s files of the same scores differ in the third decimal for six systems. PT-M2 (Table 5)
# and CLEME2.0 (Table 1) correlate with these: official M² gives EW r .623 with them, .625 with Table 3.
_GJG15_NUSNLP_FILES = {"ew_nusnlp": "expected_wins.txt", "ts_nusnlp": "trueskill.txt"}

#: GMEG-Data systems as gotutiyan/uot-errant rates them: `ref0` is the rated human reference `ref`.
GMEG_SYSTEMS: tuple[str, ...] = ("amu", "lstm", "lstm-r", "marian", "nus", "transformer", "ref0", "source")
GMEG_DOMAINS = ("wiki", "fce")

#: CoNLL-2014 reference sets. `official` is gec-metrics' REF0/REF1 (a missing annotator gives the source);
#: `official-pt-m2` is PT-M2's/CLEME's (a missing annotator 1 gives annotator 0's correction).
CONLL_REFERENCE_SETS = ("official", "official-pt-m2", "e-minimal", "e-fluency", "ne-minimal", "ne-fluency")
_SN8_FILES = {
    name: tuple(f"{folder}/{stem}{annotator}" for annotator in "AB")
    for name, folder, stem in (
        ("e-minimal", "expert_annotations/expert_minimal", "expert_minimal"),
        ("e-fluency", "expert_annotations/expert_fluency", "expert_fluency"),
        ("ne-minimal", "turker_annotations/turkers_minimal", "turker_minimal"),
        ("ne-fluency", "turker_annotations/turkers_fluency", "turker_fluency"),
    )
}
# SEEDA's REF-M and REF-F are SN-8GEC's expert annotator A, so on SEEDA only annotator B can be a reference.
_SEEDA_SN8_ANNOTATORS = {"e-minimal": (1,), "e-fluency": (1,), "ne-minimal": (0, 1), "ne-fluency": (0, 1)}
GMEG_REFERENCE_SETS = ("ref1-3",)
DATASETS = ("seeda", "gjg15", "gmeg")


@dataclass(frozen=True)
class RankingItem:
    """One human ranking: `ranks[system]` (1 = best) of the systems shown for sentence `sentence`."""

    sentence: int
    annotator: str
    ranks: Mapping[str, int]


@dataclass
class MetaEvalData:
    """Everything one meta-evaluation needs: outputs, references, human system scores and rankings.

    `sources`, each `hypotheses[system]`, `references` (one list per sentence) and `gold_m2` are aligned;
    `human[score][system]` are system-level human scores; `judgments[name]` are sentence-level rankings whose
    `sentence` indexes the same lists.
    """

    dataset: str
    reference_set: str
    systems: tuple[str, ...]
    system_sets: dict[str, tuple[str, ...]]
    sources: list[str]
    hypotheses: dict[str, list[str]]
    references: list[list[str]]
    human: dict[str, dict[str, float]]
    judgments: dict[str, list[RankingItem]] = field(default_factory=dict)
    gold_m2: list[M2Sentence] | None = None

    def select(self, sentences: Sequence[int]) -> MetaEvalData:
        """The same data on a subset of sentences (in the given order); rankings of other sentences are dropped."""
        sentences = list(sentences)
        position = {old: new for new, old in enumerate(sentences)}
        if len(position) != len(sentences) or not all(0 <= i < len(self.sources) for i in sentences):
            raise ValueError(f"sentences must be distinct indices below {len(self.sources)}")
        judgments = {
            name: [RankingItem(position[i.sentence], i.annotator, i.ranks) for i in items if i.sentence in position]
            for name, items in self.judgments.items()
        }
        return MetaEvalData(
            dataset=self.dataset, reference_set=self.reference_set, systems=self.systems,
            system_sets=self.system_sets, sources=[self.sources[i] for i in sentences],
            hypotheses={s: [h[i] for i in sentences] for s, h in self.hypotheses.items()},
            references=[self.references[i] for i in sentences], human=self.human, judgments=judgments,
            gold_m2=[self.gold_m2[i] for i in sentences] if self.gold_m2 is not None else None,
        )

    def system_set(self, name: str) -> tuple[str, ...]:
        """Systems of the named set, in rating order."""
        name = SYSTEM_SET_ALIASES.get(name, name)
        if name not in self.system_sets:
            raise ValueError(f"unknown system set {name!r} for {self.dataset}; choose from {sorted(self.system_sets)}")
        return self.system_sets[name]


def read_lines(path: Path, expected: int | None = None) -> list[str]:
    """Lines of a one-sentence-per-line file (one final newline optional), checking the count."""
    if not path.is_file():
        raise FileNotFoundError(f"meta-evaluation file not found: {path}")
    text = path.read_text(encoding="utf-8")
    lines = text[:-1].split("\n") if text.endswith("\n") else text.split("\n")
    if expected is not None and len(lines) != expected:
        raise ValueError(f"{path} has {len(lines)} lines, expected {expected}")
    return lines


def _root(data_dir: str | Path) -> Path:
    root = Path(data_dir)
    if not root.is_dir():
        raise FileNotFoundError(f"meta-evaluation data directory not found: {root}")
    return root


# --------------------------------------------------------------------------------------------- CoNLL-2014

def read_conll_m2(data_dir: str | Path) -> list[M2Sentence]:
    """The official CoNLL-2014 test M2 (1312 sentences, annotators 0 and 1)."""
    from gecscore.common.m2io import read_m2

    sentences = read_m2(_root(data_dir) / "CoNLL-2014" / "PT-M2" / "data" / "reference.m2")
    if len(sentences) != CONLL_SIZE:
        raise ValueError(f"the CoNLL-2014 M2 has {len(sentences)} sentences, expected {CONLL_SIZE}")
    return sentences


def official_references(gold: Sequence[M2Sentence], convention: str = "official") -> list[list[str]]:
    """REF0 and REF1 (reference-major) from the official M2.

    `official` (gec-metrics, gec-datasets): annotator k's edits applied, the source when k has no line.
    `official-pt-m2` (PT-M2, CLEME, NUS): where only annotator 0 has lines (88 sentences that NUS collapsed
    because both annotators agreed), REF1 is annotator 0's correction.
    """
    from gecscore.common.m2io import m2_target

    if convention not in ("official", "official-pt-m2"):
        raise ValueError(f"convention must be 'official' or 'official-pt-m2', got {convention!r}")
    refs: list[list[str]] = [[], []]
    for sentence in gold:
        present = set(sentence.annotators)
        for k in (0, 1):
            annotator = k
            if convention == "official-pt-m2" and k not in present and present == {0}:
                annotator = 0
            refs[k].append(m2_target(sentence, annotator))
    return refs


def collapsed_sentences(gold: Sequence[M2Sentence]) -> list[int]:
    """Indices of sentences where only annotator 0 has lines (the 88 collapsed CoNLL-2014 sentences)."""
    return [i for i, sentence in enumerate(gold) if set(sentence.annotators) == {0}]


def sn8_references(data_dir: str | Path, name: str, annotators: Sequence[int] = (0, 1)) -> list[list[str]]:
    """SN-8GEC references (reference-major, 1312 lines each) of annotators A (0) and/or B (1)."""
    if name not in _SN8_FILES:
        raise ValueError(f"unknown SN-8GEC reference set {name!r}; choose from {sorted(_SN8_FILES)}")
    base = _root(data_dir) / "SN-8GEC" / "annotations"
    return [read_lines(base / _SN8_FILES[name][k], CONLL_SIZE) for k in annotators]


def conll_references(data_dir: str | Path, name: str, *, gold: Sequence[M2Sentence] | None = None,
                     sn8_annotators: Sequence[int] = (0, 1)) -> list[list[str]]:
    """Reference-major raw references of a CoNLL-2014 reference set over all 1312 sentences."""
    if name in ("official", "official-pt-m2"):
        return official_references(gold if gold is not None else read_conll_m2(data_dir), name)
    if name in _SN8_FILES:
        return sn8_references(data_dir, name, sn8_annotators)
    raise ValueError(f"unknown reference set {name!r}; choose from {list(CONLL_REFERENCE_SETS)}")


def per_sentence(reference_major: Sequence[Sequence[str]], indices: Sequence[int] | None = None) -> list[list[str]]:
    """Transpose (num_refs, N) references to one list per sentence, optionally restricted to `indices`."""
    n = len(reference_major[0])
    rows = range(n) if indices is None else indices
    return [[ref[i] for ref in reference_major] for i in rows]


def drop_unchanged(sources: Sequence[str], references: Sequence[Sequence[str]]) -> list[list[str]]:
    """Drop references equal to their source, keeping one when all are (CLEME2.0's 'exclude unchanged').

    On CoNLL-2014 this removes 470 E-Minimal and 612 NE-Minimal references, the counts CLEME2.0 reports.
    """
    out = []
    for source, refs in zip(sources, references):
        changed = [r for r in refs if r.split() != source.split()]
        out.append(changed if changed else [refs[0]])
    return out


def _restrict_m2(gold: Sequence[M2Sentence], indices: Sequence[int]) -> list[M2Sentence]:
    return [gold[i] for i in indices]


# --------------------------------------------------------------------------------------------- SEEDA

def seeda_subset_indices(data_dir: str | Path) -> list[int]:
    """0-based CoNLL-2014 index of each of the 391 judged SEEDA sentences (`outputs/subset` line order)."""
    root = _root(data_dir) / "SEEDA" / "outputs"
    full = read_lines(root / "all" / "INPUT.txt", CONLL_SIZE)
    subset = read_lines(root / "subset" / "INPUT.txt")
    position = {}
    for i, source in enumerate(full):
        position.setdefault(source, i)
    indices = []
    for j, source in enumerate(subset):
        if source not in position:
            raise ValueError(f"SEEDA subset line {j} is not a CoNLL-2014 source sentence")
        indices.append(position[source])
    return indices


def read_rankings(path: Path, systems: Sequence[str], sentence_of: Mapping[int, int]) -> list[RankingItem]:
    """Appraise ranking items; `sentence_of` maps the XML `src-id` to a sentence position (checks ids)."""
    if not path.is_file():
        raise FileNotFoundError(f"judgments file not found: {path}")
    known = set(systems)
    items = []
    for element in ET.parse(path).getroot().iter("ranking-item"):
        src_id = int(element.attrib["src-id"])
        if src_id not in sentence_of:
            raise ValueError(f"{path.name}: ranking item {element.attrib.get('id')} has unknown src-id {src_id}")
        ranks: dict[str, int] = {}
        for translation in element.iter("translation"):
            rank = int(translation.attrib["rank"])
            for system in translation.attrib["system"].split():
                if system not in known:
                    raise ValueError(f"{path.name}: unknown system {system!r} in item {element.attrib.get('id')}")
                ranks[system] = rank
        items.append(RankingItem(sentence_of[src_id], element.attrib.get("user", ""), ranks))
    return items


def load_seeda(data_dir: str | Path, references: str = "official", *, exclude_unchanged: bool = False) -> MetaEvalData:
    """SEEDA on its 391 judged sentences, with a CoNLL-2014 reference set restricted to them.

    SN-8GEC E-Minimal/E-Fluency give annotator B only (annotator A is SEEDA's REF-M/REF-F).
    The XML `src-id` is 1-based: `src-id - 1` is the CoNLL-2014 index.
    """
    root = _root(data_dir)
    indices = seeda_subset_indices(root)
    n = len(indices)
    outputs = root / "SEEDA" / "outputs" / "subset"
    hypotheses = {system: read_lines(outputs / f"{system}.txt", n) for system in SEEDA_SYSTEMS}
    sources = hypotheses["INPUT"]
    gold_full = read_conll_m2(root) if references.startswith("official") else None
    refs = conll_references(root, references, gold=gold_full,
                            sn8_annotators=_SEEDA_SN8_ANNOTATORS.get(references, (0, 1)))
    per_sent = per_sentence(refs, indices)
    if exclude_unchanged:
        per_sent = drop_unchanged(sources, per_sent)
    human_dir = root / "SEEDA" / "scores" / "human"
    human = {}
    for name, stem in _SEEDA_HUMAN_FILES.items():
        values = [float(v) for v in read_lines(human_dir / f"{stem}.txt", len(SEEDA_SYSTEMS))]
        human[name] = dict(zip(SEEDA_SYSTEMS, values))
    sentence_of = {conll + 1: j for j, conll in enumerate(indices)}
    judgments = {
        name: read_rankings(root / "SEEDA" / "data" / f"judgments_{name}.xml", SEEDA_SYSTEMS, sentence_of)
        for name in ("edit", "sent")
    }
    return MetaEvalData(
        dataset="seeda", reference_set=references + ("-changed" if exclude_unchanged else ""),
        systems=SEEDA_SYSTEMS, system_sets=dict(SEEDA_SYSTEM_SETS), sources=sources, hypotheses=hypotheses,
        references=per_sent, human=human, judgments=judgments,
        gold_m2=_restrict_m2(gold_full, indices) if gold_full is not None else None,
    )


# --------------------------------------------------------------------------------------------- GJG15

def read_gjg15_nusnlp_human(data_dir: str | Path) -> dict[str, dict[str, float]]:
    """GJG15 human EW/TS as shipped by nusnlp/gecmetrics (`GJG15/nusnlp-gecmetrics/scores/system_scores_humans`)."""
    import gzip

    base = _root(data_dir) / "GJG15" / "nusnlp-gecmetrics" / "scores" / "system_scores_humans"
    human = {}
    for name, filename in _GJG15_NUSNLP_FILES.items():
        path = base / f"{filename}.gz"  # the handouts compress them; upstream has plain text
        opener = gzip.open
        if not path.is_file():
            path, opener = base / filename, open
        if not path.is_file():
            raise FileNotFoundError(f"GJG15 human score file not found: {path}")
        scores = {}
        with opener(path, "rt", encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    *_, system, value = line.split()
                    scores[system] = float(value)
        missing = [s for s in GJG15_SYSTEMS if s not in scores]
        if missing:
            raise ValueError(f"{path} lacks systems {missing}")
        human[name] = {s: scores[s] for s in GJG15_SYSTEMS}
    return human


def load_gjg15(data_dir: str | Path, references: str = "official", *, exclude_unchanged: bool = False) -> MetaEvalData:
    """GJG15 on all 1312 CoNLL-2014 sentences: 12 team outputs + INPUT, human scores, judgments.xml.

    Human scores: `ew`, `ts` from GJG15 Table 3 (as gec-metrics), and `ew_nusnlp`, `ts_nusnlp` from
    Chollampatt & Ng (2018)'s files (what PT-M2 and CLEME2.0 report against) when the data has them.
    Its `src-id` is 0-based. Official submissions carry trailing spaces on some files; they are stripped.
    """
    root = _root(data_dir)
    submissions = root / "GJG15" / "data" / "original" / "official_submissions"
    hypotheses = {
        system: [line.rstrip() for line in read_lines(submissions / system, CONLL_SIZE)] for system in GJG15_SYSTEMS
    }
    sources = hypotheses["INPUT"]
    gold = read_conll_m2(root) if references.startswith("official") else None
    per_sent = per_sentence(conll_references(root, references, gold=gold))
    if exclude_unchanged:
        per_sent = drop_unchanged(sources, per_sent)
    judgments = {"gjg15": read_rankings(root / "GJG15" / "data" / "judgments.xml", GJG15_SYSTEMS,
                                        {i: i for i in range(CONLL_SIZE)})}
    human = {k: dict(v) for k, v in GJG15_HUMAN.items()}
    if (root / "GJG15" / "nusnlp-gecmetrics").is_dir():
        human.update(read_gjg15_nusnlp_human(root))
    return MetaEvalData(
        dataset="gjg15", reference_set=references + ("-changed" if exclude_unchanged else ""),
        systems=GJG15_SYSTEMS, system_sets=dict(GJG15_SYSTEM_SETS), sources=sources, hypotheses=hypotheses,
        references=per_sent, human=human, judgments=judgments, gold_m2=gold,
    )


# --------------------------------------------------------------------------------------------- GMEG-Data

def load_gmeg(data_dir: str | Path, domain: str = "wiki", split: str = "test") -> MetaEvalData:
    """GMEG-Data (system level only): 6 systems, `ref0` as the rated reference, `source`; refs ref1..ref3."""
    if domain not in GMEG_DOMAINS:
        raise ValueError(f"GMEG domain must be one of {GMEG_DOMAINS} (yahoo text is not public), got {domain!r}")
    if split not in ("dev", "test"):
        raise ValueError(f"GMEG split must be 'dev' or 'test', got {split!r}")
    base = _root(data_dir) / "GMEG-Data" / "data" / split
    sources = read_lines(base / domain / "source")
    n = len(sources)
    hypotheses = {system: read_lines(base / domain / system, n) for system in GMEG_SYSTEMS}
    refs = [read_lines(base / domain / f"ref{k}", n) for k in (1, 2, 3)]
    human: dict[str, float] = {}
    with (base / f"{domain}-corpus-scores.csv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            human["ref0" if row["system"] == "ref" else row["system"]] = float(row["score"])
    missing = [s for s in GMEG_SYSTEMS if s not in human]
    if missing:
        raise ValueError(f"GMEG {domain}-corpus-scores.csv lacks systems {missing}")
    return MetaEvalData(
        dataset=f"gmeg-{domain}", reference_set="ref1-3", systems=GMEG_SYSTEMS, system_sets={"all": GMEG_SYSTEMS},
        sources=sources, hypotheses=hypotheses, references=per_sentence(refs),
        human={"score": {s: human[s] for s in GMEG_SYSTEMS}},
    )


def load_dataset(name: str, data_dir: str | Path, *, references: str | None = None, exclude_unchanged: bool = False,
                 domain: str = "wiki", split: str = "test") -> MetaEvalData:
    """Load `seeda`, `gjg15` or `gmeg` (default reference set: `official`, GMEG: `ref1-3`)."""
    if name == "seeda":
        return load_seeda(data_dir, references or "official", exclude_unchanged=exclude_unchanged)
    if name == "gjg15":
        return load_gjg15(data_dir, references or "official", exclude_unchanged=exclude_unchanged)
    if name == "gmeg":
        if references not in (None, "ref1-3"):
            raise ValueError(f"GMEG-Data has one reference set, 'ref1-3'; got {references!r}")
        if exclude_unchanged:
            raise ValueError("exclude_unchanged applies to CoNLL-2014 reference sets only")
        return load_gmeg(data_dir, domain, split)
    raise ValueError(f"unknown dataset {name!r}; choose from {list(DATASETS)}")
