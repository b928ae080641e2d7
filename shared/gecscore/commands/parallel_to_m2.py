"""`gecscore parallel-to-m2`: ChERRANT's `parallel_to_m2.py -g char` (Chinese char-level M2 from parallel text)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "parallel-to-m2", help="write Chinese char-level M2 from parallel text, as ChERRANT's parallel_to_m2.py",
        description="In place of ChERRANT's `parallel_to_m2.py -f FILE -o OUT -g char`: read lines "
                    "`id<TAB>source<TAB>correction[<TAB>correction...]` (MuCGEC's format; any number of corrections "
                    "per line) and write the char-level M2 ChERRANT writes (every equally cheap alignment, "
                    "corrections in simplified characters), for `gecscore score errant --language zh -hyp H -ref R`. "
                    "Needs ChERRANT's lexicons (--zh-lexicon or $GECSCORE_ZH_LEXICON).")
    parser.add_argument("--language", choices=("zh",), default="zh", help="the text's language (only 'zh')")
    parser.add_argument("-f", "--file", type=Path, required=True, help="the parallel file")
    parser.add_argument("-o", "--output", type=Path, help="the M2 file to write (default: stdout)")
    parser.add_argument("--zh-lexicon", help="ChERRANT's data folder (cilin.txt, confusion_dict.txt) or a JSON "
                        "file of them (default: $GECSCORE_ZH_LEXICON)")
    parser.add_argument("--progress", action="store_true", help="show a progress bar")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from gecscore.common.chinese_edits import aligner_for, load_lexicon

    aligner = aligner_for(load_lexicon(args.zh_lexicon))  # a missing lexicon is an error before any reading
    sources, corrections = [], []
    for number, line in enumerate(args.file.read_text(encoding="utf-8").strip().split("\n"), start=1):
        fields = line.split("\t")[1:]
        if len(fields) < 2:
            raise ValueError(f"{args.file} line {number}: expected id<TAB>source<TAB>correction..., got "
                             f"{len(fields) + 1} field(s)")
        sources.append(fields[0])
        corrections.append(fields[1:])
    m2 = aligner.m2(sources, corrections, progress=args.progress)
    if args.output is None:
        sys.stdout.write(m2)
    else:
        args.output.write_text(m2, encoding="utf-8")
    return 0
