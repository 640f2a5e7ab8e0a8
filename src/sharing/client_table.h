/* The store backend of shared tables (client_table.c) and the commits of
 * their change data feed (client_changes.c): shared internals. */
#ifndef DL_SHARING_CLIENT_TABLE_H
#define DL_SHARING_CLIENT_TABLE_H
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include "sharing/client.h"
#include "util/buf.h"
#include "util/hash.h"

#define CKPT_UUID "00000000-0000-4000-8000-000000000000"
#define LOG_DIR "_delta_log"
#define DATA_DIR "_sharing"

typedef struct vfile {
	char *url;
	int64_t size;
	int64_t expiration_ms; /* -1: none given */
	int64_t query_version; /* the query that produced it: -1 latest */
	int64_t ch_start, ch_end; /* or the changes query [start, end]; -1: a snapshot's */
	int64_t generation;    /* bumped by each refresh of that query */
} vfile;

typedef struct sh_table {
	dl_sharing_client *c;
	char *share, *schema, *table;
	pthread_mutex_t mu;
	int64_t latest; /* -1 until listed */
	int64_t max_files; /* files per query page (delta-sharing.max_files); 0: unpaged */
	bool fresh_latest; /* latest was asked for by the open: the first listing uses it */
	dl_strmap files; /* store name -> vfile */
	int64_t generation;
	int64_t cur_ch_start, cur_ch_end; /* the changes query being run, else -1 */
	/* commits ch_start..ch_end built from one changes answer (its pages) */
	int64_t ch_start, ch_end;
	dl_buf *commits;
	/* delta-sharing.commits=query: commits from the query's startingVersion
	 * form (a stream's adds and removes), at most commit_versions a request;
	 * else from the changes endpoint (the change data feed's cdc files). */
	bool commits_query;
	int64_t commit_versions;
} sh_table;

typedef struct build_ctx {
	sh_table *t;
	int64_t qv;
	dl_buf *out; /* NULL on a refresh: only the URLs are updated */
	bool saw_protocol, saw_metadata;
	bool delta;
	int page;         /* 0 the first page: later ones repeat protocol and metaData */
	char *next_token; /* the page's endStreamAction nextPageToken (malloc'd) */
} build_ctx;

/* Registers (or replaces) a store name's URL; the query that produced it is
 * the table's current one (cur_ch_*) or snapshot query qv. t->mu held. */
int sh_put_file(sh_table *t, const char *name, const char *url, int64_t size, int64_t exp, int64_t qv);
/* prefix + hex of id + suffix: a store name from a file id. */
int sh_hex_name(dl_buf *out, const char *prefix, const char *id, const char *suffix);
/* A delta-format file action with its path replaced by `name` and a
 * deletion vector at a URL made a 'u' one of this store; into o (NULL:
 * only the URLs are registered). */
int sh_write_delta_action(build_ctx *b, dl_buf *o, const dl_sharing_line *l, const char *name);

/* client_changes.c */
int sh_run_changes(sh_table *t, int64_t start, int64_t end, bool build);
void sh_free_commits(sh_table *t);
int sh_parse_commit_name(const char *path, int64_t *version);
int sh_get_commit(uint8_t **data, size_t *len, sh_table *t, int64_t v);
#endif
