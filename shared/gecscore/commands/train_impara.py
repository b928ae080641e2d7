"""`gecscore train-impara`: the IMPARA-GED recipe (GED → IMPARA QE pairs → QE fine-tuning); resumable."""

from __future__ import annotations

import argparse

from gecscore.commands.train_ged import add_corpus_arguments, add_ged_arguments, ged_options
from gecscore.training.qe import PairOptions, QEOptions


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("train-impara", help="train an IMPARA(-GED) quality estimator",
                                   description=__doc__)
    add_corpus_arguments(parser)
    parser.add_argument("--devtest", nargs="+", default=None, metavar="SPEC",
                        help="corpora to choose among seeds (required with several --seeds)")
    parser.add_argument("--no-ged", action="store_true", help="skip GED: train the QE from the plain encoder")
    add_ged_arguments(parser, prefix="ged-")
    q, p = QEOptions(), PairOptions()
    parser.add_argument("--epochs", type=int, default=q.epochs, help="QE epochs (default 10)")
    parser.add_argument("--lr", type=float, default=q.lr)
    parser.add_argument("--batch-size", type=int, default=q.batch_size, help="QE pairs per batch")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1], help="QE seeds (the paper used 5)")
    parser.add_argument("--train-layers", type=int, default=q.train_layers,
                        help="train only the top N encoder layers and the head (GED and QE; default: all)")
    parser.add_argument("--pooling", default=q.pooling, choices=("mean_wrapper", "native", "cls"))
    parser.add_argument("--n-try", type=int, default=p.n_try, help="pair draws per source sentence")
    parser.add_argument("--max-pairs", type=int, nargs=3, default=[p.max_train, p.max_dev, p.max_devtest],
                        metavar=("TRAIN", "DEV", "DEVTEST"), help="pairs kept per split")
    parser.add_argument("--pair-seed", type=int, default=p.seed)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Train and print the best checkpoint's folder; model-loading bars follow --no-progress as the training's."""
    from gecscore.common.encoders import loading_progress
    from gecscore.training import load_corpora, train_impara

    train = load_corpora(args.train, args.data_dir)
    dev = load_corpora(args.dev, args.data_dir)
    devtest = load_corpora(args.devtest, args.data_dir) if args.devtest else None
    if args.ged_train_layers is None:
        args.ged_train_layers = args.train_layers
    ged = None if args.no_ged else ged_options(args, prefix="ged_")
    qe = QEOptions(epochs=args.epochs, lr=args.lr, batch_size=args.batch_size, max_length=args.max_length,
                   train_layers=args.train_layers, pooling=args.pooling)
    pairs = PairOptions(n_try=args.n_try, max_train=args.max_pairs[0], max_dev=args.max_pairs[1],
                        max_devtest=args.max_pairs[2], seed=args.pair_seed)
    with loading_progress(not args.no_progress):
        best = train_impara(train, dev, args.out, model=args.model, ged=ged, qe=qe, pairs=pairs, seeds=args.seeds,
                            devtest=devtest, device=args.device, progress=not args.no_progress)
    print(best)
    return 0
