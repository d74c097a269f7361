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
    parser.add_argument("--demo", nargs="?", const="", metavar="NAME",
                        help="serve the teaching notebook NAME as a web app (Voila) on localhost; without NAME, list them and "
                             "serve an index of all of them")
    parser.add_argument("--port", type=int, default=None, help="port for --demo (default: a free one)")
    parser.add_argument("-j", "--jobs", type=int, default=-1, metavar="N",
                        help="render in N worker processes (default -1: one per core; 1: in this process); the same "
                             "files as a serial run")
    args = parser.parse_args(argv)
    if args.jobs == 0 or args.jobs < -1:
        parser.error("--jobs must be a positive number of workers, or -1 for one per core")

    if args.demo is not None:
        return demo(args.demo, args.port)
    entries = registry.load_all()
    if args.list:
        for entry in sorted(entries.values(), key=lambda s: s.id):
            print(f"{entry.id:40s} {entry.source}")
        return 0
    from fnmatch import fnmatchcase

    if args.all or (args.gallery and not args.ids):
        chosen = sorted(entries.values(), key=lambda s: s.id)
    else:
        chosen = []
        for pattern in args.ids:
            hits = [s for i, s in sorted(entries.items()) if fnmatchcase(i, pattern)]
            if not hits:
                parser.error(f"no figure matches {pattern!r}; use --list")
            chosen += [s for s in hits if s not in chosen]
    if not chosen:
        parser.error("name figure ids, or use --all, --gallery or --list")
    out = args.gallery or args.out
    for entry_id, paths, seconds in registry.render_many([s.id for s in chosen], out, jobs=args.jobs,
                                                        progress=lambda done: progress(done, desc="figures", total=len(chosen))):
        print(f"{entry_id:40s} {seconds:6.1f} s  {paths[0]}", flush=True)
    if args.gallery:
        print(f"gallery: {registry.write_gallery(chosen, out)}")
    return 0


def demo(name, port):
    """Serve one demo, or list them and serve an index of all, until interrupted."""
    from . import interactive

    if not name:
        for demo_name in interactive.list_demos():
            print(f"{demo_name:20s} python -m figures --demo {demo_name}")
    try:
        process, url = interactive.serve_demo(name or None, port, quiet=True)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    print(f"{'demo ' + name if name else 'index of the demos'}: {url}  (Ctrl-C stops it)", flush=True)
    try:
        return process.wait()
    except KeyboardInterrupt:
        process.terminate()
        process.wait()
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
