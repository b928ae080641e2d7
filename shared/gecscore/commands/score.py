"""`gecscore score`: score plain-text files from the shell (the `errant_compare` / `m2scorer` habit): one system
with its scores and signature, or several ranked in one run (`gecscore.compare`) with bootstrap intervals and
significance against a baseline, as text, Markdown, LaTeX, CSV or JSON, with plots."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import warnings
from pathlib import Path
from typing import Any

from gecscore.commands.meta_eval import parse_options
from gecscore.common.trust import declared_bounds, flag_note, out_of_range

STDIN = Path("-")
#: Help of each M2 input option (errant_compare's `-hyp` and `-ref` are short for the two).
_M2_INPUT_HELP = {
    "hyp_m2": "system output as an M2 file (the hypothesis edits), scored against --ref-m2 in place of --sources, "
              "--predictions and --references; several files are several systems (errant_compare's -hyp)",
    "ref_m2": "the reference M2 file (the gold edits) that --hyp-m2 is scored against; --gold-m2 gives it too "
              "(errant_compare's -ref)",
}
_POSITION = re.compile(r"`(?:(?P<src>sources)|predictions(?: of (?P<q>['\"])(?P<name>.*?)(?P=q))?"
                       r"|references\[(?P<example>\d+)\]|(?P<row>references))\[(?P<i>\d+)\]`")


def register(subparsers: Any) -> None:
    """Add the `score` subcommand."""
    from gecscore import registry
    from gecscore.common.bootstrap import DEFAULT_SEED
    from gecscore.common.tables import FORMATS

    parser = subparsers.add_parser(
        "score", help="score system output files against references (or a gold M2); rank several systems",
        description="Score systems' output with a gecscore metric and print the corpus scores and the signature. "
                    "Files hold one sentence a line: whitespace-tokenised words (raw text with --tokenize where the "
                    "metric offers it), or raw Chinese with --language zh (every character a token). One system "
                    "prints its scores; several (--predictions A B ..., or a folder of *.txt) are scored in one run "
                    "and ranked by the headline score with 95% percentile-bootstrap intervals, and with --baseline "
                    "each is tested against the baseline (paired bootstrap or approximate randomisation). "
                    "--bootstrap N sets the resamples (one system: adds a 95% percentile interval; with "
                    "--predictions2 too, a paired test of the second system against the first). Resamples reuse the "
                    "per-sentence statistics of the one run: no model runs again.",
    )
    parser.add_argument("metric", type=metric_name, choices=registry.NAMES, help="; ".join(
        [f"{s.name}: {s.title}, {s.summary}" for s in registry.SPECS.values()]
        + [f"{name}: {p.doc}" for name, p in registry.PRESETS.items()]))
    parser.add_argument("--sources", type=Path, help="source sentences, one per line (default with --gold-m2: its "
                                                     "S lines)")
    parser.add_argument("--predictions", type=Path, nargs="+", metavar="FILE",
                        help="system output, one sentence per line; several files (or a folder: its *.txt, sorted) "
                             "are several systems, named by file stem; - reads standard input (once)")
    parser.add_argument("--predictions2", type=Path, help="a second system's output, tested against the first")
    parser.add_argument("--names", nargs="+", metavar="NAME", help="system names, one per system (default: file stems)")
    parser.add_argument("--baseline", metavar="NAME", help="test every other system against this one")
    parser.add_argument("--aggregation", choices=("default", "trueskill"), default="default",
                        help="rank systems by their corpus scores (default) or by TrueSkill over sentence-level "
                             "pairwise wins, as SEEDA's human rankings and the LLM-S/E paper do (2+ systems)")
    tests = parser.add_mutually_exclusive_group()
    tests.add_argument("--paired-bs", dest="test", action="store_const", const="bs",
                       help="paired bootstrap test (the default with --baseline; --bootstrap N resamples, 1000)")
    tests.add_argument("--paired-ar", dest="test", action="store_const", const="ar",
                       help="approximate randomisation test (--bootstrap N trials, 10000; intervals from 1000 "
                            "bootstrap resamples)")
    refs = parser.add_mutually_exclusive_group()
    refs.add_argument("--references", type=Path, nargs="+", metavar="FILE",
                      help="one file per reference set, aligned by line. An empty line is a reference that deletes "
                           "the whole sentence (as ERRANT, the M2 scorer and GLEU read it), but with --language zh it "
                           "is no such reference, dropped with a warning: ChERRANT cannot score an empty reference, "
                           "and a sentence with fewer references than files (MuCGEC's 1 to 7) leaves the line empty "
                           "in the other files; a line empty in every file is an error")
    refs.add_argument("--gold-m2", type=Path, metavar="FILE",
                      help="gold M2: pt_m2 scores against its edits; the other metrics take each annotator's "
                           "corrected sentences as references (with --hyp-m2: the reference M2, as --ref-m2)")
    for name in sorted({o for s in registry.SPECS.values() for o in s.replaces_sentences}):
        metrics = [s.name for s in registry.SPECS.values() if name in s.replaces_sentences]
        parser.add_argument(f"--{name.replace('_', '-')}", f"--{name}", dest=f"input_{name}", type=Path, nargs="+",
                            metavar="FILE", help=f"{', '.join(metrics)}: {_M2_INPUT_HELP[name]}")
    parser.add_argument("--format", choices=FORMATS, default="text", help="output format (default text)")
    parser.add_argument("--json", dest="format", action="store_const", const="json", help="the same as --format json")
    parser.add_argument("--plots", type=Path, metavar="DIR",
                        help="write the leaderboard (scores with intervals) and, with per-type results, per-type "
                             "precision/recall as PNG and SVG here")
    parser.add_argument("--sentences", type=Path, metavar="OUT", help="write per-sentence scores (JSON lines) here")
    parser.add_argument("--bootstrap", type=int, default=None, metavar="N",
                        help="bootstrap resamples (approximate-randomisation trials with --paired-ar); several "
                             "systems: 1000 (10000) by default, 0: scores only")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"resampling seed (default {DEFAULT_SEED})")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="show progress bars, model loading's too (default: when standard error is a terminal)")
    parser.add_argument("--workers", type=_workers, default=None, metavar="N",
                        help="processes for ERRANT's edit extraction (0: every core; default $GECSCORE_WORKERS, "
                             "else 1); the scores do not depend on it")
    parser.add_argument("--embedding-cache", nargs="?", const="1", default=None, metavar="DIR",
                        help="keep the model outputs (sentence vectors, token states) on disk in DIR (default "
                             "${XDG_CACHE_HOME:-~/.cache}/gecscore/embeddings), so a later run over the same texts "
                             "starts warm; the same as GECSCORE_EMBEDDING_CACHE=DIR (or 1). Put it after the metric "
                             "or give DIR")
    parser.add_argument("-o", "--option", action="append", default=[], metavar="KEY=VALUE",
                        help="metric option (repeatable); the same as --KEY VALUE")
    group = parser.add_argument_group(
        "metric options",
        "--KEY VALUE (VALUE is JSON when it parses: 0.1, true, null, [0.4,0.3,0.2,0.1]; else a string; a bare "
        "--KEY means true). " + "; ".join(f"{m}: {', '.join(registry.allowed_options(m))}" for m in registry.NAMES))
    language = parser.add_argument_group("language", language_help())
    for name in sorted({o for m in registry.NAMES for o in registry.allowed_options(m)}):
        flags = [f"--{name}"] + ([f"--{name.replace('_', '-')}"] if "_" in name else [])
        shown = name == "language"  # the one metric option with a paragraph of its own
        (language if shown else group).add_argument(
            *flags, dest=f"option_{name}", nargs="?", const="true", default=None,
            metavar="CODE" if shown else "VALUE",
            help="the text's language (default en)" if shown else argparse.SUPPRESS)
    compat = parser.add_argument_group(
        "errant_compare's flags",
        "With metric errant these score as ERRANT's own errant_compare (convention errant_compare, recorded in the "
        "signature; --convention gec-metrics keeps gec-metrics' typing) and a single system prints what "
        "errant_compare prints. -cat also gives the per-type table of uot_errant and pt_m2.")
    compat.add_argument("-cat", "--cat", type=int, choices=(1, 2, 3), default=None,
                        help="per-type scores: 1 operation (M/R/U), 2 main type, 3 full type (return_types)")
    kind = compat.add_mutually_exclusive_group()
    for flag, what in (("cs", "span-based correction (default)"), ("cse", "span-based correction + type"),
                       ("ds", "span-based detection"), ("dt", "token-based detection")):
        kind.add_argument(f"-{flag}", dest="evaluation", action="store_const", const=flag, help=what)
    size = compat.add_mutually_exclusive_group()
    size.add_argument("-single", dest="edit_size", action="store_const", const="single",
                      help="only single-token edits (0:1, 1:0, 1:1)")
    size.add_argument("-multi", dest="edit_size", action="store_const", const="multi",
                      help="only multi-token edits (2+:n, n:2+)")
    compat.add_argument("-filt", nargs="+", metavar="TYPE", help="leave these error types out")
    compat.add_argument("-b", dest="option_beta", metavar="BETA", help="F-beta (the same as --beta)")
    compat.add_argument("-hyp", dest="input_hyp_m2", type=Path, nargs="+", metavar="FILE",
                        help="hypothesis M2 (the same as --hyp-m2)")
    compat.add_argument("-ref", dest="input_ref_m2", type=Path, nargs="+", metavar="FILE",
                        help="reference M2 (the same as --ref-m2)")
    parser.set_defaults(func=run, cli_option_flag="-o")


def language_help() -> str:
    """The paragraph on `--language`: its values, what each gives and where the docs are (the option's own help is
    one of many behind `--KEY VALUE`, too long for a line and hidden there)."""
    from gecscore import registry
    from gecscore.common.options import SPACY_LONG_CODES, SUGGESTED_LANGUAGES

    takes = [m for m in registry.NAMES if "language" in registry.allowed_options(m)]
    return ("--language CODE, the text's language (recorded in the signature unless en). en (the default): "
            "whitespace-tokenised English (--tokenize: spaCy's English pipeline), ERRANT's English edits and error "
            "types. zh: raw Chinese (white space ignored), every character a token; the edit metrics from text write "
            "ChERRANT's char-level M2 (give ChERRANT's lexicons with --zh-lexicon) and errant scores as ChERRANT "
            "with --convention errant_compare; an empty reference line is no such reference (see --references). "
            f"Any other ISO 639-1 code (two lowercase letters, or spaCy's {' '.join(SPACY_LONG_CODES)}) is accepted, "
            f"among them {' '.join(c for c in SUGGESTED_LANGUAGES if c not in ('en', 'zh'))}: whitespace-separated "
            "words (--tokenize: spaCy's tokenizer rules for the language, no model; an error where spaCy has none "
            "or they need a package not installed, e.g. ja, ko, th, vi), edits with no English rules typed "
            "only M (missing), R (replacement) or U (unnecessary); GLEU and GREEN count the words. Metrics that take "
            f"it: {', '.join(takes)}; the others score English. See docs/other-languages.md (\"Other languages\" "
            "on the docs site).")


def _workers(text: str) -> int:
    """`--workers`: a whole number >= 0 (argparse names the flag when it is not)."""
    from gecscore.common.workers import check_workers

    try:
        return check_workers(text, "--workers")
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def metric_name(name: str) -> str:
    """A registry name; for another, argparse's error names the closest one (its own would only list them all)."""
    from gecscore import registry
    from gecscore.common.options import did_you_mean

    if name not in registry.NAMES:
        raise argparse.ArgumentTypeError(f"unknown metric {name!r}{did_you_mean([name], registry.NAMES)}; choose "
                                         f"from {', '.join(registry.NAMES)}")
    return name


