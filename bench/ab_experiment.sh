#!/bin/bash
# How often does each way of comparing two programs raise a false alarm, and how often
# does it catch a real slowdown, on this machine, at equal machine time?
#
# A is `pmc-work loop N`; B is A itself (A/A), or the loop with 2% or 5% more
# iterations (+2%, +5%: a little less in task-clock, exec and loading being fixed costs;
# the summary prints the change it measured). Each repetition measures the three cases
# with each design, the designs in a rotating order so that all of them meet the same
# load, each measurement on task-clock only (`-e task-clock --metric task-clock`):
#
#   unpaired   run -c A -c B -r R --unpaired    interleaved rounds, Mann-Whitney U
#   separate   run -r R -- A; run -r R -- B;    two result files, A's runs then B's,
#              compare / gate of the two files  Mann-Whitney U (the pre-rounds path)
#   paired     run -c A -c B -r R               Wilcoxon signed-rank on the rounds
#   duet       run --duet -c A -c B -r D        both at once on two CPUs, swapped each
#                                               round; signed-rank on the rounds
#   seq        run -c A -c B -r auto --max-runs M --threshold task-clock=+1%
#   duet-seq   the same with --duet, --max-runs MD
#
# What is counted, per measurement (alpha 0.05, one row, so q = p):
#   signif.  the comparison calls task-clock significantly different (q < alpha and
#            its CI excludes 0%), read from the "change (HL)" column of the report
#            (`run --report FILE`: `run` cannot write its comparison as JSON) or from
#            `compare --format json` for `separate`. A/A: either direction is a false
#            alarm. +2%, +5%: detected when significant and slower.
#   gate     `--gate --threshold task-clock=+1%` exits 1: significant and the whole
#            CI above +1% (fixed designs), or the confidence sequence of the per-round
#            ratio wholly above +1% (seq designs; with --fail-on-inconclusive, exit 3
#            is undecided after M rounds and 0 a decided "no regression").
#            A/A: exit 1 is a false alarm. +2%, +5%: exit 1 is a detection.
#
# Equal machine time: each fixed design gets R rounds (separate: R runs of each file),
# except the duet, which runs A and B at the same time: its rounds D are set before
# every repetition from the wall time per round of all interleaved and duet
# measurements so far (three A/A pairs of each before the first), so that a duet
# measurement takes the wall time of an R-round interleaved one: about 2R on an idle
# machine, fewer when other work holds the second CPU (or DUET_ROUNDS). The sequential
# designs stop when they decide, at most at M = 2R rounds (MAX_RUNS; the duet's cap is
# scaled like D, or DUET_MAX_RUNS). The summary prints the wall time each design took.
#
# Targets (issue 10): false alarms <= 5% for every design; +5% detected >= 90% by the
# paired or the duet design where unpaired gets about 55-65%; the sequential designs
# reaching the same error rates with at most half the rounds on the clear cases.
#
# Usage: bench/ab_experiment.sh [BUILDDIR] [REPS] [ROUNDS] [LOOP_ITERATIONS]
#        (defaults build 60 10 20000000, about 10 minutes on 2 CPUs; env DUET_ROUNDS,
#        MAX_RUNS, DUET_MAX_RUNS override the rounds above, KEEP=1 keeps the results;
#        needs python3 and bench/ab_summary.py)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
reps=${2:-60}
rounds=${3:-10}
n=${4:-20000000}
pmcbench=$build/pmcbench
work=$build/tests/targets/pmc-work
if ! [ -x "$pmcbench" ] || ! [ -x "$work" ]; then
	echo "ab_experiment: build first: sh ci/build.sh plain $build" >&2
	exit 2
fi
for v in "$reps" "$rounds" "$n"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || { echo "ab_experiment: REPS, ROUNDS and LOOP_ITERATIONS must be whole numbers > 0, not '$v'" >&2; exit 2; }
done
# The signed-rank test cannot reach alpha 0.05 with fewer than 6 rounds (docs/compare.md).
((rounds >= 6)) || { echo "ab_experiment: ROUNDS must be at least 6" >&2; exit 2; }
max_runs=${MAX_RUNS:-$((2 * rounds))}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ab_experiment.XXXXXX")
# KEEP=1 leaves every result and report in $tmp for a closer look.
if [ -n "${KEEP:-}" ]; then
	echo "ab_experiment: keeping the measurements in $tmp" >&2
else
	trap 'rm -rf "$tmp"' EXIT
fi

declare -A loop=([aa]=$n [p2]=$((n + n / 50)) [p5]=$((n + n / 20)))
common=(-q -e task-clock --metric task-clock --threshold task-clock=+1% --gate)

now() { echo "${EPOCHREALTIME/,/.}"; }

# Runs pmcbench with the arguments given, leaving its exit status in $code; 2 (an error)
# stops the experiment with its message.
pmc() {
	code=0
	"$pmcbench" "$@" >"$tmp/out" 2>"$tmp/err" || code=$?
	if ((code == 2)); then
		echo "ab_experiment: pmcbench $* failed:" >&2
		cat "$tmp/err" >&2
		exit 2
	fi
}

