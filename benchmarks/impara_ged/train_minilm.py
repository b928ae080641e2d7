"""Train the two MiniLM quality estimators of the benchmark on JFLEG + CWEB (never CoNLL-2014), on CPU.

    python benchmarks/impara_ged/train_minilm.py --out build/impara_minilm

`ged_qe/`: 2-class GED, then IMPARA QE from the GED model (IMPARA-GED). `qe_only/`: the same QE recipe from
the plain MiniLM (the control). Both train only the top 2 of MiniLM's 6 layers plus the heads, so the result can
be stored compactly over the PyPI MiniLM (`gecscore.impara_ged.embedded`). Re-running resumes.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from gecscore.training import GEDOptions, PairOptions, QEOptions, load_corpora, subsample, train_impara
from gecscore.training.corpora import overlap

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
JFLEG_TRAIN = ["jfleg:dev"]
CWEB_TRAIN = ["cweb:G.dev", "cweb:S.dev", "cweb:G.test", "cweb:S.test"]
DEV = ["jfleg:test"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("build/impara_minilm"))
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--cweb-sentences", type=int, default=1250, help="CWEB sentences added to all of JFLEG dev")
    parser.add_argument("--max-unchanged", type=int, default=250, help="at most this many unchanged CWEB sentences")
    parser.add_argument("--ged-epochs", type=int, default=3)
    parser.add_argument("--qe-epochs", type=int, default=2)
    parser.add_argument("--train-pairs", type=int, default=800)
    parser.add_argument("--dev-pairs", type=int, default=200)
    parser.add_argument("--train-layers", type=int, default=2)
    parser.add_argument("--ged-lr", type=float, default=1e-4, help="GED learning rate (paper: 1e-5, many more steps)")
    parser.add_argument("--qe-lr", type=float, default=5e-5, help="QE learning rate (paper: 1e-5, many more steps)")
    parser.add_argument("--model", default=None, help="base encoder (default: the minilm alias)")
    parser.add_argument("--only", choices=("ged_qe", "qe_only"), default=None, help="train one of the two models")
    args = parser.parse_args()

    start = time.time()
    model = args.model or "minilm"
    cweb = subsample(load_corpora(CWEB_TRAIN, args.data), max_unchanged=args.max_unchanged,
                     max_pairs=args.cweb_sentences, seed=1)
    train = load_corpora(JFLEG_TRAIN, args.data) + cweb
    dev = load_corpora(DEV, args.data)
    conll = (args.data / "CoNLL-2014" / "derived" / "INPUT.txt").read_text(encoding="utf-8").splitlines()
    leaks = overlap(train, conll) + overlap(dev, conll)
    if leaks:
        raise SystemExit(f"{leaks} training/dev sources are CoNLL-2014 test sentences; refusing to train")
    ged = GEDOptions(num_classes=2, epochs=args.ged_epochs, lr=args.ged_lr, train_layers=args.train_layers)
    qe = QEOptions(epochs=args.qe_epochs, lr=args.qe_lr, train_layers=args.train_layers)
    pairs = PairOptions(max_train=args.train_pairs, max_dev=args.dev_pairs, max_devtest=0)
    args.out.mkdir(parents=True, exist_ok=True)
    summary = {"model": model, "train_specs": JFLEG_TRAIN + CWEB_TRAIN, "cweb_sentences": len(cweb),
               "dev_specs": DEV, "train_sentences": len(train), "dev_sentences": len(dev), "conll14_overlap": leaks, "ged": ged.__dict__, "qe": qe.__dict__,
               "pairs": pairs.__dict__}
    for name, ged_options in (("ged_qe", ged), ("qe_only", None)):
        if args.only not in (None, name):
            continue
        t = time.time()
        best = train_impara(train, dev, args.out / name, model=model, ged=ged_options, qe=qe, pairs=pairs,
                            device="cpu")
        summary[name] = {"checkpoint": str(best), "minutes": round((time.time() - t) / 60, 1)}
        print(f"{name}: {best} ({summary[name]['minutes']} min)", flush=True)
    summary["total_minutes"] = round((time.time() - start) / 60, 1)
    if args.only is None:
        (args.out / "train_summary.json").write_text(json.dumps(summary, indent=2) + "\n")


if __name__ == "__main__":
    main()
