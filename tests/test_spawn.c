/* Spawning: exit codes, signals, exec errors, timeouts that kill the whole group,
 * stdin from a file, the pre-exec hook seeing a child that has not exec'd yet, pinning
 * to a CPU, and two commands at once (pmc_spawner_pair). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "run/spawn.h"

static int run(char **argv, struct pmc_spawn_result *res)
{
	struct pmc_spawn_opts o = {.argv = argv};

	memset(res, 0xff, sizeof(*res));
	return pmc_spawn_run(&o, res);
}

static void exit_codes_are_reported(void **state)
{
	char *argv[] = {PMC_TEST_WORK, "exit", "3", NULL};
	struct pmc_spawn_result res;

	assert_int_equal(run(argv, &res), 0);
	assert_int_equal(res.exit_code, 3);
	assert_int_equal(res.term_signal, 0);
	assert_false(res.timed_out);
	assert_true(res.wall_ns > 0);
}

/* Without show_output, stderr is kept in a memory file: its size and its last bytes come
 * back, trimmed while the command runs (the sleep lets a tick pass), NUL bytes as spaces,
 * with either way of waiting. */
static void stderr_tail_is_captured(void **state)
{
	char *argv[] = {"sh", "-c", "head -c 3000000 /dev/zero >&2; sleep 0.25; echo end >&2",
			NULL};
	struct pmc_spawn_result res;

	for (int polling = 0; polling < 2; polling++) {
		struct pmc_spawn_opts o = {.argv = argv,
					   .capture_stderr = true,
					   .timeout_s = polling ? 30 : 0,
					   .timeout_by_polling = polling};

		assert_int_equal(pmc_spawn_run(&o, &res), 0);
		assert_int_equal(res.exit_code, 0);
		assert_int_equal(res.stderr_bytes, 3000004);
		assert_int_equal(res.stderr_tail_len, PMC_SPAWN_TAIL_MAX);
		assert_int_equal(strlen(res.stderr_tail), PMC_SPAWN_TAIL_MAX);
		assert_string_equal(res.stderr_tail + PMC_SPAWN_TAIL_MAX - 4, "end\n");
		assert_int_equal(res.stderr_tail[0], ' ');
	}
	/* Not asked for: nothing. */
	assert_int_equal(run(argv, &res), 0);
	assert_int_equal(res.stderr_bytes, 0);
	assert_int_equal(res.stderr_tail_len, 0);
}

/* VmHWM of /proc/self/status in KiB: our peak since the spawner last lowered it. */
static long status_peak_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "re");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "VmHWM:", 6) == 0)
			kb = strtol(line + 6, NULL, 10);
	fclose(f);
	assert_true(kb > 0);
	return kb;
}

/* The floor a run reports (our RSS at the reset and once the child exec'd, from statm)
 * is the peak the kernel says we had (VmHWM, made the same way), within its counting
 * error: read right after the run, VmHWM holds that peak and what we grew since, which
 * is nothing much. */
static void assert_floor_is_our_peak(const struct pmc_spawn_result *res)
{
	long hwm = status_peak_kb();

	assert_true(res->spawner_peak_kb > 0);
	if (labs(res->spawner_peak_kb - hwm) > res->spawner_peak_slack_kb)
		fail_msg("floor %ld KiB, VmHWM %ld KiB, slack %ld KiB", res->spawner_peak_kb, hwm,
			 res->spawner_peak_slack_kb);
}

/* One spawner for a series of runs, as the runner keeps one: each run's stderr size and
 * tail are its own, never a run's before it, though the memory file is reused; a
 * background process of a run that writes once the run has ended reaches no later run's
 * tail (whatever the order of its write and the next run's start); and the max-rss floor
 * is read, and our peak lowered, for every run. */
