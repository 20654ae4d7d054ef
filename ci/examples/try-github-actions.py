#!/usr/bin/env python3
"""Run a GitHub Actions workflow's shell steps on this machine, before pushing it.

    try-github-actions.py WORKFLOW --event pull_request --base main [--head REF]
    try-github-actions.py WORKFLOW --event push [--head REF]

Each job whose `if:` holds runs as GitHub would run it: every `run:` step with
`bash --noprofile --norc -eo pipefail`, the workflow's, job's and step's `env:`, the
`if:` of each step, and $GITHUB_ENV, $GITHUB_PATH, $GITHUB_OUTPUT, $GITHUB_STEP_SUMMARY
between steps. The actions it uses are replaced by local stand-ins: actions/checkout
clones this repository (its commits, not uncommitted changes), actions/cache keeps
entries in a directory that later runs share (so a push run saves what a pull-request
run restores), actions/upload-artifact copies files. Everything goes under --work; each
job's summary is printed at the end. Exit status: the first failed job's step's, else 0.

A composite action runs step by step as well, with its inputs and its own steps
context: `uses: ./DIR`, or `uses: OWNER/pmcbench@REF` with --action DIR naming the local
checkout of pmcbench that stands in for it (its action.yml). actions/cache restores at
its step and saves when the job ends, as GitHub's post step does.

--env NAME=VALUE overrides the workflow's env (a quicker BENCHMARKS; PMC_APT=check and
PMC_SYSCTL=dry-run make the action check its packages and sudo instead of installing and
changing the machine); --skip NAME skips a step by name. Only the expressions the
examples use are understood: contexts github, env, steps, runner, inputs; ==, !=, !,
&&, ||; always(), success(), failure().
"""
import argparse, os, re, shutil, subprocess, sys, tempfile, time
import yaml

TOKEN = re.compile(r"\s*(?:(\|\||&&|==|!=|!|\(|\))|'((?:[^']|'')*)'|(\w+)\(\)|"
                   r"([A-Za-z_][\w.-]*))")


def evaluate(expr, ctx, ok):
    """Evaluates a GitHub expression by translating it into a Python one."""
    py, pos = [], 0
    words = {"&&": " and ", "||": " or ", "!": " not ", "==": "==", "!=": "!="}
    funcs = {"always": "True", "success": repr(ok), "failure": repr(not ok),
             "cancelled": "False"}
    while pos < len(expr.rstrip()):
        m = TOKEN.match(expr, pos)
        if not m:
            sys.exit(f"try-github-actions: cannot evaluate '{expr}' at column {pos + 1}")
        op, lit, fn, path = m.groups()
        if op:
            py.append(words.get(op, op))
        elif lit is not None:
            py.append(repr(lit.replace("''", "'")))
        elif fn:
            if fn not in funcs:
                sys.exit(f"try-github-actions: unsupported function {fn}() in '{expr}'")
            py.append(funcs[fn])
        elif path in ("true", "false", "null"):
            py.append({"true": "True", "false": "False", "null": "None"}[path])
        else:
            value = ctx
            for part in path.split("."):
                value = value.get(part, "") if isinstance(value, dict) else ""
            py.append(repr(value))
        pos = m.end()
    return eval("".join(py) or "''", {"__builtins__": {}})


def interpolate(text, ctx, ok=True):
    def one(m):
        v = evaluate(m.group(1), ctx, ok)
        return {True: "true", False: "false", None: ""}.get(v, v) if not isinstance(v, str) else v
    return re.sub(r"\$\{\{(.*?)\}\}", one, str(text))


def condition(cond, ctx, ok):
    if cond is None:
        return ok
    cond = str(cond).strip()
    if cond.startswith("${{") and cond.endswith("}}"):
        cond = cond[3:-2]
    # As on GitHub, a condition without a status function holds only after success.
    if not re.search(r"\b(always|success|failure|cancelled)\(\)", cond):
        cond = f"success() && ({cond})"
    return bool(evaluate(cond, ctx, ok))


