/* Not written yet. */ typedef int pmc_unwritten_words;