static void spawner_runs_keep_their_own_values(void **state)
{
	char dir[] = "/tmp/pmc-spawner-XXXXXX", stray[256], wait_stray[256];
	char *say[] = {"sh", "-c", "printf 'first run\\n' >&2", NULL};
	char *quiet[] = {"sh", "-c", ":", NULL};
	char *bg[] = {"sh", "-c", stray, NULL};
	char *after_bg[] = {"sh", "-c", wait_stray, NULL};
	char *touch[] = {PMC_TEST_WORK, "touch", "40000", NULL};
	struct pmc_spawn_opts o = {.argv = say, .capture_stderr = true};
	struct pmc_spawn_result res;
	struct pmc_spawner *sp;
	size_t big = 96u << 20;
	char *held;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(stray, sizeof(stray), "(sleep 0.2; echo stray >&2; touch %s/written) &", dir);
	snprintf(wait_stray, sizeof(wait_stray),
		 "while [ ! -e %s/written ]; do sleep 0.01; done; echo second >&2", dir);
	assert_int_equal(pmc_spawner_new(&sp), 0);
	for (int round = 0; round < 2; round++) {
		o.argv = say;
		assert_int_equal(pmc_spawner_run(sp, &o, &res), 0);
		assert_int_equal(res.stderr_bytes, 10);
		assert_string_equal(res.stderr_tail, "first run\n");
		assert_floor_is_our_peak(&res);
		o.argv = quiet;
		assert_int_equal(pmc_spawner_run(sp, &o, &res), 0);
		assert_int_equal(res.stderr_bytes, 0);
		assert_int_equal(res.stderr_tail_len, 0);
		assert_string_equal(res.stderr_tail, "");
		assert_floor_is_our_peak(&res);
	}
	/* The background writer of the first run, waited for by the second. */
	o.argv = bg;
	assert_int_equal(pmc_spawner_run(sp, &o, &res), 0);
	assert_int_equal(res.stderr_bytes, 0);
	o.argv = after_bg;
	assert_int_equal(pmc_spawner_run(sp, &o, &res), 0);
	assert_string_equal(res.stderr_tail, "second\n");
	assert_int_equal(res.stderr_bytes, 7);
	o.argv = quiet;
	assert_int_equal(pmc_spawner_run(sp, &o, &res), 0);
	assert_int_equal(res.stderr_bytes, 0);

	/* Our peak rises by 96 MiB and falls back: the next run's floor is our RSS of
	 * then, not that peak, and a command above it has its own figure. */
	/* Mapped, not malloc'd: a sanitizer's allocator keeps what is freed. */
	held = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(held != MAP_FAILED);
	for (size_t i = 0; i < big; i += 4096)
		((volatile char *)held)[i] = 1;
	assert_int_equal(munmap(held, big), 0);
	o.argv = touch;
	assert_int_equal(pmc_spawner_run(sp, &o, &res), 0);
	assert_int_equal(res.exit_code, 0);
	assert_floor_is_our_peak(&res);
	assert_true(res.spawner_peak_kb < (long)(big >> 10));
	assert_true(res.ru.ru_maxrss >= 40000L * 4);
	assert_true(res.ru.ru_maxrss > res.spawner_peak_kb + res.spawner_peak_slack_kb);
	/* The kernel's per-CPU counting error: at least a batch of 32 pages on one CPU. */
	assert_true(res.spawner_peak_slack_kb >= 32 * 4);
	pmc_spawner_free(sp);
	pmc_spawner_free(NULL);
	snprintf(stray, sizeof(stray), "rm -r %s", dir);
	assert_int_equal(system(stray), 0);
}

/* The capture file is trimmed while the command runs, by a series' spawner and by one
 * run's, with a timeout or without. The command writes 3 MB to stderr, gives a few ticks
 * time to pass, and writes the blocks its stderr file then holds (stat of its fd 2): what
 * is left is about PMC_SPAWN_TAIL_KEEP, not the 3 MB. */
static void stderr_is_trimmed_while_the_command_runs(void **state)
{
	char *argv[] = {
	    "sh", "-c",
	    "head -c 3000000 /dev/zero >&2; sleep 0.35; stat -L -c %b /proc/self/fd/2 >&2", NULL};
	(void)state;
	for (int way = 0; way < 3; way++) {
		struct pmc_spawn_opts o = {
		    .argv = argv, .capture_stderr = true, .timeout_s = way == 2 ? 30 : 0};
		struct pmc_spawn_result res;
		struct pmc_spawner *sp = NULL;
		const char *nl;
		long blocks;

		if (way == 1) {
			assert_int_equal(pmc_spawn_run(&o, &res), 0);
		} else {
			assert_int_equal(pmc_spawner_new(&sp), 0);
			assert_int_equal(pmc_spawner_run(sp, &o, &res), 0);
		}
		assert_int_equal(res.exit_code, 0);
		assert_true(res.stderr_tail_len > 2);
		/* The last line is the count; the zeros before it came back as spaces. */
		res.stderr_tail[res.stderr_tail_len - 1] = '\0';
		nl = strrchr(res.stderr_tail, ' ');
		assert_non_null(nl);
		blocks = strtol(nl + 1, NULL, 10);
		assert_int_equal(res.stderr_bytes, 3000000 + strlen(nl + 1) + 1);
		if (blocks * 512 > 4 * PMC_SPAWN_TAIL_KEEP)
			fail_msg("way %d: %ld KiB of stderr held after the ticks", way, blocks / 2);
		pmc_spawner_free(sp);
	}
}

