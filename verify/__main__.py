"""Command line of the verifier: ``python -m verify [--only PATTERN] [--slow] [--device D] ...``."""
import argparse
import sys

from . import errata, registry, runner


def _parser():
    parser = argparse.ArgumentParser(prog="python -m verify", description=(
        "Check every claim of the theories numerically: one row per claim with the measured value, the limit "
        "it is held to and the verdict. Exit status 1 if any claim fails."))
    parser.add_argument("--only", metavar="PATTERN",
                        help="claims whose id matches a glob (starvation.*) or contains a substring; comma-separated")
    parser.add_argument("--slow", action="store_true", help="also run slow claims (cross-checks, large sweeps)")
    parser.add_argument("--device", choices=("auto", "cpu", "cuda"), default="cpu",
                        help="torch device for the cross-checks (cuda runs larger sizes); default cpu")
    seeds = parser.add_mutually_exclusive_group()
    seeds.add_argument("--seed-offset", type=int, default=0, metavar="K",
                       help="shift every seed a stochastic claim draws (numpy and torch) by K; recorded in the report")
    seeds.add_argument("--seed-sweep", type=int, default=0, metavar="N",
                       help="run the stochastic claims under seed offsets 0..N-1 and report each claim's worst case")
    parser.add_argument("--errata", action="store_true",
                        help="run the erratum claims and print the errata document (with --markdown FILE, write it)")
    parser.add_argument("--json", metavar="FILE", help="write the results as a JSON list")
    parser.add_argument("--markdown", metavar="FILE", help="write the results (or the errata document) as Markdown")
    parser.add_argument("--docs", metavar="DIR",
                        help="write the documentation's claims pages (one per theory, the errata, an index) into DIR")
    parser.add_argument("--list", action="store_true", help="list the selected claims without running them")
    parser.add_argument("--record", metavar="NAME",
                        help="run the reproduction record NAME (a glob over the planned records, e.g. 'and_mask.*') "
                             "at its record size (with --device cuda, the source's size where planned) and write "
                             "records/NAME.json; with --list, list the planned records")
    parser.add_argument("-j", "--jobs", type=int, default=1, metavar="N",
                        help="run claims in N worker processes (-1: one per core); same verdicts, values and order")
    parser.add_argument("--dask", metavar="ADDRESS",
                        help="run claims on the Dask cluster whose scheduler is at ADDRESS (e.g. tcp://host:8786); "
                             "its workers need this project installed")
    return parser


def main(argv=None):
    parser = _parser()
    args = parser.parse_args(argv)
    from . import crosscheck

    try:
        crosscheck.check_device(args.device)
    except (RuntimeError, ValueError) as exc:
        parser.error(str(exc))
    if args.seed_offset < 0 or args.seed_sweep < 0:
        parser.error("--seed-offset and --seed-sweep must be >= 0")
    if args.record:
        return _records(args.record, crosscheck.resolve_device(args.device), args.list)
    claims = registry.select(args.only, include_slow=args.slow or args.list or args.errata)
    if args.errata:
        claims = [c for c in claims if c.kind == "erratum"]
    if args.seed_sweep:
        claims = [c for c in claims if c.takes_context]
    if not claims:
        print(f"no claim matches {args.only!r}" + (" among the stochastic claims" if args.seed_sweep else ""),
              file=sys.stderr)
        return 1
    if args.list:
        for c in claims:
            flags = ("stochastic " if c.takes_context else "") + ("source" if c.subject == "source" else "")
            print(f"{c.id:48s} {c.kind:10s} {c.cost:4s} {flags:17s} {c.source}")
        return 0
    if args.jobs == 0 or args.jobs < -1:
        parser.error("--jobs must be a positive number of workers, or -1 for one per core")
    offsets = range(args.seed_sweep) if args.seed_sweep else [args.seed_offset]
    units = [(c, registry.RunContext(args.device, k)) for c in claims for k in (offsets if c.takes_context else [0])]
    serial = args.jobs == 1 and not args.dask
    print(registry.format_header(), flush=True)
    if serial and not args.seed_sweep:
        progress = lambda r: print(registry.format_row(r), flush=True)  # noqa: E731 (rows as they come)
    else:
        progress = runner.progress_bar(len(units))
    runs = runner.run_units(units, jobs=args.jobs, dask_address=args.dask, progress=progress)
    if hasattr(progress, "close"):
        progress.close()
    results = []
    for c in claims:
        result = worst_case([r for r in runs if r.claim.id == c.id])
        results.append(result)
        if not (serial and not args.seed_sweep):
            print(registry.format_row(result), flush=True)
    failures = [r for r in results if r.verdict in ("FAIL", "error")]
    for r in failures + [r for r in results if r.verdict == "skipped"]:
        print(f"{r.verdict}: {r.claim.id} (seed offset {r.seed_offset}): {r.detail}")
    if args.seed_sweep:
        print(f"worst case over seed offsets 0..{args.seed_sweep - 1} of {len(results)} stochastic claims")
    print(registry.format_summary(results))
    if args.json:
        registry.write_json(results, args.json)
    if args.errata:
        page = errata.document(results)
        if args.markdown:
            with open(args.markdown, "w", encoding="utf-8") as fh:
                fh.write(page)
        else:
            print(page)
    elif args.markdown:
        registry.write_markdown(results, args.markdown)
    if args.docs:
        from . import pages

        for path in pages.write_pages(results, args.docs):
            print(f"wrote {path}")
    return 1 if failures else 0


def _records(pattern, device, list_only):
    """``--record PATTERN``: list or run the planned records whose name matches."""
    from fnmatch import fnmatchcase

    from . import records

    plans = {name: plan for name, plan in records.load_plans().items()
             if fnmatchcase(name, pattern) or pattern in name}
    if not plans:
        print(f"no record plan matches {pattern!r}; planned: {', '.join(records.load_plans())}", file=sys.stderr)
        return 1
    for name, plan in plans.items():
        if list_only:
            print(f"{name:40s} {plan.source}: {plan.reduced}")
            continue
        print(f"recording {name} on {device} ({plan.reduced}) ...", flush=True)
        path = records.make_record(name, device)
        record = records.load_record(name)
        verdict = plan.judge(record.result)
        print(f"wrote {path} in {record.provenance['wall_seconds']:.0f} s: {verdict.status}: {verdict.text}")
    return 0


def worst_case(runs):
    """The run of one claim to report from several seed offsets: a failure or error if any, else the run that
    uses most of its allowance; its detail lists the worst use of the limit over the offsets."""
    worst = max(runs, key=lambda r: (r.verdict != "pass", _use(r)))
    if len(runs) > 1:
        uses = ", ".join(f"{r.seed_offset}: {_use(r):.2f}" if r.verdict == "pass" else f"{r.seed_offset}: {r.verdict}"
                         for r in runs)
        worst.detail = f"use of the limit by seed offset {{{uses}}}; " + worst.detail
    return worst


def _use(result):
    return registry.Check(result.measured, result.tolerance, result.comparison).use_of_limit \
        if result.comparison != "erratum" else registry.Check(result.measured, result.tolerance).use_of_limit


def run():
    """Console-script entry: main(), quietly ending when the reader of stdout goes away (| head)."""
    try:
        sys.exit(main())
    except BrokenPipeError:
        sys.stderr.close()
        sys.exit(1)


if __name__ == "__main__":
    run()
