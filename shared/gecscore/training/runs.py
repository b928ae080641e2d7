"""Resumable training stages: options, per-epoch checkpoints, best-checkpoint selection, seeding, layer freezing.

A stage directory holds `options.json` (what it was started with), `state.json` (epochs done, history, best
score), `last/` (the model after the latest epoch plus `optimizer.pt`) and `best/` (the best model on the dev set).
Running a finished stage again does nothing; running an unfinished one continues after its last saved epoch. Only
the number of epochs may change between runs: more continues training, fewer (or as many as are done) stops with
the best of the epochs done; any other change of options is an error. The
shuffling order and dropout of epoch *e* are seeded with `seed + e`, so a resumed run equals an uninterrupted one.
"""

from __future__ import annotations

import json
import random
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from gecscore.common.progress import progress_bar, progress_write


def set_seed(seed: int) -> None:
    """Seed Python, NumPy and torch."""
    import torch

    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def encoder_layers(model: Any) -> Sequence[Any]:
    """The list of transformer layers of a model's encoder (BERT-, ELECTRA-, DeBERTa- or ModernBERT-style)."""
    base = model.base_model
    for path in ("encoder.layer", "layers", "encoder.layers", "transformer.layer"):
        obj = base
        for part in path.split("."):
            obj = getattr(obj, part, None)
            if obj is None:
                break
        if obj is not None:
            return obj
    raise ValueError(f"cannot find the transformer layers of {type(base).__name__} to freeze")


def freeze_lower_layers(model: Any, train_layers: int | None) -> list[str]:
    """Freeze the embeddings and all but the top `train_layers` layers (None: train everything).

    Returns the names of the frozen parameters.
    """
    if train_layers is None:
        return []
    layers = encoder_layers(model)
    if not 1 <= train_layers <= len(layers):
        raise ValueError(f"train_layers must be between 1 and {len(layers)}, got {train_layers}")
    frozen_modules = [model.base_model.embeddings, *layers[: len(layers) - train_layers]]
    frozen_ids = {id(p) for module in frozen_modules for p in module.parameters()}
    names = []
    for name, parameter in model.named_parameters():
        if id(parameter) in frozen_ids:
            parameter.requires_grad_(False)
            names.append(name)
    return names


@dataclass
class StageState:
    """Progress of one stage."""

    epochs_done: int = 0
    best_score: float | None = None
    best_epoch: int | None = None
    finished: bool = False
    history: list[dict[str, Any]] = field(default_factory=list)


class Stage:
    """One resumable step of a recipe, in its own directory."""

    def __init__(self, directory: str | Path, name: str, options: Mapping[str, Any]) -> None:
        self.dir = Path(directory)
        self.name = name
        self.options = json.loads(json.dumps(dict(options), default=str))
        self.dir.mkdir(parents=True, exist_ok=True)
        saved = self.dir / "options.json"
        if saved.exists():
            before = json.loads(saved.read_text())
            changed = sorted(k for k in set(before) | set(self.options) if before.get(k) != self.options.get(k))
            if set(changed) - {"epochs"}:
                raise ValueError(
                    f"{self.dir} holds a {name} stage started with other options ({', '.join(changed)} differ); "
                    "use a new output directory or the original options"
                )
            if changed:  # a new number of epochs: continue training, or stop at the epochs already done
                state = self.load_state()
                state.finished = state.epochs_done >= self.options["epochs"]
                self.save_state(state)
        saved.write_text(json.dumps(self.options, indent=2) + "\n")

    @property
    def best_dir(self) -> Path:
        return self.dir / "best"

    @property
    def last_dir(self) -> Path:
        return self.dir / "last"

    def load_state(self) -> StageState:
        path = self.dir / "state.json"
        return StageState(**json.loads(path.read_text())) if path.exists() else StageState()

    def save_state(self, state: StageState) -> None:
        tmp = self.dir / "state.json.tmp"
        tmp.write_text(json.dumps(state.__dict__, indent=2) + "\n")
        tmp.replace(self.dir / "state.json")

    @property
    def finished(self) -> bool:
        return self.load_state().finished


