#!/bin/sh
# What README's first command (sh ci/install-deps.sh && sh ci/build.sh) installs and
# builds, beside the full build of the tests (docs/testing.md, "What the first command
# builds"). Steps: ninja's dry run (ninja -n) of ci/build.sh's lean kind and of its plain
# kind (tests and benchmark programs), each configured, not built, in a temporary
# directory. Packages: apt-get's simulation of installing ci/install-deps.sh's packages,
# and those of --tests, on a minimal Debian: the packages of priority required and those
# they depend on, taken from this machine's dpkg status. Nothing is installed or built.
# Exits 1 when the lean build has a third of the full one's steps or more (judged only
# where the tests are configured, with ci/install-deps.sh --tests), 2 when the steps cannot
# be counted.
# Usage: ci/first-command.sh
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmcbench-first.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The number of steps ninja runs in a fresh build of ci/build.sh's kind $1.
steps() {
	if ! PMC_SETUP_ONLY=1 sh ci/build.sh "$1" "$tmp/$1" >"$tmp/$1.log" 2>&1; then
		echo "ci/first-command.sh: configuring the $1 build failed; meson said:" >&2
		tail -n 5 "$tmp/$1.log" >&2
		exit 2
	fi
	ninja -C "$tmp/$1" -n | sed -n 's|^\[[0-9]*/\([0-9]*\)\].*|\1|p' | tail -n 1
}
lean=$(steps lean)
full=$(steps plain)
tests=$(meson introspect --tests "$tmp/plain" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')
if [ -z "$lean" ] || [ -z "$full" ]; then
	echo "ci/first-command.sh: ninja -n printed no steps for the lean or the plain build" >&2
	exit 2
fi
what="$tests tests and the benchmark programs"
[ "$tests" -gt 0 ] || what="no tests: cmocka is not installed (ci/install-deps.sh --tests)"
echo "steps: $lean for the first command (ci/build.sh lean), $full for the full build" \
	"(ci/build.sh plain, $what): $((lean * 100 / full))%"

python3 - "$tmp" "$(sh ci/install-deps.sh --list)" "$(sh ci/install-deps.sh --list --tests)" <<'EOF_PY'
import os, re, subprocess, sys

tmp, lean, full = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
status = "/var/lib/dpkg/status"


def minimal_status():
    """Writes the dpkg status of a minimal Debian: this machine's packages of priority
    required (or essential) and, through Depends and Pre-Depends, those they need."""
    paras = [p for p in open(status).read().split("\n\n") if p.strip()]
    field = lambda p, f: (re.search(r"^%s: (.*)$" % f, p, re.M) or [None, None])[1]
    pkgs = {field(p, "Package"): p for p in paras if "install ok installed" in (field(p, "Status") or "")}
    provides = {}
    for name, p in pkgs.items():
        for v in (field(p, "Provides") or "").split(","):
            if v.strip():
                provides.setdefault(v.split()[0], name)
    keep = {n for n, p in pkgs.items() if field(p, "Priority") == "required" or field(p, "Essential") == "yes"}
    todo = list(keep)
    while todo:
        p = pkgs[todo.pop()]
        for f in ("Depends", "Pre-Depends"):
            for alt in (field(p, f) or "").split(","):
                names = [a.split()[0].split(":")[0] for a in alt.split("|") if a.strip()]
                if not names or any(n in keep for n in names):
                    continue
                got = next((n if n in pkgs else provides[n] for n in names if n in pkgs or n in provides), None)
                if got and got not in keep:
                    keep.add(got)
                    todo.append(got)
    path = os.path.join(tmp, "status")
    with open(path, "w") as out:
        out.write("\n\n".join(pkgs[n] for n in sorted(keep)) + "\n\n")
    return path, len(keep)


def simulate(path, names):
    """(the packages newly installed, the MB they take, by their Installed-Size), or
    (None, why)."""
    p = subprocess.run(["apt-get", "-s", "-o", "Dir::State::status=" + path, "install",
                        "--no-install-recommends"] + names, capture_output=True, text=True)
    new = re.findall(r"^Inst (\S+) \(", p.stdout, re.M)
    if p.returncode != 0 or not new:
        last = (p.stderr.strip() or p.stdout.strip() or "no output").splitlines()[-1]
        return None, "apt-get -s failed: " + last
    show = subprocess.run(["apt-cache", "show", "--no-all-versions"] + new, capture_output=True,
                          text=True).stdout
    kib = [int(k) for k in re.findall(r"^Installed-Size: (\d+)$", show, re.M)]
    if len(kib) != len(new):
        return len(new), "size not measured"
    return len(new), "%d MB" % round(sum(kib) * 1024 / 1e6)


if not os.path.exists(status) or subprocess.run(["sh", "-c", "command -v apt-get"],
                                                 capture_output=True).returncode != 0:
    print("packages: not measured (no apt-get or dpkg status: not a Debian machine)")
    sys.exit(0)
path, base = minimal_status()
nl, sl = simulate(path, lean)
nf, sf = simulate(path, full)
if nl is None or nf is None:
    print("packages: not measured (%s)" % (sl if nl is None else sf))
    sys.exit(0)
print("packages: %d (%s) for the first command (ci/install-deps.sh), %d (%s) for the tests' "
      "(--tests): %d%%, on a minimal Debian of %d packages (apt-get -s)" % (nl, sl, nf, sf, nl * 100 // nf, base))
EOF_PY

# Without the tests' packages the full build here is not the full build: nothing to judge.
if [ "$tests" -gt 0 ] && [ $((lean * 3)) -ge "$full" ]; then
	echo "ci/first-command.sh: the first command builds $lean steps, a third of the full" \
		"build's $full or more" >&2
	exit 1
fi