def read_pairs(path):
    """NAME=VALUE lines and NAME<<DELIM heredocs, as $GITHUB_ENV and $GITHUB_OUTPUT hold."""
    pairs, lines = {}, open(path).read().splitlines() if os.path.exists(path) else []
    while lines:
        line = lines.pop(0)
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            end = lines.index(delim)
            pairs[name], lines = "\n".join(lines[:end]), lines[end + 1:]
        elif "=" in line:
            name, value = line.split("=", 1)
            pairs[name] = value
    return pairs


def cache_path(ws, path):
    return path if os.path.isabs(path) else os.path.join(ws, path)


def action(uses, args, ws, a, post):
    """The local stand-ins for the actions; returns the step's outputs. post collects
    what runs when the job ends (actions/cache saves then)."""
    name = uses.split("@")[0]
    if name == "actions/checkout":
        dest = os.path.join(ws, args.get("path", ""))
        subprocess.run(["git", "clone", "-q", a.repo, dest], check=True)
        subprocess.run(["git", "-C", dest, "checkout", "-q", "--detach",
                        args.get("ref") or a.head_sha], check=True)
        return {}
    if name in ("actions/cache", "actions/cache/restore", "actions/cache/save"):
        key, path = args["key"], cache_path(ws, args["path"])
        if not key:
            raise KeyError("key is empty")
        store = os.path.join(a.work, "cache")
        os.makedirs(store, exist_ok=True)

        def save():
            if os.path.exists(os.path.join(store, key)):
                print(f"cache: {key} exists; not saved again")
            elif not os.path.exists(path):
                print(f"cache: {path} does not exist; {key} not saved")
            else:
                shutil.copytree(path, os.path.join(store, key, "data"), symlinks=True)
                print(f"cache: saved {key}")
        if name.endswith("save"):
            save()
            return {}
        if name == "actions/cache":
            post.append(save)
        prefixes = [key] + str(args.get("restore-keys", "")).split()
        for prefix in prefixes:
            hits = sorted((e for e in os.listdir(store) if e.startswith(prefix)),
                          key=lambda e: os.path.getmtime(os.path.join(store, e)))
            if hits:
                shutil.copytree(os.path.join(store, hits[-1], "data"), path,
                                dirs_exist_ok=True, symlinks=True)
                print(f"cache: restored {hits[-1]}")
                return {"cache-hit": str(hits[-1] == key).lower(),
                        "cache-matched-key": hits[-1]}
        print(f"cache: no entry for {key}")
        return {"cache-hit": "false"}
    if name == "actions/upload-artifact":
        dest = os.path.join(a.work, a.event, "artifacts", args["name"])
        for p in str(args["path"]).split():
            src = os.path.join(ws, p)
            if os.path.isdir(src):
                shutil.copytree(src, os.path.join(dest, os.path.basename(src.rstrip("/"))),
                                dirs_exist_ok=True, symlinks=True)
            elif os.path.exists(src):
                os.makedirs(dest, exist_ok=True)
                shutil.copy(src, dest)
        print(f"artifact {args['name']}: {dest}")
        return {}
    sys.exit(f"try-github-actions: no local stand-in for {uses}")