def errant_compare_options(args: argparse.Namespace, options: dict[str, Any]) -> bool:
    """Add errant_compare's flags to `options`; True when they ask for errant_compare's convention and printout."""
    flags = {"evaluation": args.evaluation, "edit_size": args.edit_size,
             "filter_types": tuple(args.filt) if args.filt else None}
    given = {k: v for k, v in flags.items() if v is not None}
    if args.cat is not None:
        options["return_types"] = args.cat
    if args.metric != "errant":
        if given:
            raise ValueError(f"-{'/-'.join(given)} are errant_compare's flags: they apply to metric errant")
        return False
    hyp_m2 = getattr(args, "input_hyp_m2", None) is not None
    if not (given or args.cat is not None or hyp_m2):
        return False
    options.update(given)
    options.setdefault("convention", "errant_compare")
    return options["convention"] == "errant_compare"


def read_lines(path: Path, what: str) -> list[str]:
    """The sentences of a UTF-8 file (`-`: standard input), read as the Spaces read them
    (`gecscore.common.inputs.split_lines`); errors name the file, line and column."""
    from gecscore.common.inputs import control_character, decode_utf8, split_lines

    if path != STDIN and not path.is_file():
        raise FileNotFoundError(f"{what} file {path} does not exist")
    text, bad_line = decode_utf8(sys.stdin.buffer.read() if path == STDIN else path.read_bytes())
    name = _label(path)
    if text is None:
        raise ValueError(f"{what} file {name}, line {bad_line}: not valid UTF-8")
    lines = split_lines(text)
    if not any(line.strip() for line in lines):
        raise ValueError(f"{what} file {name} is empty")
    for number, line in enumerate(lines, 1):
        found = control_character(line)
        if found is not None:
            raise ValueError(f"{what} file {name}, line {number}, column {found[0]}: control character {found[1]}")
    return lines


