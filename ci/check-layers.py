#!/usr/bin/env python3
"""Checks that every project include points down the layers (docs/architecture.md).

meson runs this on every build with the layer table of the top-level meson.build
(name=folder:allowed,layers,...), so including a higher layer's header is a build
error. Includes of project headers are spelled by layer name and the path inside the
layer's folder ("core/stats.h" is harness/2-core/stats.h), as the layer's include tree
shows them (ci/layer-includes.py); public headers from include/ ("pmcbench/result.h",
"pmcbench.h") may be included anywhere."""
import argparse
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
ANGLE = re.compile(r'^\s*#\s*include\s+<([^>]+)>')
ANY_INCLUDE = re.compile(r'^\s*#\s*include\b\s*(.)?')
# Folders that are no layer and hold no C: the public headers, scripts, docs, the build.
NOT_LAYERS = ("include", "ci", "docs", ".git", ".ci")
# The model knows no backend (issue 33): these layers include the counters layer's own
# headers (counters/reading.h, counters/backend.h), never a backend's folder
# (counters/perf/, counters/valgrind/): what a backend knows of its events it says
# through functions the layers above hand down (pmc_derive_opts.apart, pmc_metric_describe).
MODEL = ("core", "formats", "history", "reporters")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--stamp", required=True)
    ap.add_argument("layers", nargs="+", help="name=folder:allowed,...")
    args = ap.parse_args()

    layers = []  # (name, folder, allowed names), deepest folder first for matching
    for spec in args.layers:
        name, rest = spec.split("=", 1)
        folder, allowed = rest.split(":", 1)
        layers.append((name, folder.rstrip("/"), set(filter(None, allowed.split(",")))))
    by_depth = sorted(layers, key=lambda l: -len(l[1]))

    def layer_of(path):
        for name, folder, allowed in by_depth:
            if path == folder or path.startswith(folder + "/"):
                return name, allowed
        return None, None

    errors = []
    folder_of = {name: folder for name, folder, _ in layers}
    project_tops = set(folder_of) | {folder.split("/")[0] for _, folder, _ in layers}

    def resolve(inc):
        """The layer an include names and the file it is, or (None, None)."""
        head, _, rest = inc.partition("/")
        if head not in folder_of or not rest:
            return None, None
        return head, os.path.join(folder_of[head], rest)
    # Every C file of the project belongs to a layer: a folder outside the table would
    # escape every rule below.
    for dirpath, dirnames, filenames in os.walk(args.root):
        rel_dir = os.path.relpath(dirpath, args.root)
        if rel_dir == ".":
            dirnames[:] = [d for d in dirnames if d not in NOT_LAYERS and not d.startswith(".")
                           and not os.path.exists(os.path.join(dirpath, d, "meson-private"))]
        for fn in filenames:
            rel = os.path.normpath(os.path.join(rel_dir, fn))
            if fn.endswith((".c", ".h")) and layer_of(rel)[0] is None:
                errors.append("%s: this C file is in no layer's folder; put it in one "
                              "(the table in meson.build, docs/architecture.md)" % rel)
    for name, folder, allowed in layers:
        top = os.path.join(args.root, folder)
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
            for fn in sorted(filenames):
                if not fn.endswith((".c", ".h")):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, fn), args.root)
                owner, own_allowed = layer_of(rel)
                if owner != name:
                    continue  # a deeper layer's folder inside this one
                with open(os.path.join(args.root, rel), encoding="utf-8") as f:
                    for lineno, line in enumerate(f, 1):
                        anyinc = ANY_INCLUDE.match(line)
                        if anyinc and anyinc.group(1) not in ('"', "<"):
                            errors.append("%s:%d: include a header by its name in quotes, "
                                          "not through a macro" % (rel, lineno))
                            continue
                        a = ANGLE.match(line)
                        if a and a.group(1).split("/")[0] in project_tops:
                            errors.append("%s:%d: <%s> is a project header: include it in "
                                          "quotes, spelled by its layer (\"core/stats.h\")" %
                                          (rel, lineno, a.group(1)))
                            continue
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        inc = m.group(1)
                        if ".." in inc.split("/"):
                            errors.append("%s:%d: \"%s\" walks up with '..'; spell the "
                                          "include by its layer (\"core/stats.h\")" % (rel, lineno, inc))
                            continue
                        if inc in ("config.h", "commit.h") or inc == "pmcbench.h" or inc.startswith("pmcbench/"):
                            continue
                        target, path = resolve(inc)
                        if target is None or not os.path.exists(os.path.join(args.root, path)):
                            if os.path.exists(os.path.join(dirpath, inc)):
                                here = os.path.relpath(dirpath, os.path.join(args.root, folder))
                                spelled = name + "/" + os.path.normpath(os.path.join(here, inc))
                                errors.append("%s:%d: spell the include by its layer: "
                                              "\"%s\"" % (rel, lineno, spelled))
                            elif not (name == "bench" or inc.endswith(".inc")):
                                errors.append("%s:%d: \"%s\" is not a project header; spell "
                                              "includes by layer (\"core/stats.h\")" % (rel, lineno, inc))
                            continue
                        if (name in MODEL and target == "counters" and
                                os.path.dirname(path) != folder_of["counters"]):
                            errors.append("%s:%d: the %s layer includes \"%s\", a backend's "
                                          "header; the model knows no backend: include "
                                          "counters/reading.h or counters/backend.h, and let "
                                          "the layer above hand down what the backend says "
                                          "(docs/architecture.md)" % (rel, lineno, name, inc))
                            continue
                        if target == name or target in own_allowed:
                            continue
                        errors.append("%s:%d: the %s layer includes \"%s\" of the %s layer; it may "
                                      "include only %s (docs/architecture.md)" %
                                      (rel, lineno, name, inc, target,
                                       ", ".join(sorted(own_allowed)) or "its own headers"))
    if errors:
        for e in errors:
            print(e, file=sys.stderr)
        return 1
    with open(args.stamp, "w") as f:
        f.write("ok\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
