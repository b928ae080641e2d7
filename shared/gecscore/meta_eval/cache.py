"""On-disk cache of per-system sentence scores, keyed by metric, settings and the exact inputs."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from gecscore.meta_eval.protocol import SystemScores


def default_cache_dir() -> Path:
    """`$GECSCORE_CACHE/meta_eval`, else `$XDG_CACHE_HOME/gecscore/meta_eval`, else `~/.cache/gecscore/meta_eval`."""
    if os.environ.get("GECSCORE_CACHE"):
        return Path(os.environ["GECSCORE_CACHE"]) / "meta_eval"
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "gecscore" / "meta_eval"


def score_key(metric: str, settings: Mapping[str, Any], sources: Sequence[str], hypotheses: Sequence[str],
              references: Sequence[Sequence[str]], gold: str | None = None) -> str:
    """SHA-256 over the metric name, its settings and every input text (so any change misses the cache)."""
    payload = json.dumps(
        {"metric": metric, "settings": settings, "sources": list(sources), "hypotheses": list(hypotheses),
         "references": [list(r) for r in references], "gold": gold},
        sort_keys=True, ensure_ascii=False, default=str,
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class ScoreCache:
    """One JSON file per (metric, settings, inputs): `<dir>/<metric>/<key>.json`."""

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)

    def _path(self, metric: str, key: str) -> Path:
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in metric)
        return self.directory / safe / f"{key}.json"

    def get(self, metric: str, key: str) -> SystemScores | None:
        """Cached scores, or None (also for an unreadable entry, which is then recomputed)."""
        path = self._path(metric, key)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return SystemScores(sentence=[float(x) for x in data["sentence"]], corpus=data["corpus"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    @contextmanager
    def computing(self, metric: str, key: str) -> Iterator[None]:
        """Hold the entry's lock (`<key>.json.lock`) while it is computed, so that processes sharing the folder (test
        workers, parallel runs) compute each entry once: the others wait, then read what the first one wrote."""
        from filelock import FileLock

        path = self._path(metric, key)
        path.parent.mkdir(parents=True, exist_ok=True)
        with FileLock(str(path) + ".lock"):
            yield

    def put(self, metric: str, key: str, scores: SystemScores) -> None:
        """Write atomically (temporary file, then rename)."""
        path = self._path(metric, key)
        path.parent.mkdir(parents=True, exist_ok=True)
        data = {"metric": metric, "sentence": list(scores.sentence), "corpus": scores.corpus}
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle)
        os.replace(tmp, path)
