/* SPDX-License-Identifier: MIT */
/*
 * ClickHouse over HTTP (libcurl): one request per statement, the SQL in the
 * body (or, for inserts, in the query parameter with the rows as the body).
 * Errors become one line naming the URL: no server (refused, unreachable,
 * timed out) or the server's own message.
 */
#ifdef HAVE_LIBCURL
#include <curl/curl.h>
#endif
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "export/export_internal.h"
#include "export/fleet_internal.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/opts.h"

#ifdef HAVE_LIBCURL
struct body {
	char *p;
	size_t len, cap;
	bool oom;
};

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *ctx)
{
	struct body *b = ctx;
	size_t n = size * nmemb;

	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->len + n + 1) * 2;
		char *p = realloc(b->p, cap);

		if (!p) {
			b->oom = true;
			return 0;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, ptr, n);
	b->len += n;
	b->p[b->len] = 0;
	return n;
}

/* URL as given for the message that refuses it, unless it may hold
   credentials: a malformed URL cannot be trusted to say where its password
   ends (an unencoded '/', '?', '#', '@' or '&' in it), so such a URL is not
   shown at all. */
static void redact(const char *url, char *buf, size_t size)
{
	if (strchr(url, '@') || strstr(url, "password="))
		snprintf(buf, size, "(a URL with credentials, not shown)");
	else
		snprintf(buf, size, "%s", url);
}

/* Takes user= and password= out of U's query (URL-decoded into *USER and
   *PW when present), keeping the other parameters in order. */
static CURLUcode take_query_credentials(CURLU *u, char **user, char **pw)
{
	char *q = NULL;
	struct hwp__sbuf keep = { 0 };
	CURLUcode uc = curl_url_get(u, CURLUPART_QUERY, &q, 0);

	if (uc == CURLUE_NO_QUERY)
		return CURLUE_OK;
	if (uc)
		return uc;
	for (char *save = NULL, *kv = strtok_r(q, "&", &save); kv; kv = strtok_r(NULL, "&", &save)) {
		char **to = !strncmp(kv, "user=", 5) ? user : !strncmp(kv, "password=", 9) ? pw : NULL;

		if (!to) {
			if (keep.len)
				hwp__sbuf_putc(&keep, '&');
			hwp__sbuf_puts(&keep, kv);
			continue;
		}
		const char *v = strchr(kv, '=') + 1;
		int n;
		char *dec = curl_easy_unescape(NULL, v, 0, &n);

		free(*to);
		*to = dec ? strdup(dec) : NULL;
		curl_free(dec);
		if (!*to) {
			keep.oom = true;
			break;
		}
	}
	curl_free(q);
	hwp__sbuf_putc(&keep, 0);
	uc = keep.oom ? CURLUE_OUT_OF_MEMORY : curl_url_set(u, CURLUPART_QUERY, *keep.p ? keep.p : NULL, 0);
	free(keep.p);
	return uc;
}

