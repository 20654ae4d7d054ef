/* A store of the layout before schema 3 (entries named by their 64-hex key in every row,
 * every point's samples as text), made from a store of the current schema by SQL behind
 * the history's back: what a pmcbench before issue 36 left. pg: the PostgreSQL dialect
 * (the text of a double), else SQLite's. The statements, in order, for history_old_sql. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* The statements that take a store of schema 3 to the layout and version 2; the text of a
 * one-sample point's median is @MEDIAN@ (the engine's exact text of a double). */
static inline const char *history_old_stmt(size_t i, bool pg)
{
	static const char *const sqlite_median =
	    "CASE WHEN p.median IS NULL THEN 'null' ELSE printf('%!.17g', p.median) END";
	static const char *const pg_median =
	    "CASE WHEN p.median IS NULL THEN 'null' ELSE p.median::text END";
	static char buf[2048];
	static const char *const stmts[] = {
	    "CREATE TABLE o_point AS SELECT e.id AS entry, s.benchmark AS benchmark, s.metric AS "
	    "metric, s.unit AS unit, s.better AS better, s.simulated AS simulated, p.n AS n, "
	    "p.median AS median, coalesce(p.samples, @MEDIAN@) AS samples FROM pmc_point p JOIN "
	    "pmc_entry e ON e.num = p.entry JOIN pmc_name s ON s.num = p.name",
	    "CREATE TABLE o_bench AS SELECT e.id AS entry, b.benchmark AS benchmark, b.runs AS "
	    "runs "
	    "FROM pmc_bench b JOIN pmc_entry e ON e.num = b.entry",
	    "CREATE TABLE o_env AS SELECT e.id AS entry, g.key AS key, g.value AS value FROM "
	    "pmc_env g JOIN pmc_entry e ON e.num = g.entry",
	    "CREATE TABLE o_tag AS SELECT e.id AS entry, g.key AS key, g.value AS value FROM "
	    "pmc_tag g JOIN pmc_entry e ON e.num = g.entry",
	    /* Keyed by id, as schema 1 made it: pmc_bench of a migration from 1 names it. */
	    "CREATE TABLE o_entry (id TEXT PRIMARY KEY, t BIGINT NOT NULL, added BIGINT NOT "
	    "NULL, commit_sha TEXT, branch TEXT, fingerprint TEXT NOT NULL, machine TEXT, kernel "
	    "TEXT, cpu TEXT, compiler TEXT, backend TEXT NOT NULL, target_env TEXT, tool_version "
	    "TEXT, source TEXT)",
	    "INSERT INTO o_entry SELECT id, t, added, commit_sha, branch, fingerprint, machine, "
	    "kernel, cpu, compiler, backend, target_env, tool_version, source FROM pmc_entry",
	    "DROP TABLE pmc_point",
	    "DROP TABLE pmc_bench",
	    "DROP TABLE pmc_env",
	    "DROP TABLE pmc_tag",
	    "DROP TABLE pmc_name",
	    "DROP TABLE pmc_entry",
	    "ALTER TABLE o_entry RENAME TO pmc_entry",
	    "ALTER TABLE o_point RENAME TO pmc_point",
	    "ALTER TABLE o_bench RENAME TO pmc_bench",
	    "ALTER TABLE o_env RENAME TO pmc_env",
	    "ALTER TABLE o_tag RENAME TO pmc_tag",
	    "CREATE INDEX pmc_entry_fp ON pmc_entry (fingerprint, t)",
	    "CREATE INDEX pmc_point_series ON pmc_point (benchmark, metric)",
	    "CREATE INDEX pmc_point_metric ON pmc_point (entry, metric)",
	    "UPDATE pmc_meta SET value = '2' WHERE key = 'schema'",
	};

	const char *at;

	if (i >= sizeof(stmts) / sizeof(stmts[0]))
		return NULL;
	at = strstr(stmts[i], "@MEDIAN@");
	if (!at)
		return stmts[i];
	snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(at - stmts[i]), stmts[i],
		 pg ? pg_median : sqlite_median, at + 8);
	return buf;
}
