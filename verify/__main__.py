"""Command line of the verifier: ``python -m verify [--only PATTERN] [--slow] [--device D] ...``."""
import argparse
import sys

from . import registry


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m verify", description=(
        "Check every claim of the theories numerically: one row per claim with the measured error, "
        "the tolerance it is held to, and the verdict. Exit status 1 if any claim fails."))
    parser.add_argument("--only", metavar="PATTERN",
                        help="claims whose id matches a glob (starvation.*) or contains a substring; comma-separated")
    parser.add_argument("--slow", action="store_true", help="also run slow claims (cross-checks, large sweeps)")
    parser.add_argument("--device", choices=("auto", "cpu", "cuda"), default="cpu",
                        help="torch device for the cross-checks (cuda runs larger sizes); default cpu")
    parser.add_argument("--json", metavar="FILE", help="write the results as a JSON list")
    parser.add_argument("--markdown", metavar="FILE", help="write the results as a Markdown table")
    parser.add_argument("--list", action="store_true", help="list the selected claims without running them")
    args = parser.parse_args(argv)

    from . import crosscheck

    try:
        crosscheck.set_device(args.device)
    except (RuntimeError, ValueError) as exc:
        parser.error(str(exc))
    claims = registry.select(args.only, include_slow=args.slow or args.list)
    if not claims:
        print(f"no claim matches {args.only!r}", file=sys.stderr)
        return 1
    if args.list:
        for c in claims:
            print(f"{c.id:44s} {c.kind:10s} {c.cost:4s} {c.source}")
        return 0
    print(registry.format_header(), flush=True)
    results = registry.run_claims(claims, progress=lambda r: print(registry.format_row(r), flush=True))
    failures = [r for r in results if r.verdict in ("FAIL", "error")]
    for r in failures + [r for r in results if r.verdict == "skipped"]:
        print(f"{r.verdict}: {r.claim.id}: {r.detail}")
    print(registry.format_summary(results))
    if args.json:
        registry.write_json(results, args.json)
    if args.markdown:
        registry.write_markdown(results, args.markdown)
    return 1 if failures else 0


def run():
    """Console-script entry: main(), quietly ending when the reader of stdout goes away (| head)."""
    try:
        sys.exit(main())
    except BrokenPipeError:
        sys.stderr.close()
        sys.exit(1)


if __name__ == "__main__":
    run()
