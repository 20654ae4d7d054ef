#!/usr/bin/env python3
"""Runs every shell command that README.md and docs/ci.md show, as the docs write them.

Usage: test_readme_commands.py SRCDIR BUILDDIR [--list]

Every table of the documents must render (a header and delimiter row above its rows).
The commands are extracted, never retyped: the lines of ```sh, ```bash and ```shell
blocks (a line ending in a backslash goes on), the `$ ` lines of ```console blocks, and
the indented code blocks whose first word is a command (docs/ci.md's); a ```c block
whose first line is `/* NAME */` is written to NAME. Each document's commands run in
order, with bash, in one temporary directory holding stand-ins for what the docs leave
to the reader: ./my-prog, two builds of it (old/, new/, old-build, new-build: the new one
does twice the work, in parse_header and checksum), big.txt, prog.c, a git repository,
build/ (this build) and pmcbench on PATH, and the library staged with `meson install`
into a DESTDIR for pkg-config. A chain `A && B` runs its parts one by one.

Each command must exit 0, or with the status EXPECT gives it (and why). Shown output is
checked where the docs show it: in a shell block, the comment lines `#   TEXT` (a hash and
two or more spaces) after a command; in a console block, the lines after a `$ ` line.
Each shown line must appear in the command's output (stdout and stderr), in the order
shown, with every number masked (`2.31x` matches `1.95x`, never `faster` for `slower`),
spaces collapsed, and `...` matching anything.

A command this machine cannot run is listed in ALLOWED with the reason; some of them run
where the machine allows (a PMU, root). An ALLOWED entry that matches no command fails,
as does a document without commands: the list stays the list of what is not run.
--list prints each command with what is done with it."""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

DOCS = ["README.md", "docs/ci.md"]

# (pattern over the command, reason, when it runs anyway: None, "pmu" or "root")
ALLOWED = [
    (r"^sh ci/install-deps\.sh\b", "installs packages with apt-get", None),
    (r"^(sh |bash )?ci/build\.sh\b", "builds the tree (minutes); this test runs from that build", None),
    (r"^bash ci/test\.sh\b", "the whole CI: installs, builds four times, runs every test", None),
    (r"^meson test\b", "runs the suite this test is part of", None),
    (r"^(DESTDIR=\S+ )?meson install\b", "installs into the system; this test and tests/install/ "
     "install into a DESTDIR", None),
    (r"\bldconfig\b", "changes the system's loader cache, after an install into it", None),
    (r"^(bash |sh )?bench/\S+\.sh\b", "benchmarks of pmcbench itself: minutes each, and they time "
     "things, which tests never do", None),
    (r"--threshold instructions=\+1%", "gates on hardware instructions: needs a PMU", "pmu"),
    (r"--syscalls|--threshold syscalls:", "counts system calls with tracepoints: needs root and "
     "tracefs", "root"),
    (r"\$PMC_[A-Z_]+", "a step of the CI action (ci/action/steps.sh), with the action's inputs "
     "as variables (tests/e2e/t_action.sh runs these steps)", None),
    (r"try-github-actions\.py", "runs a whole workflow, which clones and builds pmcbench", None),
]

# (pattern over the command, the statuses it may exit with, why)
EXPECT = [
    (r"-c \./new-build .*--gate|-c \./new/my-prog .*--gate", {1},
     "the stand-in new build does twice the work"),
    (r"gate --baseline (base-vg|base)\.json new-vg\.json", {1},
     "new/my-prog runs more instructions than old/my-prog"),
    (r"^\./bench --against \./bench-old .*--gate", {0, 1},
     "an A/A timing gate of one benchmark program against a copy of itself, paired: "
     "which verdict is the machine's noise, at alpha"),
]

MY_PROG = r"""
#include <stdio.h>
#include <string.h>
#ifndef WORK
#define WORK 1
#endif
static char buf[4096];

__attribute__((noinline)) static unsigned long parse_header(void)
{
	volatile unsigned long x = 0;
	for (unsigned long i = 0; i < 3000000ul * WORK; i++)
		x += i;
	return x;
}

__attribute__((noinline)) static unsigned long checksum(void)
{
	volatile unsigned long x = 0;
	for (unsigned long i = 0; i < 300000ul * WORK; i++)
		x ^= buf[i % sizeof(buf)] + i;
	return x;
}

int main(void)
{
	FILE *f = fopen("/dev/null", "r");

	memset(buf, 1, sizeof(buf));
	if (f)
		fclose(f);
	printf("%lu\n", parse_header() + checksum());
	return 0;
}
"""