static void signals_are_reported(void **state)
{
	char *argv[] = {PMC_TEST_WORK, "kill", "15", NULL};
	struct pmc_spawn_result res;

	assert_int_equal(run(argv, &res), 0);
	assert_int_equal(res.exit_code, -1);
	assert_int_equal(res.term_signal, SIGTERM);
}

static void missing_command_is_an_exec_error(void **state)
{
	char *argv[] = {"pmc-no-such-command-xyz", NULL};
	char *argv2[] = {"/etc/passwd", NULL};
	struct pmc_spawn_result res;

	assert_int_equal(run(argv, &res), -ENOENT);
	assert_int_equal(run(argv2, &res), -EACCES);
}

static void timeout_kills_the_process_group(void **state)
{
	/* The grandchildren of `sh` sleep too; the group kill must reap them all quickly
	 * (if only sh were killed, the sleeping children would keep the pipe open). */
	char *argv[] = {"/bin/sh", "-c",
			PMC_TEST_WORK " sleep 20000 & " PMC_TEST_WORK " sleep 20000", NULL};
	struct pmc_spawn_opts o = {.argv = argv, .timeout_s = 0.2};
	struct pmc_spawn_result res;

	assert_int_equal(pmc_spawn_run(&o, &res), 0);
	assert_true(res.timed_out);
	assert_int_equal(res.term_signal, SIGKILL);
	/* No process of that group may survive. */
	usleep(100000);
	assert_int_equal(system("pgrep -f 'pmc-work slee[p] 20000' >/dev/null"), 256);
}

static void timeout_works_without_pidfd(void **state)
{
	char *argv[] = {PMC_TEST_WORK, "sleep", "20000", NULL};
	char *quick[] = {PMC_TEST_WORK, "exit", "4", NULL};
	struct pmc_spawn_opts o = {.argv = argv, .timeout_s = 0.2, .timeout_by_polling = true};
	struct pmc_spawn_result res;

	assert_int_equal(pmc_spawn_run(&o, &res), 0);
	assert_true(res.timed_out);
	assert_int_equal(res.term_signal, SIGKILL);
	/* A command that ends in time keeps its own status and rusage. */
	o.argv = quick;
	assert_int_equal(pmc_spawn_run(&o, &res), 0);
	assert_false(res.timed_out);
	assert_int_equal(res.exit_code, 4);
	assert_true(res.ru.ru_maxrss > 0);
}

/* run -I's hook: what the ticks of one wait saw. */
struct ticks {
	size_t n, stop_after;
	uint64_t at[16];
};

static int count_tick(void *ud, uint64_t elapsed_ns)
{
	struct ticks *t = ud;

	if (t->n < 16)
		t->at[t->n] = elapsed_ns;
	t->n++;
	return t->stop_after && t->n >= t->stop_after;
}

/* Ticks come at multiples of the period from the start, in order, only while the child
 * runs (before its reaping), with pidfd and without; a non-zero return ends them. */
