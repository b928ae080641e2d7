"""Version signatures."""

from importlib import metadata

from gecscore import __version__
from gecscore.common.signature import library_versions, make_signature


def test_signature_lists_versions_and_settings():
    sig = make_signature("toy", {"model": "minilm", "reg": 0.1, "alpha": (0.45, 0.35)})
    parts = sig.split("|")
    assert parts[0] == "toy"
    assert f"gecscore:{__version__}" in parts
    assert f"transformers:{metadata.version('transformers')}" in parts
    assert parts[-3:] == ["model:minilm", "reg:0.1", "alpha:0.45,0.35"]


def test_missing_library_is_none():
    assert library_versions(("no-such-package-xyz",)) == {"no-such-package-xyz": "none"}
