/* Libraries never print: they report through this callback, which only the CLI sets. */
#pragma once

enum pmc_log_level { PMC_LOG_DEBUG, PMC_LOG_INFO, PMC_LOG_WARN, PMC_LOG_ERROR };

typedef void (*pmc_log_fn)(void *ud, enum pmc_log_level level, const char *msg);

/* Sets the process-wide sink; NULL discards messages. */
void pmc_log_set(pmc_log_fn fn, void *ud);
void pmc_log(enum pmc_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
