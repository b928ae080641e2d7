"""UOT-ERRANT on SEEDA +Fluency (14 systems x 391 sentences, references REF0/REF1): wall time, share of time in
model forward passes, and proof that every distinct text goes through the model once.

Also scores the same systems with `robust=True` and `variant="errant"` (no new forward passes) for the metric
card's table. Run in a fresh process:

    .venv/bin/python benchmarks/bench_uot_errant.py --out benchmarks/uot_errant.md
"""

from __future__ import annotations

import argparse
import json
import platform
import time
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "data"
SEEDA = DATA / "SEEDA"


def read_lines(path: Path) -> list[str]:
    """gec-metrics' `read_lines`: whole file right-stripped, split on newlines, each line right-stripped."""
    return [line.rstrip() for line in path.read_text().rstrip().split("\n")]


class Stopwatch:
    """Accumulated seconds of wrapped calls."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def wrap(self, fn):
        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start
        return timed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="minilm")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "uot_errant.md")
    args = parser.parse_args()

    import torch

    import gecscore.uot_errant.metric as uot_module
    from gecscore.common.edits import get_extractor
    from gecscore.common.encoders import Encoder
    from gecscore.uot_errant.transport import variant_texts
    from gecscore.uot_errant.metric import DegenerateTransportWarning, UOTErrant

    start = time.perf_counter()
    sources = read_lines(SEEDA / "outputs" / "subset" / "INPUT.txt")
    names = sorted(p.stem for p in (SEEDA / "outputs" / "subset").glob("*.txt") if p.stem != "INPUT")
    systems = {name: read_lines(SEEDA / "outputs" / "subset" / f"{name}.txt") for name in names}
    references = list(zip(read_lines(SEEDA / "derived" / "REF0.txt"), read_lines(SEEDA / "derived" / "REF1.txt")))

    load_start = time.perf_counter()
    encoder = Encoder.get(args.model)
    extractor = get_extractor()
    load_seconds = time.perf_counter() - load_start

    forward = Stopwatch()
    state: dict[str, float] = {}
    encoder.model.register_forward_pre_hook(lambda *_: state.__setitem__("t", time.perf_counter()))
    encoder.model.register_forward_hook(lambda *_: setattr(forward, "seconds",
                                                           forward.seconds + time.perf_counter() - state["t"]))
    spacy_time, embed_time, ids_time, ot_time = Stopwatch(), Stopwatch(), Stopwatch(), Stopwatch()
    extractor.extract = spacy_time.wrap(extractor.extract)
    embed_calls: list[list[str]] = []
    raw_embed = encoder.embed

    def embed(texts, **kwargs):
        embed_calls.append(list(texts))
        return raw_embed(texts, **kwargs)

    encoder.embed = embed_time.wrap(embed)
    encoder.token_ids = ids_time.wrap(encoder.token_ids)
    uot_module.transport = ot_time.wrap(uot_module.transport)

    scorer = UOTErrant(model=args.model, batch_size=args.batch_size, encoder=encoder)
    score_start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateTransportWarning)
        results = scorer.score_systems(sources, systems, references)
    score_seconds = time.perf_counter() - score_start
    total_seconds = time.perf_counter() - start
    forward_count = encoder.forward_count
    timings = {"forward_s": forward.seconds, "embed_call_s": embed_time.seconds, "token_ids_s": ids_time.seconds,
               "edits_s": spacy_time.seconds, "transport_s": ot_time.seconds}

    # What the reference implementation would embed: per system, every hypothesis and every reference sentence
    # (with or without edits) plus one leave-one-out variant per edit; references again for every system.
    requested = 0
    distinct: set[str] = set()
    for name, result in results.items():
        for i, source in enumerate(sources):
            sets = [result.hyp_sets[i]] + result.ref_sets[i]
            for edit_set in sets:
                requested += 1 + len(edit_set.edits)
                if edit_set.edits:
                    distinct.update(variant_texts(source, edit_set.edits))
    assert len(embed_calls) == 1, "one embedding call for the whole benchmark"
    embedded = embed_calls[0]
    assert len(embedded) == len(set(embedded)) == forward_count, "a text went through the model twice"
    token_sequences = len({tuple(ids) for ids in encoder.token_ids(sorted(distinct), 128)})
    assert token_sequences == forward_count

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateTransportWarning)
        robust = UOTErrant(model=args.model, robust=True, encoder=encoder).score_systems(sources, systems, references)
    errant = UOTErrant(variant="errant").score_systems(sources, systems, references)
    assert encoder.forward_count == forward_count, "robust mode re-embedded something"

    n_sentences = len(sources) * len(names)
    report = {
        "command": ".venv/bin/python benchmarks/bench_uot_errant.py --out benchmarks/uot_errant.md",
        "model": args.model, "batch_size": args.batch_size, "systems": names, "sentences": n_sentences,
        "torch_threads": torch.get_num_threads(), "cpu": platform.processor() or platform.machine(),
        "total_s": total_seconds, "load_s": load_seconds, "score_s": score_seconds,
        **timings,
        "texts_reference_would_embed": requested, "distinct_texts": len(distinct),
        "distinct_token_sequences": token_sequences, "forward_count": forward_count,
        "per_system": {
            name: {
                "errant_f": errant[name].scores.f, "uot_f": results[name].scores.f, "robust_f": robust[name].scores.f,
                "uot_p": results[name].scores.p, "robust_p": robust[name].scores.p,
                "degenerate": len({d["index"] for d in results[name].degenerate if d["issues"]}),
                "max_sentence_f": max(s.scores.f for s in results[name].sentences),
                "robust_max_sentence_f": max(s.scores.f for s in robust[name].sentences),
            } for name in names
        },
    }
    args.out.with_suffix(".json").write_text(json.dumps(report, indent=1) + "\n")
    args.out.write_text(render(report))
    print(render(report))
    return 0


def render(r: dict) -> str:
    """The benchmark as Markdown."""
    share_total = r["forward_s"] / r["total_s"]
    share_score = r["forward_s"] / r["score_s"]
    lines = [
        "# UOT-ERRANT on SEEDA +Fluency: time and forward-pass reuse", "",
        "Command (fresh process, cold caches):", "", "```", r["command"], "```", "",
        f"{len(r['systems'])} systems × 391 sentences = {r['sentences']} hypotheses (SEEDA subset, all systems but "
        f"INPUT), references `SEEDA/derived/REF0.txt` and `REF1.txt`; encoder `{r['model']}` (all-MiniLM-L6-v2), "
        f"batch size {r['batch_size']}, CPU ({r['cpu']}), {r['torch_threads']} torch threads, machine shared with "
        "other jobs (timings are upper bounds).", "",
        "| quantity | value |", "|---|---|",
        f"| total wall time (data, model load, edits, embedding, transport) | {r['total_s']:.1f} s |",
        f"| model and spaCy load | {r['load_s']:.1f} s |",
        f"| scoring all 14 systems (`score_systems`) | {r['score_s']:.1f} s |",
        f"| of which model forward passes | {r['forward_s']:.1f} s |",
        f"| of which ERRANT edit extraction (spaCy) | {r['edits_s']:.1f} s |",
        f"| of which tokenisation (token-id deduplication and the encoder's own) | {r['token_ids_s']:.1f} s |",
        f"| of which unbalanced transports | {r['transport_s']:.1f} s |",
        f"| sentences per second (total wall time) | {r['sentences'] / r['total_s']:.1f} |",
        f"| **share of total wall time in forward passes** | **{share_total:.1%}** |",
        f"| share of scoring time in forward passes | {share_score:.1%} |", "",
        "Embedding reuse:", "",
        "| quantity | count |", "|---|---|",
        f"| texts the reference implementation embeds (per system: each hypothesis and reference plus one variant "
        f"per edit; references again for every system) | {r['texts_reference_would_embed']} |",
        f"| distinct texts | {r['distinct_texts']} |",
        f"| distinct token sequences (texts the tokenizer maps to the same ids share one vector) | "
        f"{r['distinct_token_sequences']} |",
        f"| texts through the model (`forward_count`) | {r['forward_count']} |", "",
        "The script asserts that scoring used one `embed` call, that no text in it is repeated, that "
        "`forward_count` equals the number of distinct token sequences, and that the robust and ERRANT runs below "
        "added no forward pass.", "",
        "## Default (reference behaviour) vs robust mode, per system", "",
        "Corpus F0.5 (plain ERRANT from the same edits, UOT-ERRANT default, UOT-ERRANT `robust=True`), sentences "
        "with degenerate transports in the default mode, and the largest sentence F0.5 in each mode.", "",
        "| system | ERRANT F0.5 | UOT F0.5 | UOT P | robust F0.5 | robust P | degenerate sentences | max sentence F "
        "(default) | max sentence F (robust) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, s in r["per_system"].items():
        lines.append(
            f"| {name} | {s['errant_f']:.4f} | {s['uot_f']:.4f} | {s['uot_p']:.4f} | {s['robust_f']:.4f} | "
            f"{s['robust_p']:.4f} | {s['degenerate']} | {s['max_sentence_f']:.4g} | {s['robust_max_sentence_f']:.4g} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
