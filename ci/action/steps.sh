#!/bin/bash
# The steps of pmcbench's CI action (action.yml at the repository's root, docs/ci.md),
# one subcommand each, so that GitHub's composite action, the GitLab template
# (ci/gitlab/pmcbench.gitlab-ci.yml) and the runner-like test (tests/e2e/t_action.sh)
# run the same code:
#
#   steps.sh deps           install the apt packages pmcbench's build and the mode need
#   steps.sh build-key      print the cache key of the pmcbench build (its commit)
#   steps.sh build          build and install pmcbench into PMC_PREFIX, unless restored
#   steps.sh perf-access    lower perf_event_paranoid where allowed; choose the time limit
#   steps.sh checkout-base  add a worktree of the merge-base; build both trees (timing)
#   steps.sh timing         measure base and head in interleaved rounds and gate
#   steps.sh exact-key      print the baseline's cache key: tools and merge-base (exact)
#   steps.sh exact          measure exact counts (valgrind; kernel counts when asked)
#   steps.sh exact-save     keep the counts as the baseline (pushes)
#   steps.sh exact-gate     gate the counts against the merge-base's baseline
#   steps.sh report         write the job summary (and comment.md) of the mode
#   steps.sh gitlab-comment note the summary on the merge request (GitLab)
#
# Inputs come as environment variables (action.yml maps its inputs onto them):
#   PMC_MODE timing|exact, PMC_BUILD (bash script), PMC_BENCHMARKS (NAME PROGRAM
#   [ARGS...] lines), PMC_MICROBENCH (a benchmark program), PMC_TIME_LIMIT,
#   PMC_TIME_LIMIT_DENIED (the limit when task-clock is denied), PMC_MAX_RUNS,
#   PMC_MAX_TIME, PMC_RUN_OPTS (more options of the timing run), PMC_COUNT_LIMIT,
#   PMC_COUNT_LIMIT_PER_OP, PMC_SYSCALL_LIMIT,
#   PMC_ALLOC_LIMIT, PMC_BASE_REF (a branch: the merge-base with origin/BRANCH) or
#   PMC_BASE_SHA (the base commit itself), PMC_EVENT (push|pull_request), PMC_SRC (the
#   pmcbench source), PMC_PREFIX (where it is installed), PMC_HEAD (the checkout, default
#   the current directory), PMC_OUT (the results, default PMC_HEAD/pmcbench-MODE),
#   PMC_APT install|check|skip, PMC_SYSCTL run|dry-run.
# State between subcommands is kept in PMC_STATE (default $RUNNER_TEMP/pmcbench-action).
# Exit status: 0 pass, 1 regression, 2 error, 3 undecided with --fail-on-inconclusive.
set -euo pipefail

# What pmcbench's build needs (meson.build's dependency() calls; tests/check_action_deps.py
# holds this list equal to them), what builds it, and what the exact mode runs.
PMC_APT_TOOLS="gcc meson ninja-build pkg-config"
PMC_APT_LIBS="libjansson-dev libelf-dev libdw-dev libiberty-dev libcsv-dev libsqlite3-dev libpq-dev"
PMC_APT_EXACT="valgrind"
# The build's options: the tests are not built, nor report --annotate's disassembler,
# which a gate does not use (docs/ci.md).
PMC_MESON_OPTS="--buildtype=release -Dtests=disabled -Dcapstone=disabled"

say() { echo "pmcbench-action: $*" >&2; }
err() {
	if [[ -n ${GITHUB_ACTIONS:-} ]]; then echo "::error::$*"; else say "error: $*"; fi
}
note() {
	if [[ -n ${GITHUB_ACTIONS:-} ]]; then echo "::notice::$*"; else say "$*"; fi
}
warn() {
	if [[ -n ${GITHUB_ACTIONS:-} ]]; then echo "::warning::$*"; else say "warning: $*"; fi
}