def system_files(args: argparse.Namespace) -> dict[str, Path]:
    """System name → file: `--predictions` (folders expanded to their *.txt) and `--predictions2`, named by file
    stem (parent folders added where stems repeat) or by `--names`."""
    paths: list[Path] = []
    for path in args.predictions:
        if path.is_dir():
            found = sorted(p for p in path.glob("*.txt") if p.is_file())
            if not found:
                raise ValueError(f"--predictions: folder {path} holds no *.txt files")
            paths += found
        else:
            paths.append(path)
    if args.predictions2 is not None:
        if len(paths) != 1:
            raise ValueError(f"--predictions2 tests a second system against one --predictions file, got {len(paths)}; "
                             "for more systems list them all in --predictions and pick --baseline")
        paths.append(args.predictions2)
    if paths.count(STDIN) > 1:
        raise ValueError("--predictions: standard input (-) can be read only once")
    names = args.names if args.names is not None else file_names(paths)
    if len(names) != len(paths):
        raise ValueError(f"--names gives {len(names)} names for {len(paths)} systems")
    if len(set(names)) != len(names) or not all(names):
        raise ValueError(f"--names must be distinct and non-empty, got {names}")
    return dict(zip(names, paths))


def file_names(paths: list[Path]) -> list[str]:
    """File stems (`stdin` for -), with parent folders added until they differ; a file given twice is an error."""
    twice = sorted({str(path) for path in paths if paths.count(path) > 1})
    if twice:
        raise ValueError(f"--predictions: {twice[0]} is given twice; give each file once")
    parts = [("stdin",) if path == STDIN else path.with_suffix("").parts for path in paths]
    depth = [1] * len(paths)
    while True:
        names = [Path(*p[-d:]).as_posix() for p, d in zip(parts, depth)]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if not repeated:
            return names
        grown = [i for i, name in enumerate(names) if name in repeated and depth[i] < len(parts[i])]
        if not grown:
            raise ValueError(f"--predictions: several files would be called {repeated[0]!r}; name the systems "
                             "with --names")
        for i in grown:
            depth[i] += 1


