/* Not written yet. */ typedef int pmc_unwritten_counters;