def _save_model(model: Any, tokenizer: Any, directory: Path, extra: Mapping[str, Any]) -> None:
    """Write a checkpoint atomically (to a temporary sibling, then renamed)."""
    tmp = directory.with_name(directory.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    model.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    for name, value in extra.items():
        if name.endswith(".pt"):
            import torch

            torch.save(value, tmp / name)
        else:
            (tmp / name).write_text(json.dumps(value, indent=2) + "\n")
    shutil.rmtree(directory, ignore_errors=True)
    tmp.rename(directory)


def batches_for_epoch(lengths: Sequence[int], batch_size: int, seed: int) -> list[list[int]]:
    """Shuffled batches of similar length: shuffle, sort within windows of 50 batches, shuffle the batches."""
    rng = random.Random(seed)
    order = list(range(len(lengths)))
    rng.shuffle(order)
    window = batch_size * 50
    batches = []
    for start in range(0, len(order), window):
        chunk = sorted(order[start:start + window], key=lambda i: lengths[i])
        batches += [chunk[i:i + batch_size] for i in range(0, len(chunk), batch_size)]
    rng.shuffle(batches)
    return batches


@dataclass
class FitConfig:
    """Optimisation settings of one stage."""

    epochs: int
    lr: float
    batch_size: int
    seed: int
    device: str = "cpu"
    progress: bool = True


def fit(stage: Stage, model: Any, tokenizer: Any, *, lengths: Sequence[int],
        loss_fn: Callable[[Any, list[int]], Any], evaluate_fn: Callable[[Any], dict[str, float]], key: str,
        higher_is_better: bool, config: FitConfig) -> Path:
    """Train `model` epoch by epoch, evaluating on dev after each, keeping `best/` and `last/`; resumable.

    `loss_fn(model, batch_indices)` returns the mean loss of a batch; `evaluate_fn(model)` returns dev metrics,
    of which `key` selects the best checkpoint.
    """
    import torch

    state = stage.load_state()
    if state.finished or state.epochs_done >= config.epochs:
        state.finished = True
        stage.save_state(state)
        return stage.best_dir
    if config.epochs < 1:
        raise ValueError(f"epochs must be >= 1, got {config.epochs}")
    if config.batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {config.batch_size}")
    model.to(config.device)
    parameters = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.Adam(parameters, lr=config.lr)
    if state.epochs_done:
        weights = type(model).from_pretrained(stage.last_dir).state_dict()
        model.load_state_dict(weights)
        optimizer.load_state_dict(torch.load(stage.last_dir / "optimizer.pt", map_location=config.device))
    for epoch in range(state.epochs_done, config.epochs):
        torch.manual_seed(config.seed + epoch)
        model.train()
        batches = batches_for_epoch(lengths, config.batch_size, config.seed + epoch)
        total = 0.0
        bar = progress_bar(batches, desc=f"{stage.name} epoch {epoch + 1}/{config.epochs}", disable=not config.progress)
        for step, batch in enumerate(bar, 1):
            loss = loss_fn(model, batch)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            total += float(loss.detach())
            bar.set_postfix(loss=f"{total / step:.4f}")
        model.eval()
        with torch.inference_mode():
            metrics = evaluate_fn(model)
        record = {"epoch": epoch + 1, "train_loss": total / max(len(batches), 1), **metrics}
        state.history.append(record)
        score = metrics[key]
        better = state.best_score is None or (
            score > state.best_score if higher_is_better else score < state.best_score)
        if better:
            state.best_score, state.best_epoch = score, epoch + 1
            _save_model(model, tokenizer, stage.best_dir, {"score.json": record})
        state.epochs_done = epoch + 1
        _save_model(model, tokenizer, stage.last_dir, {"optimizer.pt": optimizer.state_dict()})
        stage.save_state(state)
        if config.progress:
            progress_write(f"{stage.name} epoch {epoch + 1}: " + ", ".join(f"{k}={v:.4f}" for k, v in record.items()
                                                                        if isinstance(v, float)))
    state.finished = True
    stage.save_state(state)
    return stage.best_dir