def read_inputs(args: argparse.Namespace, files: dict[str, Path]) -> tuple[list[str], dict[str, list[str]],
                                                                           list[list[str]] | None, Any]:
    """Sources, each system's predictions, references and the parsed gold M2, line counts checked."""
    from gecscore.common.m2io import read_m2

    gold = None
    if args.gold_m2 is not None:
        if not args.gold_m2.is_file():
            raise FileNotFoundError(f"gold M2 file {args.gold_m2} does not exist")
        try:
            gold = read_m2(args.gold_m2)
        except ValueError as error:
            raise ValueError(f"gold M2 file {args.gold_m2}: {error}") from None
    if args.sources is not None:
        first, sources = ("sources", args.sources), read_lines(args.sources, "sources")
        if gold is not None:
            _check_length(("gold M2", args.gold_m2), len(gold), first, len(sources), unit="sentences")
    elif gold is not None:
        first, sources = ("gold M2", args.gold_m2), [block.source for block in gold]
    else:
        raise ValueError("give --sources (or --gold-m2, whose S lines are the sources)")
    systems = {}
    for key, path in files.items():
        what = "predictions2" if key == "predictions2" else "predictions"
        systems[key] = read_lines(path, what)
        _check_length((what, _label(path)), len(systems[key]), first, len(sources))
    references = None
    if args.references:
        columns = []
        for path in args.references:
            columns.append(read_lines(path, "references"))
            _check_length(("references", path), len(columns[-1]), first, len(sources))
        references = [list(refs) for refs in zip(*columns)]
    return sources, systems, references, gold


