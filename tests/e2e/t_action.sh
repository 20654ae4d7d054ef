# pmcbench's CI action (action.yml, ci/action/steps.sh, docs/ci.md) run as a hosted
# runner runs it: ci/examples/github-actions.yml's jobs through try-github-actions.py, as
# an unprivileged user with passwordless sudo, with perf_event_open denied as at
# perf_event_paranoid 4 (tests/paranoid4.c), on a small repository whose pull request
# 'slow' makes its program 4 times slower and make 40 more system calls, and whose 'same'
# changes a comment only. The gates must fail 'slow' and pass 'same'. Nothing is
# installed (PMC_APT=check) and the sysctl is not changed (PMC_SYSCTL=dry-run); pmcbench
# comes from the action's build cache, seeded with this build under the key the action
# computes.

CI_USER=pmcbench-ci

# Sets AS (runs as CI_USER), U (its directory); skips where the machine cannot.
action_setup() {
	[ "$(id -u)" = 0 ] || skip "not root: cannot create the runner's user and its sudo rights"
	# The action's cache is seeded with this pmcbench: a sanitized one aborts under the
	# preloaded paranoid-4 shim (the ASan runtime must come first), and a runner never
	# has one.
	# (Read whole, not through grep -q: under pipefail the writer's SIGPIPE would fail it.)
	case "$(ldd "$PMCBENCH" 2>/dev/null; nm -D "$PMCBENCH" 2>/dev/null)" in
	*libasan* | *" __asan_init"*)
		skip "a sanitized build: its pmcbench cannot run under the preloaded paranoid-4 shim" ;;
	esac
	[ -n "${PMC_PARANOID4:-}" ] && [ -f "$PMC_PARANOID4" ] || skip "PMC_PARANOID4 (tests/paranoid4.c) is not set"
	command -v sudo >/dev/null || skip "no sudo (ci/install-deps.sh installs it)"
	command -v useradd >/dev/null || skip "no useradd"
	command -v cc >/dev/null || skip "no cc"
	python3 -c 'import yaml' 2>/dev/null || skip "no python3-yaml (try-github-actions.py reads YAML)"
	id "$CI_USER" >/dev/null 2>&1 || useradd -m -s /bin/bash "$CI_USER" || return 1
	# Passwordless sudo, as GitHub's runner user has; removed when the case ends. The user
	# has a home of its own: a ccache directory of the caller's (CCACHE_DIR) is not its.
	SUDOERS=/etc/sudoers.d/pmcbench-ci-test-$$
	echo "$CI_USER ALL=(ALL) NOPASSWD: ALL" >"$SUDOERS" && chmod 440 "$SUDOERS" || return 1
	trap 'rm -f "$SUDOERS"' EXIT
	AS=(setpriv --reuid="$CI_USER" --regid="$(id -g "$CI_USER")" --clear-groups
		env -u CCACHE_DIR HOME="$(getent passwd "$CI_USER" | cut -d: -f6)" USER="$CI_USER")
	chmod 711 "$TMP"
	U=$TMP/u
	mkdir "$U" && chown "$CI_USER" "$U" || return 1
	"${AS[@]}" test -x "$PMCBENCH" || skip "$CI_USER cannot run $PMCBENCH"
	"${AS[@]}" test -r "$PMC_SRCDIR/action.yml" || skip "$CI_USER cannot read $PMC_SRCDIR"
	"${AS[@]}" sudo -n true || { fail "sudo -n true fails for $CI_USER"; return 1; }
}

# The repository: main (FACTOR 1, 1 getpid; a benchmark program with 1 malloc per
# operation), slow (FACTOR 4, 41 getpid, 3 mallocs), same (a comment).
action_repo() {
	local r=$U/repo g=(git -c user.name=t -c user.email=t@t -c init.defaultBranch=main)
	"${AS[@]}" bash -euc '
		mkdir "$1" && cd "$1" && shift
		"$@" init -q
		prog() {
			cat > prog.c <<EOF
/* $3 */
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	volatile unsigned long x = 0;
	for (long i = 0; i < n * $1; i++)
		x += (unsigned long)i;
	for (int i = 0; i < $2; i++)
		syscall(SYS_getpid);
	return 0;
}
EOF
		}
		mb() {
			cat > mb.c <<EOF
#include <pmcbench.h>
#include <stdlib.h>
static void alloc(struct pmc_state *s)
{
	while (pmc_loop(s))
		for (int i = 0; i < $1; i++) {
			void *volatile p = malloc(16);
			free(p);
		}
}
PMC_BENCHMARK(alloc);
int main(int argc, char **argv) { return pmc_main(argc, argv); }
EOF
		}
		prog 1 1 "the work"; mb 1; "$@" add prog.c mb.c; "$@" commit -qm base
		"$@" checkout -qb slow; prog 4 41 "the work"; mb 3; "$@" commit -qam slow
		"$@" checkout -q main; "$@" checkout -qb same; prog 1 1 "the work, unchanged"
		"$@" commit -qam same; "$@" checkout -q main
	' bash "$r" "${g[@]}"
}