state_init() {
	PMC_STATE=${PMC_STATE:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}/pmcbench-action}
	mkdir -p "$PMC_STATE"
	touch "$PMC_STATE/env"
	# shellcheck disable=SC1091
	source "$PMC_STATE/env"
	PMC_MODE=${PMC_MODE:-timing}
	PMC_HEAD=$(cd "${PMC_HEAD:-.}" && pwd)
	PMC_OUT=${PMC_OUT:-$PMC_HEAD/pmcbench-$PMC_MODE}
	PMC_PREFIX=${PMC_PREFIX:-$PMC_STATE/pmcbench}
	PATH=$PMC_PREFIX/bin:$PATH
	export LD_LIBRARY_PATH=$PMC_PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export PKG_CONFIG_PATH=$PMC_PREFIX/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
}

# keep NAME VALUE: for the later subcommands (and GitHub's later steps).
keep() {
	printf '%s=%q\n' "$1" "$2" >>"$PMC_STATE/env"
	printf -v "$1" '%s' "$2"
}

# as_root CMD...: CMD as root: directly, or through sudo when it works without a
# password (hosted runners); otherwise an error that says so, exit 2.
as_root() {
	if [[ $(id -u) == 0 ]]; then
		"$@"
	elif ! command -v sudo >/dev/null; then
		err "'$*' needs root: this job runs as $(id -un), and sudo is not installed; run the job as root, or install sudo with passwordless rights for $(id -un)"
		return 2
	elif ! sudo -n true 2>/dev/null; then
		err "'$*' needs root: this job runs as $(id -un), and 'sudo -n true' fails (a password is asked, or $(id -un) may not use sudo); give it passwordless sudo, or run the job as root"
		return 2
	else
		sudo -n "$@"
	fi
}

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -Eq "ok (installed|triggers-pending)"
}

cmd_deps() {
	local want="$PMC_APT_TOOLS $PMC_APT_LIBS" missing="" p
	[[ $PMC_MODE == timing ]] || want="$want $PMC_APT_EXACT"
	[[ ${PMC_APT:-install} == skip ]] && { say "apt: skipped (PMC_APT=skip): $want"; return 0; }
	if ! command -v dpkg-query >/dev/null; then
		err "no dpkg-query: not a Debian or Ubuntu runner; install these packages' equivalents yourself and set install-deps: false: $want"
		return 2
	fi
	for p in $want; do installed "$p" || missing="$missing $p"; done
	if [[ -z $missing ]]; then
		say "apt: all present: $want"
		return 0
	fi
	if [[ ${PMC_APT:-install} == check ]]; then
		err "apt packages missing:$missing (PMC_APT=check installs nothing; run: sudo apt-get install -y$missing)"
		return 2
	fi
	say "apt: installing:$missing"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq || return 2
	# shellcheck disable=SC2086 # a list of package names
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		$missing || return 2
}

# The pmcbench source's commit, or a hash of its files where it is not a git checkout
# (GitHub gives an action's files without .git).
src_id() {
	local id
	# A checkout another user owns (a runner's tool cache, a test's) is refused by git's
	# safe.directory check: reading its commit id runs nothing of its configuration.
	if id=$(git -c safe.directory="$PMC_SRC" -c core.fsmonitor=false -C "$PMC_SRC" \
		rev-parse HEAD 2>/dev/null); then
		echo "$id"
		return
	fi
	# No git: the files, without build directories (build, build-*), whose contents
	# change as they are used.
	(cd "$PMC_SRC" && find . -path ./.git -prune -o -path './build*' -prune -o -type f -print0 |
		LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16 | sed 's/^/files-/')
}

cmd_build_key() {
	: "${PMC_SRC:?PMC_SRC, the pmcbench source, is not set}"
	local cc
	cc=$( (cc --version 2>/dev/null || echo none) | head -n 1 | sha256sum | cut -c1-8)
	echo "pmcbench-build-${RUNNER_OS:-Linux}-${ImageOS:-$(uname -m)}-$cc-$(src_id)"
}

