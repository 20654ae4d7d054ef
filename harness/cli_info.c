/* Not written yet. */
#include "cli.h"
int pmc_cli_list(int argc, char **argv) { return PMC_EXIT_ERROR; }
int pmc_cli_doctor(int argc, char **argv) { return PMC_EXIT_ERROR; }