# The example workflow with this repository's build and benchmark (its inputs replaced,
# the rest as shipped), into $U/bench.yml.
action_workflow() {
	# The benchmark program links this build's static library (pmcbench.pc's libraries,
	# with Capstone where the build has it: report --annotate's disassembler).
	local lib build extra=""
	build=$(cd "$(dirname "$PMCBENCH")/../.." && pwd)
	lib=$build/harness/libpmcbench.a
	[ -f "$lib" ] || skip "no $lib to link a benchmark program with"
	grep -q '^Requires.private:.*capstone' "$build/meson-private/pmcbench.pc" 2>/dev/null &&
		extra=-lcapstone
	python3 - "$PMC_SRCDIR/ci/examples/github-actions.yml" "$U/bench.yml" "$PMC_SRCDIR/include" "$lib" "$extra" <<'PY'
import sys, yaml
wf = yaml.safe_load(open(sys.argv[1]))
mb = (f"cc -O1 -o mb mb.c -I{sys.argv[3]} {sys.argv[4]} -ljansson -lelf -ldw -lcsv "
      f"-liberty {sys.argv[5]} -lm -pthread -ldl")
import copy
mbwf = copy.deepcopy(wf)
for flow, timing_mb in ((wf, False), (mbwf, True)):
    for job in flow["jobs"].values():
        for step in job["steps"]:
            if step.get("uses", "").startswith("OWNER/pmcbench@"):
                w = step["with"]
                w["build"] = "cc -O1 -o prog prog.c"
                w["benchmarks"] = "loop prog 3000000"
                if w["mode"] == "timing" and not timing_mb:
                    del w["microbench"]
                    w["max-runs"] = "30"
                    w["time-limit-denied"] = "user-time=+25%"
                else:
                    w["build"] += "\n" + mb
                    w["microbench"] = "mb"
                    w["max-runs"] = "30"
                    w["time-limit-denied"] = "user-time=+25%"
                    w["alloc-limit"] = "uprobe:libc:malloc/op=+0%"
yaml.safe_dump(wf, open(sys.argv[2], "w"))
# bench-mb.yml: the timing job with the benchmark program too (run on 'slow' only: an
# A/A timing gate of it would fail at alpha).
yaml.safe_dump(mbwf, open(sys.argv[2].replace("bench.yml", "bench-mb.yml"), "w"))
PY
	chown "$CI_USER" "$U/bench.yml" "$U/bench-mb.yml"
}

# try EVENT [HEAD] [JOB] [WORKFLOW]: the workflow (bench.yml) as the runner user, counters
# denied.
try_action() {
	local args=(--event "$1" --head "${2:-main}" --work "$U/work" --repo "$U/repo"
		--action "$PMC_SRCDIR" --env PMC_APT=check --env PMC_SYSCTL=dry-run)
	[ "$1" = pull_request ] && args+=(--base main)
	[ -n "${3:-}" ] && args+=(--job "$3")
	(cd "$U" && "${AS[@]}" LD_PRELOAD="$PMC_PARANOID4" \
		python3 "$PMC_SRCDIR/ci/examples/try-github-actions.py" "$U/${4:-bench.yml}" "${args[@]}")
}

# Seeds the action's build cache with this pmcbench, under the key the action computes.
action_seed_cache() {
	local key
	key=$("${AS[@]}" RUNNER_OS=Linux PMC_SRC="$PMC_SRCDIR" PMC_STATE="$U/state" \
		bash "$PMC_SRCDIR/ci/action/steps.sh" build-key) || return 1
	"${AS[@]}" mkdir -p "$U/work/cache/$key/data/bin" &&
		"${AS[@]}" cp "$PMCBENCH" "$U/work/cache/$key/data/bin/pmcbench"
}

action_all() {
	action_setup || return 1
	action_repo || return 1
	action_workflow || return 1
	action_seed_cache
}

