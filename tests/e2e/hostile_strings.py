#!/usr/bin/env python3
"""Every string field of a result, a profile or a history, made hostile, through every
command and format that prints it (issue 35, item 4): no control character may leave
pmcbench raw, on stdout, stderr or in a text report file, and JSON must give the value
back as it was.

Usage: hostile_strings.py PMCBENCH KIND FILE [FILE2]
  result R.json             every field of R.json, in compare, gate and history
  profile P.json            every field of P.json, in report (and its --diff, --folded)
  explain BASE.json NEW.json  the gate's explanation from the profiles of BASE and NEW
  run                       names given to run (-n), its headline, -r auto's lines
Prints one line per escape found (field, command, the bytes around it) and exits 1 when
there was any; 0 when none.
"""
import copy
import json
import os
import re
import shutil
import subprocess
import sys

# An OSC title, an OSC 52 clipboard write, a screen clear and home, a carriage return
# forging a line, BEL, backspace, DEL, CSI as a C1 control in UTF-8 and pmcbench's own red
# (output that is not a terminal gets no colour, so even that one must not pass).
HOSTILE = ("\x1b]0;pwned\x07\x1b]52;c;cHduZWQ=\x07\x1b[2J\x1b[H\rPASS\x01\x08\x7f"
           "\u009b2J\x1b[1;31m")
# What a raw control looks like in bytes: C0 but newline and tab, DEL, C1 as UTF-8.
RAW = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]")

PMC = sys.argv[1]
found = []
ran = 0


def check(label, data):
    for m in RAW.finditer(data):
        a = max(0, m.start() - 20)
        found.append("%s: raw %r in ...%r..." % (label, m.group(), data[a:m.end() + 20]))
        return


def run(label, args, files=(), stdin=None):
    """Runs pmcbench ARGS; checks its outputs and the text files it wrote."""
    global ran
    for f in files:
        if os.path.exists(f):
            os.unlink(f)
    p = subprocess.run([PMC] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=dict(os.environ, COLUMNS="200"), stdin=stdin, timeout=120)
    ran += 1
    if p.returncode not in (0, 1, 2, 3):
        found.append("%s: %s exited %d" % (label, " ".join(args[:3]), p.returncode))
    what = "%s [%s]" % (label, " ".join(a for a in args if len(a) < 30))
    check(what + " stdout", p.stdout)
    check(what + " stderr", p.stderr)
    for f in files:
        if os.path.exists(f):
            with open(f, "rb") as fh:
                check(what + " " + f, fh.read())
    return p


def strings(x, path=()):
    """The paths of every string value and of every key of an object, in x."""
    if isinstance(x, dict):
        for k, v in x.items():
            yield path + (("key", k),)
            yield from strings(v, path + (k,))
    elif isinstance(x, list):
        # The first two of an array: the others are read by the same code.
        for i, v in enumerate(x[:2]):
            yield from strings(v, path + (i,))
    elif isinstance(x, str):
        yield path


def poisoned(doc, path):
    d = copy.deepcopy(doc)
    node = d
    for step in path[:-1]:
        node = node[step]
    last = path[-1]
    if isinstance(last, tuple):
        k = last[1]
        node[k + HOSTILE] = node.pop(k)
    else:
        node[last] = node[last] + HOSTILE
    return d


def poisoned_all(doc, paths):
    """doc with every field of paths hostile: values first, then keys, the deepest
    first (a key renamed takes the paths under it away)."""
    for p in sorted(paths, key=lambda p: (isinstance(p[-1], tuple), -len(p))):
        doc = poisoned(doc, p)
    return doc


def dump(doc, name):
    with open(name, "w") as f:
        json.dump(doc, f)


def loads(args, name):
    """Whether pmcbench ARGS did not fail (exit 2), or, with name, did not fail to load
    the file name (a load error names its file first)."""
    p = run("probe", args)
    if name is None:
        return p.returncode != 2
    return p.returncode != 2 or not p.stderr.startswith(b"pmcbench: " + name.encode() + b":")


def label_of(path):
    return "/".join("{%s}" % s[1] if isinstance(s, tuple) else str(s) for s in path)