def _check_length(file: tuple[str, Any], n: int, first: tuple[str, Path], n_first: int, unit: str = "lines") -> None:
    if n != n_first:
        raise ValueError(f"{file[0]} file {file[1]} has {n} {unit} but {first[0]} file {first[1]} has {n_first}")


def metric_options(args: argparse.Namespace) -> dict[str, Any]:
    """`--KEY VALUE` and `-o KEY=VALUE` options (VALUE as JSON when it parses)."""
    options = parse_options(args.option)
    for key, raw in vars(args).items():
        if key.startswith("option_") and raw is not None:
            options[key[len("option_"):]] = parse_options([f"x={raw}"])["x"]
    return options


def m2_systems(args: argparse.Namespace, spec: Any) -> tuple[dict[str, dict[str, str]], dict[str, str]]:
    """Systems given as M2 input options (`--hyp-m2 A.m2 B.m2`, one system per file of the option given several
    files, else of the first) and the options they share (`--gold-m2` fills `ref_m2`); both empty without them."""
    given = {name: getattr(args, f"input_{name}") for name in spec.replaces_sentences
             if getattr(args, f"input_{name}", None) is not None}
    for name in [n for n in vars(args) if n.startswith("input_") and getattr(args, n) is not None]:
        if name[len("input_"):] not in spec.replaces_sentences:
            hint = "; give the gold M2 as --gold-m2" if name == "input_ref_m2" else ""
            raise ValueError(f"{args.metric} takes no --{name[len('input_'):].replace('_', '-')}{hint}")
    if not given:
        return {}, {}
    if args.gold_m2 is not None and "ref_m2" in given:
        raise ValueError("--ref-m2 (-ref) and --gold-m2 both give the reference M2; give one")
    if args.predictions or args.predictions2 or args.sources or args.references:
        raise ValueError(f"--{'/--'.join(n.replace('_', '-') for n in given)} replace --sources, --predictions and "
                         "--references; give one or the other")
    if args.gold_m2 is not None and "ref_m2" in spec.replaces_sentences:
        given["ref_m2"] = [args.gold_m2]
    several = [name for name, paths in given.items() if len(paths) > 1]
    if len(several) > 1:
        raise ValueError(f"only one M2 input option may list several files (systems), got {several}")
    per_system = several[0] if several else next(iter(given))
    for name, paths in given.items():
        for path in paths:
            if not path.is_file():
                raise FileNotFoundError(f"--{name.replace('_', '-')} file {path} does not exist")
    names = args.names if args.names is not None else file_names(given[per_system])
    if len(names) != len(given[per_system]) or len(set(names)) != len(names):
        raise ValueError(f"--names must give {len(given[per_system])} distinct names, got {names}")
    shared = {name: str(paths[0]) for name, paths in given.items() if name != per_system}
    return {name: {per_system: str(path)} for name, path in zip(names, given[per_system])}, shared


def run(args: argparse.Namespace) -> int:
    """Score the files and print the result (with `--embedding-cache`, `$GECSCORE_EMBEDDING_CACHE` set meanwhile);
    progress bars, model loading's too, on a terminal (each after 2 s, so a quick run stays quiet) or with
    `--progress` (at once); a log or a pipe stays clean."""
    from gecscore.common.embedding_cache import EMBEDDING_CACHE_ENV
    from gecscore.common.encoders import loading_progress
    from gecscore.common.progress import shown_after

    from gecscore.common.workers import using_workers

    if args.workers is not None:
        with using_workers(args.workers):
            args.workers = None
            return run(args)
    delay = 2.0 if args.progress is None else 0.0  # by default a bar waits: quick runs stay quiet on a terminal
    args.progress = sys.stderr.isatty() if args.progress is None else args.progress
    with loading_progress(args.progress), shown_after(delay):
        if args.embedding_cache is None:
            return score(args)
        before = os.environ.get(EMBEDDING_CACHE_ENV)
        os.environ[EMBEDDING_CACHE_ENV] = args.embedding_cache
        try:
            return score(args)
        finally:
            if before is None:
                del os.environ[EMBEDDING_CACHE_ENV]
            else:
                os.environ[EMBEDDING_CACHE_ENV] = before


