/* SPDX-License-Identifier: MIT */
/*
 * bench/emulate.sh's database workload: SQLite (Debian's libsqlite3.a,
 * linked statically so that native, qemu and emulated runs execute the same
 * code) in memory: N inserts through one prepared statement in a
 * transaction, an index, then point lookups, range scans, a GROUP BY and a
 * self-join. Deterministic (its own PRNG); prints one checksum line.
 * Usage: sqlite_driver [N]   (default 200000 rows)
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void must(int rc, sqlite3 *db, const char *what)
{
	if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
		fprintf(stderr, "sqlite_driver: %s: %s\n", what, sqlite3_errmsg(db));
		exit(1);
	}
}

/* Runs SQL (one statement with up to two integer parameters) and sums
   the first column of every row. */
static int64_t query(sqlite3 *db, sqlite3_stmt *st, int64_t a, int64_t b)
{
	int64_t sum = 0;
	int rc;

	sqlite3_reset(st);
	if (sqlite3_bind_parameter_count(st) >= 1)
		sqlite3_bind_int64(st, 1, a);
	if (sqlite3_bind_parameter_count(st) >= 2)
		sqlite3_bind_int64(st, 2, b);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		sum += sqlite3_column_int64(st, 0);
	must(rc, db, "step");
	return sum;
}

static sqlite3_stmt *prepare(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;

	must(sqlite3_prepare_v2(db, sql, -1, &st, NULL), db, sql);
	return st;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200000;
	static const char *words[] = { "alpha", "bravo", "charlie", "delta", "echo",
				       "foxtrot", "golf", "hotel", "india", "juliet" };
	sqlite3 *db;
	sqlite3_stmt *ins, *pt, *range, *group, *join;
	int64_t sum = 0;
	char name[64];

	if (n < 1)
		n = 1;
	must(sqlite3_open(":memory:", &db), db, "open");
	must(sqlite3_exec(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, grp INTEGER, "
			      "name TEXT)", NULL, NULL, NULL), db, "create");
	must(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), db, "begin");
	ins = prepare(db, "INSERT INTO t(k, grp, name) VALUES (?1, ?2, ?3)");
	for (int i = 0; i < n; i++) {
		uint64_t r = next();

		snprintf(name, sizeof(name), "%s-%u", words[r % 10], (unsigned)(r >> 40) % 1000);
		sqlite3_reset(ins);
		sqlite3_bind_int64(ins, 1, (int64_t)(r % 1000000));
		sqlite3_bind_int64(ins, 2, (int64_t)(r >> 20) % 100);
		sqlite3_bind_text(ins, 3, name, -1, SQLITE_TRANSIENT);
		must(sqlite3_step(ins), db, "insert");
	}
	must(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), db, "commit");
	must(sqlite3_exec(db, "CREATE INDEX tk ON t(k)", NULL, NULL, NULL), db, "index");

	pt = prepare(db, "SELECT grp FROM t WHERE k = ?1");
	range = prepare(db, "SELECT count(*) FROM t WHERE k BETWEEN ?1 AND ?2 AND name LIKE 'e%'");
	group = prepare(db, "SELECT count(*) * grp FROM t GROUP BY grp ORDER BY 1 DESC");
	join = prepare(db, "SELECT count(*) FROM t a JOIN t b ON a.k = b.k + 1 WHERE a.grp < ?1");
	for (int i = 0; i < n / 4; i++)
		sum += query(db, pt, (int64_t)(next() % 1000000), 0);
	for (int i = 0; i < 200; i++) {
		int64_t lo = (int64_t)(next() % 1000000);

		sum += query(db, range, lo, lo + 5000);
	}
	sum += query(db, group, 0, 0);
	sum += query(db, join, 10, 0);
	printf("%d rows, checksum %lld\n", n, (long long)sum);
	sqlite3_finalize(ins);
	sqlite3_finalize(pt);
	sqlite3_finalize(range);
	sqlite3_finalize(group);
	sqlite3_finalize(join);
	sqlite3_close(db);
	return 0;
}
