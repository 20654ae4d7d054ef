/* Not written yet. */
#include "cli.h"
int pmc_cli_run(int argc, char **argv) { return PMC_EXIT_ERROR; }
