/* The registry of store backends by URI scheme
 * (include/deltalake/sys/store_backend.h).
 *
 * Rule: a scheme maps to at most one backend, and the built-ins (file, mem,
 * fault, s3, s3a, az, azure, abfs, abfss, wasb, wasbs) always do. The table is a small array behind one mutex: lookups
 * happen once per dl_store_open, so contention does not matter, and copying
 * the struct out under the lock means an unregister never pulls a backend
 * from under a store that is being opened. */
#include "storage/backend.h"
#include "storage/store_azure.h"
#include "storage/store_s3.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"
#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

typedef struct entry {
	dl_store_backend be; /* be.scheme points to scheme */
	char *scheme;
	bool builtin;
} entry;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static entry *g_entries;
static size_t g_count, g_cap;
static bool g_init;

static int push(const dl_store_backend *be, bool builtin)
{
	if (g_count == g_cap) {
		size_t nc = g_cap ? g_cap * 2 : 8;
		entry *p = dl_reallocarray(g_entries, nc, sizeof *p);
		if (!p) return DL_ENOMEM;
		g_entries = p;
		g_cap = nc;
	}
	char *scheme = dl_strdup(be->scheme);
	if (!scheme) return DL_ENOMEM;
	for (char *c = scheme; *c; c++) *c = (char)tolower((unsigned char)*c);
	entry *e = &g_entries[g_count++];
	/* an application's version 1 struct ends at payload, a version 2 one
	 * at delete_many: copy only what it has, later functions stay NULL
	 * (built from the others, or not offered) */
	memset(&e->be, 0, sizeof e->be);
	memcpy(&e->be, be, be->version >= 5   ? sizeof *be
	                   : be->version == 4 ? offsetof(dl_store_backend, limits)
	                   : be->version == 3 ? offsetof(dl_store_backend, reader_release)
	                   : be->version == 2 ? offsetof(dl_store_backend, version_at_timestamp)
	                                      : offsetof(dl_store_backend, list_from));
	e->be.version = DL_STORE_BACKEND_VERSION;
	e->be.scheme = scheme;
	e->scheme = scheme;
	e->builtin = builtin;
	return 0;
}

/* Called with g_mu held. */
static int init_locked(void)
{
	if (g_init) return 0;
	static const dl_store_backend *const builtins[] = {
		&dl_store_backend_file, &dl_store_backend_mem, &dl_store_backend_fault,
		&dl_store_backend_s3, &dl_store_backend_s3a,
		&dl_store_backend_az, &dl_store_backend_azure, &dl_store_backend_abfs,
		&dl_store_backend_abfss, &dl_store_backend_wasb, &dl_store_backend_wasbs,
	};
	for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++) {
		int rc = push(builtins[i], true);
		if (rc < 0) {
			for (size_t k = 0; k < g_count; k++) dl_free(g_entries[k].scheme);
			g_count = 0;
			return rc;
		}
	}
	g_init = true;
	return 0;
}

static entry *find_locked(const char *scheme, size_t n)
{
	for (size_t i = 0; i < g_count; i++)
		if (strlen(g_entries[i].scheme) == n && strncasecmp(g_entries[i].scheme, scheme, n) == 0)
			return &g_entries[i];
	return NULL;
}

/* "fault, file, mem" (sorted), for messages. Called with g_mu held. */
static void list_schemes(dl_buf *b)
{
	const char *done = "";
	for (size_t k = 0; k < g_count; k++) {
		const char *next = NULL;
		for (size_t i = 0; i < g_count; i++) {
			const char *s = g_entries[i].scheme;
			if (strcmp(s, done) > 0 && (!next || strcmp(s, next) < 0)) next = s;
		}
		if (!next) break;
		dl_buf_printf(b, "%s%s", k ? ", " : "", next);
		done = next;
	}
}