static void ticks_come_at_the_period_while_the_child_runs(void **state)
{
	char *argv[] = {PMC_TEST_WORK, "sleep", "350", NULL};

	for (int polling = 0; polling < 2; polling++) {
		struct ticks t = {0}, once = {.stop_after = 1};
		struct pmc_spawn_opts o = {.argv = argv,
					   .timeout_by_polling = polling,
					   .tick_ms = 100,
					   .on_tick = count_tick,
					   .tick_ud = &t};
		struct pmc_spawn_result res;

		assert_int_equal(pmc_spawn_run(&o, &res), 0);
		assert_int_equal(res.exit_code, 0);
		/* Ticks at 100, 200 and 300 ms fall in a 350 ms sleep; one missed under load is
		 * skipped, so at least one came and at most three. */
		if (t.n < 1 || t.n > 3)
			fail_msg("%zu ticks in a 350 ms run at 100 ms (polling %d)", t.n, polling);
		for (size_t k = 0; k < t.n; k++) {
			if (t.at[k] < (k + 1) * 100000000ull || t.at[k] >= res.wall_ns ||
			    (k && t.at[k] <= t.at[k - 1]))
				fail_msg("tick %zu at %llu ns (polling %d, wall %llu ns)", k,
					 (unsigned long long)t.at[k], polling,
					 (unsigned long long)res.wall_ns);
		}
		o.tick_ud = &once;
		assert_int_equal(pmc_spawn_run(&o, &res), 0);
		assert_int_equal(once.n, 1);
	}
}

static void input_file_becomes_stdin(void **state)
{
	char path[] = "/tmp/pmc-spawn-XXXXXX";
	int fd = mkstemp(path);
	char *argv[] = {"/bin/sh", "-c", "read x; test \"$x\" = hello", NULL};
	struct pmc_spawn_opts o = {.argv = argv, .input_path = path};
	struct pmc_spawn_result res;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "hello\n", 6), 6);
	close(fd);
	assert_int_equal(pmc_spawn_run(&o, &res), 0);
	assert_int_equal(res.exit_code, 0);
	o.input_path = NULL; /* /dev/null: read fails */
	assert_int_equal(pmc_spawn_run(&o, &res), 0);
	assert_int_equal(res.exit_code, 1);
	unlink(path);
}

struct hook_state {
	pid_t pid, pgid;
	char exe_before[256];
};

/* Runs in the child: records who it is before the exec. */
static int hook(void *ud)
{
	struct hook_state *h = ud;
	ssize_t n = readlink("/proc/self/exe", h->exe_before, sizeof(h->exe_before) - 1);

	if (n > 0)
		h->exe_before[n] = '\0';
	h->pid = getpid();
	h->pgid = getpgid(0);
	return 0;
}

static void hook_runs_in_child_before_exec(void **state)
{
	char *argv[] = {PMC_TEST_WORK, "exit", "0", NULL};
	struct hook_state h = {0};
	struct pmc_spawn_opts o = {.argv = argv, .in_child = hook, .ud = &h};
	struct pmc_spawn_result res;
	char self[256];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	assert_true(n > 0);
	self[n] = '\0';
	assert_int_equal(pmc_spawn_run(&o, &res), 0);
	/* Before exec the child is still this test program, in a process group of its
	 * own (so a timeout can kill all it starts). */
	assert_string_equal(h.exe_before, self);
	assert_int_not_equal(h.pid, getpid());
	assert_int_equal(h.pgid, h.pid);
}

static int open_in_child(void *ud)
{
	int *fd = ud;

	*fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	return *fd < 0 ? -errno : 0;
}

static int refuse_in_child(void *ud)
{
	return -EPERM;
}

