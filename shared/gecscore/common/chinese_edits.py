"""Chinese edits at the character level, as ChERRANT (MuCGEC's Chinese ERRANT) writes them from parallel text.

ChERRANT's `parallel_to_m2.py -g char` turns a source and its corrections into char-level M2; its compare script
scores them (`errant_compare`, `language="zh"`). This module is the first half, written here from the behaviour
that docs/reference-behaviour.md and docs/other-languages.md describe:

- text: white space removed; corrections (not the source) converted to simplified characters (OpenCC `t2s`);
  every character a token, except the marker `[缺失成分]`, which is one token;
- a weighted Damerau-style alignment: insertion and deletion cost 1, a substitution between 0.25 and 1.75 from
  the two characters' Cilin classes (the lexicon's thesaurus), whether they are punctuation, and whether they
  share a pinyin reading or a confusion-set entry; a transposition of k+1 characters costs k. Identical
  characters always match. Every equally cheap alignment is kept (only the first when the lengths differ by
  more than 10), in the order a depth-first walk from the end of both sentences meets them;
- each alignment merged into edits (runs of deletions, insertions and substitutions; `S M S` and `D M I`
  patterns that are a word-order change become one `W` edit), edits whose two sides read the same dropped, and a
  substitution that starts or ends with what it keeps trimmed;
- distinct edit lists written as the annotator's alignments `T<k>-A0`, `T<k>-A1`, ... typed `M`/`R`/`S`/`W`; a
  correction equal to the source (or `没有错误`) is a `noop`, `无法标注` an `NA`.

The substitution cost needs ChERRANT's two lexicons (the Cilin thesaurus and its character confusion sets), which
gecscore does not ship: `load_lexicon` reads them from ChERRANT's `data/` folder, from a JSON file of them
(`tests/zh_lexicon/make.py` says how the tests' lexicon was made), or fetches them on request (`"cherrant"`,
`cherrant_lexicon`). Run with empty lexicons, ChERRANT itself writes
38 of MuCGEC dev's 1,137 reference blocks and 3 of its prediction blocks differently, so there is no lexicon-free
default.

Metrics that read one edit list per pair (M², PT-M2, UOT-ERRANT) take the first alignment (`ChineseExtractor`).
"""

from __future__ import annotations

import hashlib
import json
import os
import string
from dataclasses import dataclass
from functools import lru_cache
from itertools import groupby
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from gecscore.common import cherrant_lexicon
from gecscore.common.sharing import LRU

#: The environment variable naming the lexicon when the `zh_lexicon` option is not given.
LEXICON_ENV = "GECSCORE_ZH_LEXICON"
#: The marker of a missing constituent, one token at char level.
MISSING = "[缺失成分]"
NO_ERROR, NOT_ANNOTATABLE = "没有错误", "无法标注"
#: Punctuation as the alignment reads it (`x in` this string): both punctuation, or neither, is a cheaper
#: substitution.
ALIGN_PUNCTUATION = ("！？｡＂＃＄％＆＇（）＊＋，－／：；＜＝＞＠［＼］＾＿｀｛｜｝～｟｠｢｣､、〃》「」『』【】〔〕〖〗〘〙〚〛〜〝〞"
                     "〟〰〾〿–—‘'‛“”„‟…‧﹏" + string.punctuation)
#: Punctuation as the merger reads it (a substring test on the joined tokens): a deletion and insertion of it
#: never become a word-order edit.
MERGE_PUNCTUATION = (string.punctuation + "！？｡＂＃＄％＆＇（）＊＋，－／：；＜＝＞＠［＼］＾＿｀｛｜｝～｟｠｢｣､、〃》「」『』【】"
                     "〔〕〖〗〘〙〚〛〜〝〞〟–—‘'‛“”„‟…‧.")