# Without sudo rights the steps that need root say so and what to do, exit 2 (the old
# recipe stopped at 'sudo: command not found').
test_action_without_sudo_says_so() {
	action_setup || return 1
	# A user of its own, never given sudo: another case's rights (a run killed before its
	# sudoers file went) cannot leak into this one.
	local nosudo=pmcbench-ci-nosudo as
	id "$nosudo" >/dev/null 2>&1 || useradd -m -s /bin/bash "$nosudo" || return 1
	as=(setpriv --reuid="$nosudo" --regid="$(id -g "$nosudo")" --clear-groups
		env -u CCACHE_DIR HOME="$(getent passwd "$nosudo" | cut -d: -f6)" USER="$nosudo")
	mkdir -p "$U/nosudo" && chown "$nosudo" "$U/nosudo" || return 1
	expect_exit 2 "${as[@]}" PMC_STATE="$U/nosudo" PMC_SYSCTL=dry-run PMC_PREFIX=/nonexistent \
		bash "$PMC_SRCDIR/ci/action/steps.sh" perf-access || return 1
	expect_grep "needs root: this job runs as $nosudo, and 'sudo -n true' fails" "$TMP/err" || return 1
	expect_exit 2 "${AS[@]}" PMC_STATE="$U/state" bash "$PMC_SRCDIR/ci/action/steps.sh" nothing || return 1
	expect_grep "unknown step 'nothing'" "$TMP/err"
}

# The timing job: 'slow' fails (exit 1), 'same' passes (0), and the summary is well
# formed: the benchmark's name, headings nested, the decision once, relative paths.
test_action_timing_gates_a_regression_and_passes_aa() {
	action_all || return 1
	expect_exit 1 try_action pull_request slow timing bench-mb.yml || return 1
	expect_grep 'cache: restored pmcbench-build-' "$TMP/out" || return 1
	expect_grep 'apt: all present: gcc meson' "$TMP/err" || return 1
	expect_grep 'task-clock is denied on this runner.*uses user-time=\+25%' "$TMP/out" || return 1
	local s=$U/work/pull_request/timing/github_step_summary
	cp "$s" slow.md
	expect_grep '^### loop: \*\*FAIL: regression\*\* \(exit 1\)' slow.md || return 1
	expect_grep '^#### pmcbench compare' slow.md || return 1
	expect_no_grep '^##? pmcbench compare' slow.md || return 1
	expect_grep '^\| loop \|' slow.md || return 1
	expect_no_grep '^\| pr \|' slow.md || return 1
	[ "$(grep -c 'Sequential decision' slow.md)" = 1 ] || { cat slow.md >&2; fail "the decision is not shown once"; return 1; }
	expect_grep '^- loop user-time: .* limit \+25%: regression' slow.md || return 1
	# The benchmark program: its two builds in one run (--against), paired round by
	# round, and gated on its time (counters denied: wall-time/op); 3 mallocs an
	# operation where the base makes 1.
	expect_grep '^### microbench: \*\*FAIL: regression\*\* \(exit 1\)' slow.md || return 1
	expect_grep '^\| alloc \|.*\*\*regression\*\*' slow.md || return 1
	expect_grep 'pairs' slow.md || return 1
	expect_no_grep "$U" slow.md || return 1
	[ -f "$U/work/pull_request/artifacts/pmcbench-timing/pmcbench-timing/loop.json" ] ||
		{ fail "no artifact loop.json"; return 1; }
	expect_exit 0 try_action pull_request same timing || return 1
	cp "$s" same.md
	expect_grep '^### loop: pass \(exit 0\)' same.md
}

