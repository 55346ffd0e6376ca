/* SPDX-License-Identifier: MIT */
/*
 * The fleet's tables, the spool, and reading rows back (fleet.h).
 *
 * Spool: SPOOL/<hash of the URL>/<recording>-<batch>.<table>.tsv, each
 * file one insert's rows for that table of that server, written whole
 * (temporary file, then rename) before any is sent and removed only after
 * the server took it. The URL is the one without credentials, which are
 * never written: the spool's directories are 0700, its files 0600, and a
 * drain sends with the credentials of the push that drains. The recording
 * id comes from the recording's content (hwp_export_opts.recording_id,
 * else a hash of the rows without host and window): a batch sent twice,
 * or a recording pushed twice, from any copy of its file, writes rows the
 * table already holds (see fleet.h), so nothing is counted twice.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/export_internal.h"
#include "export/fleet_internal.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/opts.h"
#include "util/vec.h"

#define COLUMNS "host, window_start, window_end, kind, build_id, module, from_off, to_build_id, to_module, " \
		"to_off, type, count, entries, not_taken, mispred, predicted, cycles_sum, cycles_n, cycles_hist"

#define LAT_COLUMNS "host, window_start, window_end, build_id, module, start_off, end_off, cycles, samples, insns, source"

/* The rows table, then the latency table (TABLE_lat): block latency
   values, one row per block, cycle count, host and recording. */
static int init_table(struct hwp_fleet *f, const char *cluster, bool lat)
{
	char sql[2048], name[160], local[200];
	int rc;

	snprintf(name, sizeof(name), "%s%s", f->table, lat ? "_lat" : "");
	snprintf(local, sizeof(local), "%s%s", name, cluster ? "_local" : "");
	if (lat)
		snprintf(sql, sizeof(sql),
			 "CREATE TABLE IF NOT EXISTS %s (rec_id UInt64, host String, window_start DateTime, "
			 "window_end DateTime, build_id String, module String, start_off UInt64, end_off UInt64, "
			 "cycles UInt32, samples UInt64, insns UInt32, source UInt8) "
			 "ENGINE = ReplacingMergeTree PARTITION BY tuple() "
			 "ORDER BY (build_id, module, start_off, end_off, cycles, host, rec_id)",
			 local);
	else
		snprintf(sql, sizeof(sql),
			 "CREATE TABLE IF NOT EXISTS %s (rec_id UInt64, host String, window_start DateTime, "
			 "window_end DateTime, kind Enum8('branch' = 0, 'range' = 1, 'block' = 2, 'cond' = 3), "
			 "build_id String, module String, from_off UInt64, to_build_id String, to_module String, "
			 "to_off UInt64, type UInt8, count UInt64, entries UInt64, not_taken UInt64, mispred UInt64, "
			 "predicted UInt64, cycles_sum UInt64, cycles_n UInt64, cycles_hist Array(UInt64)) "
			 /* a row's identity is its keys, host and recording, not its window:
			    a recording pushed again from a touched copy replaces its rows
			    (one partition, so that they meet; rows are few per key) */
			 "ENGINE = ReplacingMergeTree PARTITION BY tuple() "
			 "ORDER BY (build_id, kind, from_off, to_off, module, to_build_id, to_module, type, host, rec_id)",
			 local);
	if ((rc = hwp_fleet__query(f, sql, NULL)) < 0 || !cluster)
		return rc;
	/* the shard of a row: a function of the row, so every copy lands on one shard */
	snprintf(sql, sizeof(sql),
		 "CREATE TABLE IF NOT EXISTS %s AS %s ENGINE = Distributed(%s, currentDatabase(), %s, "
		 "cityHash64(host, build_id))", name, local, cluster, local);
	return hwp_fleet__query(f, sql, NULL);
}

