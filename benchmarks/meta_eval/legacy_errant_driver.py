"""Runs inside the ERRANT 2.3.3 environment (`legacy_errant.py`): `errant_parallel`'s M2 output for many jobs in one
process, each distinct text parsed once.

`errant_parallel` loads spaCy on every call and parses every source again, so the meta-evaluation's reference sets of
the same 1,312 CoNLL-2014 sentences paid a model load and a full parse each. This process loads ERRANT once and keeps
each text's parse (spaCy 2 parses a text the same whatever was parsed before, and ERRANT reads a parse without
changing it), and writes, line for line, what `errant_parallel -orig O -cor C1 C2 ... -out M2` writes with its
defaults: untokenised input, rule merging. `tests/test_meta_cells.py` compares the two on real data.

Protocol: one JSON object per line on stdin, `{"orig": path, "cor": [paths], "out": path}`; after writing `out`
whole, one line `{"out": path}` on stdout. End of input ends the process.
"""

import json
import sys

import errant

#: What `errant_parallel` writes for a correction equal to its source (ERRANT's M2 "noop" line).
NOOP = "A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||{}"
#: Parses kept, then forgotten all at once (a parse is a few kilobytes; the meta-evaluation's runs reuse about 30,000
#: texts, the CoNLL-2014 sources most).
MAX_PARSES = 50_000


def lines_of(path):
    """A file's lines as `errant_parallel` reads them (newlines kept; stripped where it strips)."""
    with open(path) as f:
        return f.readlines()


def m2_blocks(annotator, parse, sources, corrections):
    """The M2 text of one job: a block per non-empty source, as `errant_parallel` writes it."""
    out = []
    for row in zip(sources, *corrections):
        source = row[0].strip()
        if not source:
            continue
        orig = parse(source)
        out.append("S " + " ".join(token.text for token in orig) + "\n")
        for k, correction in enumerate(row[1:]):
            correction = correction.strip()
            if orig.text.strip() == correction:
                out.append(NOOP.format(k) + "\n")
                continue
            for edit in annotator.annotate(orig, parse(correction)):
                out.append(edit.to_m2(k) + "\n")
        out.append("\n")
    return "".join(out)


def main():
    annotator = errant.load("en")
    parses = {}

    def parse(text):
        doc = parses.get(text)
        if doc is None:
            if len(parses) >= MAX_PARSES:
                parses.clear()
            doc = parses[text] = annotator.parse(text)
        return doc

    for line in sys.stdin:
        job = json.loads(line)
        text = m2_blocks(annotator, parse, lines_of(job["orig"]), [lines_of(p) for p in job["cor"]])
        with open(job["out"], "w") as f:
            f.write(text)
        print(json.dumps({"out": job["out"]}), flush=True)


if __name__ == "__main__":
    main()