cmd_build() {
	: "${PMC_SRC:?PMC_SRC, the pmcbench source, is not set}"
	if [[ -x $PMC_PREFIX/bin/pmcbench ]]; then
		say "pmcbench: restored from the cache into $PMC_PREFIX"
	else
		# shellcheck disable=SC2086 # a list of options
		meson setup "$PMC_STATE/build" "$PMC_SRC" --prefix="$PMC_PREFIX" --libdir=lib \
			$PMC_MESON_OPTS >"$PMC_STATE/build.log" 2>&1 &&
			ninja -C "$PMC_STATE/build" >>"$PMC_STATE/build.log" 2>&1 &&
			meson install -C "$PMC_STATE/build" --quiet >>"$PMC_STATE/build.log" 2>&1 || {
			tail -n 30 "$PMC_STATE/build.log" >&2
			err "pmcbench did not build (the log's end is above; a 'Dependency ... not found' is a package install-deps did not install)"
			return 2
		}
	fi
	if [[ ! -x $PMC_PREFIX/bin/pmcbench ]]; then
		err "pmcbench built, but $PMC_PREFIX/bin/pmcbench is missing"
		return 2
	fi
	pmcbench --version
	if [[ -n ${GITHUB_PATH:-} ]]; then
		echo "$PMC_PREFIX/bin" >>"$GITHUB_PATH"
		{
			echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
			echo "PKG_CONFIG_PATH=$PKG_CONFIG_PATH"
		} >>"$GITHUB_ENV"
	fi
}

# Hosted runners set kernel.perf_event_paranoid to 4, where every perf_event_open of an
# unprivileged user fails, task-clock's too; 1 lets a process count its own events. Then
# the time limit: on task-clock where it can be counted, else PMC_TIME_LIMIT_DENIED.
cmd_perf_access() {
	local p limit=${PMC_TIME_LIMIT:-task-clock=+5%}
	p=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo unknown)
	if [[ $p != unknown ]] && ((p > 1)); then
		if [[ ${PMC_SYSCTL:-run} == dry-run ]]; then
			say "perf_event_paranoid is $p; would run: sysctl -w kernel.perf_event_paranoid=1 (PMC_SYSCTL=dry-run)"
			as_root true || return 2
		elif ! as_root sysctl -q -w kernel.perf_event_paranoid=1; then
			warn "perf_event_paranoid stays $p: counters are denied, pmcbench goes on with what wait4 measures"
		fi
	fi
	if ! pmcbench run -q -r 1 -e task-clock -o "$PMC_STATE/probe.json" -- true \
		>/dev/null 2>"$PMC_STATE/probe.err"; then
		cat "$PMC_STATE/probe.err" >&2
		err "pmcbench cannot run 'true' here"
		return 2
	fi
	if grep -q '"status":"denied"' "$PMC_STATE/probe.json"; then
		case ${limit%%=*} in
		task-clock* | cpu-clock* | cycles* | instructions*)
			limit=${PMC_TIME_LIMIT_DENIED:-user-time=+5%}
			warn "task-clock is denied on this runner (perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null), or seccomp): the timing gate uses $limit instead of ${PMC_TIME_LIMIT:-task-clock=+5%}"
			;;
		esac
		keep PMC_COUNTERS denied
	else
		keep PMC_COUNTERS counted
	fi
	keep PMC_LIMIT "$limit"
}

# The base commit: PMC_BASE_SHA, else the merge-base of HEAD with origin/PMC_BASE_REF.
base_sha() {
	if [[ -n ${PMC_BASE_SHA:-} ]]; then
		git -C "$PMC_HEAD" rev-parse --verify -q "$PMC_BASE_SHA^{commit}" && return 0
		err "the base commit $PMC_BASE_SHA is not in the checkout; check out with all history (fetch-depth: 0, GIT_DEPTH: 0)"
		return 2
	fi
	if [[ -z ${PMC_BASE_REF:-} ]]; then
		err "no base: set base-ref (a branch) or base-sha"
		return 2
	fi
	git -C "$PMC_HEAD" merge-base "origin/$PMC_BASE_REF" HEAD 2>/dev/null && return 0
	err "no merge-base of HEAD and origin/$PMC_BASE_REF: check out with all history (actions/checkout with fetch-depth: 0)"
	return 2
}

build_tree() {
	say "building $1"
	(cd "$1" && bash -euo pipefail -c "$PMC_BUILD") || {
		err "the build (input 'build') failed in $1"
		return 2
	}
}