int hwp_fleet__init(struct hwp_fleet *f, const char *cluster)
{
	int rc;

	if (cluster && strspn(cluster, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
			       strlen(cluster))
		return hwp__set_error(EINVAL, "'%s': a cluster name is letters, digits and '_'", cluster);
	if ((rc = init_table(f, cluster, false)) < 0)
		return rc;
	return init_table(f, cluster, true);
}

const char *hwp_fleet__default_spool(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n = xdg && *xdg ? snprintf(buf, len, "%s/hwprof/spool", xdg)
		: home && *home ? snprintf(buf, len, "%s/.cache/hwprof/spool", home) : -1;

	return n >= 0 && (size_t)n < len ? buf : NULL;
}

static int write_file(const char *path, const char *p, size_t n)
{
	char tmp[4300];
	FILE *fp;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp))
		return hwp__set_error(ENAMETOOLONG, "%s: path too long", path);
	/* the owner's only, as the directory */
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || fchmod(fd, 0600) || !(fp = fdopen(fd, "w"))) {
		int err = errno;

		if (fd >= 0)
			close(fd);
		return hwp__set_error(err, "%s: cannot write: %s", tmp, strerror(err));
	}
	bool ok = fwrite(p, 1, n, fp) == n;
	ok &= fflush(fp) == 0 && fsync(fileno(fp)) == 0;
	if (fclose(fp) || !ok || rename(tmp, path)) {
		int err = errno;

		unlink(tmp);
		return hwp__set_error(err, "%s: cannot write: %s", path, strerror(err));
	}
	return 0;
}

/* An earlier hwprof named the spool by a hash of the URL as given and
   wrote that URL, credentials and all, into SPOOL/H/url, readable by
   others: that directory, when it exists, is closed to its owner, its url
   file rewritten without the credentials, and its batches left for the
   user to move (said once; the name no longer says where they go). */
static void secure_legacy_spool(struct hwp_fleet *f, const char *dir)
{
	char old[4200], url_file[4300], line[4200];
	struct stat st;
	size_t batches = 0;
	DIR *d;

	if (!f->has_legacy_spool ||
	    (size_t)snprintf(old, sizeof(old), "%s/%016" PRIx64, f->spool_dir, f->legacy_spool_hash) >= sizeof(old) ||
	    !strcmp(old, dir) || stat(old, &st) || !S_ISDIR(st.st_mode))
		return;
	chmod(old, 0700);
	int n = snprintf(line, sizeof(line), "%s\n", f->url);
	if ((size_t)snprintf(url_file, sizeof(url_file), "%s/url", old) < sizeof(url_file) && n > 0 &&
	    (size_t)n < sizeof(line))
		write_file(url_file, line, (size_t)n);
	if ((d = opendir(old))) {
		for (struct dirent *e; (e = readdir(d));) {
			size_t len = strlen(e->d_name);

			batches += len > 4 && !strcmp(e->d_name + len - 4, ".tsv");
		}
		closedir(d);
	}
	if (batches)
		hwp__log(HWP_LOG_WARN, "%s: %zu batch%s spooled by an earlier hwprof for %s (its credentials now "
				       "removed from the directory): move them to %s to send them", old, batches,
			 batches == 1 ? "" : "es", f->url, dir);
}

/* SPOOL/<hash of URL>, made when missing (its parents too). */
static int spool_path(struct hwp_fleet *f, char *buf, size_t size)
{
	uint64_t h = hwp__fnv1a(HWP_FNV1A_INIT, f->url, strlen(f->url));

	snprintf(buf, size, "%s/%016" PRIx64, f->spool_dir, h);
	/* every level, as mkdir -p: the default's parents may not exist yet */
	for (char *sl = strchr(buf + 1, '/');; sl = strchr(sl + 1, '/')) {
		if (sl)
			*sl = 0;
		if (mkdir(buf, 0700) && errno != EEXIST)
			return hwp__set_error(errno, "%s: cannot make the spool directory: %s", buf, strerror(errno));
		if (!sl)
			break;
		*sl = '/';
	}
	/* (one made by an older hwprof may be wider) */
	if (chmod(buf, 0700))
		return hwp__set_error(errno, "%s: cannot restrict the spool directory to its owner: %s", buf,
				      strerror(errno));
	/* which server the batches are for, for a reader of the directory */
	char url_file[4200], line[4200];
	int n = snprintf(line, sizeof(line), "%s\n", f->url);

	secure_legacy_spool(f, buf);
	if ((size_t)snprintf(url_file, sizeof(url_file), "%s/url", buf) < sizeof(url_file) && n > 0 &&
	    (size_t)n < sizeof(line))
		return write_file(url_file, line, (size_t)n);
	return 0;
}