def run_step_list(steps, ctx, env, st, scope):
    """Runs steps (a job's, or a composite action's with its own steps context) in order;
    st holds the job's state: its status, files, workspace, the post steps."""
    for i, step in enumerate(steps):
        name = step.get("name", step.get("uses", f"step {i + 1}"))
        ctx["env"] = dict(env)
        if name in st["a"].skip or not condition(step.get("if"), ctx, st["status"] == 0):
            print(f"\n--- {scope}: {name}: skipped")
            continue
        print(f"\n--- {scope}: {name}", flush=True)
        senv = dict(env, **{k: interpolate(v, ctx) for k, v in (step.get("env") or {}).items()})
        outputs, rc = {}, 0
        if "uses" in step:
            args = {k: interpolate(v, ctx) for k, v in (step.get("with") or {}).items()}
            local = composite_dir(step["uses"], st["a"], st["ws"])
            if local:
                outputs, rc = run_composite(local, args, ctx, env, st, f"{scope}/{name}")
            else:
                try:
                    outputs = action(step["uses"], args, st["ws"], st["a"], st["post"])
                except (subprocess.CalledProcessError, OSError, KeyError) as e:
                    print(f"{step['uses']}: {e}")
                    rc = 1
        else:
            st["n"] += 1
            out = os.path.join(st["root"], f"output-{st['n']}")
            open(out, "w").close()
            script = os.path.join(st["temp"], f"step-{st['n']}.sh")
            with open(script, "w") as f:
                f.write(interpolate(step["run"], ctx))
            cwd = os.path.join(st["ws"], step.get("working-directory", ""))
            rc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", script],
                                cwd=cwd, env=dict(senv, GITHUB_OUTPUT=out)).returncode
            outputs = read_pairs(out)
        if "id" in step:
            ctx["steps"][step["id"]] = {"outputs": outputs}
        env.update(read_pairs(st["files"]["GITHUB_ENV"]))
        paths = open(st["files"]["GITHUB_PATH"]).read().split()
        env["PATH"] = ":".join(paths[::-1] + [os.environ["PATH"]])
        if rc:
            print(f"--- {scope}: {name}: exit {rc}")
            st["status"] = st["status"] or rc


def composite_dir(uses, a, ws):
    """The directory of a composite action run from files here: `./PATH` in the
    workspace, or --action DIR standing in for OWNER/NAME@REF (pmcbench's action)."""
    if uses.startswith("./"):
        d = os.path.join(ws, uses)
    elif a.action and "@" in uses and uses.split("@")[0].split("/")[-1] == a.action_name:
        d = a.action
    else:
        return None
    return d if os.path.exists(os.path.join(d, "action.yml")) else None


def run_composite(d, args, outer, env, st, scope):
    """A composite action: its inputs (defaults, then with:), its own steps context,
    GITHUB_ACTION_PATH; returns its outputs and its status."""
    spec = yaml.safe_load(open(os.path.join(d, "action.yml")))
    if spec["runs"].get("using") != "composite":
        sys.exit(f"try-github-actions: {d}/action.yml is not a composite action")
    ctx = dict(outer, steps={}, inputs={})
    ctx["github"] = dict(outer["github"], action_path=d)
    for k, v in (spec.get("inputs") or {}).items():
        ctx["inputs"][k] = interpolate(args[k], outer) if k in args else \
            interpolate(str(v.get("default", "")), outer)
    unknown = set(args) - set(ctx["inputs"])
    if unknown:
        print(f"--- {scope}: unexpected inputs {sorted(unknown)}")
        return {}, 1
    before = st["status"]
    st["status"] = 0
    inner = dict(env, GITHUB_ACTION_PATH=d)
    run_step_list(spec["runs"]["steps"], ctx, inner, st, scope)
    env.update({k: v for k, v in inner.items() if k != "GITHUB_ACTION_PATH"})
    outputs = {k: interpolate(v.get("value", ""), ctx)
               for k, v in (spec.get("outputs") or {}).items()}
    rc, st["status"] = st["status"], before
    return outputs, rc


