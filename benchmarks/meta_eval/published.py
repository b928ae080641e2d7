"""The published cells the meta-evaluation recomputes, loaded from `published/*.json`.

Each file holds one table of one paper (a table whose rows the benchmark runs in two blocks, e.g. CLEME2.0 Table 1's
classic metrics and its CLEME variants, has one file per block). Files load in name order (their two-digit prefix),
entries in file order: that order is the order of results.json's `rows` and `listings`. A file is
`{"paper", "table", "kind": "row" | "listing", "about", "entries"}`; its entries are described on `row_from_entry`
and `listing_from_entry`. Every file is checked on loading, and a malformed entry fails with its file and position.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Callable

FOLDER = Path(__file__).resolve().parent / "published"

REFSET_NAMES = {"e-minimal": "E-Minimal",
                "e-fluency": "E-Fluency", "ne-minimal": "NE-Minimal", "ne-fluency": "NE-Fluency",
                "bn-10gec": "BN-10GEC"}
HUMAN_NAMES = {"ew_nusnlp": "EW", "ts_nusnlp": "TS", "ts_edit": "SEEDA-E", "ts_sent": "SEEDA-S", "sent": "SEEDA-S",
               "edit": "SEEDA-E", "score": "human"}
LEVEL_STATS = {"system": ("r", "ρ"), "sentence": ("acc", "τ")}
FILE_KEYS = {"paper", "table", "kind", "about", "declared", "slips", "entries"}
DECLARED_KEYS = {"rows", "protocol", "evidence"}
SLIP_KEYS = {"row", "column", "statistic", "kind", "shown_by", "evidence"}
# An exchange of two cells and a row printed in another row's place are shown by a switch's value; an average that
# is not the mean of its row is shown by the printed cells themselves.
SLIP_KINDS = {"exchanged": True, "row-slip": True, "average": False}
ROW_KEYS = {"row", "column", "cells", "protocol", "switches", "tried"}
ROW_PROTOCOL = {"metric", "dataset", "references", "system_set", "aggregation", "human", "level",
                "exclude_unchanged", "options", "computable"}
LISTING_KEYS = {"row", "cells", "protocol", "switches", "tried"}
LISTING_PROTOCOL = {"compute", "config", "args"}


@dataclass(frozen=True)
class Row:
    """Two published cells of one configuration: (r, ρ) at system level or (accuracy, τ) at sentence level.

    `published` holds None for a cell the paper does not print. `computable=False`: the data for the base protocol is
    not on disk (BN-10GEC), so only switches can give a value. `switches` are tried on the row's unequal cells;
    `tried` names the entry of `TRIED` that says what else was tried when no switch reproduces a cell. `declared` is
    the row's declared protocol ("base" or a switch) and `evidence` why; `slips` maps a statistic to its slip.
    """

    paper: str
    table: str
    metric: str
    dataset: str
    references: str | None
    system_set: str
    aggregation: str
    human: str
    published: tuple[float | None, float | None]
    exclude_unchanged: bool = False
    level: str = "system"
    options: dict = field(default_factory=dict)
    label: str = ""
    switches: tuple[str, ...] = ()
    tried: str = ""
    computable: bool = True
    declared: str = "base"
    evidence: str = ""
    slips: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The paper's row name."""
        return self.label or self.metric

    @property
    def stats(self) -> tuple[str, str]:
        return LEVEL_STATS[self.level]

    @property
    def column(self) -> str:
        """The paper's column, in words."""
        refs = REFSET_NAMES.get(self.references or "", self.references or "")
        if self.references in ("official", "official-pt-m2"):  # the convention is in the `config` column
            refs = "CoNLL-2014" if self.dataset == "gjg15" else "Official"
        if self.exclude_unchanged:
            refs += "*"
        human = HUMAN_NAMES.get(self.human, self.human)
        if self.dataset == "gjg15":
            return f"{refs} {human}"
        if self.dataset == "gmeg":
            return "GMEG-Data wiki"
        return f"{human} {self.system_set}, {refs} refs, {self.aggregation} agg."


@dataclass(frozen=True)
class Listing:
    """Printed cells that are not an (r, ρ) pair: systems at ranks, rank differences, counts, scores, or a row of
    correlations with its average. One cell per column; `published` holds the printed text (the printed number of
    decimals is the precision of the comparison). `compute` names the entry of `LISTING_COMPUTE` that gives ours
    under the base protocol `config` (with `args`); `switches`, `tried`, `declared`, `evidence` work as for `Row`;
    `slips` maps a column to its slip."""

    paper: str
    table: str
    name: str
    columns: tuple[str, ...]
    stats: tuple[str, ...]
    published: tuple[str, ...]
    compute: str
    config: str
    args: dict = field(default_factory=dict)
    switches: tuple[str, ...] = ()
    tried: str = ""
    declared: str = "base"
    evidence: str = ""
    slips: dict = field(default_factory=dict)


