/* The environment fingerprint, the build-id of a measured binary (checked against
 * readelf and file, two independent readers), the compiler that built it (against
 * readelf), and execvp's PATH lookup. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/test_main.h"

#include "base/path.h"
#include "counters/backend.h"
#include "counters/valgrind/valgrind.h"
#include "core/result.h"
#include "elf/buildid.h"
#include "elf/comment.h"
#include "run/env.h"
#include "tests/helpers.h"

static char tmpdir[64];

static int setup_dir(void **state)
{
	strcpy(tmpdir, "/tmp/pmc-test-env-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_dir(void **state)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static char *in_dir(const char *name)
{
	size_t n = strlen(tmpdir) + strlen(name) + 2;
	char *p = malloc(n);

	assert_non_null(p);
	snprintf(p, n, "%s/%s", tmpdir, name);
	return p;
}

static void write_file(const char *path, const void *data, size_t len, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
}

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* The text after marker on the first line of cmd's output that has it, up to a
 * character outside [0-9a-f], or NULL when the tool is missing or says nothing. */
static char *tool_build_id(const char *cmd, const char *marker)
{
	char line[1024], *id = NULL;
	FILE *p = popen(cmd, "r");

	if (!p)
		return NULL;
	while (!id && fgets(line, sizeof(line), p)) {
		char *at = strstr(line, marker);

		if (at) {
			at += strlen(marker);
			id = strndup(at, strspn(at, "0123456789abcdef"));
		}
	}
	pclose(p);
	return id;
}

static char *readelf_build_id(const char *path)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null", path);
	return tool_build_id(cmd, "Build ID: ");
}

static void build_id_matches_readelf_and_file(void **state)
{
	char *ours = NULL, *theirs, cmd[512];

	assert_int_equal(pmc_build_id(PMC_TEST_WORK, &ours), 0);
	theirs = readelf_build_id(PMC_TEST_WORK);
	if (!theirs)
		skip();
	print_message("pmc_build_id %s, readelf %s\n", ours, theirs);
	assert_true(strlen(ours) >= 16);
	assert_string_equal(ours, theirs);
	free(theirs);

	snprintf(cmd, sizeof(cmd), "file -b '%s' 2>/dev/null", PMC_TEST_WORK);
	theirs = tool_build_id(cmd, "BuildID[sha1]=");
	if (theirs) {
		assert_string_equal(ours, theirs);
		free(theirs);
	}
	free(ours);
}

/* A binary whose section headers are gone (as after sstrip) still carries its build-id
 * in the PT_NOTE segment the loader maps. */
static void build_id_found_without_section_headers(void **state)
{
	char *copy = in_dir("no-sections"), *want = NULL, *got = NULL;
	unsigned char *elf;
	size_t len;

	assert_int_equal(pmc_build_id(PMC_TEST_WORK, &want), 0);
	elf = (unsigned char *)read_all(PMC_TEST_WORK, &len);
	/* ELF64 header: e_shoff at 0x28 (8 bytes), e_shnum at 0x3c, e_shstrndx at 0x3e. */
	assert_int_equal(elf[4], 2); /* ELFCLASS64 */
	memset(elf + 0x28, 0, 8);
	memset(elf + 0x3c, 0, 4);
	write_file(copy, elf, len, 0755);
	assert_int_equal(pmc_build_id(copy, &got), 0);
	assert_string_equal(got, want);
	free(got);
	free(want);
	free(elf);
	unlink(copy);
	free(copy);
}

static void build_id_missing_is_enodata(void **state)
{
	char *copy = in_dir("no-build-id"), cmd[512], *theirs, *none = NULL;

	snprintf(cmd, sizeof(cmd),
		 "objcopy --remove-section .note.gnu.build-id '%s' '%s' 2>/dev/null", PMC_TEST_WORK,
		 copy);
	if (system(cmd) != 0)
		skip();
	theirs = readelf_build_id(copy);
	assert_null(theirs);
	assert_int_equal(pmc_build_id(copy, &none), -ENODATA);
	unlink(copy);
	free(copy);
}

static void build_id_of_non_elf_files(void **state)
{
	char *text = in_dir("script.sh"), *empty = in_dir("empty"), *cut = in_dir("cut");
	char *missing = in_dir("missing");
	static const char script[] = "#!/bin/sh\necho hi\n";
	size_t len;
	char *elf = read_all(PMC_TEST_WORK, &len), *none = NULL;
	int rc;

	write_file(text, script, strlen(script), 0755);
	write_file(empty, "", 0, 0644);
	write_file(cut, elf, 64, 0755); /* the ELF header and nothing else */

	assert_int_equal(pmc_build_id(text, &none), -ENOEXEC);
	assert_int_equal(pmc_build_id(empty, &none), -ENOEXEC);
	assert_int_equal(pmc_build_id(missing, &none), -ENOENT);
	assert_int_equal(pmc_build_id(tmpdir, &none), -ENOEXEC);
	/* A truncated binary: no build-id can be read, and nothing crashes. */
	rc = pmc_build_id(cut, &none);
	assert_true(rc == -ENODATA || rc == -ENOEXEC);
	assert_null(none); /* untouched on failure */

	free(elf);
	unlink(text);
	unlink(empty);
	unlink(cut);
	free(text);
	free(empty);
	free(cut);
	free(missing);
}

