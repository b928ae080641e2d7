"""IMPARA quality-estimator fine-tuning and the full IMPARA-GED recipe (GED → QE data → QE).

The QE is a one-logit sequence classifier R trained on (worse, better) pairs with the loss
mean σ(R(S−) − R(S+)) (Maeda et al. 2022). IMPARA-GED initialises it from a GED model and pools by the masked
mean of the last hidden states fed to the classifier (`pooling='mean_wrapper'`, recorded in the saved config);
the best epoch is the one with the lowest dev loss, and with several seeds the best seed is the one with the
lowest loss on a separate devtest set (the paper's 5 seeds).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Sequence

from gecscore.common.encoders import resolve_model, select_device
from gecscore.impara_ged.metric import POOLING_CONFIG_KEY, pooled_logits
from gecscore.training.corpora import Pair
from gecscore.training.ged import GEDOptions, train_ged
from gecscore.training.qe_data import QEPair, encoder_embedder, make_qe_pairs, read_pairs, write_pairs
from gecscore.training.runs import FitConfig, Stage, fit, freeze_lower_layers, set_seed


@dataclass(frozen=True)
class QEOptions:
    """Settings of QE fine-tuning (defaults: IMPARA's reproduction, 10 epochs as in the IMPARA-GED paper)."""

    epochs: int = 10
    lr: float = 1e-5
    batch_size: int = 32
    max_length: int = 128
    seed: int = 1
    train_layers: int | None = None
    pooling: str = "mean_wrapper"


def pair_loss(model: Any, tokenizer: Any, pairs: Sequence[QEPair], pooling: str, max_length: int,
              device: str) -> Any:
    """mean σ(R(worse) − R(better)) over `pairs` (one forward of all worse and better sentences)."""
    import torch

    texts = [w for w, _ in pairs] + [b for _, b in pairs]
    encoded = tokenizer(texts, max_length=max_length, truncation=True, padding=True, return_tensors="pt")
    logits = pooled_logits(model, encoded["input_ids"].to(device), encoded["attention_mask"].to(device), pooling)
    worse, better = logits[: len(pairs)], logits[len(pairs):]
    return torch.sigmoid(worse - better).mean()


def evaluate_pairs(model: Any, tokenizer: Any, pairs: Sequence[QEPair], *, pooling: str, max_length: int,
                   batch_size: int, device: str) -> dict[str, float]:
    """Dev loss and pairwise accuracy (share of pairs with R(better) > R(worse))."""
    import torch

    from gecscore.common.encoders import Encoder

    texts = [t for pair in pairs for t in pair]

    def head(model: Any, input_ids: Any, attention_mask: Any) -> Any:
        return pooled_logits(model, input_ids, attention_mask, pooling)

    # The model service's batching, without its caches: the weights change between evaluations.
    service = Encoder("QE in training", device=device, loaded=(model, tokenizer), cache_bytes=0, disk_cache=False)
    logits = service.head_outputs(texts, head, tag=pooling, max_length=max_length, batch_size=batch_size)[:, 0]
    worse, better = torch.tensor(logits[0::2]), torch.tensor(logits[1::2])
    return {"loss": float(torch.sigmoid(worse - better).mean()), "accuracy": float((better > worse).float().mean())}


def train_qe(train: Sequence[QEPair], dev: Sequence[QEPair], out_dir: str | Path, *, init_model: str,
             options: QEOptions = QEOptions(), device: str | None = None, progress: bool = True) -> Path:
    """Fine-tune a one-logit QE from `init_model` (a base encoder or a GED checkpoint); returns the best dir."""
    from transformers import AutoConfig, AutoModelForSequenceClassification, AutoTokenizer

    if not train or not dev:
        raise ValueError(f"QE training needs train and dev pairs (got {len(train)} and {len(dev)})")
    stage = Stage(out_dir, "QE", {"init_model": str(init_model), **options.__dict__,
                                  "train_size": len(train), "dev_size": len(dev)})
    if stage.finished:
        return stage.best_dir
    set_seed(options.seed)
    device = select_device(device)
    path = resolve_model(str(init_model))
    tokenizer = AutoTokenizer.from_pretrained(path)
    config = AutoConfig.from_pretrained(path)
    config.id2label, config.label2id = {0: "QUALITY"}, {"QUALITY": 0}
    config.problem_type = "regression"
    setattr(config, POOLING_CONFIG_KEY, options.pooling)
    model = AutoModelForSequenceClassification.from_pretrained(path, config=config, ignore_mismatched_sizes=True)
    freeze_lower_layers(model, options.train_layers)
    train = list(train)

    def loss_fn(m: Any, batch: list[int]) -> Any:
        return pair_loss(m, tokenizer, [train[i] for i in batch], options.pooling, options.max_length, device)

    def evaluate_fn(m: Any) -> dict[str, float]:
        return evaluate_pairs(m, tokenizer, dev, pooling=options.pooling, max_length=options.max_length,
                              batch_size=options.batch_size, device=device)

    lengths = [len(w.split()) + len(b.split()) for w, b in train]
    config = FitConfig(options.epochs, options.lr, options.batch_size, options.seed, device, progress)
    return fit(stage, model, tokenizer, lengths=lengths, loss_fn=loss_fn, evaluate_fn=evaluate_fn, key="loss",
               higher_is_better=False, config=config)


@dataclass(frozen=True)
class PairOptions:
    """How many (worse, better) pairs to draw (IMPARA reproduction: 4096 split 3276 / 410 / 410)."""

    n_try: int = 30
    max_train: int = 3276
    max_dev: int = 410
    max_devtest: int = 410
    seed: int = 1


def build_pairs(out_dir: Path, corpora: dict[str, Sequence[Pair]], impact_model: str, options: PairOptions, *,
                max_length: int, batch_size: int, device: str, extractor: Any, progress: bool) -> dict[str, list]:
    """QE pairs of each split from its parallel corpus, cached as `pairs.<split>.tsv` in `out_dir`."""
    stage = Stage(out_dir, "QE data", {"impact_model": str(impact_model), **options.__dict__, "max_length": max_length,
                                       **{f"{k}_size": len(v) for k, v in corpora.items()}})
    limits = {"train": options.max_train, "dev": options.max_dev, "devtest": options.max_devtest}
    out, embed = {}, None
    for split, pairs in corpora.items():
        path = stage.dir / f"pairs.{split}.tsv"
        if not path.exists():
            if embed is None:
                embed = encoder_embedder(str(impact_model), max_length=max_length,
                                         batch_size=batch_size, device=device, progress=progress)
            write_pairs(path, make_qe_pairs(pairs, embed, n_try=options.n_try, max_pairs=limits[split],
                                            seed=options.seed, extractor=extractor, progress=progress))
        out[split] = read_pairs(path)
    return out


def train_impara(train: Sequence[Pair], dev: Sequence[Pair], out_dir: str | Path, *, model: str = "minilm",
                 ged: GEDOptions | None = GEDOptions(), qe: QEOptions = QEOptions(),
                 pairs: PairOptions = PairOptions(), seeds: Sequence[int] = (1,),
                 devtest: Sequence[Pair] | None = None, device: str | None = None, extractor: Any = None,
                 progress: bool = True) -> Path:
    """The IMPARA-GED recipe: GED on `model` (skipped when `ged` is None), QE pairs with impacts from the
    initial model, QE fine-tuning for each seed; returns the chosen QE checkpoint (`out_dir/qe/best`).

    Layout: `ged/`, `qe_data/`, `qe/seed<N>/`, `qe/best` (a copy of the chosen seed's best checkpoint).
    """
    out = Path(out_dir)
    if not seeds:
        raise ValueError("seeds must name at least one seed")
    if len(seeds) > 1 and devtest is None:
        raise ValueError("choosing among several seeds needs a `devtest` corpus")
    device_name = select_device(device)
    init = str(model)
    if ged is not None:
        init = str(train_ged(train, dev, out / "ged", model=model, options=ged, device=device_name,
                             extractor=extractor, progress=progress))
    corpora = {"train": train, "dev": dev, **({"devtest": devtest} if devtest is not None else {})}
    data = build_pairs(out / "qe_data", corpora, init, pairs, max_length=qe.max_length, batch_size=qe.batch_size,
                       device=device_name, extractor=extractor, progress=progress)
    results = {}
    for seed in seeds:
        best = train_qe(data["train"], data["dev"], out / "qe" / f"seed{seed}", init_model=init,
                        options=replace(qe, seed=seed), device=device_name, progress=progress)
        results[seed] = best
    chosen, summary = _choose_seed(results, data.get("devtest"), qe, device_name)
    final = out / "qe" / "best"
    if not (final / "chosen.json").exists() or json.loads((final / "chosen.json").read_text()) != summary:
        tmp = final.with_name("best.tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.copytree(chosen, tmp, ignore=shutil.ignore_patterns("optimizer.pt"))
        (tmp / "chosen.json").write_text(json.dumps(summary, indent=2) + "\n")
        shutil.rmtree(final, ignore_errors=True)
        tmp.rename(final)
    return final


def _choose_seed(results: dict[int, Path], devtest: Sequence[QEPair] | None, qe: QEOptions,
                 device: str) -> tuple[Path, dict[str, Any]]:
    """The seed whose best checkpoint has the lowest devtest loss (the only seed when there is one)."""
    if len(results) == 1:
        seed, path = next(iter(results.items()))
        return path, {"seed": seed, "source": str(path)}
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    losses = {}
    for seed, path in results.items():
        model = AutoModelForSequenceClassification.from_pretrained(path).to(device).eval()
        tokenizer = AutoTokenizer.from_pretrained(path)
        losses[seed] = evaluate_pairs(model, tokenizer, devtest, pooling=qe.pooling, max_length=qe.max_length,
                                      batch_size=qe.batch_size, device=device)["loss"]
    seed = min(losses, key=lambda s: (losses[s], s))
    return results[seed], {"seed": seed, "source": str(results[seed]), "devtest_loss": losses}
