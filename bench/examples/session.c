/* A session through the installed API only: `true` measured as `pmcbench run` measures
 * it, its report on stdout and its result in new.json, and with a baseline result file
 * given, gated against it; every message goes through this program's own print function
 * (the library prints nothing).
 *
 *	cc session.c $(pkg-config --cflags --libs pmcbench) -o session
 *	./session && mv new.json base.json && ./session base.json
 *
 * Exits 0 on a pass, 1 on a regression or an inconclusive gate, 2 when the session
 * failed or could not decide: the exit status is the program's choice, not the
 * library's. */
#include <pmcbench.h>

#include <stdio.h>

static void print(enum pmc_session_level level, const char *msg, void *ud)
{
	static const char *const prefix[] = {"error: ", "warning: ", "note: ", "", "  "};

	(void)ud;
	fprintf(stderr, "session: %s%s\n", prefix[level], msg);
}

int main(int argc, char **argv)
{
	static const char *const commands[] = {"true"};
	struct pmc_thresholds *limits = NULL;
	enum pmc_decision decision = PMC_DECISION_ERROR;
	char err[256];
	int r;
	PMC_OPTS(pmc_session_opts, o, .commands = commands, .ncommands = 1,
		 .events = "task-clock,page-faults", .runs = 8, .report = stdout,
		 .output = "new.json", .baseline = argc > 1 ? argv[1] : NULL, .print = print);

	/* The gate judges the metrics a limit names: its peak memory must not rise. */
	r = pmc_thresholds_new(&limits);
	if (r == 0 && (r = pmc_thresholds_add_arg(limits, "max-rss=+5%", err, sizeof(err))) < 0)
		fprintf(stderr, "session: %s\n", err);
	o.thresholds = limits;
	if (r == 0)
		r = pmc_session_run(&o, &decision, NULL);
	pmc_thresholds_free(limits);
	if (r < 0)
		return 2;
	switch (decision) {
	case PMC_DECISION_PASS:
		return 0;
	case PMC_DECISION_REGRESSION:
	case PMC_DECISION_INCONCLUSIVE:
		return 1;
	default:
		return 2;
	}
}