/* The strings readelf -p .comment shows of path, each once, "; " between them, or NULL. */
static char *readelf_comment(const char *path)
{
	char cmd[512], line[512], *out = calloc(1, 4096);
	FILE *p;

	assert_non_null(out);
	snprintf(cmd, sizeof(cmd), "readelf -p .comment '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	/* "  [     0]  GCC: (Debian 12.2.0-14) 12.2.0" */
	while (fgets(line, sizeof(line), p)) {
		char *s = strchr(line, ']');

		if (!strstr(line, "  [") || !s)
			continue;
		s += 1 + strspn(s + 1, " ");
		s[strcspn(s, "\n")] = '\0';
		if (*s && !strstr(out, s))
			snprintf(out + strlen(out), 4096 - strlen(out), "%s%s", *out ? "; " : "",
				 s);
	}
	pclose(p);
	if (!*out) {
		free(out);
		return NULL;
	}
	return out;
}

/* The compiler of a binary the suite built: the strings of its .comment as readelf reads
 * them; a binary without the section, a script, a missing file: none, and no key. */
static void compiler_from_the_elf_comment(void **state)
{
	char *copy = in_dir("no-comment"), *two = in_dir("two-comments"), *text = in_dir("s.sh");
	char *theirs = readelf_comment(PMC_TEST_WORK), *strings = NULL, cmd[1024], *extra;
	struct pmc_result *r = t_result("perf");
	const char *paths[4];
	size_t len = 0;
	FILE *f;

	if (!theirs)
		skip(); /* no readelf, or a compiler that writes no .comment */
	print_message("readelf: %s\n", theirs);
	assert_int_equal(pmc_elf_comment(PMC_TEST_WORK, &strings, &len), 0);
	assert_true(len > 0 && strings[len - 1] == '\0');
	assert_non_null(strstr(theirs, strings)); /* the first string, at least */
	free(strings);

	/* Each binary's strings once, in order: the suite's binary, then one whose .comment
	 * holds another tool's string and the suite's compiler again. */
	extra = in_dir("comment.bin");
	f = fopen(extra, "wb");
	assert_non_null(f);
	fputs("Tool X 1.0", f);
	fputc('\0', f);
	fputc('\0', f);	  /* an empty string: left out */
	fputs(theirs, f); /* the suite's compiler again, as readelf showed it */
	fputc('\0', f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "objcopy --remove-section .comment '%s' '%s' 2>/dev/null && objcopy "
		 "--add-section .comment='%s' --set-section-flags .comment=readonly '%s' '%s' "
		 "2>/dev/null",
		 PMC_TEST_WORK, copy, extra, copy, two);
	if (system(cmd) != 0)
		skip();
	assert_int_equal(pmc_elf_comment(copy, &strings, &len), -ENODATA);
	write_file(text, "#!/bin/sh\n", 10, 0755);
	assert_int_equal(pmc_elf_comment(text, &strings, &len), -ENOEXEC);
	paths[0] = copy;
	paths[1] = text;
	paths[2] = NULL;
	assert_int_equal(pmc_env_compiler(r, paths, 3), 0);
	assert_null(pmc_result_get_env(r, "compiler"));
	paths[0] = PMC_TEST_WORK;
	paths[1] = two;
	paths[2] = PMC_TEST_WORK;
	paths[3] = text;
	assert_int_equal(pmc_env_compiler(r, paths, 4), 0);
	snprintf(cmd, sizeof(cmd), "%s; Tool X 1.0", theirs);
	assert_string_equal(pmc_result_get_env(r, "compiler"), cmd);

	pmc_result_free(r);
	unlink(copy);
	unlink(two);
	unlink(text);
	unlink(extra);
	free(theirs);
	free(copy);
	free(two);
	free(text);
	free(extra);
}

/* Runs pmc_find_executable with PATH set to path (NULL: unset), restoring PATH. */
static char *find_with_path(const char *name, const char *path)
{
	char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	char *found;
	int err;

	if (path)
		setenv("PATH", path, 1);
	else
		unsetenv("PATH");
	found = NULL;
	err = -pmc_find_executable(name, &found);
	if (old)
		setenv("PATH", old, 1);
	free(old);
	errno = err;
	return found;
}

static void find_executable_searches_like_execvp(void **state)
{
	char *d1 = in_dir("d1"), *d2 = in_dir("d2"), *d3 = in_dir("d3");
	char t1[256], t2[256], t3[256], *found, path[512], cwd[512];

	assert_int_equal(mkdir(d1, 0755), 0);
	assert_int_equal(mkdir(d2, 0755), 0);
	assert_int_equal(mkdir(d3, 0755), 0);
	snprintf(t1, sizeof(t1), "%s/tool", d1);
	snprintf(t2, sizeof(t2), "%s/tool", d2);
	snprintf(t3, sizeof(t3), "%s/tool", d3);
	write_file(t1, "x", 1, 0644); /* found first, but not executable */
	write_file(t2, "#!/bin/sh\n", 10, 0755);
	assert_int_equal(mkdir(t3, 0755), 0); /* a directory of that name */

	snprintf(path, sizeof(path), "%s:%s", d1, d2);
	found = find_with_path("tool", path);
	assert_non_null(found);
	assert_string_equal(found, t2);
	free(found);

	assert_null(find_with_path("tool", d1));
	assert_int_equal(errno, EACCES);
	assert_null(find_with_path("tool", d3));
	assert_int_equal(errno, EACCES);
	snprintf(path, sizeof(path), "%s:/nonexistent", d3);
	assert_null(find_with_path("no-such-tool-pmc", path));
	assert_int_equal(errno, ENOENT);
	assert_null(find_with_path("", path));
	assert_int_equal(errno, ENOENT);

	/* An empty PATH entry is the current directory. */
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(d2), 0);
	found = find_with_path("tool", "/nonexistent::/also-not");
	assert_int_equal(chdir(cwd), 0);
	assert_non_null(found);
	assert_string_equal(found, "tool");
	free(found);

	/* A name with a slash is not searched. */
	found = find_with_path(t2, "/nonexistent");
	assert_non_null(found);
	assert_string_equal(found, t2);
	free(found);
	assert_null(find_with_path(t1, NULL));
	assert_int_equal(errno, EACCES);
	snprintf(path, sizeof(path), "%s/missing", d2);
	assert_null(find_with_path(path, NULL));
	assert_int_equal(errno, ENOENT);

	/* Unset PATH: the system's default, which has sh. */
	found = find_with_path("sh", NULL);
	assert_non_null(found);
	assert_true(strlen(found) > 3 && strcmp(found + strlen(found) - 3, "/sh") == 0);
	assert_int_equal(access(found, X_OK), 0);
	free(found);

	found = find_with_path(PMC_TEST_WORK, "/nonexistent");
	assert_non_null(found);
	assert_string_equal(found, PMC_TEST_WORK);
	free(found);

	rmdir(t3);
	unlink(t1);
	unlink(t2);
	rmdir(d1);
	rmdir(d2);
	rmdir(d3);
	free(d1);
	free(d2);
	free(d3);
}

