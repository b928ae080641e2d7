"""The IMPARA-GED training recipe: GED labels and fine-tuning, IMPARA QE data, QE fine-tuning (resumable)."""

from gecscore.training.corpora import load_corpora, load_corpus, read_m2_pairs, read_parallel, subsample
from gecscore.training.ged import GEDOptions, train_ged
from gecscore.training.labels import LABEL_SETS, label_set, token_labels
from gecscore.training.qe import PairOptions, QEOptions, train_impara, train_qe
from gecscore.training.qe_data import make_qe_pairs

__all__ = [
    "GEDOptions", "LABEL_SETS", "PairOptions", "QEOptions", "label_set", "load_corpora", "load_corpus",
    "make_qe_pairs", "read_m2_pairs", "read_parallel", "subsample", "token_labels", "train_ged", "train_impara",
    "train_qe",
]