# The exact job: the push saves the baseline (cache), 'slow' fails on instructions (of
# the command and per operation), on system calls and on mallocs per operation (counted
# as root through sudo), 'same' passes them all.
test_action_exact_gates_a_regression_and_passes_aa() {
	action_all || return 1
	command -v valgrind >/dev/null || skip "no valgrind"
	[ -r /sys/kernel/tracing/events/syscalls ] || [ -r /sys/kernel/debug/tracing/events/syscalls ] ||
		skip "no syscalls tracepoints (tracefs not mounted)"
	expect_exit 0 try_action push main exact || return 1
	expect_grep 'cache: saved pmcbench-exact-' "$TMP/out" || return 1
	cat "$TMP/out" "$TMP/err" >push.log
	local s=$U/work/pull_request/exact/github_step_summary
	expect_exit 1 try_action pull_request slow exact || return 1
	cp "$s" slow.md
	expect_grep '^### commands: \*\*FAIL: regression\*\* \(exit 1\)' slow.md || return 1
	expect_grep '^### syscalls: \*\*FAIL: regression\*\* \(exit 1\)' slow.md || return 1
	expect_grep '^### allocs: \*\*FAIL: regression\*\* \(exit 1\)' slow.md || return 1
	expect_grep '^### micro: \*\*FAIL: regression\*\* \(exit 1\)' slow.md || return 1
	expect_grep '^##### syscalls:total ' slow.md || return 1
	expect_no_grep 'sys\\_enter\\_accept' slow.md || return 1
	expect_grep '^differential flame graph: new/commands.profiles/loop.diff.svg' slow.md || return 1
	expect_grep 'saved by the push run of' slow.md || {
		# Which keys the two runs asked for, and what the cache holds.
		grep -h 'cache: \|baseline key' push.log "$TMP/out" "$TMP/err" >&2; ls "$U/work/cache" >&2
		return 1; }
	expect_no_grep "$U" slow.md || return 1
	python3 - "$U/work/pull_request/artifacts/pmcbench-exact/pmcbench-exact" <<'PY' || fail "the getpid counts do not differ by 40, or mallocs/op are not 1 and 3"
import json, sys
d = sys.argv[1]
def getpid(f):
    ms = json.load(open(f))["benchmarks"][0]["metrics"]
    return {v for v in ms["syscalls:sys_enter_getpid"]["samples"]}
old, new = getpid(d + "/baseline/syscalls.json"), getpid(d + "/new/syscalls.json")
assert len(old) == 1 and len(new) == 1 and min(new) - min(old) == 40, (old, new)
def mallocs(f):
    ms = json.load(open(f))["benchmarks"][0]["metrics"]
    return set(ms["uprobe:libc:malloc/op"]["samples"])
assert mallocs(d + "/baseline/allocs.json") == {1} and mallocs(d + "/new/allocs.json") == {3}
PY
	expect_exit 0 try_action pull_request same exact || return 1
	cp "$s" same.md
	expect_grep '^### commands: pass \(exit 0\)' same.md || return 1
	expect_grep '^### syscalls: pass \(exit 0\)' same.md || return 1
	expect_grep '^### allocs: pass \(exit 0\)' same.md || return 1
	expect_grep '^### micro: pass \(exit 0\)' same.md
}

# gitlab_job JOB PROJECT SRC: the GitLab template's JOB (its extends merged, as GitLab
# does) as two scripts in PROJECT: job.sh (before_script and script in one shell, as a
# runner runs them) and after.sh, with the template's variables exported, the job's over
# the template's, GitLab's own expanded ($CI_...); PMCBENCH_REPO is SRC.
gitlab_job() {
	python3 - "$PMC_SRCDIR/ci/gitlab/pmcbench.gitlab-ci.yml" "$1" "$2" "$3" <<'PY'
import os, re, shlex, sys, yaml
t = yaml.safe_load(open(sys.argv[1]))
job, project, src = sys.argv[2], sys.argv[3], sys.argv[4]
def merged(name):
    j = dict(t[name])
    if "extends" in j:
        base = merged(j.pop("extends"))
        base_vars = dict(base.get("variables") or {})
        base.update(j)
        base["variables"] = dict(base_vars, **(j.get("variables") or {}))
        j = base
    return j
j = merged(job)
env = {"CI_PROJECT_DIR": project, "CI_PIPELINE_SOURCE": "merge_request_event",
       "CI_MERGE_REQUEST_DIFF_BASE_SHA": os.environ["BASE_SHA"]}
env.update({k: str(v) for k, v in (t.get("variables") or {}).items()})
env.update({"PMCBENCH_REPO": src, "PMCBENCH_REF": "v-test",
            "PMCBENCH_BUILD": "cc -O1 -o prog prog.c",
            "PMCBENCH_BENCHMARKS": "loop prog 3000000",
            "PMCBENCH_TIME_LIMIT_DENIED": "user-time=+25%", "PMCBENCH_MAX_RUNS": "30"})
expand = lambda v: re.sub(r"\$(\w+)", lambda m: env.get(m.group(1), ""), str(v))
for k, v in (j.get("variables") or {}).items():
    env[k] = expand(v)
head = "".join(f"export {k}={shlex.quote(v)}\n" for k, v in env.items())
for name, parts in (("job.sh", j["before_script"] + j["script"]), ("after.sh", j["after_script"])):
    with open(os.path.join(project, "..", name), "w") as f:
        f.write("set -eo pipefail\n" + head + "cd \"$CI_PROJECT_DIR\"\n" + "\n".join(parts) + "\n")
PY
}