PROG_C = r"""
#include <pmcbench.h>

static void add(struct pmc_state *s)
{
	unsigned x = 0;
	while (pmc_loop(s))
		pmc_do_not_optimize(x++);
}
PMC_BENCHMARK(add);

int main(int argc, char **argv) { return pmc_main(argc, argv); }
"""


class Command:
    def __init__(self, doc, line, text, console=False):
        self.doc, self.line, self.text, self.shown = doc, line, text, []
        self.console = console

    def where(self):
        return "%s:%d" % (self.doc, self.line)


def is_command_word(line):
    word = line.split()[0] if line.split() else ""
    return (word in ("pmcbench", "python3", "sh", "bash", "cc", "meson", "ninja", "git", "sudo")
            or word.startswith(("./", "build/", "bench/", "ci/")))


def shell_lines(doc, start, lines, commands):
    """The commands of a shell block: full-line comments are prose, `#   TEXT` shown output."""
    cur = None
    i = 0
    while i < len(lines):
        raw = lines[i]
        s = raw.strip()
        n = start + i
        i += 1
        if not s:
            continue
        m = re.match(r"#( {2,}.*)$", s)
        if m:
            if cur is not None:
                cur.shown.append(m.group(1).strip())
            continue
        if s.startswith("#"):
            continue
        text = s
        while text.endswith("\\") and i < len(lines):
            text = text[:-1].rstrip() + " " + lines[i].strip()
            i += 1
        cur = Command(doc, n, text)
        commands.append(cur)


def extract(srcdir, doc):
    """The commands of one document, and the files its C blocks name."""
    lines = open(os.path.join(srcdir, doc), encoding="utf-8").read().split("\n")
    commands, files = [], []
    i = 0
    while i < len(lines):
        m = re.match(r"^\s*```(\w*)", lines[i])
        if m:
            info, j = m.group(1), i + 1
            while j < len(lines) and not re.match(r"^\s*```\s*$", lines[j]):
                j += 1
            body = lines[i + 1:j]
            if info in ("sh", "bash", "shell"):
                shell_lines(doc, i + 2, body, commands)
            elif info == "console":
                cur = None
                for k, l in enumerate(body):
                    if l.startswith("$ "):
                        cur = Command(doc, i + 2 + k, l[2:].strip(), console=True)
                        commands.append(cur)
                    elif cur is not None and l.strip():
                        cur.shown.append(l.strip())
            elif info == "c" and body:
                name = re.match(r"^/\* (\S+) \*/$", body[0].strip())
                if name:
                    files.append((name.group(1), "\n".join(body) + "\n", len(commands)))
            i = j + 1
            continue
        # An indented code block: after a blank line, 4 spaces or more.
        if (lines[i].startswith("    ") and lines[i].strip() and (i == 0 or not lines[i - 1].strip())):
            j = i
            while j < len(lines) and (lines[j].startswith("    ") or not lines[j].strip()):
                if not lines[j].strip() and (j + 1 >= len(lines) or not lines[j + 1].startswith("    ")):
                    break
                j += 1
            if is_command_word(lines[i].strip()):
                shell_lines(doc, i + 1, lines[i:j], commands)
            i = j
            continue
        i += 1
    return commands, files


def broken_tables(srcdir, doc):
    """Runs of table rows that GitHub renders as text: rows without a header and its
    delimiter row (a paragraph inside a table splits it)."""
    lines = open(os.path.join(srcdir, doc), encoding="utf-8").read().split("\n")
    bad, fence, i = [], False, 0
    while i < len(lines):
        if lines[i].lstrip().startswith("```"):
            fence = not fence
        if fence or not lines[i].startswith("|"):
            i += 1
            continue
        if i + 1 >= len(lines) or not re.match(r"^\|(\s*:?-+:?\s*\|)+\s*$", lines[i + 1]):
            bad.append("%s:%d: table rows without a header and delimiter row: a paragraph "
                       "splits the table, or the rows lack a header" % (doc, i + 1))
        while i < len(lines) and lines[i].startswith("|"):
            i += 1
    return bad