static bool loopback(const char *host)
{
	return !strcmp(host, "localhost") || !strncmp(host, "127.", 4) || !strcmp(host, "[::1]");
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

struct hwp_fleet *hwp_fleet__open(const char *url, const struct hwp_fleet_opts *opts)
{
	static bool curl_ready;
	struct hwp_fleet *f;
	CURLU *u;
	CURLUcode uc;
	char *scheme = NULL, *host = NULL, *clean = NULL, *user = NULL, *pw = NULL, shown[1024];

	if (!curl_ready) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
			hwp__set_error(ENOMEM, "cannot initialize libcurl");
			return NULL;
		}
		curl_ready = true;
	}
	if (!(f = calloc(1, sizeof(*f)))) {
		hwp__set_error(ENOMEM, "out of memory");
		return NULL;
	}
	if (HWP_OPTS_LOAD(opts, &f->o, struct hwp_fleet_opts) < 0) {
		free(f);
		return NULL;
	}
	if (!f->o.retries)
		f->o.retries = 4;
	else if (f->o.retries == UINT_MAX)
		f->o.retries = 0;
	if (!f->o.backoff_ms)
		f->o.backoff_ms = 100;
	if (!f->o.timeout_s)
		f->o.timeout_s = 30;
	if (!f->o.batch_rows)
		f->o.batch_rows = 10000;
	f->table = strdup(f->o.table ? f->o.table : "hwprof_rows");
	f->spool_dir = f->o.spool_dir ? strdup(f->o.spool_dir) : NULL;
	if (!f->table || (f->o.spool_dir && !f->spool_dir)) {
		hwp_fleet__close(f);
		hwp__set_error(ENOMEM, "out of memory");
		return NULL;
	}
	/* the option structs' strings are the caller's: only these are kept */
	f->o.spool_dir = f->o.table = NULL;
	/* a URL curl would guess a scheme for, or send anywhere, is refused here */
	if (!(u = curl_url())) {
		hwp_fleet__close(f);
		hwp__set_error(ENOMEM, "out of memory");
		return NULL;
	}
	uc = curl_url_set(u, CURLUPART_URL, url, 0);
	if (!uc)
		uc = curl_url_get(u, CURLUPART_SCHEME, &scheme, 0);
	if (!uc)
		uc = curl_url_get(u, CURLUPART_HOST, &host, 0);
	if (uc || (strcmp(scheme, "http") && strcmp(scheme, "https")) || !*host) {
		redact(url, shown, sizeof(shown));
		hwp__set_error(EINVAL, "'%s': malformed URL (%s): give http://HOST[:PORT]/, the server's HTTP interface",
			       shown, uc ? curl_url_strerror(uc) : "not http or https");
		goto fail;
	}
	/* credentials leave the URL: the options' first, then the URL's */
	{
		char *v = NULL;

		if (!curl_url_get(u, CURLUPART_USER, &v, CURLU_URLDECODE)) {
			user = strdup(v);
			curl_free(v);
		}
		v = NULL;
		if (!curl_url_get(u, CURLUPART_PASSWORD, &v, CURLU_URLDECODE)) {
			pw = strdup(v);
			curl_free(v);
		}
	}
	if ((uc = curl_url_set(u, CURLUPART_USER, NULL, 0)) || (uc = curl_url_set(u, CURLUPART_PASSWORD, NULL, 0)) ||
	    (uc = take_query_credentials(u, &user, &pw)) || (uc = curl_url_get(u, CURLUPART_URL, &clean, 0))) {
		hwp__set_error(ENOMEM, "out of memory");
		goto fail;
	}
	f->url = strdup(clean);
	if (strcmp(url, clean)) { /* see spool_path() */
		f->has_legacy_spool = true;
		f->legacy_spool_hash = hwp__fnv1a(HWP_FNV1A_INIT, url, strlen(url));
	}
	f->user = opts && f->o.user ? strdup(f->o.user) : user ? strdup(user) : NULL;
	f->password = opts && f->o.password ? strdup(f->o.password) : pw ? strdup(pw) : NULL;
	if (!f->url || (f->o.user && !f->user) || (f->o.password && !f->password) ||
	    (!f->o.user && user && !f->user) || (!f->o.password && pw && !f->password)) {
		hwp__set_error(ENOMEM, "out of memory");
		goto fail;
	}
	f->o.user = f->o.password = NULL;
	if (f->password && !f->user && !(f->user = strdup("default"))) {
		hwp__set_error(ENOMEM, "out of memory");
		goto fail;
	}
	if ((f->user || f->password) && !strcmp(scheme, "http") && !loopback(host))
		hwp__log(HWP_LOG_WARN, "%s: the credentials of user '%s' go over plain http, readable on the way: "
				       "use https:// where the network is not trusted", f->url, f->user);
	if (strlen(table_name(f)) > 128 || strspn(f->table, "abcdefghijklmnopqrstuvwxyz"
						  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != strlen(f->table)) {
		hwp__set_error(EINVAL, "'%s': a table name is letters, digits and '_'", f->table);
		goto fail;
	}
	if (!(f->cacert = dup_or_null(f->o.cacert)) != !f->o.cacert || !(f->cert = dup_or_null(f->o.cert)) != !f->o.cert ||
	    !(f->key = dup_or_null(f->o.key)) != !f->o.key) {
		hwp__set_error(ENOMEM, "out of memory");
		goto fail;
	}
	f->o.cacert = f->o.cert = f->o.key = NULL;
	curl_free(scheme), curl_free(host), curl_free(clean), curl_url_cleanup(u);
	free(user), free(pw);
	return f;
fail:
	curl_free(scheme), curl_free(host), curl_free(clean), curl_url_cleanup(u);
	free(user), free(pw);
	hwp_fleet__close(f);
	return NULL;
}
#else
/* Built without libcurl (mk/config.mk): no connection, so nothing else here
   is reached with one. */
