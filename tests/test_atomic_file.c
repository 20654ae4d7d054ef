/* The atomic-file writer of harness/0-base: a commit replaces the target whole and keeps
 * its mode, a new file gets the umask's mode, and an abort or any failure (a write cut
 * short by the file size limit, a rename that cannot happen, a directory that does not
 * exist) leaves the old file as it was and no temporary file behind. What is not a
 * regular file (a device node, a FIFO, standard output, a descriptor through /proc) is
 * written into, never replaced; a symlink is followed, and its target's set-id bits are
 * never copied. The nodes are private ones made with mknod/mkfifo in the test's
 * directory, never /dev's. */
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
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/test_main.h"

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

static int commit_text(const char *p, const char *text, char *err, size_t errlen)
{
	struct pmc_atomic_file *af;
	int rc = pmc_atomic_file_open(p, &af, err, errlen);

	if (rc < 0)
		return rc;
	fputs(text, pmc_atomic_file_stream(af));
	return pmc_atomic_file_commit(af, err, errlen);
}

/* A private copy of /dev/null (1,3) and /dev/full (1,7): still the same device after a
 * commit, and a full device's error is ENOSPC by name. */
static void device_node_is_written_not_replaced(void **state)
{
	char node[200], full[200], err[256] = "";
	struct stat st;

	snprintf(node, sizeof(node), "%s/null", dir);
	snprintf(full, sizeof(full), "%s/full", dir);
	assert_int_equal(mknod(node, S_IFCHR | 0666, makedev(1, 3)), 0);
	assert_int_equal(mknod(full, S_IFCHR | 0666, makedev(1, 7)), 0);
	assert_int_equal(chmod(node, 0666), 0); /* mknod applied the umask */
	assert_int_equal(pmc_atomic_file_check(node, err, sizeof(err)), 0);
	assert_int_equal(commit_text(node, "result\n", err, sizeof(err)), 0);
	assert_int_equal(lstat(node, &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(st.st_rdev, makedev(1, 3));
	assert_int_equal(st.st_mode & 07777, 0666);
	assert_int_equal(commit_text(full, "result\n", err, sizeof(err)), -ENOSPC);
	assert_non_null(strstr(err, "No space left on device"));
	assert_int_equal(lstat(full, &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(count_entries(dir), 2);
	unlink(node);
	unlink(full);
}

/* A FIFO's reader gets the whole text; checking the path does not open it (which would
 * be the reader's end of file), and the FIFO stays a FIFO. */
static void fifo_reader_gets_the_text(void **state)
{
	char fifo[200], err[256] = "";
	struct stat st;
	int status;
	pid_t pid;

	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(pmc_atomic_file_check(fifo, err, sizeof(err)), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char buf[64] = "";
		size_t n = 0;
		int fd = open(fifo, O_RDONLY);
		ssize_t k;

		while (fd >= 0 && (k = read(fd, buf + n, sizeof(buf) - 1 - n)) > 0)
			n += (size_t)k;
		_exit(strcmp(buf, "through the fifo\n") == 0 ? 0 : 1);
	}
	assert_int_equal(commit_text(fifo, "through the fifo\n", err, sizeof(err)), 0);
	/* A FIFO replaced by a file would leave the reader waiting for ever. */
	if (lstat(fifo, &st) != 0 || !S_ISFIFO(st.st_mode))
		kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(S_ISFIFO(st.st_mode));
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(count_entries(dir), 1);
	unlink(fifo);
}

/* A symlink stays a link; its target is replaced with at most 0666 of its mode (a
 * setuid, executable target gives 0644); a dangling link's target is created. */
static void symlink_target_is_replaced_without_set_id_bits(void **state)
{
	char link[200], target[200], dangling[200], made[200], err[256] = "";
	struct stat st;

	snprintf(link, sizeof(link), "%s/link.json", dir);
	snprintf(target, sizeof(target), "%s/target.json", dir);
	snprintf(dangling, sizeof(dangling), "%s/dangling.json", dir);
	snprintf(made, sizeof(made), "%s/made.json", dir);
	write_text(target, "old\n");
	assert_int_equal(chmod(target, 06755), 0);
	assert_int_equal(symlink("target.json", link), 0);
	assert_int_equal(commit_text(link, "new\n", err, sizeof(err)), 0);
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_string_equal(read_text(target), "new\n");
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_mode & 07777, 06755 & 0666);
	assert_int_equal(symlink(made, dangling), 0);
	assert_int_equal(commit_text(dangling, "made\n", err, sizeof(err)), 0);
	assert_int_equal(lstat(dangling, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_string_equal(read_text(made), "made\n");
	assert_int_equal(count_entries(dir), 4);
	unlink(link);
	unlink(target);
	unlink(dangling);
	unlink(made);
}

/* "-" is standard output, and a link to /proc/self/fd/N (what /dev/stdout is) writes
 * through descriptor N: its O_APPEND holds, the file is the same inode; an abort
 * writes nothing. Standard output is redirected in a child. */
static void dash_and_descriptor_links_write_in_place(void **state)
{
	char out[200], link[200], proc[64], err[256] = "";
	struct stat before, after;
	struct pmc_atomic_file *af;
	int status, fd;
	pid_t pid;

	snprintf(out, sizeof(out), "%s/out.txt", dir);
	snprintf(link, sizeof(link), "%s/stdout", dir);
	write_text(out, "old\n");
	assert_int_equal(stat(out, &before), 0);
	fd = open(out, O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	assert_int_equal(symlink(proc, link), 0);
	assert_int_equal(commit_text(link, "appended\n", err, sizeof(err)), 0);
	assert_int_equal(pmc_atomic_file_open(link, &af, err, sizeof(err)), 0);
	fputs("dropped\n", pmc_atomic_file_stream(af));
	pmc_atomic_file_abort(af);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (dup2(fd, STDOUT_FILENO) < 0)
			_exit(1);
		_exit(commit_text("-", "dash\n", err, sizeof(err)) == 0 ? 0 : 2);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	close(fd);
	assert_string_equal(read_text(out), "old\nappended\ndash\n");
	assert_int_equal(stat(out, &after), 0);
	assert_int_equal(after.st_ino, before.st_ino);
	assert_int_equal(lstat(link, &after), 0);
	assert_true(S_ISLNK(after.st_mode));
	assert_int_equal(count_entries(dir), 2);
	unlink(link);
	unlink(out);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(commit_replaces_and_keeps_the_mode),
	    cmocka_unit_test(new_file_gets_the_umask_mode),
	    cmocka_unit_test(abort_leaves_the_old_file),
	    cmocka_unit_test(failed_write_leaves_the_old_file),
	    cmocka_unit_test(failed_rename_leaves_no_temporary_file),
	    cmocka_unit_test(missing_directory_and_bad_names_are_refused),
	    cmocka_unit_test(device_node_is_written_not_replaced),
	    cmocka_unit_test(fifo_reader_gets_the_text),
	    cmocka_unit_test(symlink_target_is_replaced_without_set_id_bits),
	    cmocka_unit_test(dash_and_descriptor_links_write_in_place),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, setup, teardown);
}
