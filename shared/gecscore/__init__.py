"""gecscore: grammatical error correction metrics that reproduce their reference implementations.

The public API is what `__all__` names, and the API reference (`docs/api/`) documents each of its names:
`compare` and `Leaderboard` (many systems in one call), `rerank` (n-best reranking and MBR) and `score_dataset`
(score columns on a `datasets` dataset), the paths of the shipped evaluate scripts and Space apps, and the public
modules. Modules and these functions are imported on first use, so that `import gecscore` loads no model library
(torch, transformers, evaluate).
"""

import importlib
from typing import Any

from gecscore.shipped import app_path, script_path

__all__ = [
    "Leaderboard", "__version__", "app_path", "compare", "rerank", "score_dataset", "script_path",
    # public modules
    "common", "dataset_scoring", "evaluate_module", "integrations", "leaderboard", "meta_eval", "registry",
    "reranking", "rewards", "sentence_scorer", "sharding", "training",
    # the metric packages, from registry.METRIC_PACKAGES (`make generate`)
    "uot_errant", "pt_m2", "cleme2", "impara_ged", "gleu", "gotoscorer", "some", "scribendi", "green", "bertscore",
    "llm_kobayashi24",
]
__version__ = "0.1.0"
#: Names loaded on first use, so that `import gecscore` stays light: name -> the module that defines it.
_LAZY = {"compare": "gecscore.leaderboard", "Leaderboard": "gecscore.leaderboard", "rerank": "gecscore.reranking",
         "score_dataset": "gecscore.dataset_scoring"}


def __getattr__(name: str) -> Any:
    """`compare` and `Leaderboard` (`gecscore.leaderboard`), `rerank` (`gecscore.reranking`), `score_dataset`
    (`gecscore.dataset_scoring`) and the public modules (`gecscore.registry`, ...), imported on first use."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    if name in __all__:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'gecscore' has no attribute {name!r}")
