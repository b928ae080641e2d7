"""ChERRANT's lexicons fetched on request: `zh_lexicon="cherrant"` (or `$GECSCORE_ZH_LEXICON=cherrant`).

Chinese edits from text need ChERRANT's two lexicons (`chinese_edits`), which gecscore does not ship: the Cilin
thesaurus (HIT IR Lab's, with terms of its own) and the confusion sets, distributed in MuCGEC's repository
(Apache-2.0). A user, a Space or a CI job should not have to clone MuCGEC to get them, so, like a model from the
Hub, they are fetched from their upstream on request: the two files of `scorers/ChERRANT/data` at one pinned
commit, each checked against its pinned SHA-256 digest before it is kept, then read from the cache folder
(`$GECSCORE_CACHE/zh-lexicon`, else `$XDG_CACHE_HOME/gecscore/zh-lexicon`, else `~/.cache/gecscore/zh-lexicon`)
without any request. One attempt per file, no retries: an unreachable server or a wrong file is an error naming
the option, before any scoring. `$GECSCORE_ZH_LEXICON_URL` points the fetch at a mirror of the same files.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

#: The value of `zh_lexicon` that asks for these files.
NAME = "cherrant"
#: MuCGEC's commit whose `scorers/ChERRANT/data` is fetched (the one the project's Chinese golden outputs used).
COMMIT = "39221934ee4ccf07801879136a75dd7e11319977"
#: Each file's SHA-256 at that commit: a file that differs is refused, so every fetch reads the same lexicon.
FILES = {"cilin.txt": "d4c707f5d895e00f2223547582f1c2cd8f5888a7cc0d0f687fc28a510b77a6bb",
         "confusion_dict.txt": "aafa202dc451fb79a0a2cfc77b965009daa39d0cedd03e25074c1a35b7ac67b2"}
#: Where the files are fetched from (`$GECSCORE_ZH_LEXICON_URL` replaces it: a folder URL ending in "/").
DEFAULT_URL = f"https://raw.githubusercontent.com/HillZhang1999/MuCGEC/{COMMIT}/scorers/ChERRANT/data/"
URL_ENV = "GECSCORE_ZH_LEXICON_URL"
#: Seconds one request may take before it is an error (the two files are 2.7 MB together).
TIMEOUT = 60.0


def cache_folder() -> Path:
    """The folder the fetched files are kept in, one per pinned commit."""
    if os.environ.get("GECSCORE_CACHE"):
        base = Path(os.environ["GECSCORE_CACHE"])
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gecscore"
    return base / "zh-lexicon" / f"cherrant-{COMMIT[:8]}"


def file_digest(path: Path) -> str:
    """A file's SHA-256, hex."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fetched_folder() -> Path:
    """The cache folder with both files, each fetched first where it is missing or not the pinned file."""
    folder = cache_folder()
    base = os.environ.get(URL_ENV) or DEFAULT_URL
    for name, digest in FILES.items():
        target = folder / name
        if not (target.is_file() and file_digest(target) == digest):
            _fetch(base.rstrip("/") + "/" + name, target, digest)
    return folder


def _fetch(url: str, target: Path, digest: str) -> None:
    """`url` written to `target` once its content has the pinned digest (written beside it first, then moved, so
    that another process never reads half a file)."""
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
            content = response.read()
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise ValueError(f"zh_lexicon={NAME!r} fetches ChERRANT's lexicons, and {url} could not be read ({reason}). "
                         f"Without network access, download scorers/ChERRANT/data of HillZhang1999/MuCGEC (commit "
                         f"{COMMIT[:8]}) and pass that folder as `zh_lexicon` (CLI --zh-lexicon), or point "
                         f"{URL_ENV} at a copy") from None
    found = hashlib.sha256(content).hexdigest()
    if found != digest:
        raise ValueError(f"zh_lexicon={NAME!r}: {url} is not ChERRANT's {target.name} of commit {COMMIT[:8]} "
                         f"(SHA-256 {found[:16]}..., expected {digest[:16]}...); nothing was kept")
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(content)
        os.chmod(temporary, 0o644)  # mkstemp's 0600 would hide a shared cache from other users
        os.replace(temporary, target)
    finally:
        Path(temporary).unlink(missing_ok=True)