struct hwp_fleet *hwp_fleet__open(const char *url, const struct hwp_fleet_opts *opts)
{
	(void)url, (void)opts;
	hwp__set_error(ENOTSUP, "built without libcurl; install libcurl4-openssl-dev and rebuild");
	return NULL;
}
#endif

void hwp_fleet__close(struct hwp_fleet *f)
{
	if (!f)
		return;
	free(f->table);
	free(f->url);
	free(f->spool_dir);
	free(f->user);
	if (f->password) /* (not left in freed memory) */
		memset(f->password, 0, strlen(f->password));
	free(f->password);
	free(f->cacert), free(f->cert), free(f->key);
	free(f);
}

const char *hwp_fleet__url(const struct hwp_fleet *f)
{
	return f->url;
}

const char *hwp_fleet__table(const struct hwp_fleet *f)
{
	return f->table;
}

#ifdef HAVE_LIBCURL
/* The first line of a server's message, without the stack trace. */
static void first_line(char *s)
{
	char *nl = strchr(s, '\n');

	if (nl)
		*nl = 0;
	for (size_t n = strlen(s); n && (s[n - 1] == ' ' || s[n - 1] == '\r'); n--)
		s[n - 1] = 0;
}

int hwp__fleet_request(struct hwp_fleet *f, const char *query_param, const char *data, size_t len,
		       char **out, bool *retryable)
{
	CURL *c = curl_easy_init();
	CURLU *u = curl_url();
	struct body b = { 0 };
	char errbuf[CURL_ERROR_SIZE] = "";
	long status = 0;
	int rc = 0;

	*retryable = false;
	if (out)
		*out = NULL;
	if (!c || !u || curl_url_set(u, CURLUPART_URL, f->url, 0)) {
		rc = hwp__set_error(ENOMEM, "out of memory");
		goto out;
	}
	/* an insert into a Distributed table answers once every shard has its
	   rows (not when they are queued on the first server): a shard that
	   is down fails the batch, which then stays in the spool */
	if (query_param && (curl_url_set(u, CURLUPART_QUERY, query_param, CURLU_APPENDQUERY | CURLU_URLENCODE) ||
			    curl_url_set(u, CURLUPART_QUERY, "insert_distributed_sync=1", CURLU_APPENDQUERY))) {
		rc = hwp__set_error(ENOMEM, "out of memory");
		goto out;
	}
	curl_easy_setopt(c, CURLOPT_CURLU, u);
	curl_easy_setopt(c, CURLOPT_POST, 1L);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, data);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)f->o.timeout_s);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	if (f->user) { /* basic authentication: not in the URL, where logs keep it */
		curl_easy_setopt(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		curl_easy_setopt(c, CURLOPT_USERNAME, f->user);
		curl_easy_setopt(c, CURLOPT_PASSWORD, f->password ? f->password : "");
	}
	if (f->cacert)
		curl_easy_setopt(c, CURLOPT_CAINFO, f->cacert);
	if (f->cert)
		curl_easy_setopt(c, CURLOPT_SSLCERT, f->cert);
	if (f->key)
		curl_easy_setopt(c, CURLOPT_SSLKEY, f->key);
	CURLcode cc = curl_easy_perform(c);
	if (cc != CURLE_OK) {
		const char *why = *errbuf ? errbuf : curl_easy_strerror(cc);

		*retryable = true;
		switch (cc) {
		case CURLE_COULDNT_CONNECT:
			rc = hwp__set_error(ECONNREFUSED, "%s: connection refused: no server answers there (%s)", f->url, why);
			break;
		case CURLE_COULDNT_RESOLVE_HOST:
			rc = hwp__set_error(EHOSTUNREACH, "%s: unknown host (%s)", f->url, why);
			break;
		case CURLE_OPERATION_TIMEDOUT:
			rc = hwp__set_error(ETIMEDOUT, "%s: no answer within %u s (%s)", f->url, f->o.timeout_s, why);
			break;
		case CURLE_PEER_FAILED_VERIFICATION:
#if LIBCURL_VERSION_NUM < 0x073e00
		case CURLE_SSL_CACERT:
#endif
			*retryable = false;
			rc = hwp__set_error(EACCES, "%s: the server's certificate is not trusted (%s): give the CA that "
					    "signed it (hwprof-push(1), Credentials and TLS)", f->url, why);
			break;
		case CURLE_SSL_CACERT_BADFILE:
		case CURLE_SSL_CERTPROBLEM:
		case CURLE_SSL_CONNECT_ERROR:
			*retryable = false;
			rc = hwp__set_error(EACCES, "%s: TLS failed: %s", f->url, why);
			break;
		default:
			/* (a server that requires a client certificate drops the
			   connection after the handshake: say what may be missing) */
			rc = hwp__set_error(EIO, "%s: request failed: %s%s", f->url, why,
					    !strncmp(f->url, "https:", 6) && !f->cert
						    ? " (a server that requires a client certificate wants one: hwprof-push(1), Credentials and TLS)"
						    : "");
		}
		goto out;
	}
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (b.oom) {
		rc = hwp__set_error(ENOMEM, "out of memory reading the answer of %s", f->url);
		goto out;
	}
	if (status != 200) {
		char msg[512];

		snprintf(msg, sizeof(msg), "%s", b.p ? b.p : "");
		first_line(msg);
		/* 5xx may pass (a shard restarting); 4xx is the request's fault */
		*retryable = status >= 500;
		if (status == 401 || status == 403 || strstr(msg, "Code: 192,") || strstr(msg, "Code: 193,") ||
		    strstr(msg, "Code: 194,") || strstr(msg, "Code: 516,")) {
			*retryable = false;
			rc = hwp__set_error(EACCES, "%s: the server refused the credentials of user '%s' (%s): give "
					    "the user and password it expects (hwprof-push(1), Credentials and TLS)", f->url, f->user ? f->user : "default",
					    *msg ? msg : "no message");
			goto out;
		}
		rc = hwp__set_error(EIO, "%s: server error (HTTP %ld): %s", f->url, status, *msg ? msg : "no message");
		goto out;
	}
	if (out) {
		*out = b.p ? b.p : strdup("");
		b.p = NULL;
		if (!*out)
			rc = hwp__set_error(ENOMEM, "out of memory");
	}
out:
	free(b.p);
	curl_url_cleanup(u);
	curl_easy_cleanup(c);
	return rc;
}
#else
int hwp__fleet_request(struct hwp_fleet *f, const char *query_param, const char *data, size_t len,
		       char **out, bool *retryable)
{
	(void)f, (void)query_param, (void)data, (void)len, (void)out;
	*retryable = false;
	return hwp__set_error(ENOTSUP, "built without libcurl; install libcurl4-openssl-dev and rebuild");
}
#endif

int hwp_fleet__query(struct hwp_fleet *f, const char *sql, char **out)
{
	bool retryable;

	return hwp__fleet_request(f, NULL, sql, strlen(sql), out, &retryable);
}

int hwp__fleet_send(struct hwp_fleet *f, const char *query_param, const char *data, size_t len, size_t *retries)
{
	unsigned pause = f->o.backoff_ms;
	int rc = 0;

	for (unsigned attempt = 0; attempt <= f->o.retries; attempt++) {
		bool retryable;

		if (attempt) {
			struct timespec ts = { pause / 1000, (long)(pause % 1000) * 1000000L };

			nanosleep(&ts, NULL);
			pause *= 2;
			(*retries)++;
		}
		if (!(rc = hwp__fleet_request(f, query_param, data, len, NULL, &retryable)) || !retryable)
			return rc;
	}
	return rc;
}
