"""When each paper row's protocol was declared and when its scores came, read from the git history of
`published/*.json` and `results.json`: the rule that a row's protocol is committed before its scores.

A row is identified across commits by its paper, table and configuration (the `protocol` of its published entry:
metric, data, references, system set, aggregation, human score, level, options; a listing by its name and
`compute`/`config`), which survive renames of the printed row label. A row is *declared* in the first commit whose
`published/*.json` gives it today's protocol, and *scored* in the first commit whose `results.json` holds its value
under that protocol (the base value for `base`, the switch's value for a switch). The rule holds for a row when the
declaring commit comes strictly before the scoring one.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

BENCH = "benchmarks/meta_eval"
ROW_FIELDS = ("metric", "dataset", "references", "system_set", "aggregation", "human", "level", "exclude_unchanged",
              "options")


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


def _commits(repo: Path, path: str) -> list[str]:
    """Commits of the first-parent history that touch `path`, oldest first."""
    return _git(repo, "log", "--first-parent", "--reverse", "--format=%H", "--", path).split()


def row_identity(paper: str, table: str, protocol: dict) -> str:
    """A published row's identity: its paper, table and configuration."""
    return json.dumps([paper, table, {k: protocol.get(k) for k in ROW_FIELDS}], sort_keys=True, ensure_ascii=False)


def listing_identity(paper: str, table: str, name: str, compute: str, config: str) -> str:
    """A listing's identity: its paper, table, name and computation."""
    return json.dumps([paper, table, name, compute, config], ensure_ascii=False)


def declared_at(repo: Path) -> dict[str, tuple[str, str]]:
    """Each identity's protocol today and the first commit whose published files declare it."""
    first: dict[tuple[str, str], str] = {}
    today: dict[str, str] = {}
    for commit in _commits(repo, f"{BENCH}/published"):
        names = _git(repo, "ls-tree", "--name-only", commit, f"{BENCH}/published/").split()
        today = {}
        for name in names:
            data = json.loads(_git(repo, "show", f"{commit}:{name}"))
            groups = {row: group["protocol"] for group in data.get("declared", []) for row in group["rows"]}
            for entry in data["entries"]:
                if entry["row"] not in groups:
                    continue
                protocol = entry["protocol"]
                identity = (listing_identity(data["paper"], data["table"], entry["row"], protocol["compute"],
                                             protocol["config"]) if data["kind"] == "listing"
                            else row_identity(data["paper"], data["table"], protocol))
                today[identity] = groups[entry["row"]]
                first.setdefault((identity, groups[entry["row"]]), commit)
    return {identity: (protocol, first[identity, protocol]) for identity, protocol in today.items()}


def _value(item: dict, protocol: str) -> Any:
    return item.get("ours") if protocol == "base" else (item.get("switches") or {}).get(protocol)


def scored_at(repo: Path, protocols: dict[str, str]) -> dict[str, str]:
    """The first commit whose results.json holds each identity's value under the given protocol."""
    first: dict[str, str] = {}
    for commit in _commits(repo, f"{BENCH}/results.json"):
        data = json.loads(_git(repo, "show", f"{commit}:{BENCH}/results.json"))
        if not isinstance(data, dict):
            continue  # the first format (a list of cells) holds no rows
        for item in data.get("rows", []):
            row = item["row"]
            identity = row_identity(row["paper"], row["table"], row)
            if identity in protocols and _value(item, protocols[identity]) is not None:
                first.setdefault(identity, commit)
        for item in data.get("listings", []):
            listing = item["listing"]
            identity = listing_identity(listing["paper"], listing["table"], listing["name"], listing["compute"],
                                        listing["config"])
            if identity in protocols and _value(item, protocols[identity]) is not None:
                first.setdefault(identity, commit)
    return first


def protocol_order(repo: Path) -> list[dict]:
    """Every row and listing declared today: its protocol, the declaring and the scoring commit, and whether the
    declaration came first (`before`)."""
    declared = declared_at(repo)
    scored = scored_at(repo, {identity: protocol for identity, (protocol, _) in declared.items()})
    order = {commit: k for k, commit in enumerate(_git(repo, "rev-list", "--first-parent", "--reverse",
                                                        "HEAD").split())}
    out = []
    for identity, (protocol, declaring) in declared.items():
        scoring = scored.get(identity)
        out.append({"identity": identity, "protocol": protocol, "declared": declaring, "scored": scoring,
                    "before": scoring is None or order[declaring] < order[scoring]})
    return out
