/* Not written yet. */ typedef int pmc_unwritten_cli_compare;