def score(args: argparse.Namespace) -> int:
    """Score the files and print the result."""
    from gecscore import registry
    from gecscore.common.tables import to_json
    from gecscore.common.inputs import UnusedReferencesWarning
    from gecscore.leaderboard import compare

    if args.bootstrap is not None and args.bootstrap < 0:
        raise ValueError(f"--bootstrap must be >= 0, got {args.bootstrap}")
    options = metric_options(args)
    compare_printout = errant_compare_options(args, options)
    registry.check_options(args.metric, options)
    spec = registry.spec(args.metric)
    m2, shared = m2_systems(args, spec)
    if not m2 and not args.predictions:
        inputs = ", ".join(f"--{n.replace('_', '-')}" for n in spec.replaces_sentences)
        raise ValueError("give --predictions" + (f" (or {inputs})" if inputs else ""))
    if not m2 and spec.reference_free and (args.references or args.gold_m2):
        raise ValueError(f"{args.metric} is reference-free: drop --references/--gold-m2")
    if not m2 and not spec.reference_free and not (args.references or args.gold_m2):
        raise ValueError(f"{args.metric} needs --references (or --gold-m2)")
    files = {} if m2 else system_files(args)
    baseline = args.baseline
    if baseline is None and args.predictions2 is not None:
        baseline = next(iter(files))
    if args.test is not None and baseline is None:
        raise ValueError("--paired-bs/--paired-ar test systems against a baseline: pass --baseline NAME")
    count = len(m2 or files)
    legacy = (args.format in ("text", "json") and args.test != "ar" and args.baseline is None
              and args.aggregation == "default" and (count == 1 or args.predictions2 is not None))
    if legacy and files:  # today's output keys: `predictions`, `predictions2`
        files = dict(zip(("predictions", "predictions2"), files.values()))
        baseline = "predictions" if args.predictions2 is not None else None
    if m2:
        sources, systems, references, gold = None, m2, None, None
        options.update(shared)
    else:
        sources, systems, references, gold = read_inputs(args, files)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", UnusedReferencesWarning)  # a file given for nothing is a mistake here
            board = compare(args.metric, sources, systems, references, gold_m2=gold, baseline=baseline,
                            test=args.test or "bs", n_samples=(args.bootstrap or 0) if legacy else args.bootstrap,
                            seed=args.seed, aggregation=args.aggregation, progress=args.progress, **options)
    except UnusedReferencesWarning as unused:
        raise ValueError(f"{len(args.references)} reference files given: {unused}") from None
    except (ValueError, TypeError) as error:
        raise type(error)(_with_lines(str(error), args, files)) from None
    if args.sentences is not None:
        write_sentences(args.sentences, board.results)
    if args.plots is not None:
        for path in board.plot(args.plots):
            print(f"wrote {path}", file=sys.stderr)
    if legacy and compare_printout and args.format == "text" and args.predictions2 is None:
        print(errant_compare_printout(next(iter(board.results.values())), options, args.cat, board.signature))
    elif legacy:
        result = legacy_result(args.metric, board, bootstrapped=bool(args.bootstrap))
        print(to_json(result) if args.format == "json" else format_result(result, board.main, board.render_types()))
    else:
        print(board.render(args.format))
    return 0


def errant_compare_printout(result: Any, options: dict[str, Any], level: int | None, signature: str) -> str:
    """What errant_compare prints for one system, then the signature."""
    from gecscore.common import errant_compare as ec
    from gecscore.common.errant_scoring import Counts

    settings = ec.CompareSettings(options.get("beta", 0.5), options.get("evaluation", "cs"),
                                  options.get("edit_size", "all"), frozenset(options.get("filter_types", ())),
                                  options.get("language", "en"))
    types = {t: Counts(r["tp"], r["fp"], r["fn"]) for t, r in result.details.get("types", {}).get("rows", {}).items()}
    counts = Counts(result.scores["tp"], result.scores["fp"], result.scores["fn"])
    return ec.report(counts, types, settings, level, merged=True) + f"\nsignature\t{signature}"


def write_sentences(path: Path, results: dict[str, Any]) -> None:
    """Per-sentence records as JSON lines: the 0-based `index` (as `degenerate_sentences` names sentences), the
    1-based `line` of the input files, `system` when there are several, then the record."""
    with path.open("w", encoding="utf-8") as out:
        for key, system in results.items():
            for i, record in enumerate(system.sentences):
                row = record if len(results) == 1 else {"system": key, **record}
                out.write(json.dumps({"index": i, "line": i + 1, **row}, ensure_ascii=False, default=float) + "\n")


