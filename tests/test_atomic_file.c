/* The atomic-file writer of harness/0-base: a commit replaces the target whole and keeps
 * its mode, a new file gets the umask's mode, and an abort or any failure (a write cut
 * short by the file size limit, a rename that cannot happen, a directory that does not
 * exist) leaves the old file as it was and no temporary file behind. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/atomic_file.h"

static char dir[64];
static char path[128];

static int setup(void **state)
{
	strcpy(dir, "/tmp/pmc-test-atomic-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/base.json", dir);
	return 0;
}

static int teardown(void **state)
{
	char cmd[200];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void write_text(const char *p, const char *text)
{
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

static char *read_text(const char *p)
{
	static char buf[256];
	FILE *f = fopen(p, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static size_t count_entries(const char *d)
{
	DIR *dp = opendir(d);
	struct dirent *e;
	size_t n = 0;

	assert_non_null(dp);
	while ((e = readdir(dp)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(dp);
	return n;
}

static void commit_replaces_and_keeps_the_mode(void **state)
{
	struct pmc_atomic_file *af;
	struct stat st;
	char err[256] = "";

	write_text(path, "old\n");
	assert_int_equal(chmod(path, 0640), 0);
	assert_int_equal(pmc_atomic_file_open(path, &af, err, sizeof(err)), 0);
	assert_true(fputs("new\n", pmc_atomic_file_stream(af)) >= 0);
	/* Until the commit, readers see the old file. */
	assert_string_equal(read_text(path), "old\n");
	assert_int_equal(pmc_atomic_file_commit(af, err, sizeof(err)), 0);
	assert_string_equal(read_text(path), "new\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	assert_int_equal(count_entries(dir), 1);
	unlink(path);
}

static void new_file_gets_the_umask_mode(void **state)
{
	struct pmc_atomic_file *af;
	struct stat st;
	mode_t old = umask(027);

	assert_int_equal(pmc_atomic_file_open(path, &af, NULL, 0), 0);
	fputs("x", pmc_atomic_file_stream(af));
	assert_int_equal(pmc_atomic_file_commit(af, NULL, 0), 0);
	umask(old);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	unlink(path);
}

static void abort_leaves_the_old_file(void **state)
{
	struct pmc_atomic_file *af;

	write_text(path, "old\n");
	assert_int_equal(pmc_atomic_file_open(path, &af, NULL, 0), 0);
	fputs("half", pmc_atomic_file_stream(af));
	pmc_atomic_file_abort(af);
	pmc_atomic_file_abort(NULL);
	assert_string_equal(read_text(path), "old\n");
	assert_int_equal(count_entries(dir), 1);
	unlink(path);
}

/* The file size limit stands in for a full disk; the write fails in a child, where the
 * limit can be set. */
static void failed_write_leaves_the_old_file(void **state)
{
	int status;
	pid_t pid;

	write_text(path, "old\n");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = {4096, 4096};
		struct pmc_atomic_file *af;
		char err[256] = "";
		int rc;

		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &rl);
		if (pmc_atomic_file_open(path, &af, err, sizeof(err)) < 0)
			_exit(10);
		for (int i = 0; i < 10000; i++)
			fputs("0123456789", pmc_atomic_file_stream(af));
		rc = pmc_atomic_file_commit(af, err, sizeof(err));
		if (rc != -EFBIG)
			_exit(11);
		if (!strstr(err, path) || !strstr(err, "the previous file is unchanged"))
			_exit(12);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_string_equal(read_text(path), "old\n");
	assert_int_equal(count_entries(dir), 1);
	unlink(path);
}

/* The target is a directory with something in it: rename() fails at the last step. */
static void failed_rename_leaves_no_temporary_file(void **state)
{
	struct pmc_atomic_file *af;
	char inner[200], err[256] = "";

	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(inner, sizeof(inner), "%s/keep", path);
	write_text(inner, "kept\n");
	assert_int_equal(pmc_atomic_file_open(path, &af, err, sizeof(err)), 0);
	fputs("new\n", pmc_atomic_file_stream(af));
	assert_true(pmc_atomic_file_commit(af, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "the previous file is unchanged"));
	assert_string_equal(read_text(inner), "kept\n");
	assert_int_equal(count_entries(dir), 1);
	unlink(inner);
	rmdir(path);
}

static void missing_directory_and_bad_names_are_refused(void **state)
{
	struct pmc_atomic_file *af = (void *)1;
	char p[200], err[256] = "";

	snprintf(p, sizeof(p), "%s/no/such/dir/base.json", dir);
	assert_int_equal(pmc_atomic_file_open(p, &af, err, sizeof(err)), -ENOENT);
	assert_ptr_equal(af, (void *)1);
	assert_non_null(strstr(err, "check that the directory exists and is writable"));
	assert_int_equal(pmc_atomic_file_open("", &af, err, sizeof(err)), -EINVAL);
	assert_int_equal(pmc_atomic_file_open("somewhere/", &af, NULL, 0), -EINVAL);
	assert_ptr_equal(af, (void *)1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(commit_replaces_and_keeps_the_mode),
	    cmocka_unit_test(new_file_gets_the_umask_mode),
	    cmocka_unit_test(abort_leaves_the_old_file),
	    cmocka_unit_test(failed_write_leaves_the_old_file),
	    cmocka_unit_test(failed_rename_leaves_no_temporary_file),
	    cmocka_unit_test(missing_directory_and_bad_names_are_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
