/* Shared by tests/test_symbols.c and tests/test_maps.c: runs one of the programs of known
 * functions (tests/targets/symtarget.c), which prints the addresses of pmc_sym_alpha,
 * pmc_sym_beta and pmc_sym_untyped and waits for its input to close, and reads a mapping of a live
 * process from /proc/PID/maps. Include after <cmocka.h>. */
#pragma once

#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

struct sym_child {
	pid_t pid;
	int in; /* the child's standard input: closing it ends the child */
	uint64_t alpha, beta, untyped;
};

static inline void sym_child_start(const char *path, struct sym_child *c)
{
	posix_spawn_file_actions_t fa;
	char *argv[] = {(char *)path, NULL};
	int in[2], out[2];
	char line[256] = "";
	unsigned long long a = 0, b = 0, u = 0;
	FILE *f;

	assert_int_equal(pipe2(in, O_CLOEXEC), 0);
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	assert_int_equal(posix_spawn(&c->pid, path, &fa, NULL, argv, environ), 0);
	posix_spawn_file_actions_destroy(&fa);
	close(in[0]);
	close(out[1]);
	c->in = in[1];
	f = fdopen(out[0], "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	assert_int_equal(sscanf(line, "%llx %llx %*d %llx", &a, &b, &u), 3);
	c->alpha = a;
	c->beta = b;
	c->untyped = u;
}

static inline void sym_child_stop(struct sym_child *c)
{
	int st = 0;

	close(c->in);
	assert_int_equal(waitpid(c->pid, &st, 0), c->pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* The mapping of process pid that holds addr: its start, end, file offset and path. */
static inline void proc_mapping(pid_t pid, uint64_t addr, uint64_t *start, uint64_t *end,
				uint64_t *pgoff, char *path, size_t pathlen)
{
	char name[64], line[4096];
	bool found = false;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/maps", (int)pid);
	f = fopen(name, "re");
	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		int n = 0;
		char *p;

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s%n", &s, &e, &off, &n) != 3 ||
		    addr < s || addr >= e)
			continue;
		p = line + n;
		while (*p == ' ')
			p++;
		p[strcspn(p, "\n")] = '\0';
		*start = s;
		*end = e;
		*pgoff = off;
		snprintf(path, pathlen, "%s", p);
		found = true;
	}
	fclose(f);
	assert_true(found);
}
