/* Ctrl-C, SIGTERM and SIGHUP while commands or a benchmark program's processes run
 * (cli.h): each command runs in its own process group, which does not get the terminal's
 * signals, so the handler stops them; a benchmark's process stays in the program's group
 * and is stopped by its pid. The command that caught the signal cleans up, writes what
 * it has to and re-raises it. */
#include <signal.h>
#include <stddef.h>
#include <string.h>

#include "cli/cli.h"
#include "run/runner.h"

/* The runner uses as many slots as a duet runs commands at once. */
_Static_assert(PMC_CLI_RUNNING_SLOTS >= PMC_RUNNER_SLOTS, "one slot per running command");

volatile sig_atomic_t pmc_cli_interrupted;
volatile sig_atomic_t pmc_cli_running[PMC_CLI_RUNNING_SLOTS];

static void on_signal(int sig)
{
	pmc_cli_interrupted = sig;
	for (size_t i = 0; i < PMC_CLI_RUNNING_SLOTS; i++) {
		pid_t child = (pid_t)pmc_cli_running[i];

		/* A pid that leads no group is a benchmark's process. */
		if (child > 0 && kill(-child, SIGKILL) < 0)
			kill(child, SIGKILL);
	}
}

void pmc_cli_catch_signals(bool on)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa = {.sa_handler = on ? on_signal : SIG_DFL};

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

void pmc_cli_die_interrupted(const char *what)
{
	int sig = pmc_cli_interrupted;

	pmc_cli_error("interrupted by signal %d (%s); %s", sig, strsignal(sig), what);
	raise(sig);
}