def name_poisoned(doc, p):
    """doc with the field p hostile when it is a name that pairs the two sides: a
    benchmark's name, a metric's id."""
    if p[0] == "benchmarks" and (p[2:] == ("name",) or (len(p) == 4 and p[2] == "metrics")):
        return poisoned(doc, p)
    return doc


def result_commands(old, new, label, db):
    r = []
    r.append(run(label, ["compare", old, new, "--report", "r.md", "--export", "e.md",
                         "--export", "e.txt"], ["r.md", "e.md", "e.txt"]))
    r.append(run(label, ["compare", "--format", "markdown", new, old]))
    r.append(run(label, ["compare", "--format", "csv", old, new]))
    j = run(label, ["compare", "--format", "json", old, new])
    r.append(j)
    r.append(run(label, ["compare", "--format", "brief", old, new]))
    r.append(run(label, ["gate", "--baseline", old, new, "--threshold", "task-clock=+5%",
                         "--report", "g.md"], ["g.md"]))
    r.append(run(label, ["gate", "--baseline", new, old, "--format", "markdown"]))
    if os.path.exists(db):
        os.unlink(db)
    add = run(label, ["history", "add", "--db", db, "--commit", "a" * 40, old])
    run(label, ["history", "add", "--db", db, "--commit", "b" * 40, new])
    if add.returncode == 0:
        for bench, metric in bench_metrics(new):
            run(label, ["history", "show", "--db", db, bench, metric])
            break
        run(label, ["history", "list", "--db", db])
        run(label, ["history", "list", "--db", db, "--machine"])
        run(label, ["history", "export", "--db", db])
        run(label, ["history", "export", "--db", db, "--format", "json"])
        run(label, ["history", "export", "--db", db, "-o", "x.csv"], ["x.csv"])
        run(label, ["history", "changes", "--db", db])
        run(label, ["history", "gate", "--db", db, new, "--threshold", "task-clock=+5%"])
    return j


def bench_metrics(path):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return
    for b in doc.get("benchmarks", []):
        for m in b.get("metrics", {}):
            yield b["name"], m


def has_value(x, want):
    if isinstance(x, str):
        return x == want or x.endswith(want)
    if isinstance(x, dict):
        return any(has_value(k, want) or has_value(v, want) for k, v in x.items())
    if isinstance(x, list):
        return any(has_value(v, want) for v in x)
    return False


def kind_result(path):
    with open(path) as f:
        clean = json.load(f)
    # The new side regresses, so that rows, verdicts and the gate's lines all print.
    slow = copy.deepcopy(clean)
    for b in slow["benchmarks"]:
        m = b.get("metrics", {}).get("task-clock")
        if m:
            m["samples"] = [v * 1.5 if isinstance(v, (int, float)) else v
                            for v in m["samples"]]
    accepted, refused = [], []
    for p in strings(clean):
        if p == ("schema",) or p[-1] == ("key", "schema"):
            continue
        label = label_of(p)
        # One field at a time: the file loads (its own comparison), and then pairs with
        # a clean one; either is checked for escapes, and a field that refuses the pair
        # (another backend, another command) is left out of the pair of all fields.
        dump(poisoned(slow, p), "new.json")
        if not loads(["compare", "new.json", "new.json"], "new.json"):
            refused.append(label)
            continue
        dump(name_poisoned(clean, p), "old.json")
        if loads(["compare", "old.json", "new.json"], None):
            accepted.append(p)
    # Every field that pairs, hostile at once on the new side; names (benchmarks, metric
    # ids) hostile on both sides, so that the rows still pair.
    new = poisoned_all(slow, accepted)
    old = poisoned_all(clean, [p for p in accepted if name_poisoned(clean, p) is not clean])
    dump(new, "new.json")
    dump(old, "old.json")
    j = result_commands("old.json", "new.json", "all fields", "h.db")
    shown("compare, all fields", run("all fields", ["compare", "old.json", "new.json"]))
    try:
        doc = json.loads(j.stdout)
    except ValueError:
        found.append("compare --format json: not JSON: %r" % j.stdout[:200])
        doc = None
    if doc is not None and not has_value(doc, HOSTILE):
        found.append("compare --format json: the hostile names do not come back as given")
    print("result: %d fields accepted, %d refused (%s)" %
          (len(accepted), len(refused), ", ".join(refused)))


