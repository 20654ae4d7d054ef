/* `pmcbench run`: its options (read by cli_run_opts.c) checked against each other and
 * turned into commands, then one session (harness/6-session/) that probes, runs,
 * reports, saves, exports and compares, and its decision as the exit status. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_run_priv.h"
#include "run/runner.h"

/* Checks the options against each other and the commands, before anything is looked up
 * or probed. 0, or -EINVAL after an error line. */
static int check_options(struct run_cli *c, size_t ncmds)
{
	struct pmc_cli_session_opts *so = &c->so;

	if ((c->gate || c->runs_auto) && ncmds < 2) {
		pmc_cli_error("%s compares several commands (-c A -c B); to gate one command, "
			      "give --baseline FILE",
			      c->runs_auto ? "--runs auto" : "--gate");
		return -EINVAL;
	}
	if (pmc_cli_compare_opts_check_used(c->copts, ncmds >= 2 || so->baseline,
					    "give two commands (-c A -c B) or --baseline FILE") < 0)
		return -EINVAL;
	if (c->gate && so->baseline) {
		pmc_cli_error("--gate judges the commands against the reference; --baseline "
			      "gates against a file: give one of them");
		return -EINVAL;
	}
	if (c->history && (!so->output || strcmp(so->output, "-") == 0)) {
		pmc_cli_error("--history adds the saved result to the history; give -o FILE too");
		return -EINVAL;
	}
	if (c->history && !c->add_history) {
		pmc_cli_error("--history: this program keeps no history; add its result with "
			      "'pmcbench history add FILE'");
		return -EINVAL;
	}
	/* A history that cannot take the result says so before the runs, not after. */
	if (c->history && c->add_history(c->history, NULL) != PMC_EXIT_OK)
		return -EINVAL;
	if (c->max_given && !c->runs_auto) {
		pmc_cli_error("--max-runs and --max-time bound --runs auto; give -r auto too");
		return -EINVAL;
	}
	if (c->runs_auto && pmc_backend_get(so->backend)->simulated) {
		pmc_cli_error("--runs auto: %s's counts are exact, one run decides; drop "
			      "--runs auto",
			      pmc_backend_get(so->backend)->name);
		return -EINVAL;
	}
	if (c->runs_auto) {
		c->seq.ref = c->reference ? c->reference - 1 : 0;
		c->seq.cmp = &c->copts->s;
		if (!c->seq.max_runs)
			c->seq.max_runs = 100;
		if (c->reference <= ncmds &&
		    pmc_session_seq_check_opts(&c->seq, ncmds, &pmc_cli_printer) < 0)
			return -EINVAL;
	}
	if (c->unpaired && ncmds < 2) {
		pmc_cli_error("--unpaired compares several commands' runs; give two or more "
			      "(-c A -c B)");
		return -EINVAL;
	}
	if (c->reference > ncmds) {
		pmc_cli_error("--reference %zu: there %s only %zu command%s", c->reference,
			      ncmds == 1 ? "is" : "are", ncmds, ncmds == 1 ? "" : "s");
		return -EINVAL;
	}
	return 0;
}

/* The options that come before the commands are built. 0, or -EINVAL after an error
 * line. */
static int check_early(struct run_cli *c)
{
	struct pmc_cli_session_opts *so = &c->so;
	const struct pmc_backend_ops *b = pmc_backend_get(so->backend);
	char err[1024];

	if (c->ro.env_inherit && c->nenv_keep) {
		pmc_cli_error("--env-keep has no effect with --env-inherit, which passes every "
			      "variable; give one or the other");
		return -EINVAL;
	}
	/* Two commands started together leave no moment between their runs for one. */
	if (c->ro.duet && (c->ro.prepare || c->ro.setup || c->ro.cleanup)) {
		pmc_cli_error("--%s does not go with --duet, which starts both commands at once; "
			      "drop one of them",
			      c->ro.prepare ? "prepare"
			      : c->ro.setup ? "setup"
					    : "cleanup");
		return -EINVAL;
	}
	/* Before anything is looked up or probed: the runner checks the same again. */
	if (c->ro.duet &&
	    pmc_runner_check_duet((c->ncmd_strings ? c->ncmd_strings : 1) * c->ncombos, so->backend,
				  NULL, err, sizeof(err)) < 0) {
		pmc_cli_error("%s", err);
		return -EINVAL;
	}
	/* The runner checks the same again. */
	if (c->ro.interval_ms && (b->simulated || c->ro.duet)) {
		pmc_cli_error("-I reads the counters while a command runs: not with %s; drop -I",
			      c->ro.duet ? "--duet"
					 : "--backend valgrind, whose counts come at "
					   "the end of each run");
		return -EINVAL;
	}
	/* The recorder refuses the same (record --off-cpu --backend valgrind). */
	if (so->profile_off_cpu && b->simulated) {
		pmc_cli_error("--profile=off-cpu records where the commands wait, with the "
			      "kernel's scheduler events; --backend %s profiles instructions: give "
			      "--profile for its exact profile, or leave --backend out",
			      b->name);
		return -EINVAL;
	}
	/* Valgrind-specific: the option chooses one of valgrind's own tools. */
	if (c->vg_tool_given && so->backend != PMC_BACKEND_VALGRIND) {
		pmc_cli_error("--valgrind-tool chooses valgrind's tool and does nothing without "
			      "--backend valgrind; give both, or neither");
		return -EINVAL;
	}
	/* A window of a running process needs no warm-up unless asked for. */
	if ((c->npids || c->ro.system_wide) && !c->warmup_given)
		c->ro.warmup = 0;
	/* One run decides simulated counts, and nothing warms them. */
	if (b->simulated && !c->runs_given)
		c->ro.runs = 1;
	if (b->simulated && !c->warmup_given)
		c->ro.warmup = 0;
	if (!b->takes_events && (so->events || so->presets || so->require_counters)) {
		pmc_cli_error("%s does not apply to --backend %s, which always reports its "
			      "simulated counts",
			      so->perf_only ? so->perf_only : "--events", b->name);
		return -EINVAL;
	}
	return 0;
}