cmd_checkout_base() {
	local base
	base=$(base_sha) || return 2
	rm -rf "$PMC_STATE/base"
	git -C "$PMC_HEAD" worktree add -q --detach "$PMC_STATE/base" "$base"
	keep PMC_BASE_TREE "$PMC_STATE/base"
	keep PMC_BASE_COMMIT "$base"
	keep PMC_HEAD_COMMIT "$(git -C "$PMC_HEAD" rev-parse HEAD)"
	say "base $base; head $PMC_HEAD_COMMIT"
	build_tree "$PMC_STATE/base" && build_tree "$PMC_HEAD"
}

# The worst outcome: an error (2), then a regression (1), then undecided (3), then a pass.
RANK=(0 2 3 1)
STATUS=0
record() {
	local rc=$2
	case $rc in 0 | 1 | 2 | 3) ;; *) rc=2 ;; esac
	echo "$rc" >"$PMC_OUT/$1.rc"
	say "$1: exit $rc"
	if ((RANK[rc] > RANK[STATUS])); then STATUS=$rc; fi
}

# both NAME PROGRAM: whether both trees have PROGRAM; missing from head, an error.
both() {
	if [[ ! -x $PMC_HEAD/$2 ]]; then
		err "$1: $2 does not exist or is not executable in the head's tree; does the build build it?"
		exit 2
	fi
	[[ -x $PMC_BASE_TREE/$2 ]] && return 0
	warn "$1: $2 is not in the base: not compared"
	echo "not compared: the base does not have it" >"$PMC_OUT/$1.note"
	record "$1" 0
	return 1
}

