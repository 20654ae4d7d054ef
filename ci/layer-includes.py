#!/usr/bin/env python3
"""Writes one include tree per layer (docs/architecture.md, "Layers"), so that a layer's
compiler sees only its own headers and those of the layers it may include.

meson runs this at configure time with the layer table of the top-level meson.build
(name=folder:allowed,layers,...). For each layer it makes OUT/<name>/ holding a symlink
per visible layer folder ("harness/0-base" -> SRC/harness/0-base) and config.h (the build's
configuration header). Each layer compiles with -I OUT/<name> and without the project
root on its include path, so including a higher layer's header is a compile error
("No such file or directory"), whatever the spelling; ci/check-layers.py adds the
readable message and the rules a path cannot enforce (no "..", no macros)."""
import argparse
import os
import shutil
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("layers", nargs="+", help="name=folder:allowed,...")
    args = ap.parse_args()

    folders = {}
    table = []
    for spec in args.layers:
        name, rest = spec.split("=", 1)
        folder, allowed = rest.split(":", 1)
        folders[name] = folder.rstrip("/")
        table.append((name, [a for a in allowed.split(",") if a]))
    if os.path.isdir(args.out):
        shutil.rmtree(args.out)
    for name, allowed in table:
        tree = os.path.join(args.out, name)
        os.makedirs(tree)
        for layer in [name] + allowed:
            if layer not in folders:
                print("layer-includes: %s may include unknown layer %s" % (name, layer),
                      file=sys.stderr)
                return 1
            link = os.path.join(tree, layer)
            os.symlink(os.path.join(args.src, folders[layer]), link)
        os.symlink(os.path.join(args.build, "config.h"), os.path.join(tree, "config.h"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