int pmc_cli_run(int argc, char **argv, pmc_cli_history_fn history)
{
	struct run_cli c = {.ro = {.sz = sizeof(c.ro), .runs = 10, .warmup = 1},
			    .so = {.format = "table"},
			    .add_history = history};
	struct pmc_runner_cmd *cmds = NULL;
	struct pmc_session_cfg cfg;
	char ***owned = NULL;
	size_t ncmds = 0;
	enum pmc_decision d = PMC_DECISION_ERROR;
	int code = PMC_EXIT_ERROR, first = 0, r;

	/* A shared object's benchmarks take the options of a benchmark program. */
	if (pmc_cli_wants_library(argc, argv))
		return pmc_cli_run_library(argc, argv);
	if (pmc_cli_compare_opts_new(&c.copts) < 0) {
		pmc_cli_error("out of memory");
		return PMC_EXIT_ERROR;
	}
	r = pmc_cli_run_parse_args(&c, argc, argv, &first);
	if (r == -ENOMEM)
		pmc_cli_error("out of memory");
	if (r == 1) {
		code = PMC_EXIT_OK;
		goto out;
	}
	if (r < 0)
		goto out;
	/* Text for a reader in ASCII when the locale asks; documents byte for byte. */
	if (!pmc_session_format_is_document(c.so.format) && pmc_cli_ascii_wrap(&stdout) < 0) {
		pmc_cli_error("out of memory");
		goto out;
	}
	if (check_early(&c) < 0)
		goto out;
	/* Attached (-p, -a) without a command: the windows are the duration's, or the
	 * process's life. */
	if ((c.npids || c.ro.system_wide) && !c.ncmd_strings && first >= argc) {
		/* Until the process exits: one window, unless more are asked for. */
		if (!c.duration_given && !c.runs_given)
			c.ro.runs = 1;
		if (pmc_cli_run_check_attach(&c, 0) < 0 || check_options(&c, 0) < 0)
			goto out;
	} else if (pmc_cli_run_build_commands(&c, argc, argv, first, &cmds, &owned, &ncmds) < 0 ||
		   pmc_cli_run_check_attach(&c, ncmds) < 0 || check_options(&c, ncmds) < 0) {
		goto out;
	}
	pmc_cli_run_warn_shell_syntax(&c);
	/* Attached, -n names what is counted: the target, not the load. */
	if (c.npids || c.ro.system_wide)
		c.ro.attach_name = c.ncmd_strings ? (c.nnames ? c.names[0] : NULL) : c.pending_name;
	c.ro.backend = c.so.backend;
	c.ro.timeout_s = c.so.timeout_s;
	c.ro.user_only_fallback = true;
	c.ro.stop = &pmc_cli_interrupted;
	c.ro.running = pmc_cli_running;
	cfg = (struct pmc_session_cfg){
	    .cmds = cmds,
	    .ncmds = ncmds,
	    .ro = c.ro,
	    .median = c.median,
	    .stats = c.stats,
	    .reference = c.reference ? c.reference - 1 : 0,
	    .gate = c.gate,
	    .runs_auto = c.runs_auto,
	    .seq = c.seq,
	    .guard = pmc_cli_guard,
	};
	pmc_cli_session_cfg(&c.so, c.copts, &cfg);
	r = pmc_session_exec(&cfg, &d, NULL);
	code = pmc_cli_exit_status(r, d);
	/* The saved result goes to the history whatever the decision: a history keeps every
	 * result, a regression's too. */
	if (r >= 0 && c.history && c.add_history(c.history, c.so.output) != PMC_EXIT_OK)
		code = PMC_EXIT_ERROR;
out:
	pmc_cli_run_free_commands(cmds, owned, ncmds);
	pmc_cli_compare_opts_free(c.copts);
	free(c.cmd_strings);
	free(c.names);
	pmc_cli_run_params_clear(&c);
	free(c.env_keep);
	free(c.pids);
	pmc_cli_session_opts_clear(&c.so);
	return code;
}