# The GitLab template's timing and exact jobs in a merge request pipeline of 'slow' (fail)
# and 'same' (pass), as a shell runner runs them (its user, sudo), counters denied as in
# a Docker executor (perf_event_open fails: the timing job gates on user-time).
test_action_gitlab_template_gates_a_regression_and_passes_aa() {
	action_setup || return 1
	action_repo || return 1
	command -v valgrind >/dev/null || skip "no valgrind"
	# The template clones pmcbench at a tag: a repository of this tree's steps, tagged.
	"${AS[@]}" bash -euc 'mkdir -p "$1/ci/action" && cp "$2/ci/action/steps.sh" "$1/ci/action/" &&
		cd "$1" && git init -q && git add . &&
		git -c user.name=t -c user.email=t@t commit -qm steps && git tag v-test' \
		bash "$U/pmcsrc" "$PMC_SRCDIR" || return 1
	export BASE_SHA
	BASE_SHA=$("${AS[@]}" git -C "$U/repo" rev-parse main) || return 1
	local job branch want
	for job in timing exact; do
		for branch in slow same; do
			want=0
			[ $branch = slow ] && want=1
			rm -rf "$U/p" && "${AS[@]}" git clone -q "$U/repo" "$U/p" &&
				"${AS[@]}" git -C "$U/p" checkout -q "$branch" || return 1
			# The runner's cache of pmcbench's build, seeded with this one.
			"${AS[@]}" mkdir -p "$U/p/.pmcbench-action/pmcbench/bin" &&
				"${AS[@]}" cp "$PMCBENCH" "$U/p/.pmcbench-action/pmcbench/bin/" || return 1
			gitlab_job ".pmcbench-$job" "$U/p" "file://$U/pmcsrc" || return 1
			expect_exit $want "${AS[@]}" LD_PRELOAD="$PMC_PARANOID4" PMC_APT=check \
				PMC_SYSCTL=dry-run bash "$U/job.sh" || return 1
			expect_exit 0 "${AS[@]}" bash "$U/after.sh" || return 1
			cp "$TMP/out" "$job-$branch.md"
			expect_grep "^## pmcbench $( [ $job = timing ] && echo timing || echo 'exact counts'): head against its base" "$job-$branch.md" || return 1
			if [ $branch = slow ]; then
				expect_grep '^### (loop|commands): \*\*FAIL: regression\*\* \(exit 1\)' "$job-$branch.md" || return 1
			else
				expect_grep '^### (loop|commands): pass \(exit 0\)' "$job-$branch.md" || return 1
			fi
			expect_grep "no PMCBENCH_GITLAB_TOKEN: the merge request is not commented" "$TMP/err" || return 1
		done
	done
	expect_grep 'measured in this job' exact-slow.md
}

# The summary of a report as pmcbench writes it under a run on a runner (absolute paths,
# its own headings, a code block): nested under the summary's headings, paths relative to
# the artifact, code blocks untouched, the decision once, comment.md with its marker.
test_action_report_nests_headings_and_relativizes_paths() {
	local out=$TMP/ws/pmcbench-timing
	mkdir -p "$out" && echo 1 >"$out/loop.rc" && echo 0 >"$out/same.rc" || return 1
	cat >"$out/loop.md" <<EOF2
## pmcbench compare

### task-clock (ns, lower is better)

\`\`\`
# a line of a code block
\`\`\`

differential flame graph: $out/loop.profiles/loop.diff.svg

**Sequential decision (--runs auto): decided after 8 rounds.**
EOF2
	expect_exit 0 env -u GITHUB_STEP_SUMMARY PMC_MODE=timing PMC_HEAD="$TMP/ws" \
		PMC_STATE="$TMP/state" bash "$PMC_SRCDIR/ci/action/steps.sh" report || return 1
	local s=$out/summary.md
	expect_grep '^## pmcbench timing: head against its base' "$s" || return 1
	expect_grep '^### loop: \*\*FAIL: regression\*\* \(exit 1\)' "$s" || return 1
	expect_grep '^### same: pass \(exit 0\)' "$s" || return 1
	expect_grep '^#### pmcbench compare$' "$s" || return 1
	expect_grep '^##### task-clock ' "$s" || return 1
	expect_grep '^# a line of a code block$' "$s" || return 1
	expect_grep '^differential flame graph: loop.profiles/loop.diff.svg$' "$s" || return 1
	expect_no_grep "$TMP" "$s" || return 1
	[ "$(grep -c 'Sequential decision' "$s")" = 1 ] || { fail "the decision is not shown once"; return 1; }
	cmp -s "$TMP/out" "$s" || { fail "report printed something other than the summary"; return 1; }
	[ "$(head -n 1 "$out/comment.md")" = '<!-- pmcbench-action:timing -->' ] ||
		{ fail "comment.md has no marker line"; return 1; }
}