static void in_child_hook_hands_descriptors_to_parent(void **state)
{
	/* The target lists its descriptors: the one the hook opened is close-on-exec, so
	 * the target must not have it, while the parent must. */
	char *argv[] = {"/bin/sh", "-c", "ls /proc/$$/fd > /tmp/pmc-spawn-fds.txt", NULL};
	struct pmc_spawn_opts o = {.argv = argv, .in_child = open_in_child};
	struct pmc_spawn_result res;
	struct stat before, after;
	char line[32];
	FILE *f;
	int fd = -1;

	o.ud = &fd;
	assert_int_equal(fstat(STDOUT_FILENO, &before), 0);
	assert_int_equal(pmc_spawn_run(&o, &res), 0);
	assert_int_equal(res.exit_code, 0);
	assert_true(fd > STDERR_FILENO);
	assert_true(fcntl(fd, F_GETFD) >= 0);
	f = fopen("/tmp/pmc-spawn-fds.txt", "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		assert_int_not_equal(atoi(line), fd);
	fclose(f);
	unlink("/tmp/pmc-spawn-fds.txt");
	close(fd);
	/* The child's dup2 onto stdout happened in its own table, not ours. */
	assert_int_equal(fstat(STDOUT_FILENO, &after), 0);
	assert_int_equal(before.st_ino, after.st_ino);
	assert_int_equal(before.st_dev, after.st_dev);

	o.in_child = refuse_in_child;
	assert_int_equal(pmc_spawn_run(&o, &res), -EPERM);
}

static void rusage_counts_cpu_time(void **state)
{
	char *argv[] = {PMC_TEST_WORK, "spin", "60", NULL};
	struct pmc_spawn_result res;

	assert_int_equal(run(argv, &res), 0);
	/* 60 ms of the child's own CPU time show up as user+system time (the target
	 * spins on its CPU clock, so this holds on a loaded machine too), and max RSS is
	 * known. */
	assert_true(res.ru.ru_utime.tv_sec * 1000000 + res.ru.ru_utime.tv_usec +
			res.ru.ru_stime.tv_sec * 1000000 + res.ru.ru_stime.tv_usec >=
		    55000);
	assert_true(res.ru.ru_maxrss > 0);
}

/* The first line of a command's output, kept through the one spawn path (valgrind
 * --version); more output than a pipe holds does not block the command. */
static void capture_keeps_the_first_line(void **state)
{
	char *echo[] = {"/bin/sh", "-c", "printf 'valgrind-3.19.0\\nmore\\n'", NULL};
	char *big[] = {"/bin/sh", "-c", "echo first; head -c 200000 /dev/zero", NULL};
	char *failing[] = {"/bin/sh", "-c", "echo out; exit 3", NULL};
	char *missing[] = {"/nonexistent/valgrind", "--version", NULL};
	char buf[64] = "";

	assert_int_equal(pmc_spawn_capture_line("/bin/sh", echo, 10, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "valgrind-3.19.0");
	assert_int_equal(pmc_spawn_capture_line("/bin/sh", big, 10, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "first");
	assert_int_equal(pmc_spawn_capture_line("/bin/sh", failing, 10, buf, sizeof(buf)), -EIO);
	assert_int_equal(pmc_spawn_capture_line(missing[0], missing, 10, buf, sizeof(buf)),
			 -ENOENT);
}

/* The child gets envp, not this process's environment, whether the executable is given
 * (execve) or looked up in this process's PATH (execvpe); NULL passes this process's. */
static void envp_replaces_the_environment(void **state)
{
	char *argv[] = {"sh", "-c", "test \"$PMC_A\" = a && test -z \"${PMC_B+set}\"", NULL};
	char *envp[] = {"PMC_A=a", NULL};
	struct pmc_spawn_opts o = {.argv = argv, .envp = envp};
	struct pmc_spawn_result res;

	(void)state;
	assert_int_equal(setenv("PMC_B", "b", 1), 0);
	assert_int_equal(unsetenv("PMC_A"), 0);
	assert_int_equal(pmc_spawn_run(&o, &res), 0);
	assert_int_equal(res.exit_code, 0);
	o.path = "/bin/sh";
	assert_int_equal(pmc_spawn_run(&o, &res), 0);
	assert_int_equal(res.exit_code, 0);
	/* Without envp: PMC_B is this process's, PMC_A missing. */
	o.envp = NULL;
	assert_int_equal(pmc_spawn_run(&o, &res), 0);
	assert_int_equal(res.exit_code, 1);
	assert_int_equal(unsetenv("PMC_B"), 0);
}

/* The CPUs this test may run on, in order: up to max of them; returns how many. */
static size_t allowed_cpus(int *cpus, size_t max)
{
	cpu_set_t set;
	size_t n = 0;

	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	for (int c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	assert_true(n > 0);
	return n;
}

/* What `pmc-work cpu` printed into the memory file fd: the CPU it ran on and the list of
 * those it may run on. */
static void read_cpu_line(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	assert_true(n > 0);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* A child pinned to CPU k runs there and may run nowhere else (it says so itself, and
 * its exit status says which CPU it was bound to); a CPU this process may not use, or
 * none, fails the run before exec. */
static void pinned_child_runs_on_its_cpu(void **state)
{
	char *argv[] = {PMC_TEST_WORK, "cpu", NULL};
	struct pmc_spawn_opts o = {.argv = argv, .pin = true};
	struct pmc_spawn_result res;
	int cpus[4];
	size_t n = allowed_cpus(cpus, 4);
	char line[64], want[64];

	(void)state;
	for (size_t i = 0; i < n; i++) {
		int fd = memfd_create("pmc-cpu", MFD_CLOEXEC);

		assert_true(fd >= 0);
		o.cpu = cpus[i];
		o.stdout_fd = fd;
		assert_int_equal(pmc_spawn_run(&o, &res), 0);
		read_cpu_line(fd, line, sizeof(line));
		snprintf(want, sizeof(want), "%d %d", cpus[i], cpus[i]);
		assert_string_equal(line, want);
		assert_int_equal(res.exit_code, 64 + cpus[i]);
		close(fd);
	}
	/* Unpinned, the child may use every CPU this process may. */
	{
		int fd = memfd_create("pmc-cpu", MFD_CLOEXEC);

		assert_true(fd >= 0);
		o.pin = false;
		o.cpu = cpus[0]; /* ignored without pin */
		o.stdout_fd = fd;
		assert_int_equal(pmc_spawn_run(&o, &res), 0);
		assert_int_equal(res.exit_code, n == 1 ? 64 + cpus[0] : 0);
		close(fd);
	}
	o.stdout_fd = 0;
	o.pin = true;
	o.cpu = -1;
	assert_int_equal(pmc_spawn_run(&o, &res), -EINVAL);
	/* No machine has a 60000th CPU for this process. */
	o.cpu = 60000;
	assert_int_equal(pmc_spawn_run(&o, &res), -EINVAL);
}

/* A named pipe in a fresh directory, for `pmc-work meet`; removed by unmake_fifo. */
static void make_fifo(char *dir, char *path, size_t len)
{
	assert_non_null(mkdtemp(dir));
	snprintf(path, len, "%s/meet", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
}

static void unmake_fifo(const char *dir, const char *path)
{
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* The two commands of a pair run at the same time: each opens one end of a named pipe,
 * which blocks until the other has opened its end, so neither can finish unless both
 * run at once. Run one after the other, the first would wait for the second until its
 * timeout (a guard only: at once, they meet whatever the machine's load). */
static void pair_runs_both_at_once(void **state)
{
	char dir[] = "/tmp/pmc-pair.XXXXXX", fifo[64];
	char *w[] = {PMC_TEST_WORK, "meet", fifo, "w", NULL};
	char *r[] = {PMC_TEST_WORK, "meet", fifo, "r", NULL};
	struct pmc_spawn_opts a = {.argv = w, .timeout_s = 30}, b = {.argv = r, .timeout_s = 30};
	const struct pmc_spawn_opts *const pair[2] = {&a, &b};
	struct pmc_spawn_result res[2];
	int rc[2] = {1, 1};

	(void)state;
	make_fifo(dir, fifo, sizeof(fifo));
	for (int round = 0; round < 3; round++) {
		memset(res, 0xff, sizeof(res));
		assert_int_equal(pmc_spawner_pair(NULL, pair, res, rc), 0);
		for (int i = 0; i < 2; i++) {
			assert_int_equal(rc[i], 0);
			assert_false(res[i].timed_out);
			assert_int_equal(res[i].term_signal, 0);
			assert_int_equal(res[i].exit_code, 0);
			assert_true(res[i].ru.ru_maxrss > 0);
		}
	}
	unmake_fifo(dir, fifo);
}

/* Each half of a pair keeps its own outcome, its own CPU, and its own exec error. */
static void pair_keeps_each_result(void **state)
{
	char *three[] = {PMC_TEST_WORK, "exit", "3", NULL};
	char *four[] = {PMC_TEST_WORK, "exit", "4", NULL};
	char *cpu[] = {PMC_TEST_WORK, "cpu", NULL};
	char *missing[] = {"pmc-no-such-command-xyz", NULL};
	struct pmc_spawn_opts a = {.argv = three}, b = {.argv = four};
	const struct pmc_spawn_opts *const pair[2] = {&a, &b};
	struct pmc_spawn_result res[2];
	int rc[2], cpus[2];

	(void)state;
	assert_int_equal(pmc_spawner_pair(NULL, pair, res, rc), 0);
	assert_int_equal(rc[0], 0);
	assert_int_equal(rc[1], 0);
	assert_int_equal(res[0].exit_code, 3);
	assert_int_equal(res[1].exit_code, 4);

	a.argv = missing;
	res[0].exit_code = 99;
	assert_int_equal(pmc_spawner_pair(NULL, pair, res, rc), 0);
	assert_int_equal(rc[0], -ENOENT);
	assert_int_equal(res[0].exit_code, 99); /* untouched */
	assert_int_equal(rc[1], 0);
	assert_int_equal(res[1].exit_code, 4);

	if (allowed_cpus(cpus, 2) < 2) {
		print_message("skipped the pinned pair: this process may use one CPU\n");
		return;
	}
	a = (struct pmc_spawn_opts){.argv = cpu, .pin = true, .cpu = cpus[1]};
	b = (struct pmc_spawn_opts){.argv = cpu, .pin = true, .cpu = cpus[0]};
	assert_int_equal(pmc_spawner_pair(NULL, pair, res, rc), 0);
	assert_int_equal(rc[0], 0);
	assert_int_equal(rc[1], 0);
	assert_int_equal(res[0].exit_code, 64 + cpus[1]);
	assert_int_equal(res[1].exit_code, 64 + cpus[0]);
	assert_int_equal(pmc_spawner_pair(NULL, NULL, res, rc), -EINVAL);
}

/* A signal handler's view: the two slots, filled while the pair is waited for. */
static volatile sig_atomic_t slots[2];

/* Plays the caller's signal handler: once both slots hold a pid, stops both groups. */
static void *stop_both(void *p)
{
	pid_t *seen = p;
	struct timespec tick = {0, 1000000};

	while (!slots[0] || !slots[1])
		nanosleep(&tick, NULL);
	seen[0] = (pid_t)slots[0];
	seen[1] = (pid_t)slots[1];
	kill(-seen[0], SIGKILL);
	kill(-seen[1], SIGKILL);
	return NULL;
}

/* Each half of a pair puts its child's pid in its own running slot while it is waited
 * for, so a handler can stop both (pmcbench run --duet on Ctrl-C); both are then killed,
 * not timed out, and the slots are empty again. */
static void pair_fills_a_running_slot_each(void **state)
{
	char *sleeper[] = {PMC_TEST_WORK, "sleep", "100000", NULL};
	struct pmc_spawn_opts a = {.argv = sleeper, .timeout_s = 60, .running = &slots[0]};
	struct pmc_spawn_opts b = {.argv = sleeper, .timeout_s = 60, .running = &slots[1]};
	const struct pmc_spawn_opts *const pair[2] = {&a, &b};
	struct pmc_spawn_result res[2];
	pid_t seen[2] = {0, 0};
	pthread_t t;
	int rc[2];

	(void)state;
	assert_int_equal(pthread_create(&t, NULL, stop_both, seen), 0);
	assert_int_equal(pmc_spawner_pair(NULL, pair, res, rc), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_not_equal(seen[0], seen[1]);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(rc[i], 0);
		assert_false(res[i].timed_out);
		assert_int_equal(res[i].term_signal, SIGKILL);
		assert_int_equal(slots[i], 0);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(exit_codes_are_reported),
	    cmocka_unit_test(capture_keeps_the_first_line),
	    cmocka_unit_test(signals_are_reported),
	    cmocka_unit_test(missing_command_is_an_exec_error),
	    cmocka_unit_test(timeout_kills_the_process_group),
	    cmocka_unit_test(timeout_works_without_pidfd),
	    cmocka_unit_test(ticks_come_at_the_period_while_the_child_runs),
	    cmocka_unit_test(input_file_becomes_stdin),
	    cmocka_unit_test(hook_runs_in_child_before_exec),
	    cmocka_unit_test(in_child_hook_hands_descriptors_to_parent),
	    cmocka_unit_test(rusage_counts_cpu_time),
	    cmocka_unit_test(envp_replaces_the_environment),
	    cmocka_unit_test(pinned_child_runs_on_its_cpu),
	    cmocka_unit_test(pair_runs_both_at_once),
	    cmocka_unit_test(stderr_tail_is_captured),
	    cmocka_unit_test(spawner_runs_keep_their_own_values),
	    cmocka_unit_test(stderr_is_trimmed_while_the_command_runs),
	    cmocka_unit_test(pair_keeps_each_result),
	    cmocka_unit_test(pair_fills_a_running_slot_each),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