def run_name(row: Row) -> str:
    """A readable identifier of a row's configuration."""
    options = ",".join(f"{k}={v}" for k, v in sorted(row.options.items()))
    excl = "-changed" if row.exclude_unchanged else ""
    return (f"{row.metric}({options}) {row.dataset} {row.references}{excl} {row.system_set} {row.aggregation}")


def require(condition: bool, message: str) -> None:
    """Raise ValueError(message) unless `condition`: the loader's checks fail loudly, naming file and entry."""
    if not condition:
        raise ValueError(message)


def keys_are(data: object, expected: set[str], where: str) -> None:
    """`data` is a JSON object with exactly the `expected` keys."""
    require(isinstance(data, dict), f"{where}: expected an object, got {type(data).__name__}")
    require(set(data) == expected, f"{where}: keys {sorted(data)}, expected {sorted(expected)}")


def row_from_entry(paper: str, table: str, entry: dict, where: str) -> Row:
    """A `Row` from a file entry: `row` (the paper's row name: the metric, or a label such as "CLEME-dep"),
    `column` (the paper's column in words, `Row.column`), `cells` (`{"statistic", "printed"}` in the level's
    statistic order, leaving out a cell the paper does not print), `protocol` (the row's base protocol), `switches`
    and `tried`."""
    keys_are(entry, ROW_KEYS, where)
    protocol = entry["protocol"]
    keys_are(protocol, ROW_PROTOCOL, f"{where} protocol")
    require(protocol["level"] in LEVEL_STATS, f"{where}: level {protocol['level']!r} is not system or sentence")
    stats = LEVEL_STATS[protocol["level"]]
    printed: dict[str, float] = {}
    for cell in entry["cells"]:
        keys_are(cell, {"statistic", "printed"}, f"{where} cell")
        require(cell["statistic"] in stats and cell["statistic"] not in printed,
                f"{where}: statistic {cell['statistic']!r} of a {protocol['level']} row (expected one each of "
                f"{stats})")
        require(isinstance(cell["printed"], (int, float)), f"{where}: printed {cell['printed']!r} is not a number")
        printed[cell["statistic"]] = float(cell["printed"])
    require([s for s in stats if s in printed] == list(printed), f"{where}: cells not in the order {stats}")
    require(bool(printed), f"{where}: no printed cell")
    require(isinstance(entry["switches"], list) and isinstance(entry["tried"], str),
            f"{where}: switches must be a list and tried a string")
    label = "" if entry["row"] == protocol["metric"] else entry["row"]
    row = Row(paper, table, published=(printed.get(stats[0]), printed.get(stats[1])), label=label,
              switches=tuple(entry["switches"]), tried=entry["tried"], **protocol)
    require(row.column == entry["column"], f"{where}: column {entry['column']!r}, the protocol's is {row.column!r}")
    return row


def listing_from_entry(paper: str, table: str, entry: dict, where: str) -> Listing:
    """A `Listing` from a file entry: `row` (its name), `cells` (`{"column", "statistic", "printed"}`, the printed
    text as printed), `protocol` (`compute`, `config`, `args`), `switches` and `tried`."""
    keys_are(entry, LISTING_KEYS, where)
    keys_are(entry["protocol"], LISTING_PROTOCOL, f"{where} protocol")
    for cell in entry["cells"]:
        keys_are(cell, {"column", "statistic", "printed"}, f"{where} cell")
        require(isinstance(cell["printed"], str), f"{where}: printed {cell['printed']!r} is not the printed text")
    require(bool(entry["cells"]), f"{where}: no printed cell")
    require(isinstance(entry["switches"], list) and isinstance(entry["tried"], str),
            f"{where}: switches must be a list and tried a string")
    cells = entry["cells"]
    return Listing(paper, table, entry["row"], tuple(c["column"] for c in cells), tuple(c["statistic"] for c in cells),
                   tuple(c["printed"] for c in cells), switches=tuple(entry["switches"]), tried=entry["tried"],
                   **entry["protocol"])


READERS: dict[str, Callable] = {"row": row_from_entry, "listing": listing_from_entry}


def load(folder: Path = FOLDER) -> tuple[tuple[Row, ...], tuple[Listing, ...]]:
    """Every file of `folder`, checked: its rows, then its listings, each in file-name and entry order."""
    loaded: dict[str, list] = {kind: [] for kind in READERS}
    files = sorted(folder.glob("*.json"))
    require(bool(files), f"{folder}: no published tables")
    for path in files:
        data = json.loads(path.read_text(encoding="utf-8"))
        keys_are(data, FILE_KEYS, path.name)
        require(data["kind"] in READERS, f"{path.name}: kind {data['kind']!r} is not one of {sorted(READERS)}")
        require(bool(data["entries"]), f"{path.name}: no entries")
        items = []
        for k, entry in enumerate(data["entries"]):
            where = f"{path.name} entry {k} ({entry.get('row', '?') if isinstance(entry, dict) else '?'})"
            items.append(READERS[data["kind"]](data["paper"], data["table"], entry, where))
        loaded[data["kind"]] += with_slips(with_declared(items, data["declared"], path.name), data["slips"], path.name)
    return tuple(loaded["row"]), tuple(loaded["listing"])