#: Pairs whose edit lists an aligner keeps (references shared by systems are aligned once).
EDIT_CACHE_PAIRS = 100_000
#: The most equally cheap alignments of one pair that are enumerated: ChERRANT enumerates them all, and unrelated
#: sentences can have astronomically many (random 40-character strings over 4 characters already reach 16,640), so
#: a pair with more is refused, naming the sentence (in a training signal: that row alone, flagged), where ChERRANT
#: would take minutes or not finish. Each alignment is merged in about 0.35 ms on 2 cores, so this bounds one pair
#: at a few seconds; MuCGEC dev's references need at most 32.
MAX_ALIGNMENTS = 10_000
#: Beyond this difference in length only the first cheapest alignment is kept.
ALL_ALIGNMENTS_MAX_LENGTH_DIFFERENCE = 10

Step = tuple[str, int, int, int, int]  # (operation, source start, source end, target start, target end)
_M, _S, _I, _D, _ID = ("M",), ("S",), ("I",), ("D",), ("I", "D")


@lru_cache(maxsize=65_536)
def _token_key(token: str) -> int:
    """A 62-bit key of a token from its hash digest: blocks of tokens with equal key sums are, almost surely, the
    same tokens (the alignment confirms by sorting)."""
    return int.from_bytes(hashlib.blake2b(token.encode("utf-8"), digest_size=8).digest(), "little") >> 2


@dataclass(frozen=True, eq=False)
class ChineseLexicon:
    """ChERRANT's lexicons: each word's Cilin code and each character's confusion set (hashed by identity: one
    aligner per loaded lexicon)."""

    semantic: Mapping[str, str]
    confusion: Mapping[str, frozenset[str]]

    @property
    def digest(self) -> str:
        """Eight hex digits of the lexicon's content, for the signature (the same lexicon, the same digits)."""
        semantic = sorted(self.semantic.items())
        confusion = sorted((k, sorted(v)) for k, v in self.confusion.items())
        blob = json.dumps([semantic, confusion], ensure_ascii=False).encode("utf-8")
        return hashlib.sha256(blob).hexdigest()[:8]

    def restricted(self, characters: set[str]) -> "ChineseLexicon":
        """The entries that alignments of text in `characters` can read (a lexicon for a test set)."""
        return ChineseLexicon({w: c for w, c in self.semantic.items() if w in characters},
                              {k: frozenset(v & characters) for k, v in self.confusion.items()
                               if k in characters and v & characters})

    def to_json(self) -> str:
        """The lexicon as JSON (`load_lexicon` reads it back)."""
        return json.dumps({"semantic": dict(sorted(self.semantic.items())),
                           "confusion": {k: "".join(sorted(v)) for k, v in sorted(self.confusion.items())}},
                          ensure_ascii=False, indent=0)


def _read_cherrant(folder: Path) -> ChineseLexicon:
    """ChERRANT's `cilin.txt` (GBK; `code word word ...`, a later line winning) and `confusion_dict.txt`."""
    semantic: dict[str, str] = {}
    for line in (folder / "cilin.txt").read_text(encoding="gbk").strip().split("\n"):
        code, *words = line.split(" ")
        semantic.update(dict.fromkeys(words, code))
    confusion: dict[str, frozenset[str]] = {}
    for line in (folder / "confusion_dict.txt").read_text(encoding="utf-8").split("\n"):
        if line:
            key, *similar = line.split(" ")
            confusion[key] = frozenset(similar)
    return ChineseLexicon(semantic, confusion)