int dl_store_registry_find(dl_store_backend *out, const char *scheme, size_t scheme_len,
                           const char *uri)
{
	pthread_mutex_lock(&g_mu);
	int rc = init_locked();
	entry *e = rc == 0 ? find_locked(scheme, scheme_len) : NULL;
	if (e) {
		*out = e->be;
	} else if (rc == 0) {
		dl_buf names = DL_BUF_INIT;
		list_schemes(&names);
		rc = dl_error_set(DL_EINVALID,
		                  "storage scheme \"%.*s\" of %s has no registered backend; registered "
		                  "schemes: %s (a plain path is file; applications add schemes with "
		                  "dl_store_backend_register)",
		                  (int)scheme_len, scheme, uri, names.data ? names.data : "");
		dl_buf_free(&names);
	}
	pthread_mutex_unlock(&g_mu);
	return rc;
}

static bool valid_scheme(const char *s)
{
	if (!s || !isalpha((unsigned char)s[0])) return false;
	size_t n = 1;
	for (; s[n]; n++)
		if (!isalnum((unsigned char)s[n]) && s[n] != '+' && s[n] != '-' && s[n] != '.') return false;
	return n >= 2; /* one letter would be a Windows drive */
}

int dl_store_backend_register(const dl_store_backend *be)
{
	if (!be) return dl_error_set(DL_EINVALID, "dl_store_backend_register needs a backend");
	if (be->version < 1 || be->version > DL_STORE_BACKEND_VERSION)
		return dl_error_set(DL_EINVALID,
		                    "dl_store_backend.version is %d; this library knows versions 1 to %d "
		                    "(set it to DL_STORE_BACKEND_VERSION)",
		                    be->version, DL_STORE_BACKEND_VERSION);
	if (!valid_scheme(be->scheme))
		return dl_error_set(DL_EINVALID,
		                    "dl_store_backend.scheme \"%s\" is not a URI scheme (a letter, then "
		                    "letters, digits, '+', '-' or '.'; two characters at least)",
		                    be->scheme ? be->scheme : "(null)");
	if (!be->open || !be->free || !be->get || !be->put || !be->put_if_absent || !be->list ||
	    !be->del || !be->stat)
		return dl_error_set(DL_EINVALID,
		                    "backend \"%s\" lacks a required function (open, free, get, put, "
		                    "put_if_absent, list, del and stat are required)", be->scheme);
	bool w = be->writer_open || be->writer_write || be->writer_commit || be->writer_abort;
	bool wall = be->writer_open && be->writer_write && be->writer_commit && be->writer_abort;
	bool r = be->reader_open || be->reader_read || be->reader_close;
	bool rall = be->reader_open && be->reader_read && be->reader_close;
	if ((w && !wall) || (r && !rall))
		return dl_error_set(DL_EINVALID,
		                    "backend \"%s\" has only some of the writer_* or reader_* functions: "
		                    "give all of a group or none", be->scheme);
	pthread_mutex_lock(&g_mu);
	int rc = init_locked();
	if (rc == 0 && find_locked(be->scheme, strlen(be->scheme)))
		rc = dl_error_set(DL_EEXISTS, "a store backend for scheme \"%s\" is already registered",
		                  be->scheme);
	if (rc == 0) rc = push(be, false);
	pthread_mutex_unlock(&g_mu);
	return rc;
}

int dl_store_backend_unregister(const char *scheme)
{
	if (!scheme) return dl_error_set(DL_EINVALID, "dl_store_backend_unregister needs a scheme");
	pthread_mutex_lock(&g_mu);
	int rc = init_locked();
	entry *e = rc == 0 ? find_locked(scheme, strlen(scheme)) : NULL;
	if (rc == 0 && !e) {
		rc = dl_error_set(DL_ENOTFOUND, "no store backend is registered for scheme \"%s\"", scheme);
	} else if (rc == 0 && e->builtin) {
		rc = dl_error_set(DL_EINVALID, "the store backend \"%s\" is built in and cannot be unregistered",
		                  scheme);
	} else if (rc == 0) {
		dl_free(e->scheme);
		size_t i = (size_t)(e - g_entries);
		memmove(g_entries + i, g_entries + i + 1, (g_count - i - 1) * sizeof *g_entries);
		g_count--;
	}
	pthread_mutex_unlock(&g_mu);
	return rc;
}

int dl_store_backend_error(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	dl_error_setv(code < 0 ? code : DL_ERROR, fmt, ap);
	va_end(ap);
	return code < 0 ? code : DL_ERROR;
}