def run_job(job_id, job, wf, a, github):
    # Every job gets a fresh workspace and temporary directory at the same paths, as on
    # GitHub: paths end up in PATH and in commands, and their lengths move exact counts.
    root, runner = os.path.join(a.work, a.event, job_id), os.path.join(a.work, "runner")
    for d in (root, runner):
        shutil.rmtree(d, ignore_errors=True)
    ws, temp = os.path.join(runner, "workspace"), os.path.join(runner, "temp")
    os.makedirs(root), os.makedirs(ws), os.makedirs(temp)
    files = {k: os.path.join(root, k.lower()) for k in
             ("GITHUB_ENV", "GITHUB_PATH", "GITHUB_STEP_SUMMARY")}
    for f in files.values():
        open(f, "w").close()
    ctx = {"github": github, "runner": {"os": "Linux", "temp": temp}, "steps": {}}
    env = dict(os.environ, CI="true", GITHUB_WORKSPACE=ws, RUNNER_TEMP=temp,
               RUNNER_OS="Linux", GITHUB_EVENT_NAME=a.event, GITHUB_SHA=a.head_sha,
               GITHUB_BASE_REF=a.base or "", GITHUB_REPOSITORY=github["repository"],
               GITHUB_ACTIONS="true", **files)
    for scope in (wf.get("env") or {}, job.get("env") or {}):
        ctx["env"] = {k: v for k, v in env.items()}
        env.update({k: interpolate(v, ctx) for k, v in scope.items()})
        env.update(a.env)
    st = {"a": a, "status": 0, "files": files, "ws": ws, "temp": temp, "root": root,
          "n": 0, "post": []}
    run_step_list(job["steps"], ctx, env, st, job_id)
    for post in reversed(st["post"]):
        post()
    status = st["status"]
    print(f"\n=== {job_id}: step summary ({files['GITHUB_STEP_SUMMARY']})")
    sys.stdout.write(open(files["GITHUB_STEP_SUMMARY"]).read())
    print(f"=== {job_id}: {'failed, exit %d' % status if status else 'succeeded'}")
    return status


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("workflow")
    p.add_argument("--event", choices=["push", "pull_request", "workflow_dispatch"],
                   required=True)
    p.add_argument("--base", help="pull_request: the base branch (github.base_ref)")
    p.add_argument("--head", default="HEAD", help="the commit to check out (default HEAD)")
    p.add_argument("--repo", default=".", help="the repository to clone (default .)")
    p.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "try-github-actions"))
    p.add_argument("--job", action="append", help="only this job (repeatable)")
    p.add_argument("--env", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--skip", action="append", default=[], metavar="STEP")
    p.add_argument("--action", metavar="DIR",
                   help="a composite action's directory (its action.yml) that stands in "
                   "for uses: OWNER/NAME@REF, NAME being the directory's name or "
                   "--action-name (default pmcbench)")
    p.add_argument("--action-name", default="pmcbench")
    a = p.parse_args()
    if a.event == "pull_request" and not a.base:
        p.error("--event pull_request needs --base BRANCH")
    a.repo = subprocess.run(["git", "-C", a.repo, "rev-parse", "--show-toplevel"],
                            check=True, capture_output=True, text=True).stdout.strip()
    a.head_sha = subprocess.run(["git", "-C", a.repo, "rev-parse", a.head + "^{commit}"],
                                check=True, capture_output=True, text=True).stdout.strip()
    a.env = dict(e.split("=", 1) for e in a.env)
    a.work = os.path.abspath(a.work)
    a.action = a.action and os.path.abspath(a.action)
    wf = yaml.safe_load(open(a.workflow))
    github = {"event_name": a.event, "sha": a.head_sha, "base_ref": a.base or "",
              "ref": f"refs/heads/{a.base}" if a.base else "refs/heads/main",
              "repository": "local/repository", "token": "",
              "event": {"pull_request": {"head": {"sha": a.head_sha,
                                                  "repo": {"full_name": "local/repository"}},
                                         "number": 1}}
              if a.event == "pull_request" else {}}
    status = 0
    for job_id, job in wf["jobs"].items():
        if a.job and job_id not in a.job:
            continue
        if not condition(job.get("if"), {"github": github, "env": wf.get("env") or {}}, True):
            print(f"\n=== {job_id}: skipped (if: {job['if']})")
            continue
        t = time.monotonic()
        rc = run_job(job_id, job, wf, a, github)
        print(f"=== {job_id}: {time.monotonic() - t:.0f} s")
        status = status or rc
    return status


if __name__ == "__main__":
    sys.exit(main())