def split_chain(text):
    """`A && B` as [A, B], outside quotes, without a trailing comment."""
    parts, cur, quote, k = [], "", None, 0
    while k < len(text):
        c = text[k]
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "#" and (not cur or cur[-1].isspace()):
            break  # a comment: bash would not run it
        elif text.startswith(" && ", k):
            parts.append(cur.strip())
            cur, k = "", k + 4
            continue
        cur += c
        k += 1
    parts.append(cur.strip())
    return parts


def mask(line):
    line = re.sub(r"\d+(?:[.,]\d+)*", "N", line)
    return " ".join(line.split())


def shown_in_order(shown, output):
    out = [mask(l) for l in output.split("\n")]
    k = 0
    for want in shown:
        pat = re.escape(mask(want)).replace(re.escape("..."), ".*").replace(re.escape("…"), ".*")
        while k < len(out) and not re.fullmatch(pat, out[k]):
            k += 1
        if k == len(out):
            return want
        k += 1
    return None


def self_check():
    """The output check tells a wrong word or order from other numbers, or this test could
    pass on any output."""
    out = "note\nc ran\n  3.22x faster than a [3.17x, 3.25x] (x)\n  1.7x faster than b [1.71x, 1.77x] (x)\n"
    ok = ["c ran", "1.87x faster than a [1.86x, 1.87x] (x)", "3.61x faster than b [3.59x, 3.62x] (x)"]
    assert shown_in_order(ok, out) is None
    assert shown_in_order(["c ran", "... than b ..."], out) is None
    assert shown_in_order([ok[0], ok[2], ok[1]], out) == ok[1]
    assert shown_in_order(["1.87x slower than a [1.86x, 1.87x] (x)"], out)
    assert shown_in_order(["c ran x"], out)
    assert split_chain("a 'x && y' && b # c && d") == ["a 'x && y'", "b"]