def _read_json(path: Path) -> ChineseLexicon:
    """A lexicon written by `ChineseLexicon.to_json`."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return ChineseLexicon(dict(data["semantic"]), {k: frozenset(v) for k, v in data["confusion"].items()})


@lru_cache(maxsize=4)
def _load(path: str) -> ChineseLexicon:
    """The lexicon at `path` (`"cherrant"`: ChERRANT's files, fetched once into the cache), read once per
    process."""
    if path == cherrant_lexicon.NAME:
        return _read_cherrant(cherrant_lexicon.fetched_folder())
    where = Path(path)
    if where.is_dir():
        if not (where / "cilin.txt").is_file() or not (where / "confusion_dict.txt").is_file():
            raise ValueError(f"`zh_lexicon` {path!r} is a folder without ChERRANT's cilin.txt and "
                             "confusion_dict.txt (its scorers/ChERRANT/data folder has both)")
        return _read_cherrant(where)
    if where.is_file():
        return _read_json(where)
    raise ValueError(f"`zh_lexicon` {path!r} is neither a folder nor a file (nor {cherrant_lexicon.NAME!r}, which "
                     "fetches ChERRANT's lexicons)")


def load_lexicon(path: str | os.PathLike[str] | None = None) -> ChineseLexicon:
    """The lexicon named by `path` or `$GECSCORE_ZH_LEXICON`: ChERRANT's `data/` folder, a JSON file of it, or
    `"cherrant"` (its files fetched from MuCGEC's repository at a pinned commit, `cherrant_lexicon`). Neither given
    is an error naming the option, before any work."""
    chosen = path if path is not None else os.environ.get(LEXICON_ENV)
    if not chosen:
        raise ValueError("language='zh' from text aligns characters with ChERRANT's lexicons (the Cilin thesaurus "
                         "and its confusion sets), which gecscore does not ship: pass `zh_lexicon` (CLI "
                         f"--zh-lexicon) or set {LEXICON_ENV} to ChERRANT's data folder (scorers/ChERRANT/data in "
                         "HillZhang1999/MuCGEC, with cilin.txt and confusion_dict.txt), or to "
                         f"{cherrant_lexicon.NAME!r} to fetch those files once (pinned commit, checked digests); or "
                         "score ChERRANT M2 files with `hyp_m2`/`ref_m2`")
    return _load(os.fspath(chosen))


def char_tokens(text: str) -> list[str]:
    """ChERRANT's char tokens of a text: white space removed, each character a token, `[缺失成分]` one token."""
    joined = "".join(text.split())
    if MISSING not in joined:
        return list(joined)
    tokens: list[str] = []
    for k, piece in enumerate(joined.split(MISSING)):
        if k:
            tokens.append(MISSING)
        tokens.extend(piece)
    return tokens


@lru_cache(maxsize=1)
def _simplifier() -> Any:
    """OpenCC's traditional-to-simplified converter (ChERRANT converts every correction)."""
    try:
        from opencc import OpenCC
    except ImportError as error:
        raise ImportError("language='zh' from text needs OpenCC and pypinyin: pip install 'gecscore[zh]'") from error
    return OpenCC("t2s")


def simplified(text: str) -> str:
    """`text` in simplified characters, as ChERRANT reads a correction."""
    return _simplifier().convert(text)


@lru_cache(maxsize=65_536)
def _readings(char: str) -> frozenset[str]:
    """Every pinyin reading of a character (pypinyin, heteronyms included, no tones)."""
    from pypinyin import Style, pinyin

    return frozenset(pinyin(char, style=Style.NORMAL, heteronym=True)[0])


def _all_chinese(token: str) -> bool:
    """Whether every character is a CJK unified ideograph (U+4E00 to U+9FFF)."""
    return all("\u4e00" <= ch <= "\u9fff" for ch in token)


class ChineseAligner:
    """ChERRANT's char alignment, merging and typing over one lexicon; substitution costs cached per pair."""

    def __init__(self, lexicon: ChineseLexicon) -> None:
        self.lexicon = lexicon
        self._costs: dict[tuple[str, str], float] = {}
        self._tokens: dict[str, tuple[tuple[str, str, str] | None, bool, bool, frozenset[str]]] = {}
        self._edits: LRU[tuple[str, str], list[list[Step]]] = LRU(EDIT_CACHE_PAIRS)

    def _token(self, token: str) -> tuple[tuple[str, str, str] | None, bool, bool, frozenset[str]]:
        """What a substitution reads of a token: its Cilin class at three levels (None when the thesaurus lacks
        it), whether it is all Chinese, whether it is punctuation, its pinyin readings (Chinese only)."""
        found = self._tokens.get(token)
        if found is None:
            code = self.lexicon.semantic.get(token)
            chinese = _all_chinese(token)
            found = self._tokens[token] = (None if code is None else (code[0], code[1], code[2:4]), chinese,
                                           token in ALIGN_PUNCTUATION, _readings(token) if chinese else frozenset())
        return found

    def substitution_cost(self, a: str, b: str) -> float:
        """What replacing token `a` by a different token `b` costs: meaning (Cilin), spelling, punctuation."""
        cost = self._costs.get((a, b))
        if cost is None:
            (a_class, a_chinese, a_punct, a_readings), (b_class, b_chinese, b_punct, b_readings) = (
                self._token(a), self._token(b))
            if a_class is None or b_class is None:  # 0 for the same class, 2, 4 or 6 as fewer levels agree
                semantic = 4
            else:
                semantic = 0 if a_class == b_class else 2 * (3 - sum(x == y for x, y in zip(a_class, b_class)))
            punctuation = 0.0 if a_punct and b_punct else 0.25 if not a_punct and not b_punct else 0.499
            spelling = self._spelling(a, b, a_readings & b_readings) if a_chinese and b_chinese else 0.5
            cost = self._costs[(a, b)] = semantic / 6.0 + spelling + punctuation
        return cost

    def _spelling(self, a: str, b: str, shared_reading: frozenset[str]) -> float:
        """For two Chinese tokens: the share of `a`'s characters (the shorter) that match, sound like (a shared
        reading of the tokens) or are confused with a character of `b`, as a cost from 0 to 0.5."""
        if len(a) > len(b):
            a, b = b, a
        if a == b:
            return 0
        confusion = self.lexicon.confusion
        similar = 0
        for x in a:
            for y in b:
                if x == y or shared_reading or x in confusion.get(y, ()) or y in confusion.get(x, ()):
                    similar += 1
                    break
        return (len(a) - similar) / (len(a) * 2)

    def operations(self, src: Sequence[str], tgt: Sequence[str]) -> list[list[tuple[str, ...]]]:
        """Each cell's cheapest last operations, in ChERRANT's order: transposition `T<k>`, `S`, `I`, `D`
        (`M` alone where the tokens are identical).

        A transposition ending at (i, j) reorders the k+1 tokens up to i and j, found by walking k up the diagonal
        while its cost keeps changing; its blocks must hold the same tokens, so it needs `tgt[j]` among the
        tokens before `i` and `src[i]` among those before `j` (`k_min`), and blocks are compared by sums of
        random token keys (exact sums of integers, confirmed by sorting)."""
        n, m = len(src), len(tgt)
        src_sum, tgt_sum = [0], [0]
        for tokens, sums in ((src, src_sum), (tgt, tgt_sum)):
            for token in tokens:
                sums.append(sums[-1] + _token_key(token))
        cost = [[0.0] * (m + 1) for _ in range(n + 1)]
        ops: list[list[tuple[str, ...]]] = [[()] * (m + 1) for _ in range(n + 1)]
        for i in range(1, n + 1):
            cost[i][0], ops[i][0] = cost[i - 1][0] + 1, _D
        for j in range(1, m + 1):
            cost[0][j], ops[0][j] = cost[0][j - 1] + 1, _I
        costs, substitution_cost = self._costs, self.substitution_cost
        seen_in_src: dict[str, int] = {}  # the last position before i of each source token
        inf = float("inf")
        for i in range(n):
            above, row, row_ops, a = cost[i], cost[i + 1], ops[i + 1], src[i]
            a_in_tgt = -1  # the last position before j where tgt holds `a`
            for j in range(m):
                b = tgt[j]
                if a == b:
                    row[j + 1], row_ops[j + 1] = above[j], _M
                    a_in_tgt = j
                    continue
                deletion, insertion = above[j + 1] + 1, row[j] + 1
                step = costs.get((a, b))
                substitution = above[j] + (step if step is not None else substitution_cost(a, b))
                transposition, k = inf, 1
                b_in_src = seen_in_src.get(b, -1)
                if a_in_tgt >= 0 and b_in_src >= 0:
                    k_min = max(i - b_in_src, j - a_in_tgt)
                    while i - k >= 0 and j - k >= 0 and cost[i - k + 1][j - k + 1] != cost[i - k][j - k]:
                        if (k >= k_min and src_sum[i + 1] - src_sum[i - k] == tgt_sum[j + 1] - tgt_sum[j - k]
                                and sorted(src[i - k:i + 1]) == sorted(tgt[j - k:j + 1])):
                            transposition = cost[i - k][j - k] + k
                            break
                        k += 1
                best = min(transposition, substitution, insertion, deletion)
                row[j + 1] = best
                if transposition > best:
                    if substitution == best:
                        row_ops[j + 1] = _S if insertion > best and deletion > best else tuple(
                            name for name, value in (("S", substitution), ("I", insertion), ("D", deletion))
                            if value == best)
                    else:
                        row_ops[j + 1] = _I if deletion > best else _D if insertion > best else _ID
                else:
                    row_ops[j + 1] = tuple(name for name, value in ((f"T{k + 1}", transposition),
                                                                    ("S", substitution), ("I", insertion),
                                                                    ("D", deletion)) if value == best)
            seen_in_src[a] = i
        return ops

    @staticmethod
    def alignments(ops: list[list[tuple[str, ...]]]) -> Iterator[list[Step]]:
        """Every cheapest alignment (only the first when the lengths differ by more than 10), each from the start,
        in the order of a depth-first walk back from the end that tries each cell's operations in order."""
        n, m = len(ops) - 1, len(ops[0]) - 1
        first_only = abs(n - m) > ALL_ALIGNMENTS_MAX_LENGTH_DIFFERENCE
        stack: list[tuple[int, int, Any]] = [(n, m, None)]  # a path is a linked list (step, rest) from the end
        while stack:
            i, j, path = stack.pop()
            if i + j == 0:
                steps: list[Step] = []
                while path is not None:
                    steps.append(path[0])
                    path = path[1]
                yield steps
                continue
            cell = ops[i][j][:1] if first_only else ops[i][j]
            for op in reversed(cell):
                if op in ("M", "S"):
                    stack.append((i - 1, j - 1, ((op, i - 1, i, j - 1, j), path)))
                elif op == "D":
                    stack.append((i - 1, j, ((op, i - 1, i, j, j), path)))
                elif op == "I":
                    stack.append((i, j - 1, ((op, i, i, j - 1, j), path)))
                else:
                    k = int(op[1:])
                    stack.append((i - k, j - k, ((op, i - k, i, j - k, j), path)))

    def annotate(self, source: str, corrections: Sequence[str]) -> str:
        """The char-level M2 block of a source and its corrections (annotator k = the k-th), as ChERRANT writes
        it, without the blank line that ends it."""
        src = char_tokens(source)
        lines = ["S " + " ".join(src)]
        for annotator, correction in enumerate(corrections):
            joined = "".join(correction.split())  # converted unspaced: OpenCC converts phrases, not characters
            lines.extend(self._target_lines(src, char_tokens(simplified(joined)), annotator))
        return "\n".join(lines)

    def edit_lists(self, src: list[str], tgt: list[str]) -> list[list[Step]]:
        """The distinct edit lists of every cheapest alignment, in the order they are first met (cached)."""
        key = ("".join(src), "".join(tgt))
        found = self._edits.get(key)
        if found is None:
            ops = self.operations(src, tgt)
            count = alignment_count(ops)
            if count > MAX_ALIGNMENTS:
                raise ValueError(f"{count:,} equally cheap alignments of {key[0][:30]!r} and {key[1][:30]!r}, more "
                                 f"than chinese_edits.MAX_ALIGNMENTS={MAX_ALIGNMENTS:,}: ChERRANT enumerates them "
                                 "all and would not finish (a misaligned line or unrelated text?)")
            found = []
            for alignment in self.alignments(ops):
                edits = merge(alignment, src, tgt)
                if edits not in found:
                    found.append(edits)
            self._edits.put(key, found)
        return found

    def clear_cache(self) -> None:
        """Forget the cached edit lists and substitution costs."""
        self._edits.clear()
        self._costs.clear()

    def m2(self, sources: Sequence[str], corrections: Sequence[Sequence[str]], *, progress: bool = False,
           what: str = "") -> str:
        """The char-level M2 file of each source with its corrections, as `parallel_to_m2.py -g char` writes it
        (`progress`: a bar named for `what`)."""
        from gecscore.common.progress import progress_bar

        blocks = []
        pairs = progress_bar(zip(sources, corrections), total=len(sources), desc=f"Chinese edits {what}".strip(),
                             disable=not progress)
        for i, (source, targets) in enumerate(pairs):
            try:
                blocks.append(self.annotate(source, targets) + "\n\n")
            except ValueError as error:
                raise ValueError(f"sentence {i}: {error}") from None
        return "".join(blocks)

    def _target_lines(self, src: list[str], tgt: list[str], annotator: int) -> list[str]:
        """One annotator's `T` and `A` lines."""
        tail = f"|||REQUIRED|||-NONE-|||{annotator}"
        if "".join(tgt) == NO_ERROR or src == tgt:
            return [f"T{annotator} {NO_ERROR}", f"A -1 -1|||noop|||-NONE-{tail}"]
        if "".join(tgt) == NOT_ANNOTATABLE:
            return [f"T{annotator} {NOT_ANNOTATABLE}", f"A -1 -1|||NA|||-NONE-{tail}"]
        lines: list[str] = []
        for k, edits in enumerate(self.edit_lists(src, tgt)):
            lines.append(f"T{annotator}-A{k} " + " ".join(tgt))
            for kind, o_start, o_end, c_start, c_end in edits:
                correction = " ".join(tgt[c_start:c_end])
                if kind[0] == "T":
                    lines.append(f"A {o_start} {o_end}|||W|||{correction}{tail}")
                elif kind == "D":
                    lines.append(f"A {o_start} {o_end}|||R|||-NONE-{tail}")
                elif kind == "I":
                    lines.append(f"A {o_start} {o_end}|||M|||{correction}{tail}")
                else:
                    lines.append(f"A {o_start} {o_end}|||S|||{correction}{tail}")
        return lines


def alignment_count(ops: list[list[tuple[str, ...]]]) -> int:
    """How many cheapest alignments `ChineseAligner.alignments` walks: paths from the start to the end through each
    cell's operations (only the first operation when the lengths differ by more than 10)."""
    n, m = len(ops) - 1, len(ops[0]) - 1
    first_only = abs(n - m) > ALL_ALIGNMENTS_MAX_LENGTH_DIFFERENCE
    paths = [[0] * (m + 1) for _ in range(n + 1)]
    paths[0][0] = 1
    for i in range(n + 1):
        for j in range(m + 1):
            if i + j == 0:
                continue
            total = 0
            for op in ops[i][j][:1] if first_only else ops[i][j]:
                if op in ("M", "S"):
                    total += paths[i - 1][j - 1]
                elif op == "D":
                    total += paths[i - 1][j]
                elif op == "I":
                    total += paths[i][j - 1]
                else:
                    k = int(op[1:])
                    total += paths[i - k][j - k]
            paths[i][j] = total
    return paths[n][m]


def _span(seq: Sequence[Step], tag: str) -> list[Step]:
    """The steps of `seq` as one edit of type `tag`."""
    return [(tag, seq[0][1], seq[-1][2], seq[0][3], seq[-1][4])]


def _run_edits(seq: list[Step]) -> list[Step]:
    """A run of non-matching steps as edits: all deletions (or all insertions) one edit, deletions mixed with
    insertions left apart, anything with a substitution one `S` edit; a run of matches one `M`."""
    if len(seq) <= 1:
        return seq
    kinds = {step[0] for step in seq}
    if kinds in ({"D"}, {"I"}, {"M"}):
        return _span(seq, kinds.pop())
    if kinds == {"D", "I"}:
        return seq
    return _span(seq, "S")


def _levenshtein(a: str, b: str) -> int:
    """The edit distance of two strings (insertion, deletion, substitution)."""
    from rapidfuzz.distance import Levenshtein

    return Levenshtein.distance(a, b)


def _reordered(edits: list[Step], i: int, src: Sequence[str], tgt: Sequence[str]) -> bool:
    """Whether edits i, i+1, i+2 (`S M S`, or `D M I`/`I M D` with a match or transposition between) move the same
    text: then they are one word-order edit."""
    first, middle, last = edits[i][0][0], edits[i + 1][0][0], edits[i + 2][0][0]
    if first == "S" and middle == "M" and last == "S":
        w1, w2 = "".join(src[edits[i][1]:edits[i][2]]), "".join(tgt[edits[i][3]:edits[i][4]])
        w3, w4 = "".join(src[edits[i + 2][1]:edits[i + 2][2]]), "".join(tgt[edits[i + 2][3]:edits[i + 2][4]])
        if min(len(w1), len(w2), len(w3), len(w4)) == 1:
            return w1 == w4 and w2 == w3
        return _levenshtein(w1, w4) <= 1 and _levenshtein(w2, w3) <= 1
    if {first, last} == {"D", "I"} and (middle == "M" or middle == "T"):
        deleted, inserted = (i, i + 2) if first == "D" else (i + 2, i)
        a = "".join(src[edits[deleted][1]:edits[deleted][2]])
        b = "".join(tgt[edits[inserted][3]:edits[inserted][4]])
        if len(a) < len(b):
            a, b = b, a
        if a in MERGE_PUNCTUATION or b in MERGE_PUNCTUATION or len(a) - len(b) > 1:
            return False
        if len(b) == 1:
            return a == b
        return _levenshtein(a, b) <= 1 or (len(a) == len(b) and b in a + a)
    return False


def merge(alignment: Sequence[Step], src: Sequence[str], tgt: Sequence[str]) -> list[Step]:
    """An alignment's edits: runs merged, word-order patterns joined, no-op edits dropped, substitutions trimmed
    of a shared start or end."""
    edits: list[Step] = []
    for kind, group in groupby(alignment, lambda step: step[0][0] if step[0][0] in ("M", "T") else ""):
        steps = list(group)
        edits.extend(steps if kind == "T" else _run_edits(steps))
    joined: list[Step] = []
    i = 0
    while i < len(edits):
        if i < len(edits) - 2 and _reordered(edits, i, src, tgt):
            joined.extend(_span(edits[i:i + 3], "T" + str(edits[i + 2][2] - edits[i][1])))
            i += 3
            continue
        if edits[i][0][0] != "M":
            joined.append(edits[i])
        i += 1
    out: list[Step] = []
    for edit in joined:
        source_text, target_text = "".join(src[edit[1]:edit[2]]), "".join(tgt[edit[3]:edit[4]])
        if source_text == target_text:
            continue
        out.append(_trimmed(edit, src, tgt, target_text) if edit[0] == "S" else edit)
    return out


def _trimmed(edit: Step, src: Sequence[str], tgt: Sequence[str], target_text: str) -> Step:
    """A substitution without the source tokens that start (then end) its target text, where whole target tokens
    spell them; what remains is an insertion, a deletion or a smaller substitution."""
    _, o_start, o_end, c_start, c_end = edit
    changed = False
    kept, cut = "", o_start
    for i in range(o_start, o_end):
        if not target_text.startswith(kept + src[i]):
            break
        kept, cut = kept + src[i], i + 1
    new_o_start, new_c_start = o_start, c_start
    if kept:
        spelled = ""
        for i in range(c_start, c_end):
            spelled += tgt[i]
            if spelled == kept:
                new_o_start, new_c_start, changed = cut, i + 1, True
                break
            if len(spelled) > len(kept):
                break
    kept, cut = "", o_end
    new_o_end, new_c_end = o_end, c_end
    for i in reversed(range(new_o_start, o_end)):
        if not target_text.endswith(src[i] + kept):
            break
        kept, cut = src[i] + kept, i
    if kept:
        spelled = ""
        for i in reversed(range(new_c_start, c_end)):
            spelled = tgt[i] + spelled
            if spelled == kept:
                new_o_end, new_c_end, changed = cut, i, True
                break
            if len(spelled) > len(kept):
                break
    if not changed:
        return edit
    kind = "I" if new_o_start == new_o_end else "D" if new_c_start == new_c_end else "S"
    return (kind, new_o_start, new_o_end, new_c_start, new_c_end)


#: Each edit type of the merger, as ChERRANT's M2 writes it.
_M2_TYPE = {"D": "R", "I": "M", "S": "S"}


def token_text(text: str, correction: bool = True) -> str:
    """A text as the char tokens the edits index, separated by spaces (`correction`: in simplified characters,
    as ChERRANT reads every correction)."""
    joined = "".join(text.split())
    return " ".join(char_tokens(simplified(joined) if correction else joined))


def check_lexicon_option(language: str, zh_lexicon: str | None) -> None:
    """Refuse a `zh_lexicon` given for another language: it would be silently unused."""
    if zh_lexicon is not None and language != "zh":
        raise ValueError(f"`zh_lexicon` is the lexicon of language='zh'; with language={language!r} drop it")


def token_texts(sources: Sequence[str], systems: Mapping[str, Sequence[str]], references: Sequence[Sequence[str]]
                ) -> tuple[list[str], dict[str, list[str]], list[list[str]]]:
    """Sources, every system's predictions and the references as `token_text` writes them (the predictions and
    references are corrections), for a metric that reads one edit list per pair over these tokens."""
    return ([token_text(s, correction=False) for s in sources],
            {name: [token_text(t) for t in texts] for name, texts in systems.items()},
            [[token_text(r) for r in group] for group in references])


class ChineseExtractor:
    """`EditExtractor`'s interface over ChERRANT's char edits, for a metric that reads one edit list per pair: the
    first cheapest alignment's (`T<k>-A0`, what CLEME's Chinese mode reads). A correction equal to the source,
    `没有错误` or `无法标注` has no edits."""

    def __init__(self, lexicon: ChineseLexicon) -> None:
        self.lexicon = lexicon
        self.aligner = aligner_for(lexicon)

    def extract(self, sources: Sequence[str], targets: Sequence[str], *, keep_unk: bool = False,
                progress: bool = False) -> list[list[Any]]:
        """The edits turning each source into its target (`keep_unk` is `EditExtractor`'s: no edit is UNK)."""
        from gecscore.common.edits import Edit
        from gecscore.common.progress import progress_bar

        out: list[list[Any]] = []
        pairs = progress_bar(zip(sources, targets), total=len(sources), desc="Chinese edits", disable=not progress)
        for i, (source, target) in enumerate(pairs):
            src, tgt = token_text(source, correction=False).split(), token_text(target).split()
            if "".join(tgt) in (NO_ERROR, NOT_ANNOTATABLE) or src == tgt:
                out.append([])
                continue
            try:
                lists = self.aligner.edit_lists(src, tgt)
            except ValueError as error:
                raise ValueError(f"sentence {i}: {error}") from None
            out.append([Edit(o_start, o_end, " ".join(src[o_start:o_end]), c_start, c_end,
                             " ".join(tgt[c_start:c_end]), "W" if kind[0] == "T" else _M2_TYPE[kind])
                        for kind, o_start, o_end, c_start, c_end in (lists[0] if lists else [])])
        return out

    def extract_one(self, source: str, target: str, *, keep_unk: bool = False) -> list[Any]:
        """Edits of a single pair."""
        return self.extract([source], [target], keep_unk=keep_unk)[0]

    def clear_cache(self) -> None:
        """Forget the aligner's cached edit lists."""
        self.aligner.clear_cache()


@lru_cache(maxsize=4)
def extractor_for_lexicon(lexicon: ChineseLexicon) -> ChineseExtractor:
    """The process's extractor of a lexicon."""
    return ChineseExtractor(lexicon)


@lru_cache(maxsize=4)
def aligner_for(lexicon: ChineseLexicon) -> ChineseAligner:
    """The process's aligner of a lexicon, whose caches outlive one call."""
    return ChineseAligner(lexicon)


def cherrant_m2(sources: Sequence[str], corrections: Sequence[Sequence[str]], lexicon: ChineseLexicon) -> str:
    """The char-level M2 file of each source with its corrections, as `parallel_to_m2.py -g char` writes it."""
    return aligner_for(lexicon).m2(sources, corrections)