def legacy_result(metric: str, board: Any, *, bootstrapped: bool) -> dict[str, Any]:
    """One system (`predictions`), or two (`predictions2` tested against it), as `gecscore score` has always
    printed them: scores, details, bootstrap intervals and the paired test when asked, and the signature."""
    first = next(iter(board.results.values()))
    result: dict[str, Any] = {"metric": metric, **first.scores, **first.details}
    second = board.results.get("predictions2")
    if second is not None:
        result["predictions2"] = {**second.scores, **second.details}
    if bootstrapped:
        result["bootstrap"] = _interval(first.main, board.row(next(iter(board.results))).interval)
        if second is not None:
            row = board.row("predictions2")
            result["predictions2"]["bootstrap"] = _interval(first.main, row.interval)
            result["paired_bootstrap"] = {"difference": row.difference, "p_value": row.p_value}
    result["signature"] = board.signature
    return result


def _interval(key: str, interval: Any) -> dict[str, Any]:
    """The interval as JSON (`Interval.as_dict`), `score` naming the result's key it is the interval of."""
    return {**interval.as_dict(), "score": key}


def _label(path: Path) -> str:
    return "<stdin>" if path == STDIN else str(path)


def _with_lines(message: str, args: argparse.Namespace, files: dict[str, Path]) -> str:
    """The metric's message with file lines added to `sources[i]`, `predictions[i]`, `predictions of 'NAME'[i]`,
    `references[k][j]` and `references[k]` (a sentence's references: one line of every reference file) positions."""
    def where(match: re.Match) -> str:
        i = int(match.group("i"))
        if match.group("row"):
            return match.group(0) + (f" (line {i + 1} of the reference files)" if args.references else "")
        if match.group("src"):
            path: Any = args.sources or args.gold_m2
        elif match.group("example") is not None:
            if not args.references or i >= len(args.references):
                return match.group(0)
            path, i = args.references[i], int(match.group("example"))
        else:
            name = match.group("name")
            if name is None and len(files) != 1:  # which system's `predictions` is not said
                return match.group(0)
            path = files.get(name) if name is not None else next(iter(files.values()))
        return match.group(0) if path is None else f"{match.group(0)} (line {i + 1} of {_label(Path(path))})"

    return _POSITION.sub(where, message)


def format_result(result: dict[str, Any], main: str, types: str = "") -> str:
    """Tab-separated `key value [value2]` lines: headline first (with its 95% interval, method named, when
    bootstrapped), the other scalars (`! outside [0, 1]` after a value outside its range), the flagged sentences
    by reason, the paired test, the per-type tables (`types`, already rendered; the details are not scalars, so
    they would be lost otherwise) and the signature."""
    second = result.get("predictions2")
    keys = [main] + [k for k, v in result.items()
                     if k != main and isinstance(v, (int, float)) and not isinstance(v, bool)]

    def cell(entry: dict[str, Any], key: str) -> str:
        text = f"{entry[key]:.6f}" if isinstance(entry[key], float) else str(entry[key])
        if key == main and "bootstrap" in entry:
            interval = entry["bootstrap"]
            text += f" (95% CI [{interval['low']:.4f}, {interval['high']:.4f}], {interval['method']} bootstrap)"
        broken = out_of_range({key: entry[key]}, declared_bounds(main, entry))
        return text + (f" ! {broken[key]}" if broken else "")

    def flagged(entry: dict[str, Any]) -> str:
        return flag_note(entry.get("degenerate_sentences", [])) or "0"

    entries = [result] + ([second] if second is not None else [])
    lines = [f"metric\t{result['metric']}"]
    if second is not None:
        lines.append("\tpredictions\tpredictions2")
    for key in keys:
        lines.append("\t".join([key] + [cell(entry, key) for entry in entries]))
    lines.append("\t".join(["flagged"] + [flagged(entry) for entry in entries]))
    if "paired_bootstrap" in result:
        test = result["paired_bootstrap"]
        lines.append(f"paired_bootstrap\tdifference {test['difference']:+.6f}\tp = {test['p_value']:.4f}")
    if types:
        lines += ["", types, ""]
    lines.append(f"signature\t{result['signature']}")
    return "\n".join(lines)
