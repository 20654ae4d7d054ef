#!/usr/bin/env python3
"""Every internal function that only the tests call says why (issue 33, item 8).

A function declared in a project header (not in include/, the public API) whose name no
C file outside tests/ uses beyond its definition is a seam for the tests, or dead code.
A seam says so in the comment block right above its declaration ("Seam for the tests:
why"); dead code is removed. Comments and string literals do not count as uses.

    check_seams.py ROOT          # the check (exit 1, one line per function, when one lacks it)
    check_seams.py --self-test ROOT
"""
import collections
import os
import re
import sys

SOURCES = ("harness", "counters", "reporters", "bench")
MARK = "Seam for the tests"
NAME = re.compile(r"\bpmc_\w+\b")
DEFINITION = re.compile(r"^[A-Za-z_][\w \t*]*?\b(pmc_\w+)\s*\([^;{]*\)\s*\{", re.M)
DECL = re.compile(r"^(?!static\b)(?!typedef\b)(?!extern\b)[A-Za-z_][\w \t*]*?\b(pmc_\w+)\s*\(", re.M)


def strip(text):
    """The text without comments and string literals, its lines kept."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r'"(\\.|[^"\\\n])*"', '""', text)


def walk(root, dirs, ext):
    for d in dirs:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, d)):
            dirnames[:] = [n for n in dirnames if not n.startswith(".")]
            for f in sorted(filenames):
                if f.endswith(ext):
                    yield os.path.join(dirpath, f)


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def block_above(lines, i):
    """The lines above line i up to the first blank one: its comment and the
    declarations that share it."""
    out = []
    while i > 0 and lines[i - 1].strip():
        i -= 1
        out.append(lines[i])
    return "\n".join(out)


def problems(root):
    declared = {}  # name -> (header, line index)
    for h in walk(root, SOURCES, ".h"):
        code = strip(read(h))  # as many lines as the file
        for m in DECL.finditer(code):
            declared.setdefault(m.group(1), (h, code.count("\n", 0, m.start())))
    public = set()
    for h in walk(root, ("include",), ".h"):
        public |= set(re.findall(r"\b(pmc_\w+)\s*\(", strip(read(h))))
    sources = "\n".join(strip(read(c)) for c in walk(root, SOURCES, ".c"))
    named = collections.Counter(NAME.findall(sources))
    defined = collections.Counter(DEFINITION.findall(sources))
    tests = set()
    for t in list(walk(root, ("tests",), ".c")) + list(walk(root, ("tests",), ".h")):
        tests |= set(NAME.findall(strip(read(t))))
    out = []
    for name, (header, line) in sorted(declared.items()):
        if name in public or named[name] > defined[name] or name not in tests:
            continue
        if MARK in block_above(read(header).split("\n"), line):
            continue
        out.append("%s:%d: %s is called only by the tests: say why above its declaration "
                   "(\"/* %s: ... */\") or remove it" %
                   (os.path.relpath(header, root), line + 1, name, MARK))
    return out


def self_test():
    """A tree with one seam said, one unsaid, one used, one public: only the unsaid one."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "harness", "2-core"))
        os.makedirs(os.path.join(d, "include", "pmcbench"))
        os.makedirs(os.path.join(d, "tests"))
        files = {
            "harness/2-core/x.h": "/* Seam for the tests: a reason. */\nint pmc_said(void);\n\n"
                                  "/* Not said. */\nint pmc_unsaid(void);\nint pmc_used(void);\n"
                                  "int pmc_open(void);\n",
            "harness/2-core/x.c": "int pmc_said(void)\n{\n\treturn 1;\n}\n"
                                  "int pmc_unsaid(void)\n{\n\treturn 2; /* pmc_unsaid() */\n}\n"
                                  "int pmc_used(void)\n{\n\treturn pmc_said() * 0 + 3;\n}\n",
            "harness/2-core/y.c": "int f(void) { return pmc_used(); }\n",
            "include/pmcbench/p.h": "int pmc_open(void);\n",
            "tests/t.c": "int main(void) { return pmc_said() + pmc_unsaid() + pmc_open(); }\n",
        }
        for rel, text in files.items():
            with open(os.path.join(d, rel), "w") as f:
                f.write(text)
        got = problems(d)
    want = ["harness/2-core/x.h:5: pmc_unsaid is called only by the tests"]
    if len(got) != 1 or not got[0].startswith(want[0]):
        print("check_seams self-test: got %r, want one line starting %r" % (got, want[0]))
        return 1
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "--self-test":
        return self_test()
    if len(argv) != 2:
        print("usage: check_seams.py [--self-test] ROOT", file=sys.stderr)
        return 2
    out = problems(argv[1])
    for line in out:
        print(line, file=sys.stderr)
    return 1 if out else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
