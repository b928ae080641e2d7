"""What a model name stands for on this machine, found cheaply (no file is read whole): for a key that must change
when a model's weights do, not only when its name does (`gecscore.score_dataset`'s cached chunks).

A local folder is its absolute path and the name, size and modification time of each of its files (as the
embedding cache pins it, `embedding_cache.folder_files`), a local file the same of itself, and a Hub id the commit
its cached snapshot resolves to offline (`refs/<revision>` in the Hub cache). A name that is none of these (not
downloaded yet, an endpoint's model) has no identity here: its name is all a key can hold.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Sequence

from gecscore.common.embedding_cache import folder_files


def file_identity(name: str, revisions: Sequence[str | None] = (None,)) -> dict[str, Any] | None:
    """The identity of the model `name` (see the module docstring), or None; a Hub id's commit is looked up for
    each of `revisions` (None: `main`), since an option's revision need not apply to every model a metric loads."""
    path = os.path.expanduser(name)
    if os.path.isdir(path):
        return {"path": os.path.realpath(path), "files": folder_files(path)}
    if os.path.isfile(path):
        stat = os.stat(path)
        return {"path": os.path.realpath(path), "files": [(os.path.basename(path), stat.st_size, stat.st_mtime_ns)]}
    commits = {revision or "main": hub_commit(name, revision) for revision in revisions}
    return {"hub": name, "commits": commits} if any(commits.values()) else None


def hub_commit(repo_id: str, revision: str | None = None) -> str | None:
    """The commit `revision` (None: `main`) of the Hub model `repo_id` resolves to in the local Hub cache, without
    the network; None when it is not cached."""
    from huggingface_hub import try_to_load_from_cache

    found = try_to_load_from_cache(repo_id, "config.json", revision=revision)
    return Path(found).parent.name if isinstance(found, str) else None  # <cache>/snapshots/<commit>/config.json