def run(cmd, tmp, env, timeout=600):
    p = subprocess.run(["bash", "-c", cmd], cwd=tmp, env=env, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def setup(tmp, srcdir, builddir):
    env = dict(os.environ)
    bindir = os.path.join(tmp, ".bin")
    os.makedirs(bindir)
    os.symlink(os.path.join(builddir, "harness", "7-cli", "pmcbench"), os.path.join(bindir, "pmcbench"))
    os.symlink(builddir, os.path.join(tmp, "build"))
    env.update(PATH=bindir + ":" + env.get("PATH", "/usr/bin:/bin"), HOME=tmp, LC_ALL="C.UTF-8",
               GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.org", GIT_CONFIG_NOSYSTEM="1")
    for k in ("GITHUB_SHA", "GITHUB_REF_NAME", "GITHUB_ACTIONS", "CI", "PMCBENCH_HISTORY", "NO_COLOR"):
        env.pop(k, None)
    open(os.path.join(tmp, "my-prog.c"), "w").write(MY_PROG)
    open(os.path.join(tmp, "prog.c"), "w").write(PROG_C)
    builds = [("my-prog", 1), ("old/my-prog", 1), ("new/my-prog", 2), ("old-build", 1), ("new-build", 2)]
    for out, work in builds:
        os.makedirs(os.path.dirname(os.path.join(tmp, out)), exist_ok=True)
        subprocess.run(["cc", "-O1", "-g", "-fno-omit-frame-pointer", "-DWORK=%d" % work, "-o", out,
                        "my-prog.c"], cwd=tmp, check=True)
    # Text that gzip -9 compresses much more slowly than gzip -1: words in a fixed
    # pseudo-random order (an LCG), 1 MiB.
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa",
             "lambda", "mu", "nu", "xi", "omicron", "pi", "rho", "sigma", "tau", "upsilon"]
    x, out, size = 12345, [], 0
    while size < 1 << 20:
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        out.append(words[(x >> 16) % len(words)] + ("\n" if x % 13 == 0 else " "))
        size += len(out[-1])
    open(os.path.join(tmp, "big.txt"), "w").write("".join(out))
    subprocess.run("git init -q . && git add my-prog.c && git commit -qm stand-in", shell=True,
                   cwd=tmp, env=env, check=True)
    # The library as `meson install` puts it, in a DESTDIR, found by pkg-config.
    dest = os.path.join(tmp, ".stage")
    r = subprocess.run(["meson", "install", "-C", builddir, "--no-rebuild", "--quiet",
                        "--destdir", dest], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        sys.exit("meson install into a DESTDIR failed:\n" + r.stdout.decode())
    pcs = glob.glob(dest + "/**/pkgconfig/pmcbench.pc", recursive=True)
    libs = glob.glob(dest + "/**/libpmcbench.so", recursive=True)
    if not pcs or not libs:
        sys.exit("meson install put no pmcbench.pc or libpmcbench.so under " + dest)
    env.update(PKG_CONFIG_PATH=os.path.dirname(pcs[0]), PKG_CONFIG_SYSROOT_DIR=dest,
               LD_LIBRARY_PATH=os.path.dirname(libs[0]))
    return env


def machine_has(what, env, tmp):
    if what == "root":
        return os.geteuid() == 0 and os.path.isdir("/sys/kernel/tracing/events/syscalls")
    if what == "pmu":
        r, _ = run("pmcbench run -q -r 1 -w 0 -e instructions --require-counters -- true", tmp, env)
        return r == 0
    return False


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: test_readme_commands.py SRCDIR BUILDDIR [--list]")
    srcdir, builddir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    listing = "--list" in sys.argv[3:]
    if "--sanitized" in sys.argv[3:] and not listing:
        print("1..0 # SKIP a sanitized build: programs built against its library need the "
              "sanitizers' runtime, which README's cc lines do not link")
        return 77
    missing = [t for t in ("valgrind", "gzip", "git", "cc", "pkg-config", "meson")
               if not shutil.which(t)]
    if missing and not listing:
        print("1..0 # SKIP README's commands use %s, which this machine lacks" % ", ".join(missing))
        return 77
    self_check()
    used, expected = set(), set()
    failures, ran, allowed = [], 0, []
    for doc in DOCS:
        failures += broken_tables(srcdir, doc)
        commands, files = extract(srcdir, doc)
        if not commands:
            failures.append("%s: no command found: the extraction is broken" % doc)
            continue
        tmp = tempfile.mkdtemp(prefix="pmc-readme-")
        try:
            env = setup(tmp, srcdir, builddir) if not listing else {}
            for idx, c in enumerate(commands):
                for name, text, before in files:
                    if before == idx:
                        open(os.path.join(tmp, name), "w").write(text)
                for part in split_chain(c.text):
                    hit = next((a for a in ALLOWED if re.search(a[0], part)), None)
                    if hit:
                        used.add(hit[0])
                        if listing or not hit[2] or not machine_has(hit[2], env, tmp):
                            allowed.append("%s: not run: %s: %s" % (c.where(), part, hit[1]))
                            print("# not run, %s: %s (%s)" % (c.where(), part, hit[1]))
                            continue
                    exp = next((e for e in EXPECT if re.search(e[0], part)), None)
                    want = exp[1] if exp else {0}
                    if exp:
                        expected.add(exp[0])
                    if listing:
                        print("# run, %s: %s (exit %s)" % (c.where(), part, "/".join(map(str, sorted(want)))))
                        continue
                    status, output = run(part, tmp, env)
                    ran += 1
                    print("# %s: exit %d: %s" % (c.where(), status, part), flush=True)
                    if status not in want:
                        failures.append("%s: '%s' exited %d, expected %s%s\n%s" % (
                            c.where(), part, status, " or ".join(map(str, sorted(want))),
                            " (%s)" % exp[2] if exp else "", output[-3000:]))
                        break
                    missing = shown_in_order(c.shown, output) if part == split_chain(c.text)[-1] else None
                    if missing:
                        failures.append("%s: '%s' does not print what the docs show, from: %s\n"
                                        "--- its output:\n%s" % (c.where(), part, missing, output[-4000:]))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    for a in ALLOWED:
        if a[0] not in used:
            failures.append("ALLOWED has '%s' (%s), which no command of %s matches: remove it"
                            % (a[0], a[1], " or ".join(DOCS)))
    for e in EXPECT:
        if e[0] not in expected:
            failures.append("EXPECT has '%s' (%s), which no command run matches: remove it"
                            % (e[0], e[2]))
    for f in failures:
        print("FAIL: " + f, file=sys.stderr)
    if not listing:
        print("%d commands run, %d not run (listed), %d failures" % (ran, len(allowed), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