def kind_profile(path):
    with open(path) as f:
        clean = json.load(f)
    dump(clean, "p0.json")
    accepted = []
    for p in strings(clean):
        if p == ("schema",):
            continue
        dump(poisoned(clean, p), "p1.json")
        if loads(["report", "p1.json"], "p1.json"):
            accepted.append(p)
    dump(poisoned_all(clean, accepted), "p1.json")
    for args in (["report", "p1.json", "--svg", "p1.svg"], ["report", "p1.json", "--folded"],
                 ["report", "p1.json", "--by", "comm"], ["report", "p1.json", "--by", "object"],
                 ["report", "--diff", "p0.json", "p1.json"]):
        shown(" ".join(args), run("profile", args, ["p1.svg"]))
    print("profile: %d fields accepted" % len(accepted))


def kind_explain(base, new):
    """The profiles beside each result (BASE.profiles/, NEW.profiles/), every field of
    theirs hostile, and the gate that explains its regression with them."""
    for side in (base, new):
        d = side[:-len(".json")] + ".profiles"
        for name in os.listdir(d):
            if not name.endswith(".json"):
                continue
            with open(os.path.join(d, name)) as f:
                doc = json.load(f)
            accepted = []
            for p in strings(doc):
                if p == ("schema",) or isinstance(p[-1], tuple):
                    continue
                dump(poisoned(doc, p), "probe.json")
                if loads(["report", "probe.json"], "probe.json"):
                    accepted.append(p)
            dump(poisoned_all(doc, accepted), os.path.join(d, name))
    p = run("explain", ["gate", "--force", "--baseline", base, new, "--metric",
                        "instructions", "--report", "x.md"], ["x.md"])
    shown("explain", p, ["x.md"])
    p = run("explain", ["gate", "--force", "--baseline", base, new, "--metric",
                        "instructions", "--format", "markdown"])
    shown("explain, markdown", p)


def shown(label, p, files=()):
    """The names must be there, escaped: a command that printed none of them proves
    nothing."""
    text = p.stdout + p.stderr
    for f in files:
        if os.path.exists(f):
            with open(f, "rb") as fh:
                text += fh.read()
    if b"pwned" not in text:
        found.append("%s: the hostile name is not shown at all" % label)


def kind_run():
    h = "n" + HOSTILE
    two = ["-n", h + "a", "-c", "true", "-n", h + "b", "-c", "true"]
    cases = [
        ("two commands", ["run", "-r", "3", "-w", "0"] + two),
        ("two commands, markdown", ["run", "-r", "3", "-w", "0", "--format", "markdown"] + two),
        ("the reference", ["run", "-r", "3", "-w", "0", "-n", h + "c", "-c", "true"] + two),
        ("-r auto", ["run", "-r", "auto", "--max-runs", "10", "-w", "0", "--threshold",
                     "task-clock=+50%"] + two),
        ("-r auto, markdown", ["run", "-r", "auto", "--max-runs", "10", "-w", "0",
                               "--format", "markdown", "--threshold", "task-clock=+50%"] + two),
        ("one command", ["run", "-r", "3", "-w", "0", "-n", h, "-o", "r.json", "--", "true"]),
        ("--baseline", ["run", "-r", "3", "-w", "0", "-n", h, "--baseline", "r.json", "--",
                        "true"]),
    ]
    for label, args in cases:
        p = run(label, args + ["--report", "rr.md"], ["rr.md"])
        shown(label, p, ["rr.md"])


kind = sys.argv[2]
if kind == "result":
    kind_result(sys.argv[3])
elif kind == "profile":
    kind_profile(sys.argv[3])
elif kind == "explain":
    kind_explain(sys.argv[3], sys.argv[4])
elif kind == "run":
    kind_run()
else:
    sys.exit("hostile_strings.py: unknown kind %r" % kind)
print("%d commands run, %d escapes found" % (ran, len(found)))
for line in found[:60]:
    print(line)
sys.exit(1 if found else 0)