# One measurement: DESIGN CASE REP. Leaves its files as $tmp/m/DESIGN.CASE.REP.* and
# appends "DESIGN CASE REP start end gate-exit-status rounds" (times in seconds; the
# rounds asked for, or the sequential cap) to $tmp/records.
measure() {
	local d=$1 c=$2 i=$3 f=$tmp/m/$1.$2.$3 t0 a b r=$rounds
	a="$work loop $n" b="$work loop ${loop[$c]}"
	t0=$(now)
	case $d in
	unpaired) pmc run "${common[@]}" -r "$r" --unpaired -n A -c "$a" -n B -c "$b" -o "$f.json" --report "$f.txt" ;;
	paired | calib-interleaved)
		pmc run "${common[@]}" -r "$r" -n A -c "$a" -n B -c "$b" -o "$f.json" --report "$f.txt" ;;
	duet | calib-duet)
		r=$duet_rounds
		pmc run "${common[@]}" -r "$r" --duet -n A -c "$a" -n B -c "$b" -o "$f.json" --report "$f.txt" ;;
	seq)
		r=$max_runs
		pmc run "${common[@]}" -r auto --max-runs "$r" --fail-on-inconclusive \
			-n A -c "$a" -n B -c "$b" -o "$f.json" --report "$f.txt" ;;
	duet-seq)
		r=$duet_max_runs
		pmc run "${common[@]}" -r auto --max-runs "$r" --fail-on-inconclusive --duet \
			-n A -c "$a" -n B -c "$b" -o "$f.json" --report "$f.txt" ;;
	separate)
		# Both files name their benchmark "w" so that compare pairs them; --force: the
		# two commands differ on purpose.
		pmc run -q -e task-clock -r "$r" -n w -o "$f.a.json" -- "$work" loop "$n"
		pmc run -q -e task-clock -r "$r" -n w -o "$f.b.json" -- "$work" loop "${loop[$c]}"
		pmc compare --force --metric task-clock --format json "$f.a.json" "$f.b.json"
		cp "$tmp/out" "$f.cmp.json"
		pmc gate --force --metric task-clock --threshold task-clock=+1% --baseline "$f.a.json" "$f.b.json" ;;
	esac
	echo "$d $c $i $t0 $(now) $code $r" >>"$tmp/records"
}

# Sets the duet's rounds (and its sequential cap) so that a duet measurement takes the
# wall time of an R-round interleaved one, from the wall time per round (the warm-up
# round included) of every interleaved and duet measurement so far. The load of a
# shared machine changes: an idle second CPU makes a duet round cost about half an
# interleaved one, a busy one as much or more.
calibrate() {
	if [ -n "${DUET_ROUNDS:-}" ]; then
		duet_rounds=$DUET_ROUNDS
		duet_max_runs=${DUET_MAX_RUNS:-$(((max_runs * duet_rounds + rounds / 2) / rounds))}
		return
	fi
	read -r duet_rounds duet_max_runs < <(awk -v r="$rounds" -v m="$max_runs" '
		$1 ~ /^(unpaired|paired|calib-interleaved)$/ { ti += $5 - $4; ni += $7 + 1 }
		$1 ~ /^(duet|calib-duet)$/                   { td += $5 - $4; nd += $7 + 1 }
		END {
			q = (ti / ni) / (td / nd)  # interleaved round / duet round
			d = int((r + 1) * q - 1 + 0.5); dm = int((m + 1) * q - 1 + 0.5)
			# The signed-rank test needs 6 rounds, the sequential rule 8.
			print (d < 6 ? 6 : d > 4 * r ? 4 * r : d), (dm < 8 ? 8 : dm > 4 * m ? 4 * m : dm)
		}' "$tmp/records")
	if [ -n "${DUET_MAX_RUNS:-}" ]; then duet_max_runs=$DUET_MAX_RUNS; fi
}

mkdir "$tmp/m"
load0=$(cut -d' ' -f1-3 /proc/loadavg)
echo "ab_experiment: $(nproc) CPUs, load average $load0 at the start" >&2

# A first estimate: R interleaved rounds against R duet rounds, A/A, three times each.
duet_rounds=$rounds
for k in 1 2 3; do
	measure calib-interleaved aa "$k"
	measure calib-duet aa "$k"
done
calibrate
echo "ab_experiment: duet rounds $duet_rounds to start with (then recalibrated every repetition)" >&2

designs=(unpaired separate paired duet seq duet-seq)
t_start=$(now)
for ((i = 0; i < reps; i++)); do
	printf '\rab_experiment: repetition %d/%d, duet rounds %d ' $((i + 1)) "$reps" "$duet_rounds" >&2
	for c in aa p2 p5; do
		for ((k = 0; k < ${#designs[@]}; k++)); do
			measure "${designs[(i + k) % ${#designs[@]}]}" "$c" "$i"
		done
	done
	calibrate
done
echo >&2

python3 "$here/ab_summary.py" "$tmp" "$pmcbench" "$reps" "$rounds" "$max_runs" "$n" "${loop[p2]}" \
	"${loop[p5]}" "$load0" "$(cut -d' ' -f1-3 /proc/loadavg)" "$t_start" "$(now)"
