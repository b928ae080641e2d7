"""Version signatures attached to every result, in the spirit of sacrebleu's."""

from __future__ import annotations

from importlib import metadata
from typing import Any, Mapping

from gecscore import __version__

_LIBRARIES = ("transformers", "torch", "errant", "spacy")


def library_versions(names: tuple[str, ...] = _LIBRARIES) -> dict[str, str]:
    """Installed versions of the libraries that can change a score ('none' if absent)."""
    versions = {}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "none"
    return versions


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return ",".join(_fmt(v) for v in value)
    return str(value)


def make_signature(metric: str, settings: Mapping[str, Any], libraries: tuple[str, ...] = _LIBRARIES) -> str:
    """`metric|key:value|...`: gecscore and library versions first, then the metric's settings in order."""
    parts = [metric, f"gecscore:{__version__}"]
    parts += [f"{name}:{version}" for name, version in library_versions(libraries).items()]
    parts += [f"{key}:{_fmt(value)}" for key, value in settings.items()]
    return "|".join(parts)


def language_setting(options: Mapping[str, Any], edits: bool = False) -> dict[str, Any]:
    """`{"language": ...}` for a signature when it is not English (English signatures stay as they were before
    the option existed); for a metric that extracts edits (`edits`), also how: `plain` edits typed M/R/U
    (`gecscore.common.plain_edits`), or in Chinese ChERRANT's char edits and their lexicon's digest."""
    language = options.get("language", "en")
    if language == "en":
        return {}
    if language == "zh" and edits:  # ChERRANT's char edits, first alignment, over a lexicon of the user's
        from gecscore.common.chinese_edits import load_lexicon

        return {"language": language, "edits": "cherrant-char", "alignment": "first",
                "zh_lexicon": load_lexicon(options.get("zh_lexicon")).digest, "types": "M/R/S/W"}
    return {"language": language, **({"edits": "plain", "types": "M/R/U"} if edits else {})}