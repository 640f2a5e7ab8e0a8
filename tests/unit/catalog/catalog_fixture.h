/* Helpers of the catalog tests: scratch directories, error checks. */
#ifndef DL_TEST_CATALOG_FIXTURE_H
#define DL_TEST_CATALOG_FIXTURE_H
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "deltalake.h"

static inline int cf_rm_one(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
	(void)sb;
	(void)flag;
	(void)f;
	return remove(p);
}

/* A fresh scratch directory (malloc'd path). */
static inline char *cf_tmpdir(void)
{
	char tmpl[] = "/tmp/dl_catalog_XXXXXX";
	char *d = mkdtemp(tmpl);
	return d ? strdup(d) : NULL;
}

static inline void cf_rmdir(const char *d)
{
	if (d) nftw(d, cf_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* The current error's class equals `klass` and its code `code`. */
static inline int cf_error_is(int rc, int code, const char *klass)
{
	const dl_error *e = dl_error_last();
	if (rc == code && e->code == code && strcmp(e->klass, klass) == 0) return 1;
	fprintf(stderr, "expected %s [%s], got rc %d: %s [%s]\n", dl_error_code_name(code), klass, rc,
	        e->message, e->klass);
	return 0;
}

/* Number of objects under dir of the store at uri (recursive). */
static inline long cf_count_objects(const char *uri, const char *dir)
{
	dl_store *s;
	if (dl_store_open(&s, uri, NULL) < 0) return -1;
	dl_object_list l = {NULL, 0};
	long n = dl_store_list_recursive(&l, s, dir) < 0 ? -1 : (long)l.count;
	dl_object_list_free(&l);
	dl_store_free(s);
	return n;
}

/* A managed table "name" with a small schema; returns the rc. */
static inline int cf_create(dl_catalog *c, const char *name, const char *location,
                            bool if_not_exists, int64_t *version)
{
	dl_create_options co = DL_CREATE_OPTIONS_INIT;
	co.schema_ddl = "id BIGINT NOT NULL, name STRING";
	dl_catalog_table_options o = DL_CATALOG_TABLE_OPTIONS_INIT;
	o.create = &co;
	o.location = location;
	o.if_not_exists = if_not_exists;
	int64_t v;
	return dl_catalog_create_table(version ? version : &v, c, name, &o);
}

#endif
