"""Write `mucgec_dev.json`: ChERRANT's lexicons restricted to the characters of the test data.

Run once, by hand, with ChERRANT's data folder (scorers/ChERRANT/data in HillZhang1999/MuCGEC, commit
39221934ee4ccf07801879136a75dd7e11319977):

    python tests/zh_lexicon/make.py CHERRANT_DATA_FOLDER ../shared

The characters are those of MuCGEC dev (sources, references, example prediction, each correction converted to
simplified characters as ChERRANT reads it) and of ChERRANT's demo. An alignment of text in those characters reads
only their Cilin codes and their confusion sets among themselves, so the restricted lexicon aligns that text
exactly as the full one does (tests/test_chinese_edits.py checks the result against ChERRANT's own M2).
"""

from __future__ import annotations

import sys
from pathlib import Path

from gecscore.common.chinese_edits import MISSING, char_tokens, load_lexicon, simplified


def characters(shared: Path) -> set[str]:
    """Every token of the test texts, corrections simplified."""
    data = shared / "data" / "MuCGEC"
    tokens: set[str] = {MISSING}
    for name in ("MuCGEC/MuCGEC_dev.txt", "MuCGEC/example_pred_dev.txt", "ChERRANT/samples/demo.hyp.para"):
        for line in (data / name).read_text(encoding="utf-8").strip().split("\n"):
            source, *corrections = line.split("\t")[1:]
            tokens.update(char_tokens(source))
            for correction in corrections:
                tokens.update(char_tokens(simplified(correction)))
    return tokens


def main(cherrant_data: str, shared: str) -> None:
    lexicon = load_lexicon(cherrant_data).restricted(characters(Path(shared)))
    (Path(__file__).parent / "mucgec_dev.json").write_text(lexicon.to_json() + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:])