/* The insert statement (the query parameter) into TABLE (LAT: its latency
   table): rows as TabSeparated. */
static void insert_param(const char *table, bool lat, char *buf, size_t size)
{
	if (lat)
		snprintf(buf, size, "query=INSERT INTO %s_lat (rec_id, " LAT_COLUMNS ") FORMAT TabSeparated", table);
	else
		snprintf(buf, size, "query=INSERT INTO %s (rec_id, " COLUMNS ") FORMAT TabSeparated", table);
}

/* TEXT's lines in batches of batch_rows, each line prefixed with the
   recording id RECS (RL bytes), spooled into DIR as REC-B.TABLE[.lat].tsv
   (*B counted up) or, without a spool, sent; *BATCHES counts them. */
static int batches_of(struct hwp_fleet *f, const struct hwp__sbuf *text, bool lat, const char *recs, int rl,
		      uint64_t rec, const char *dir, size_t *b, size_t *batches)
{
	struct hwp__sbuf batch = { 0 };
	char path[4400], param[512];
	int rc = 0;

	insert_param(f->table, lat, param, sizeof(param));
	for (size_t at = 0; at < text->len; (*b)++) {
		size_t nrows = 0;

		batch.len = 0;
		while (at < text->len && nrows < f->o.batch_rows) {
			char *nl = memchr(text->p + at, '\n', text->len - at);
			size_t ll = nl ? (size_t)(nl - (text->p + at)) + 1 : text->len - at;

			hwp__sbuf_write(&batch, recs, (size_t)rl);
			hwp__sbuf_write(&batch, text->p + at, ll);
			at += ll;
			nrows++;
		}
		if (batch.oom) {
			rc = hwp__set_error(ENOMEM, "out of memory");
			break;
		}
		if (f->spool_dir) {
			snprintf(path, sizeof(path), "%s/%016" PRIx64 "-%06zu.%s%s.tsv", dir, rec, *b, f->table,
				 lat ? ".lat" : "");
			rc = write_file(path, batch.p, batch.len);
		} else if ((rc = hwp__fleet_send(f, param, batch.p, batch.len, &f->direct_retries)) == 0) {
			f->direct_sent++;
			f->direct_rows += nrows;
		}
		if (rc < 0)
			break;
		(*batches)++;
	}
	free(batch.p);
	return rc;
}

int hwp_fleet__spool(struct hwp_fleet *f, const struct hwp_export *e, size_t *batches)
{
	struct hwp__sbuf text = { 0 };
	char dir[4096] = "";
	int rc = 0;

	*batches = 0;
	for (size_t i = 0; i < e->nr; i++)
		hwp__export_write_row(&text, HWP_EXPORT_TSV, e->host, e->window_start, e->window_end, &e->rows[i]);
	if (text.oom) {
		free(text.p);
		return hwp__set_error(ENOMEM, "out of memory");
	}
	uint64_t rec = e->rec_id;
	char recs[24];

	if (!rec) { /* no content id: the rows' own, without host and window */
		struct hwp__sbuf bare = { 0 };

		for (size_t i = 0; i < e->nr; i++)
			hwp__export_write_row(&bare, HWP_EXPORT_TSV, "", 0, 0, &e->rows[i]);
		rec = hwp__fnv1a(HWP_FNV1A_INIT, bare.p, bare.len);
		bool oom = bare.oom;
		free(bare.p);
		if (oom) {
			free(text.p);
			return hwp__set_error(ENOMEM, "out of memory");
		}
	}
	int rl = snprintf(recs, sizeof(recs), "%" PRIu64 "\t", rec);

	if (f->spool_dir && (rc = spool_path(f, dir, sizeof(dir))) < 0)
		goto out;
	size_t b = 0;
	if ((rc = batches_of(f, &text, false, recs, rl, rec, dir, &b, batches)) < 0)
		goto out;
	/* then the block latencies, into the latency table */
	text.len = 0;
	for (size_t i = 0; i < e->nlats; i++)
		hwp__export_write_lat(&text, e->host, e->window_start, e->window_end, e->measured, e->modelled,
				      &e->lats[i]);
	if (text.oom)
		rc = hwp__set_error(ENOMEM, "out of memory");
	else
		rc = batches_of(f, &text, true, recs, rl, rec, dir, &b, batches);
out:
	free(text.p);
	return rc;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The table in a batch's name REC-BATCH.TABLE[.lat].tsv (*LAT: of the
   latency table); false when it has none. */
