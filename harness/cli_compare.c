/* Not written yet. */
#include "cli.h"
int pmc_cli_compare(int argc, char **argv) { return PMC_EXIT_ERROR; }
int pmc_cli_gate(int argc, char **argv) { return PMC_EXIT_ERROR; }