cmd_timing() {
	local name prog args rc metric=${PMC_LIMIT%%=*} opts=()
	rm -rf "$PMC_OUT" && mkdir -p "$PMC_OUT"
	read -ra opts <<<"${PMC_RUN_OPTS:-}"
	while read -r name prog args; do
		if [[ -z $name ]] || ! both "$name" "$prog"; then continue; fi
		rc=0
		# The sides are NAME@base and NAME: the reports name the benchmark, and the base.
		(cd "$PMC_HEAD" && pmcbench run -q \
			-n "$name@base" -c "$PMC_BASE_TREE/$prog $args" \
			-n "$name" -c "$PMC_HEAD/$prog $args" \
			-r auto --max-runs "${PMC_MAX_RUNS:-60}" --max-time "${PMC_MAX_TIME:-600}" \
			--timeout 300 --threshold "$PMC_LIMIT" --metric "$metric" --gate --profile \
			--format markdown --report "$PMC_OUT/$name.md" -o "$PMC_OUT/$name.json" \
			"${opts[@]}" </dev/null >"$PMC_OUT/$name.out" 2>"$PMC_OUT/$name.err") || rc=$?
		cat "$PMC_OUT/$name.err" >&2
		sed -n '/^Sequential decision/,$p' "$PMC_OUT/$name.out"
		record "$name" "$rc"
	done <<<"${PMC_BENCHMARKS:-}"
	# A benchmark program samples itself: the pull request's build runs the merge-base's
	# beside it (--against), their processes interleaved and paired round by round, so
	# that the runner's drift hits both and the time is gated (docs/ci.md); two results
	# saved one after the other could only be shown.
	if [[ -n ${PMC_MICROBENCH:-} ]] && both microbench "$PMC_MICROBENCH"; then
		local label mbmetric=$metric/op
		label=$(basename "$PMC_MICROBENCH")
		# Without counters a program has its wall time alone (a user time is a
		# command's, from wait4); the pairing cancels the drift it carries.
		[[ ${PMC_COUNTERS:-} != denied ]] || mbmetric=wall-time/op
		rc=0
		(cd "$PMC_HEAD" && "$PMC_HEAD/$PMC_MICROBENCH" -q --timeout 600 \
			-n "$label@base" --against "$PMC_BASE_TREE/$PMC_MICROBENCH" -n "$label" \
			--threshold "$mbmetric=${PMC_LIMIT#*=}" --metric "$mbmetric" --gate \
			--format markdown --report "$PMC_OUT/microbench.md" \
			-o "$PMC_OUT/microbench.json" >/dev/null) \
			</dev/null 2>"$PMC_OUT/microbench.err" || rc=$?
		cat "$PMC_OUT/microbench.err" >&2
		record microbench "$rc"
	fi
	ls "$PMC_OUT"/*.rc >/dev/null 2>&1 || { err "nothing was measured: benchmarks and microbench are empty"; return 2; }
	return "$STATUS"
}

cmd_exact_key() {
	local tools base
	# Exact counts are the binaries': another compiler, C library, valgrind or pmcbench
	# moves them, so a baseline is only looked up under the same tools.
	tools=$({ cc --version; ldd --version; valgrind --version; pmcbench --version
		echo "${PMC_BUILD:-}${PMC_SYSCALL_LIMIT:-}${PMC_ALLOC_LIMIT:-}"; } 2>&1 | sha256sum | cut -c1-16)
	if [[ ${PMC_EVENT:-push} == pull_request ]]; then
		base=$(base_sha) || return 2
	else
		base=$(git -C "$PMC_HEAD" rev-parse HEAD)
	fi
	keep PMC_BASE_COMMIT "$base"
	say "exact baseline key: the tools' hash $tools (cc, C library, valgrind, pmcbench, build, limits), the base $base"
	echo "pmcbench-exact-${RUNNER_OS:-Linux}-$tools-$base"
}

# have PROGRAM SIDE: whether the tree in the current directory has PROGRAM.
have() {
	[[ -x $1 ]] && return 0
	if [[ $2 == base ]]; then
		warn "$1 is not in the base: not compared"
		return 1
	fi
	err "$1 does not exist or is not executable; does the build build it?"
	exit 2
}

# kernel_counts DIR SIDE CMDS...: system calls (tracepoints) and allocations (uprobes)
# need root or CAP_PERFMON and tracefs: as root, the files then given back to this user.
kernel_counts() {
	local dir=$1 side=$2
	shift 2
	if [[ -n ${PMC_SYSCALL_LIMIT:-} && $# -gt 0 ]]; then
		as_root env PATH="$PATH" LD_LIBRARY_PATH="$LD_LIBRARY_PATH" pmcbench run -q \
			--syscalls -e task-clock -r 5 --timeout 600 -o "$dir/syscalls.json" "$@" \
			</dev/null >"$dir/syscalls.out" || return 2
	fi
	if [[ -n ${PMC_ALLOC_LIMIT:-} && -n ${PMC_MICROBENCH:-} ]] && have "$PMC_MICROBENCH" "$side"; then
		as_root env PATH="$PATH" LD_LIBRARY_PATH="$LD_LIBRARY_PATH" "./$PMC_MICROBENCH" -q \
			--allocs -r 5 --processes 5 --min-time 0.05 --timeout 600 -o "$dir/allocs.json" \
			</dev/null >"$dir/allocs.out" ||
			return 2
	fi
	[[ $(id -u) == 0 ]] || as_root chown -R "$(id -u):$(id -g)" "$dir"
}

# measure DIR SIDE: every benchmark of the tree in the current directory.
measure() {
	local cmds=() name prog args
	mkdir -p "$1"
	if [[ -n ${PMC_MICROBENCH:-} ]] && have "$PMC_MICROBENCH" "$2"; then
		"./$PMC_MICROBENCH" --backend valgrind --timeout 600 -q -o "$1/micro.json" </dev/null >/dev/null
	fi
	while read -r name prog args; do
		if [[ -n $name ]] && have "$prog" "$2"; then
			cmds+=(-n "$name" -c "./$prog $args")
		fi
	done <<<"${PMC_BENCHMARKS:-}"
	if ((${#cmds[@]})); then
		pmcbench run --backend valgrind --timeout 600 -q --profile -o "$1/commands.json" \
			"${cmds[@]}" </dev/null >"$1/commands.out"
	fi
	kernel_counts "$1" "$2" "${cmds[@]}"
}

cmd_exact() {
	local baseline=$PMC_STATE/baseline
	build_tree "$PMC_HEAD" || return 2
	rm -rf "$PMC_OUT" && mkdir -p "$PMC_OUT"
	if [[ ${PMC_EVENT:-push} == pull_request && ! -d $baseline ]]; then
		# No saved baseline (the base has not run under these tools, or the cache entry
		# is gone): the base is built and measured here first; exact counts do not care
		# where or when.
		note "no saved baseline for $PMC_BASE_COMMIT: measuring the base in this job"
		rm -rf "$PMC_STATE/base"
		git -C "$PMC_HEAD" worktree add -q --detach "$PMC_STATE/base" "$PMC_BASE_COMMIT"
		build_tree "$PMC_STATE/base" || return 2
		(cd "$PMC_STATE/base" && measure "$baseline" base) || return 2
		echo "measured in this job" >"$baseline/origin"
	fi
	(cd "$PMC_HEAD" && measure "$PMC_OUT/new" head)
}

cmd_exact_save() {
	local baseline=$PMC_STATE/baseline
	rm -rf "$baseline"
	cp -r "$PMC_OUT/new" "$baseline"
	echo "saved by the ${PMC_EVENT:-push} run of $(git -C "$PMC_HEAD" rev-parse HEAD)" >"$baseline/origin"
	echo "saved" >"$PMC_OUT/saved"
}

# The limit of a result file, by what it holds.
limit_of() {
	case $1 in
	micro) echo "${PMC_COUNT_LIMIT_PER_OP:-instructions/op=+0.1%}" ;;
	syscalls) echo "$PMC_SYSCALL_LIMIT" ;;
	allocs) echo "$PMC_ALLOC_LIMIT" ;;
	*) echo "${PMC_COUNT_LIMIT:-instructions=+0.1%}" ;;
	esac
}

# The metrics a result file's report shows: all of valgrind's; of the hundreds of system
# calls, their total and the one limited (each is in the artifact's result).
metrics_of() {
	local limit
	limit=$(limit_of "$1")
	case $1 in
	syscalls) printf -- '--metric\nsyscalls:total\n--metric\n%s\n' "${limit%%=*}" ;;
	allocs) printf -- "--metric\nuprobe:*\n" ;;
	esac
}

cmd_exact_gate() {
	local baseline=$PMC_STATE/baseline new file rc news shown
	shopt -s nullglob
	news=("$PMC_OUT"/new/*.json)
	if ((${#news[@]} == 0)); then
		err "nothing was measured: benchmarks and microbench are empty"
		return 2
	fi
	# Gated inside the results' directory: the reports name the files as the artifact
	# holds them (baseline/X.json, new/X.json).
	rm -rf "$PMC_OUT/baseline" && cp -r "$baseline" "$PMC_OUT/baseline"
	for new in "${news[@]}"; do
		file=$(basename "$new" .json)
		if [[ ! -f $baseline/$file.json ]]; then
			warn "the baseline has no $file.json: $file not compared"
			echo "not compared: the baseline has no $file.json" >"$PMC_OUT/$file.note"
			record "$file" 0
			continue
		fi
		rc=0
		mapfile -t shown < <(metrics_of "$file")
		(cd "$PMC_OUT" && pmcbench gate --baseline "baseline/$file.json" "new/$file.json" \
			--threshold "$(limit_of "$file")" "${shown[@]}" --format markdown \
			--output "$file.md") || rc=$?
		record "$file" "$rc"
	done
	return "$STATUS"
}

# embed FILE: a report inside the summary: its headings two levels down (under the
# summary's ## and ###), outside code blocks, and the results' paths relative to the
# artifact's root.
embed() {
	awk '/^```/ { code = !code } !code && /^#/ { $0 = "##" $0 } { print }' "$1" |
		sed "s|$PMC_OUT/||g; s|$PMC_HEAD/||g"
}

verdict_of() {
	case $1 in
	0) echo "pass" ;;
	1) echo "**FAIL: regression**" ;;
	3) echo "**FAIL: undecided** (--fail-on-inconclusive)" ;;
	*) echo "**ERROR**: nothing was judged" ;;
	esac
}

summary_body() {
	local f name rc verdict rcs
	shopt -s nullglob
	rcs=("$PMC_OUT"/*.rc)
	if [[ $PMC_MODE == timing ]]; then
		echo "## pmcbench timing: head against its base"
		echo
		echo "\`${PMC_HEAD_COMMIT:-?}\` against the base \`${PMC_BASE_COMMIT:-?}\`, both built and measured in this job in interleaved rounds, compared round by round; limit \`${PMC_LIMIT:-${PMC_TIME_LIMIT:-?}}\`."
	else
		echo "## pmcbench exact counts: head against its base"
		echo
		if [[ -f $PMC_OUT/saved ]]; then
			echo "Exact counts of \`$(git -C "$PMC_HEAD" rev-parse HEAD)\` saved as the baseline."
			return 0
		fi
		echo "Baseline: \`${PMC_BASE_COMMIT:-?}\`, $(cat "$PMC_STATE/baseline/origin" 2>/dev/null || echo 'not found')."
	fi
	echo
	if ((${#rcs[@]} == 0)); then
		echo "**Nothing was judged**: a step before the measurement failed (see its log)."
	fi
	echo "Paths below are in the artifact \`$(basename "$PMC_OUT")\`."
	echo
	for f in "${rcs[@]}"; do
		name=$(basename "$f" .rc)
		rc=$(<"$f")
		verdict=$(verdict_of "$rc")
		[[ $rc == 0 && -s $PMC_OUT/$name.note ]] && verdict=$(<"$PMC_OUT/$name.note")
		echo "### $name: $verdict (exit $rc)"
		echo
		# The report holds the comparison and, under -r auto, the sequential decision.
		[[ -s $PMC_OUT/$name.md ]] && { embed "$PMC_OUT/$name.md"; echo; }
		if [[ $rc == 2 && -s $PMC_OUT/$name.err ]]; then
			echo '```'
			cat "$PMC_OUT/$name.err"
			echo '```'
			echo
		fi
	done
}

cmd_report() {
	mkdir -p "$PMC_OUT"
	summary_body >"$PMC_OUT/summary.md"
	{
		echo "<!-- pmcbench-action:$PMC_MODE -->"
		cat "$PMC_OUT/summary.md"
	} >"$PMC_OUT/comment.md"
	if [[ -n ${GITHUB_STEP_SUMMARY:-} ]]; then
		cat "$PMC_OUT/summary.md" >>"$GITHUB_STEP_SUMMARY"
	else
		cat "$PMC_OUT/summary.md"
	fi
}

# GitLab: the summary as a note on the merge request, with PMCBENCH_GITLAB_TOKEN (a
# project access token of api scope). A fork's merge request pipeline runs in the fork's
# project, without the parent's variables: no token, no note, and the log says so.
cmd_gitlab_comment() {
	local body=$PMC_OUT/comment.md
	[[ -s $body ]] || return 0
	if [[ -z ${PMCBENCH_GITLAB_TOKEN:-} ]]; then
		say "no PMCBENCH_GITLAB_TOKEN: the merge request is not commented (the summary is $body in the artifact)"
		return 0
	fi
	curl -sS --fail -o /dev/null --header "PRIVATE-TOKEN: $PMCBENCH_GITLAB_TOKEN" \
		--data-urlencode "body@$body" \
		"$CI_API_V4_URL/projects/$CI_PROJECT_ID/merge_requests/$CI_MERGE_REQUEST_IID/notes" ||
		warn "the merge request was not commented (the token's scope, or a fork's pipeline?)"
}

main() {
	local cmd=${1:-}
	state_init
	case $cmd in
	deps) cmd_deps ;;
	build-key) cmd_build_key ;;
	build) cmd_build ;;
	perf-access) cmd_perf_access ;;
	checkout-base) cmd_checkout_base ;;
	timing) cmd_timing ;;
	exact-key) cmd_exact_key ;;
	exact) cmd_exact ;;
	exact-save) cmd_exact_save ;;
	exact-gate) cmd_exact_gate ;;
	report) cmd_report ;;
	gitlab-comment) cmd_gitlab_comment ;;
	*)
		say "unknown step '$cmd'; use deps, build-key, build, perf-access, checkout-base, timing, exact-key, exact, exact-save, exact-gate, report or gitlab-comment"
		exit 2
		;;
	esac
}

main "$@"