static bool batch_table(const char *name, char *table, size_t size, bool *lat)
{
	const char *dot = strchr(name, '.');
	size_t n = dot ? strlen(dot + 1) - 4 : 0;

	*lat = n > 4 && !strncmp(dot + 1 + n - 4, ".lat", 4);
	if (*lat)
		n -= 4;
	if (!dot || !n || n >= size || strspn(dot + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != n)
		return false;
	memcpy(table, dot + 1, n);
	table[n] = 0;
	return true;
}

static char *read_all(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "r");
	char *p = NULL;
	long n;

	if (!fp)
		return NULL;
	if (fseek(fp, 0, SEEK_END) || (n = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET) ||
	    !(p = malloc((size_t)n + 1)) || fread(p, 1, (size_t)n, fp) != (size_t)n) {
		free(p);
		fclose(fp);
		return NULL;
	}
	fclose(fp);
	p[n] = 0;
	*len = (size_t)n;
	return p;
}

static int drain(struct hwp_fleet *f, struct hwp_fleet_push_stats *st)
{
	char dir[4096], path[4400], param[512];
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if (!f->spool_dir)
		return 0;
	if ((rc = spool_path(f, dir, sizeof(dir))) < 0)
		return rc;
	/* one drain at a time (pushes that overlap wait here): a batch is sent
	   by one of them, not by both while the other removes it */
	snprintf(path, sizeof(path), "%s/lock", dir);
	int lock = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (lock < 0 || flock(lock, LOCK_EX) < 0) {
		rc = hwp__set_error(errno, "%s: cannot lock the spool: %s", path, strerror(errno));
		if (lock >= 0)
			close(lock);
		return rc;
	}
	if (!(d = opendir(dir))) {
		close(lock);
		return hwp__set_error(errno, "%s: cannot read the spool: %s", dir, strerror(errno));
	}
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		char **slot;

		if (l < 5 || strcmp(de->d_name + l - 4, ".tsv"))
			continue;
		if (!(slot = HWP_VEC_PUSH(names, n, cap)) || !(*slot = strdup(de->d_name))) {
			rc = hwp__set_error(ENOMEM, "out of memory");
			break;
		}
	}
	closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n && !rc; i++) {
		size_t len;
		char *data, table[160];

		/* the batch's own table (a batch of an older hwprof: this push's) */
		bool lat;

		if (!batch_table(names[i], table, sizeof(table), &lat))
			snprintf(table, sizeof(table), "%s", f->table);
		insert_param(table, lat, param, sizeof(param));
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (!(data = read_all(path, &len))) {
			rc = hwp__set_error(errno ? errno : EIO, "%s: cannot read the spooled batch: %s", path,
					    strerror(errno ? errno : EIO));
			break;
		}
		if ((rc = hwp__fleet_send(f, param, data, len, &st->retries)) == 0) {
			for (size_t k = 0; k < len; k++)
				st->rows += data[k] == '\n';
			st->sent++;
			unlink(path);
		}
		free(data);
	}
	st->left = n - st->sent;
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	close(lock);
	return rc;
}

int hwp_fleet__drain(struct hwp_fleet *f, struct hwp_fleet_push_stats *out)
{
	struct hwp_fleet_push_stats st;
	int rc;

	if ((rc = HWP_RESULT_BEGIN(out, &st, struct hwp_fleet_push_stats)) < 0)
		return rc;
	memset(&st, 0, sizeof(st));
	rc = drain(f, &st);
	/* what hwp_fleet__spool() sent itself, without a spool */
	st.sent += f->direct_sent;
	st.rows += f->direct_rows;
	st.retries += f->direct_retries;
	f->direct_sent = f->direct_retries = 0;
	f->direct_rows = 0;
	hwp__result_end(out, &st, sizeof(st));
	return rc;
}
