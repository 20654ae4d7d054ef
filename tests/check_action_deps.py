#!/usr/bin/env python3
"""The apt packages of the CI action (ci/action/steps.sh, PMC_APT_LIBS) are exactly the
libraries meson.build requires: each dependency() and find_library() of the root
meson.build, mapped to its Debian -dev package through the table below, must be in the
action's list, and each package of the list must be required by one. A dependency
required only with an option (`required : get_option('X')`) counts unless the action
builds with -DX=disabled (PMC_MESON_OPTS).

    check_action_deps.py SOURCE_ROOT
    check_action_deps.py --self-test SOURCE_ROOT   the check fails where it must

Exit status 0 when they agree, 1 with one line per difference, 2 on bad input.
"""
import re
import sys

# pkg-config or library name -> Debian package; None: part of the C library or the
# compiler, nothing to install.
PACKAGE = {
    "jansson": "libjansson-dev",
    "libelf": "libelf-dev",
    "libdw": "libdw-dev",
    "sqlite3": "libsqlite3-dev",
    "libpq": "libpq-dev",
    "csv": "libcsv-dev",
    "iberty": "libiberty-dev",
    "cmocka": "libcmocka-dev",
    "capstone": "libcapstone-dev",
    "threads": None,
    "dl": None,
    "m": None,
}

CALL = re.compile(r"\b(dependency|find_library)\(\s*'([^']+)'([^)]*)\)", re.S)
OPTION = re.compile(r"required\s*:\s*get_option\(\s*'([^']+)'")
# A variable that holds an option, perhaps refined (tests_opt = get_option('tests')...),
# named in a required: (required : tests_opt).
OPTION_VAR = re.compile(r"^(\w+)\s*=\s*get_option\(\s*'([^']+)'\s*\)", re.M)
REQUIRED_VAR = re.compile(r"required\s*:\s*(\w+)")


def strip_comments(text):
    """meson.build without its comments (a # to the end of a line outside a string), the
    lines kept where they are so that line numbers still hold."""
    out = []
    for line in text.split("\n"):
        quoted = False
        for i, ch in enumerate(line):
            if ch == "'":
                quoted = not quoted
            elif ch == "#" and not quoted:
                line = line[:i]
                break
        out.append(line)
    return "\n".join(out)


def required(root):
    """The packages meson.build needs under the action's options, and the errors."""
    text = strip_comments(open(f"{root}/meson.build").read())
    option_of = dict(OPTION_VAR.findall(text))
    steps = open(f"{root}/ci/action/steps.sh").read()
    opts = re.search(r'^PMC_MESON_OPTS="([^"]*)"', steps, re.M)
    disabled = set(re.findall(r"-D([\w-]+)=disabled", opts.group(1) if opts else ""))
    need, errors = {}, []
    for m in CALL.finditer(text):
        kind, name, rest = m.groups()
        if not name:  # dependency('', required : false): the empty dependency
            continue
        opt = OPTION.search(rest)
        var = REQUIRED_VAR.search(rest)
        option = opt.group(1) if opt else option_of.get(var.group(1)) if var else None
        if option in disabled:
            continue
        if name not in PACKAGE:
            line = text.count("\n", 0, m.start()) + 1
            errors.append(f"meson.build:{line}: {kind}('{name}') has no Debian package in "
                          "tests/check_action_deps.py's table: add it there")
            continue
        if PACKAGE[name]:
            need[PACKAGE[name]] = f"{kind}('{name}')"
    return need, errors


def listed(root):
    steps = open(f"{root}/ci/action/steps.sh").read()
    m = re.search(r'^PMC_APT_LIBS="([^"]*)"', steps, re.M)
    if not m:
        print(f"{root}/ci/action/steps.sh: no PMC_APT_LIBS=\"...\" line", file=sys.stderr)
        sys.exit(2)
    return set(m.group(1).split())


def self_test(root):
    """Copies of the two files, each broken one way: the check must fail, naming it."""
    import contextlib, io, os, tempfile
    meson, steps = (open(f"{root}/{f}").read() for f in ("meson.build", "ci/action/steps.sh"))
    cases = [
        ("a package missing", meson, steps.replace(" libdw-dev", "", 1),
         "PMC_APT_LIBS lacks libdw-dev, which meson.build's dependency('libdw')"),
        ("a package too many", meson, steps.replace('PMC_APT_LIBS="', 'PMC_APT_LIBS="libzstd-dev ', 1),
         "PMC_APT_LIBS has libzstd-dev, which nothing in meson.build requires"),
        ("a dependency not in the table", meson + "\nzstd_dep = dependency('libzstd')\n", steps,
         "dependency('libzstd') has no Debian package"),
        ("the same, agreeing", meson, steps, None),
    ]
    bad = 0
    for what, m, s, want in cases:
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(f"{d}/ci/action")
            open(f"{d}/meson.build", "w").write(m)
            open(f"{d}/ci/action/steps.sh", "w").write(s)
            err = io.StringIO()
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                rc = check(d)
        ok = (rc == 0) if want is None else (rc == 1 and want in err.getvalue())
        print(f"{'ok' if ok else 'FAIL'}: {what}: exit {rc} {err.getvalue().strip()}")
        bad += not ok
    return 1 if bad else 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--self-test":
        return self_test(sys.argv[2])
    if len(sys.argv) != 2:
        print("usage: check_action_deps.py [--self-test] SOURCE_ROOT", file=sys.stderr)
        return 2
    return check(sys.argv[1])


def check(root):
    try:
        need, errors = required(root)
        have = listed(root)
    except OSError as e:
        print(f"check_action_deps.py: {e}", file=sys.stderr)
        return 2
    for pkg in sorted(set(need) - have):
        errors.append(f"ci/action/steps.sh: PMC_APT_LIBS lacks {pkg}, which meson.build's "
                      f"{need[pkg]} needs: the action's build would fail")
    for pkg in sorted(have - set(need)):
        errors.append(f"ci/action/steps.sh: PMC_APT_LIBS has {pkg}, which nothing in "
                      "meson.build requires: remove it")
    for e in errors:
        print(e, file=sys.stderr)
    if not errors:
        print(f"the action's packages match meson.build: {' '.join(sorted(have))}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