/* The first line of a file, for comparing with what the fingerprint says. */
static char *first_line(const char *path)
{
	char buf[512];
	FILE *f = fopen(path, "r");

	if (!f)
		return NULL;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return NULL;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return strdup(buf);
}

static void expect_file_value(const struct pmc_result *r, const char *key, const char *path)
{
	char *want = first_line(path);
	const char *got = pmc_result_get_env(r, key);

	if (!want) {
		assert_null(got);
		return;
	}
	print_message("%s = %s\n", key, got ? got : "(absent)");
	assert_non_null(got);
	assert_string_equal(got, want);
	free(want);
}

static void fingerprint_describes_this_machine(void **state)
{
	struct pmc_result *r = t_result("perf");
	const char *v;
	struct utsname u;
	char buf[512], *line = NULL;
	size_t cap = 0;
	bool flag = false, x86;
	FILE *f;

	assert_int_equal(pmc_env_collect(r), 0);

	assert_int_equal(uname(&u), 0);
	snprintf(buf, sizeof(buf), "%s %s", u.sysname, u.release);
	assert_string_equal(pmc_result_get_env(r, "kernel"), buf);
	assert_string_equal(pmc_result_get_env(r, "arch"), u.machine);
	snprintf(buf, sizeof(buf), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	assert_string_equal(pmc_result_get_env(r, "cpus"), buf);
	assert_int_equal(gethostname(buf, sizeof(buf)), 0);
	assert_string_equal(pmc_result_get_env(r, "hostname"), buf);

	expect_file_value(r, "perf_event_paranoid", "/proc/sys/kernel/perf_event_paranoid");
	expect_file_value(r, "nmi-watchdog", "/proc/sys/kernel/nmi_watchdog");
	expect_file_value(r, "aslr", "/proc/sys/kernel/randomize_va_space");
	expect_file_value(r, "smt", "/sys/devices/system/cpu/smt/active");
	expect_file_value(r, "governor", "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");

	/* Every kernel with perf events has the software PMU; the list is sorted. */
	v = pmc_result_get_env(r, "pmus");
	assert_non_null(v);
	print_message("pmus = %s\n", v);
	snprintf(buf, sizeof(buf), ",%s,", v);
	assert_non_null(strstr(buf, ",software,"));
	for (const char *p = v, *q; (q = strchr(p, ',')); p = q + 1)
		assert_true(strncmp(p, q + 1, (size_t)(q - p)) <= 0);

	f = fopen("/proc/cpuinfo", "r");
	assert_non_null(f);
	x86 = false;
	while (getline(&line, &cap, f) > 0) {
		if (strncmp(line, "flags", 5) == 0) {
			x86 = true;
			flag |= strstr(line, " hypervisor") != NULL;
		}
		if (strncmp(line, "model name", 10) == 0 && !pmc_result_get_env(r, "x")) {
			char *m = strchr(line, ':') + 2;

			m[strcspn(m, "\n")] = '\0';
			assert_string_equal(pmc_result_get_env(r, "cpu-model"), m);
			pmc_result_set_env(r, "x", "seen");
		}
	}
	free(line);
	fclose(f);
	v = pmc_result_get_env(r, "hypervisor");
	print_message("hypervisor = %s\n", v ? v : "(absent)");
	if (!x86)
		assert_null(v);
	else if (flag)
		assert_true(v && strcmp(v, "none") != 0);
	else
		assert_string_equal(v, "none");
	pmc_result_free(r);
}

/* What a backend tells of itself goes into the environment through its env operation:
 * valgrind's tool (a marked run's is callgrind, whatever --valgrind-tool says) and the
 * first line its program prints for its version argument; perf adds nothing. */
static void backend_describes_itself(void **state)
{
	const struct pmc_backend_ops *vg = pmc_backend_get(PMC_BACKEND_VALGRIND);
	const struct pmc_backend_ops *perf = pmc_backend_get(PMC_BACKEND_PERF);
	struct pmc_backend_opts cachegrind = {.valgrind_tool = PMC_VALGRIND_CACHEGRIND};
	struct pmc_backend_opts marked = {.valgrind_tool = PMC_VALGRIND_CACHEGRIND, .marked = true};
	/* A valgrind that answers --version, and one that fails. */
	static const char fake[] = "#!/bin/sh\n[ \"$1\" = --version ] && echo valgrind-9.8.7 && "
				   "echo second line\n";
	char *program = in_dir("valgrind"), *failing = in_dir("failing");
	struct pmc_backend_env e;
	struct pmc_result *r;

	(void)state;
	write_file(program, fake, strlen(fake), 0755);
	write_file(failing, "#!/bin/sh\nexit 3\n", 18, 0755);
	vg->env(&cachegrind, &e);
	assert_string_equal(e.version_arg, "--version");
	assert_int_equal(pmc_result_new("valgrind", &r), 0);
	assert_int_equal(pmc_env_backend(r, vg, &cachegrind, NULL), 0);
	assert_string_equal(pmc_result_get_env(r, "valgrind-tool"), "cachegrind");
	assert_null(pmc_result_get_env(r, "valgrind-version")); /* no program: not guessed */
	/* The version is the first line of what the program prints. */
	assert_int_equal(pmc_env_backend(r, vg, &marked, program), 0);
	assert_string_equal(pmc_result_get_env(r, "valgrind-tool"), "callgrind");
	assert_string_equal(pmc_result_get_env(r, "valgrind-version"), "valgrind-9.8.7");
	/* A program that fails leaves the version out: not an error. */
	pmc_result_free(r);
	assert_int_equal(pmc_result_new("valgrind", &r), 0);
	assert_int_equal(pmc_env_backend(r, vg, &marked, failing), 0);
	assert_string_equal(pmc_result_get_env(r, "valgrind-tool"), "callgrind");
	assert_null(pmc_result_get_env(r, "valgrind-version"));
	pmc_result_free(r);

	assert_int_equal(pmc_result_new("perf", &r), 0);
	assert_int_equal(pmc_env_backend(r, perf, &marked, program), 0);
	assert_int_equal(r->nenv, 0);
	pmc_result_free(r);
	free(program);
	free(failing);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(build_id_matches_readelf_and_file),
	    cmocka_unit_test(build_id_found_without_section_headers),
	    cmocka_unit_test(build_id_missing_is_enodata),
	    cmocka_unit_test(build_id_of_non_elf_files),
	    cmocka_unit_test(compiler_from_the_elf_comment),
	    cmocka_unit_test(find_executable_searches_like_execvp),
	    cmocka_unit_test(fingerprint_describes_this_machine),
	    cmocka_unit_test(backend_describes_itself),
	};

	pmc_test_args(argc, argv, tests);
	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
