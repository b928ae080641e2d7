"""Finding and loading a Space's metric module: a local copy when there is one, else the shipped one, else the Hub's."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from gecscore.registry import SPECS
from gecscore.shipped import script_path

#: Path of a metric folder or script, or of a folder holding `<name>/<name>.py` (the repository's `metrics/`).
METRIC_PATH_ENV = "GECSCORE_METRIC_PATH"
HUB_ORGANISATION = "gecscore"


def metric_location(name: str, app_file: str | Path | None = None) -> str:
    """Where `evaluate.load` finds the metric `name`.

    In order: `$GECSCORE_METRIC_PATH` (the metric's folder or script, or a folder of metric folders); the script
    `<name>.py` beside the app (a Space repository is the metric's repository); the script shipped in the package;
    the Hub id `gecscore/<name>`.
    """
    given = os.environ.get(METRIC_PATH_ENV)
    if given:
        path = Path(given).expanduser()
        if (path / name / f"{name}.py").is_file():
            return str(path / name)
        if path.is_file() or (path / f"{name}.py").is_file():
            return str(path)
        raise FileNotFoundError(f"{METRIC_PATH_ENV}={given} holds neither {name}.py nor {name}/{name}.py")
    if app_file is not None and (Path(app_file).resolve().parent / f"{name}.py").is_file():
        return str(Path(app_file).resolve().parent)
    if name in SPECS:
        return script_path(name)
    return f"{HUB_ORGANISATION}/{name}"


class MetricHandle:
    """The Space's one metric instance: loaded on first use, computes one request at a time."""

    def __init__(self, name: str, app_file: str | Path | None = None) -> None:
        self.name = name
        self.app_file = app_file
        self._module: Any = None
        self._lock = threading.Lock()

    @property
    def location(self) -> str:
        """Where the metric is loaded from."""
        return metric_location(self.name, self.app_file)

    def _load(self) -> Any:
        if self._module is None:
            import evaluate

            location = self.location
            try:
                self._module = evaluate.load(location, keep_in_memory=True)
            except Exception as error:  # evaluate raises many kinds; the user needs to know where it looked
                raise RuntimeError(f"could not load the metric module from {location!r}: {error}") from error
        return self._module

    def compute(self, **kwargs: Any) -> dict[str, Any]:
        """`compute` of the metric module (loaded on the first call)."""
        with self._lock:
            return self._load().compute(**kwargs)
