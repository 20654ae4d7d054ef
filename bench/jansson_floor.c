/* The floor of `pmcbench compare`'s loading: json_load_file() of each file given, one
 * thread per file (compare loads its two files on two threads), then json_decref() of
 * each tree. Only jansson: no model, no checks, no statistics (bench/compare_speed.sh). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

struct job {
	const char *path;
	int ok;
};

static void *load(void *arg)
{
	struct job *j = arg;
	json_error_t jerr;
	json_t *root = json_load_file(j->path, JSON_REJECT_DUPLICATES, &jerr);

	j->ok = root != NULL;
	if (!root)
		fprintf(stderr, "jansson-floor: %s:%d:%d: %s\n", j->path, jerr.line, jerr.column,
			jerr.text);
	json_decref(root);
	return NULL;
}

int main(int argc, char **argv)
{
	struct job *jobs = calloc((size_t)argc, sizeof(*jobs));
	pthread_t *threads = calloc((size_t)argc, sizeof(*threads));
	int rc = 0;

	if (argc < 2 || !jobs || !threads) {
		fprintf(stderr, "usage: jansson-floor FILE...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		jobs[i].path = argv[i];
		if (pthread_create(&threads[i], NULL, load, &jobs[i]) != 0) {
			fprintf(stderr, "jansson-floor: cannot start a thread\n");
			return 2;
		}
	}
	for (int i = 1; i < argc; i++) {
		pthread_join(threads[i], NULL);
		if (!jobs[i].ok)
			rc = 2;
	}
	free(jobs);
	free(threads);
	return rc;
}
