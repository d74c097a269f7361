"""Command line: ``python -m figures --list | ID ... | --all`` ``--out DIR``, ``--gallery DIR``."""
import argparse
import sys

from . import registry
from .style import progress


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m figures", description=(
        "Regenerate the theory figures as PNG and PDF from what the dynamics package computes."))
    parser.add_argument("ids", nargs="*", metavar="ID", help="figure ids (see --list); globs like 'starvation.*' work")
    parser.add_argument("--list", action="store_true", help="list the figures with their sources")
    parser.add_argument("--all", action="store_true", help="render every figure")
    parser.add_argument("--out", default="figures_out", metavar="DIR", help="output folder (default figures_out)")
    parser.add_argument("--gallery", metavar="DIR",
                        help="render the selected figures (all if none given) into DIR with an index.html")
    args = parser.parse_args(argv)

    specs = registry.load_all()
    if args.list:
        for spec in sorted(specs.values(), key=lambda s: s.id):
            print(f"{spec.id:40s} {spec.source}")
        return 0
    from fnmatch import fnmatchcase

    if args.all or (args.gallery and not args.ids):
        chosen = sorted(specs.values(), key=lambda s: s.id)
    else:
        chosen = []
        for pattern in args.ids:
            hits = [s for i, s in sorted(specs.items()) if fnmatchcase(i, pattern)]
            if not hits:
                parser.error(f"no figure matches {pattern!r}; use --list")
            chosen += [s for s in hits if s not in chosen]
    if not chosen:
        parser.error("name figure ids, or use --all, --gallery or --list")
    out = args.gallery or args.out
    for spec in progress(chosen, desc="figures"):
        paths, seconds = registry.render(spec, out)
        print(f"{spec.id:40s} {seconds:6.1f} s  {paths[0]}", flush=True)
    if args.gallery:
        print(f"gallery: {registry.write_gallery(chosen, out)}")
    return 0


def run():
    """Console-script entry: main(), quietly ending when the reader of stdout goes away (| head)."""
    try:
        sys.exit(main())
    except BrokenPipeError:
        sys.stderr.close()
        sys.exit(1)


if __name__ == "__main__":
    run()