def with_declared(items: list, declared: object, where: str) -> list:
    """`items` with their row's declared protocol: every paper row of the file is declared exactly once."""
    require(isinstance(declared, list) and bool(declared), f"{where}: declared must be a non-empty list")
    protocol: dict[str, tuple[str, str]] = {}
    for k, group in enumerate(declared):
        keys_are(group, DECLARED_KEYS, f"{where} declared {k}")
        require(isinstance(group["protocol"], str) and isinstance(group["evidence"], str) and group["evidence"],
                f"{where} declared {k}: protocol and evidence must be non-empty strings")
        for name in group["rows"]:
            require(name not in protocol, f"{where}: row {name!r} is declared twice")
            protocol[name] = (group["protocol"], group["evidence"])
    names = {item.name for item in items}
    require(set(protocol) == names, f"{where}: declared rows {sorted(protocol)}, the file's rows {sorted(names)}")
    return [replace(item, declared=protocol[item.name][0], evidence=protocol[item.name][1]) for item in items]


def with_slips(items: list, slips: object, where: str) -> list:
    """`items` with the slips that name their cells (a row's by statistic, a listing's by column)."""
    require(isinstance(slips, list), f"{where}: slips must be a list")
    found: dict[int, dict] = {}
    for k, slip in enumerate(slips):
        keys_are(slip, SLIP_KEYS, f"{where} slip {k}")
        require(slip["kind"] in SLIP_KINDS, f"{where} slip {k}: kind {slip['kind']!r} not in {sorted(SLIP_KINDS)}")
        at = [i for i, item in enumerate(items) if item.name == slip["row"] and slip_key(item, slip) is not None]
        require(len(at) == 1, f"{where} slip {k}: no single cell {slip['row']} / {slip['column']} / "
                              f"{slip['statistic']}")
        item = items[at[0]]
        require((slip["shown_by"] in item.switches) if SLIP_KINDS[slip["kind"]] else slip["shown_by"] is None,
                f"{where} slip {k}: shown_by {slip['shown_by']!r} must be one of the entry's switches for an "
                f"{slip['kind']} slip, and null for an average")
        found.setdefault(at[0], {})[slip_key(item, slip)] = {key: slip[key] for key in ("kind", "shown_by",
                                                                                         "evidence")}
    return [replace(item, slips=found.get(i, {})) for i, item in enumerate(items)]


def slip_key(item: Row | Listing, slip: dict) -> str | None:
    """The slip's cell key in `item` (a row's statistic, a listing's column), or None when the cell is not there."""
    if isinstance(item, Row):
        k = item.stats.index(slip["statistic"]) if slip["statistic"] in item.stats else -1
        return slip["statistic"] if item.column == slip["column"] and k >= 0 and item.published[k] is not None \
            else None
    return slip["column"] if slip["column"] in item.columns and \
        item.stats[item.columns.index(slip["column"])] == slip["statistic"] else None


def rows() -> list[Row]:
    """Every published model-free cell pair this benchmark covers (`published/*.json`, kind "row")."""
    return list(load()[0])


def listings() -> list[Listing]:
    """Every printed non-correlation cell (and CLEME2.0's per-indicator and α-averaged correlations) covered."""
    return list(load()[1])


def variants() -> dict[str, tuple[str, dict]]:
    """Each labelled row name (e.g. "CLEME2.0-dep") → its metric and options, as the published rows declare them."""
    out: dict[str, tuple[str, dict]] = {}
    for row in rows():
        if row.label:
            require(out.setdefault(row.label, (row.metric, row.options)) == (row.metric, row.options),
                    f"{row.paper} {row.table} {row.label}: declared as {out[row.label]} elsewhere")
    return out


def table_cells(paper: str, table: str, key: Callable[[Row], str], keep: Callable[[Row], bool] = lambda r: True
                ) -> dict[str, tuple[float | None, ...]]:
    """The published cells of one table's kept rows, concatenated per `key` in row order: e.g. per reference set,
    (EW r, EW ρ, TS r, TS ρ) of a GJG15 row."""
    out: dict[str, tuple[float | None, ...]] = {}
    for row in rows():
        if row.paper == paper and row.table == table and keep(row):
            out[key(row)] = out.get(key(row), ()) + row.published
    return out


def row_to_dict(row: Row) -> dict:
    data = asdict(row)
    data["published"] = list(row.published)
    data["switches"] = list(row.switches)
    return data


def row_from_dict(data: dict) -> Row:
    data = dict(data)
    data["published"] = tuple(data["published"])
    data["switches"] = tuple(data["switches"])
    return Row(**data)


def listing_to_dict(item: Listing) -> dict:
    data = asdict(item)
    for key in ("columns", "stats", "published", "switches"):
        data[key] = list(data[key])
    return data


def listing_from_dict(data: dict) -> Listing:
    data = dict(data)
    for key in ("columns", "stats", "published", "switches"):
        data[key] = tuple(data[key])
    return Listing(**data)
