/* The session's messages, through the caller's print function (session.h): the library
 * never writes to the terminal itself. */
#include <errno.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/atomic_file.h"
#include "reporters/reporter.h"
#include "session/session.h"

void pmc_session_say(const struct pmc_session_printer *pr, enum pmc_session_level level,
		     const char *fmt, ...)
{
	char *text = NULL;
	va_list ap;

	if (!pr || !pr->fn)
		return;
	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	pr->fn(level, text ? text : "(out of memory)", pr->ud);
	free(text);
}

int pmc_session_check_path(const struct pmc_session_printer *pr, const char *opt, const char *path)
{
	char *copy;
	const char *dir;
	struct stat st;
	int r = 0;

	if (path[0] == '\0') {
		pmc_session_say(pr, PMC_SESSION_ERROR,
				"%s: empty file name; give the path of the file to write", opt);
		return -EINVAL;
	}
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		pmc_session_say(pr, PMC_SESSION_ERROR,
				"%s: '%s' is a directory; give the path of a file in it", opt,
				path);
		return -EINVAL;
	}
	/* Standard output, a device or a FIFO is written in place, not beside. */
	if (strcmp(path, "-") == 0 || (stat(path, &st) == 0 && !S_ISREG(st.st_mode))) {
		char err[1024];

		if (pmc_atomic_file_check(path, err, sizeof(err)) < 0) {
			pmc_session_say(pr, PMC_SESSION_ERROR, "%s: %s", opt, err);
			return -EINVAL;
		}
		return 0;
	}
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	dir = dirname(copy);
	if (access(dir, W_OK) < 0) {
		pmc_session_say(pr, PMC_SESSION_ERROR, "%s: cannot write into '%s': %s", opt, dir,
				strerror(errno));
		r = -EINVAL;
	} else {
		/* Creating the file's temporary beside it is the only sure test: a directory
		 * may pass access(W_OK) and refuse new files (/proc, read-only mounts as
		 * root). */
		char err[1024];

		if (pmc_atomic_file_check(path, err, sizeof(err)) < 0) {
			pmc_session_say(pr, PMC_SESSION_ERROR, "%s: %s", opt, err);
			r = -EINVAL;
		}
	}
	free(copy);
	return r;
}

bool pmc_session_format_is_document(const char *format)
{
	const struct pmc_reporter *rep = pmc_reporter_find(format);

	return rep && rep->document;
}

int pmc_session_stream_flush(FILE *f)
{
	errno = 0;
	if (fflush(f) != 0 || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}

const char *pmc_session_stream_name(FILE *f)
{
	return f == stdout   ? "standard output"
	       : f == stderr ? "standard error"
			     : "the report stream";
}
