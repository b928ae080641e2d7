"""`gecscore train-ged`: token-level GED fine-tuning of any encoder on parallel data (ERRANT labels)."""

from __future__ import annotations

import argparse

from gecscore.training.ged import GEDOptions


def add_corpus_arguments(parser: argparse.ArgumentParser) -> None:
    """--train/--dev corpus specs and --data-dir (shared with train-impara)."""
    parser.add_argument("--train", nargs="+", required=True, metavar="SPEC",
                        help="training corpora: parallel:SRC,TRG | m2:FILE[:ANN] | jfleg:dev|test[:REF] | "
                             "cweb:G|S.dev|test[:ANN]")
    parser.add_argument("--dev", nargs="+", required=True, metavar="SPEC", help="dev corpora (best checkpoint)")
    parser.add_argument("--data-dir", default=None, help="directory holding JFLEG/ and CWEB/ (for jfleg:/cweb: specs)")
    parser.add_argument("--model", default="minilm", help="base encoder: a local path, hub id or alias (minilm)")
    parser.add_argument("--out", required=True, help="output directory (re-running resumes)")
    parser.add_argument("--device", default=None, help="cpu, cuda, ... (default: cuda when available)")
    parser.add_argument("--no-progress", action="store_true", help="hide progress bars")


def add_ged_arguments(parser: argparse.ArgumentParser, prefix: str = "") -> None:
    """GED hyper-parameters (defaults: the IMPARA-GED paper / Yuan et al. 2021)."""
    d = GEDOptions()
    parser.add_argument(f"--{prefix}classes", type=int, default=d.num_classes, choices=(2, 4, 25, 55),
                        help="GED label setting (default 2)")
    parser.add_argument(f"--{prefix}epochs", type=int, default=d.epochs)
    parser.add_argument(f"--{prefix}lr", type=float, default=d.lr)
    parser.add_argument(f"--{prefix}batch-size", type=int, default=d.batch_size)
    parser.add_argument(f"--{prefix}seed", type=int, default=d.seed)
    parser.add_argument(f"--{prefix}train-layers", type=int, default=d.train_layers,
                        help="train only the top N encoder layers and the head (default: all)")
    parser.add_argument("--max-length", type=int, default=d.max_length)


def ged_options(args: argparse.Namespace, prefix: str = "") -> GEDOptions:
    """GEDOptions from parsed arguments."""
    values = {name: getattr(args, prefix + name) for name in ("classes", "epochs", "lr", "batch_size", "seed",
                                                               "train_layers")}
    return GEDOptions(num_classes=values.pop("classes"), max_length=args.max_length, **values)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("train-ged", help="fine-tune an encoder for token-level GED",
                                   description=__doc__)
    add_corpus_arguments(parser)
    add_ged_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Train and print the best checkpoint's folder; model-loading bars follow --no-progress as the training's."""
    from gecscore.common.encoders import loading_progress
    from gecscore.training import load_corpora, train_ged

    train = load_corpora(args.train, args.data_dir)
    dev = load_corpora(args.dev, args.data_dir)
    with loading_progress(not args.no_progress):
        best = train_ged(train, dev, args.out, model=args.model, options=ged_options(args), device=args.device,
                         progress=not args.no_progress)
    print(best)
    return 0
