/* The server config: the reference server's YAML (delta-io/delta-sharing
 * server/.../config/ServerConfig.scala: version, shares[].name,
 * shares[].schemas[].name, ...tables[].name/location/id/historyShared/
 * cdfEnabled/startVersion, authorization.bearerToken, ssl, host, port,
 * endpoint, preSignedUrlTimeoutSeconds, requestTimeoutSeconds), so its
 * configs load unchanged, plus our keys: recipients[] (name, tokenHash,
 * expirationTime, shares), tables[].partitionFilter, maxRequestBodyBytes and
 * snapshotCacheBytes; deltaTableCacheSize bounds the snapshot cache's entries
 * as the reference's bounds its table cache.
 *
 * Like the reference (FAIL_ON_UNKNOWN_PROPERTIES false), unknown keys are
 * ignored, so its other settings (stalenessAcceptable...) are accepted.
 * YAML aliases are refused: a config has no use for them and they are how
 * small documents expand into huge ones. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>
#include "deltalake/timestamp.h"
#include "sharing/server.h"
#include "util/error.h"
#include "util/mem.h"

#define DL_SHR_CONFIG_MAX_BYTES (4 << 20)

typedef struct cfg_ctx {
	yaml_document_t *doc;
	dl_shr_config *c;
	const char *what;
} cfg_ctx;

static int cfg_err(const cfg_ctx *x, const yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int cfg_err(const cfg_ctx *x, const yaml_node_t *n, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return dl_error_set(DL_EINVALID, "%s: line %zu: %s", x->what,
	                    n ? (size_t)n->start_mark.line + 1 : (size_t)0, msg);
}

static yaml_node_t *node(const cfg_ctx *x, yaml_node_item_t id)
{
	return yaml_document_get_node(x->doc, id);
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* A null scalar ("~", "null", empty plain): the key counts as absent. */
static bool is_null(const yaml_node_t *n)
{
	if (!n) return true; /* an absent key */
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	const char *s = scalar(n);
	return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL");
}

static int get_string(const cfg_ctx *x, const yaml_node_t *n, const char *key, const char **out)
{
	if (is_null(n)) return 0;
	const char *s = scalar(n);
	if (!s) return cfg_err(x, n, "'%s' must be a string", key);
	if (strlen(s) != n->data.scalar.length) return cfg_err(x, n, "'%s' contains a NUL byte", key);
	*out = dl_arena_strdup(&x->c->arena, s);
	return *out ? 0 : DL_ENOMEM;
}

static int get_int(const cfg_ctx *x, const yaml_node_t *n, const char *key, int64_t lo, int64_t hi,
                   int64_t *out)
{
	if (is_null(n)) return 0;
	const char *s = scalar(n);
	if (!s || !*s) return cfg_err(x, n, "'%s' must be an integer", key);
	errno = 0;
	char *end;
	long long v = strtoll(s, &end, 10);
	if (*end || errno || v < lo || v > hi)
		return cfg_err(x, n, "'%s' must be an integer from %" PRId64 " to %" PRId64 ", not '%s'",
		               key, lo, hi, s);
	*out = v;
	return 0;
}

static int get_bool(const cfg_ctx *x, const yaml_node_t *n, const char *key, bool *out)
{
	if (is_null(n)) return 0;
	const char *s = scalar(n);
	if (s && (!strcasecmp(s, "true") || !strcasecmp(s, "yes") || !strcasecmp(s, "on"))) {
		*out = true;
		return 0;
	}
	if (s && (!strcasecmp(s, "false") || !strcasecmp(s, "no") || !strcasecmp(s, "off"))) {
		*out = false;
		return 0;
	}
	return cfg_err(x, n, "'%s' must be true or false", key);
}

/* Calls fn for each key/value of a mapping. */
typedef int (*pair_fn)(const cfg_ctx *x, const char *key, const yaml_node_t *v, void *obj);
static int each_pair(const cfg_ctx *x, const yaml_node_t *map, const char *what, pair_fn fn, void *obj)
{
	if (!map || map->type != YAML_MAPPING_NODE) return cfg_err(x, map, "%s must be a mapping", what);
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = node(x, p->key);
		const char *ks = scalar(k);
		if (!ks) return cfg_err(x, k, "a key of %s must be a string", what);
		DL_TRY(fn(x, ks, node(x, p->value), obj));
	}
	return 0;
}

/* Allocates the items of a sequence (NULL/absent: zero items). */
static int seq_items(const cfg_ctx *x, const yaml_node_t *n, const char *key, size_t size,
                     void **items, size_t *count)
{
	*items = NULL;
	*count = 0;
	if (is_null(n)) return 0;
	if (n->type != YAML_SEQUENCE_NODE) return cfg_err(x, n, "'%s' must be a list", key);
	size_t k = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
	if (k == 0) return 0;
	*items = dl_arena_calloc(&x->c->arena, k, size);
	if (!*items) return DL_ENOMEM;
	*count = k;
	return 0;
}

static bool name_ok(const char *s)
{
	/* Names appear in URL paths: anything but '/' and control bytes. */
	if (!s || !*s) return false;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p == '/' || *p < 0x20 || *p == 0x7f) return false;
	return strcmp(s, ".") && strcmp(s, "..");
}

static int table_pair(const cfg_ctx *x, const char *k, const yaml_node_t *v, void *obj)
{
	dl_shr_table *t = obj;
	if (!strcmp(k, "name")) return get_string(x, v, "name", &t->name);
	if (!strcmp(k, "location")) return get_string(x, v, "location", &t->location);
	if (!strcmp(k, "id")) return get_string(x, v, "id", &t->id);
	if (!strcmp(k, "historyShared")) return get_bool(x, v, k, &t->history_shared);
	if (!strcmp(k, "cdfEnabled")) return get_bool(x, v, k, &t->cdf_enabled);
	if (!strcmp(k, "startVersion")) return get_int(x, v, k, 0, INT64_MAX, &t->start_version);
	if (!strcmp(k, "partitionFilter")) return get_string(x, v, k, &t->partition_filter);
	return 0;
}

static int schema_pair(const cfg_ctx *x, const char *k, const yaml_node_t *v, void *obj)
{
	dl_shr_schema *s = obj;
	if (!strcmp(k, "name")) return get_string(x, v, "name", &s->name);
	if (strcmp(k, "tables")) return 0;
	void *items;
	DL_TRY(seq_items(x, v, "tables", sizeof(dl_shr_table), &items, &s->ntables));
	s->tables = items;
	for (size_t i = 0; i < s->ntables; i++) {
		const yaml_node_t *tn = node(x, v->data.sequence.items.start[i]);
		dl_shr_table *t = &s->tables[i];
		DL_TRY(each_pair(x, tn, "a table", table_pair, t));
		if (!t->name) return cfg_err(x, tn, "'name' in a table must be provided");
		if (!name_ok(t->name)) return cfg_err(x, tn, "table name '%s' may not contain '/'", t->name);
		if (!t->location || !*t->location)
			return cfg_err(x, tn, "'location' in table '%s' must be provided", t->name);
		for (size_t j = 0; j < i; j++)
			if (!strcasecmp(s->tables[j].name, t->name))
				return cfg_err(x, tn, "table '%s' appears twice in schema '%s'", t->name,
				               s->name ? s->name : "?");
	}
	return 0;
}

static int share_pair(const cfg_ctx *x, const char *k, const yaml_node_t *v, void *obj)
{
	dl_shr_share *s = obj;
	if (!strcmp(k, "name")) return get_string(x, v, "name", &s->name);
	if (!strcmp(k, "id")) return get_string(x, v, "id", &s->id);
	if (strcmp(k, "schemas")) return 0;
	void *items;
	DL_TRY(seq_items(x, v, "schemas", sizeof(dl_shr_schema), &items, &s->nschemas));
	s->schemas = items;
	for (size_t i = 0; i < s->nschemas; i++) {
		const yaml_node_t *sn = node(x, v->data.sequence.items.start[i]);
		dl_shr_schema *sc = &s->schemas[i];
		DL_TRY(each_pair(x, sn, "a schema", schema_pair, sc));
		if (!sc->name) return cfg_err(x, sn, "'name' in a schema must be provided");
		if (!name_ok(sc->name)) return cfg_err(x, sn, "schema name '%s' may not contain '/'", sc->name);
		for (size_t j = 0; j < i; j++)
			if (!strcasecmp(s->schemas[j].name, sc->name))
				return cfg_err(x, sn, "schema '%s' appears twice in share '%s'", sc->name,
				               s->name ? s->name : "?");
	}
	return 0;
}

static int auth_pair(const cfg_ctx *x, const char *k, const yaml_node_t *v, void *obj)
{
	const char **token = obj;
	if (!strcmp(k, "bearerToken")) return get_string(x, v, k, token);
	return 0;
}

typedef struct ssl_obj {
	const char **cert, **key;
	bool self_signed;
} ssl_obj;

static int ssl_pair(const cfg_ctx *x, const char *k, const yaml_node_t *v, void *obj)
{
	ssl_obj *s = obj;
	if (!strcmp(k, "certificateFile")) return get_string(x, v, k, s->cert);
	if (!strcmp(k, "certificateKeyFile")) return get_string(x, v, k, s->key);
	if (!strcmp(k, "selfSigned")) return get_bool(x, v, k, &s->self_signed);
	if (!strcmp(k, "certificatePasswordFile") && !is_null(v))
		return cfg_err(x, v, "ssl.certificatePasswordFile is not supported: give an unencrypted key");
	return 0;
}

typedef struct recipient_obj {
	dl_shr_recipient *r;
	const char *hash;
	const yaml_node_t *hash_node;
} recipient_obj;

static int recipient_pair(const cfg_ctx *x, const char *k, const yaml_node_t *v, void *obj)
{
	recipient_obj *o = obj;
	dl_shr_recipient *r = o->r;
	if (!strcmp(k, "name")) return get_string(x, v, k, &r->name);
	if (!strcmp(k, "tokenHash")) {
		o->hash_node = v;
		return get_string(x, v, k, &o->hash);
	}
	if (!strcmp(k, "bearerToken"))
		return cfg_err(x, v, "a recipient keeps 'tokenHash' (from 'deltalake sharing token'), "
		                     "not the token itself");
	if (!strcmp(k, "expirationTime")) {
		const char *s = NULL;
		DL_TRY(get_string(x, v, k, &s));
		if (!s) return 0;
		int64_t us;
		if (dl_timestamp_parse_text(&us, s) < 0)
			return cfg_err(x, v, "'expirationTime' '%s' is not a timestamp (ISO 8601)", s);
		r->expires_ms = us / 1000;
		return 0;
	}
	if (!strcmp(k, "shares")) {
		if (is_null(v)) return 0;
		if (v->type == YAML_SCALAR_NODE && !strcmp(scalar(v), "*")) {
			r->all_shares = true;
			return 0;
		}
		void *items;
		DL_TRY(seq_items(x, v, "shares", sizeof(char *), &items, &r->nshares));
		r->shares = items;
		for (size_t i = 0; i < r->nshares; i++) {
			const yaml_node_t *sn = node(x, v->data.sequence.items.start[i]);
			DL_TRY(get_string(x, sn, "shares[]", &r->shares[i]));
			if (!r->shares[i]) return cfg_err(x, sn, "'shares[]' must be a share name");
		}
		return 0;
	}
	return 0;
}

typedef struct top_obj {
	const char *bearer;
	const yaml_node_t *bearer_node;
	const yaml_node_t *shares, *recipients;
	bool has_version;
	int64_t version;
	const yaml_node_t *version_node;
} top_obj;

static int top_pair(const cfg_ctx *x, const char *k, const yaml_node_t *v, void *obj)
{
	top_obj *o = obj;
	dl_shr_config *c = x->c;
	if (!strcmp(k, "version")) {
		o->version_node = v;
		if (is_null(v)) return 0;
		o->has_version = true;
		return get_int(x, v, k, INT32_MIN, INT32_MAX, &o->version);
	}
	if (!strcmp(k, "shares")) o->shares = v;
	else if (!strcmp(k, "recipients")) o->recipients = v;
	else if (!strcmp(k, "authorization")) {
		if (is_null(v)) return 0;
		o->bearer_node = v;
		return each_pair(x, v, "'authorization'", auth_pair, &o->bearer);
	} else if (!strcmp(k, "ssl")) {
		if (is_null(v)) return 0;
		ssl_obj s = {&c->ssl_cert, &c->ssl_key, false};
		DL_TRY(each_pair(x, v, "'ssl'", ssl_pair, &s));
		if (s.self_signed && !c->ssl_cert)
			return cfg_err(x, v, "ssl.selfSigned is not supported: give certificateFile and "
			                     "certificateKeyFile (or --tls-cert/--tls-key)");
		if (!c->ssl_cert != !c->ssl_key)
			return cfg_err(x, v, "ssl needs both 'certificateFile' and 'certificateKeyFile'");
	} else if (!strcmp(k, "host")) return get_string(x, v, k, &c->host);
	else if (!strcmp(k, "port")) {
		int64_t p = c->port;
		DL_TRY(get_int(x, v, k, 0, 65535, &p));
		c->port = (int)p;
	} else if (!strcmp(k, "endpoint")) return get_string(x, v, k, &c->endpoint);
	else if (!strcmp(k, "preSignedUrlTimeoutSeconds"))
		return get_int(x, v, k, 1, 7 * 24 * 3600, &c->presigned_url_timeout_s);
	else if (!strcmp(k, "requestTimeoutSeconds"))
		return get_int(x, v, k, 0, 24 * 3600, &c->request_timeout_s);
	else if (!strcmp(k, "maxRequestBodyBytes"))
		return get_int(x, v, k, 1024, 64 << 20, &c->max_body_bytes);
	else if (!strcmp(k, "deltaTableCacheSize"))
		return get_int(x, v, k, 0, 100000, &c->snapshot_cache_entries);
	else if (!strcmp(k, "snapshotCacheBytes"))
		return get_int(x, v, k, 0, INT64_MAX, &c->snapshot_cache_bytes);
	return 0;
}

static int load_shares(const cfg_ctx *x, const yaml_node_t *v)
{
	dl_shr_config *c = x->c;
	void *items;
	DL_TRY(seq_items(x, v, "shares", sizeof(dl_shr_share), &items, &c->nshares));
	c->shares = items;
	for (size_t i = 0; i < c->nshares; i++) {
		const yaml_node_t *sn = node(x, v->data.sequence.items.start[i]);
		dl_shr_share *s = &c->shares[i];
		DL_TRY(each_pair(x, sn, "a share", share_pair, s));
		if (!s->name) return cfg_err(x, sn, "'name' in a share must be provided");
		if (!name_ok(s->name)) return cfg_err(x, sn, "share name '%s' may not contain '/'", s->name);
		for (size_t j = 0; j < i; j++)
			if (!strcasecmp(c->shares[j].name, s->name))
				return cfg_err(x, sn, "name '%s' cannot appear in more than one 'shares[]' item",
				               s->name);
	}
	return 0;
}

static int load_recipients(const cfg_ctx *x, const yaml_node_t *v, const top_obj *o)
{
	dl_shr_config *c = x->c;
	size_t n = 0;
	if (!is_null(v)) {
		if (v->type != YAML_SEQUENCE_NODE) return cfg_err(x, v, "'recipients' must be a list");
		n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
	}
	size_t total = n + (o->bearer ? 1 : 0);
	if (total == 0) return 0;
	c->recipients = dl_arena_calloc(&c->arena, total, sizeof(dl_shr_recipient));
	if (!c->recipients) return DL_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const yaml_node_t *rn = node(x, v->data.sequence.items.start[i]);
		dl_shr_recipient *r = &c->recipients[i];
		r->expires_ms = INT64_MAX;
		recipient_obj ro = {r, NULL, NULL};
		DL_TRY(each_pair(x, rn, "a recipient", recipient_pair, &ro));
		if (!r->name) return cfg_err(x, rn, "'name' in a recipient must be provided");
		if (!ro.hash) return cfg_err(x, rn, "recipient '%s' needs 'tokenHash'", r->name);
		if (dl_shr_token_hash_parse(r->token_hash, ro.hash) < 0)
			return cfg_err(x, ro.hash_node, "'tokenHash' of recipient '%s' must be 'sha256:' and "
			                                "64 hex digits (deltalake sharing token prints one)",
			               r->name);
		for (size_t j = 0; j < i; j++) {
			if (!strcmp(c->recipients[j].name, r->name))
				return cfg_err(x, rn, "recipient '%s' appears twice", r->name);
			if (!memcmp(c->recipients[j].token_hash, r->token_hash, 32))
				return cfg_err(x, rn, "recipients '%s' and '%s' have the same token",
				               c->recipients[j].name, r->name);
		}
		for (size_t j = 0; j < r->nshares; j++)
			if (!dl_shr_config_share(c, r->shares[j]))
				return cfg_err(x, rn, "recipient '%s' is granted share '%s', which is not in 'shares'",
				               r->name, r->shares[j]);
	}
	c->nrecipients = n;
	if (o->bearer) {
		/* The reference's single token: every share. */
		if (!*o->bearer) return cfg_err(x, o->bearer_node, "authorization.bearerToken is empty");
		dl_shr_recipient *r = &c->recipients[c->nrecipients++];
		r->name = "bearerToken";
		dl_shr_token_digest(r->token_hash, o->bearer, strlen(o->bearer));
		r->expires_ms = INT64_MAX;
		r->all_shares = true;
	}
	return 0;
}

/* Refuses aliases before building the document (see the top comment). */
static int check_no_aliases(const char *text, size_t len, const char *what)
{
	yaml_parser_t p;
	if (!yaml_parser_initialize(&p)) return DL_ENOMEM;
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	int rc = 0;
	for (;;) {
		yaml_event_t ev;
		if (!yaml_parser_parse(&p, &ev)) {
			rc = dl_error_set(DL_EINVALID, "%s: line %zu: YAML syntax: %s", what,
			                  (size_t)p.problem_mark.line + 1, p.problem ? p.problem : "error");
			break;
		}
		yaml_event_type_t t = ev.type;
		size_t line = ev.start_mark.line + 1;
		yaml_event_delete(&ev);
		if (t == YAML_ALIAS_EVENT) {
			rc = dl_error_set(DL_EINVALID, "%s: line %zu: YAML aliases are not allowed in a config",
			                  what, line);
			break;
		}
		if (t == YAML_STREAM_END_EVENT) break;
	}
	yaml_parser_delete(&p);
	return rc;
}

int dl_shr_config_parse(dl_shr_config *out, const char *text, size_t len, const char *what)
{
	memset(out, 0, sizeof *out);
	out->port = -1;
	out->endpoint = "/delta-sharing";
	out->presigned_url_timeout_s = 3600;
	out->request_timeout_s = 30;
	out->max_body_bytes = 1 << 20;
	out->snapshot_cache_entries = 10;
	out->snapshot_cache_bytes = (int64_t)256 << 20;
	if (len > DL_SHR_CONFIG_MAX_BYTES)
		return dl_error_set(DL_EINVALID, "%s: a config of %zu bytes is larger than the %d allowed",
		                    what, len, DL_SHR_CONFIG_MAX_BYTES);
	DL_TRY(check_no_aliases(text, len, what));
	yaml_parser_t p;
	yaml_document_t doc;
	if (!yaml_parser_initialize(&p)) return DL_ENOMEM;
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	if (!yaml_parser_load(&p, &doc)) {
		int rc = dl_error_set(DL_EINVALID, "%s: line %zu: YAML syntax: %s", what,
		                      (size_t)p.problem_mark.line + 1, p.problem ? p.problem : "error");
		yaml_parser_delete(&p);
		return rc;
	}
	cfg_ctx x = {&doc, out, what};
	top_obj o = {0};
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	int rc = 0;
	if (!root) rc = dl_error_set(DL_EINVALID, "%s: the config is empty", what);
	if (rc == 0) rc = each_pair(&x, root, "the config", top_pair, &o);
	if (rc == 0 && !o.has_version) rc = cfg_err(&x, root, "'version' must be provided");
	if (rc == 0 && o.version <= 0) rc = cfg_err(&x, o.version_node, "'version' must be greater than 0");
	if (rc == 0 && o.version > 1)
		rc = cfg_err(&x, o.version_node,
		             "The 'version' in the server config is %" PRId64 " which is too new. The "
		             "current release supports version 1 and below. Please upgrade to a newer release.",
		             o.version);
	out->version = (int)o.version;
	if (rc == 0 && o.shares) rc = load_shares(&x, o.shares);
	if (rc == 0) rc = load_recipients(&x, o.recipients, &o);
	if (rc == 0 && out->nrecipients == 0)
		rc = dl_error_set(DL_EINVALID,
		                  "%s: no 'recipients' and no 'authorization.bearerToken': every request "
		                  "must be authenticated (make a token with 'deltalake sharing token')",
		                  what);
	if (rc == 0) {
		/* "/delta-sharing/" and "delta-sharing" mean "/delta-sharing". */
		size_t n = strlen(out->endpoint);
		while (n > 0 && out->endpoint[n - 1] == '/') n--;
		const char *e = out->endpoint;
		char *norm = dl_arena_alloc(&out->arena, n + 2);
		if (!norm) rc = DL_ENOMEM;
		else {
			size_t k = 0;
			if (e[0] != '/') norm[k++] = '/';
			memcpy(norm + k, e, n);
			norm[k + n] = 0;
			if (k + n == 1) norm[0] = 0; /* "/": the APIs at the root */
			out->endpoint = norm;
			if (strstr(norm, "/files") == norm && (norm[6] == 0 || norm[6] == '/'))
				rc = dl_error_set(DL_EINVALID, "%s: 'endpoint' may not be /files (the file URLs use it)",
				                  what);
		}
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&p);
	if (rc < 0) dl_shr_config_free(out);
	return rc;
}

int dl_shr_config_load(dl_shr_config *out, const char *path)
{
	memset(out, 0, sizeof *out);
	FILE *f = fopen(path, "rb");
	if (!f) return dl_error_errno("opening the sharing config", path);
	dl_buf b = DL_BUF_INIT;
	char chunk[8192];
	size_t got;
	int rc = 0;
	while (rc == 0 && (got = fread(chunk, 1, sizeof chunk, f)) > 0) {
		if (b.len + got > DL_SHR_CONFIG_MAX_BYTES)
			rc = dl_error_set(DL_EINVALID, "%s: larger than the %d bytes a config may have", path,
			                  DL_SHR_CONFIG_MAX_BYTES);
		else rc = dl_buf_append(&b, chunk, got);
	}
	if (rc == 0 && ferror(f)) rc = dl_error_errno("reading the sharing config", path);
	fclose(f);
	if (rc == 0) rc = dl_shr_config_parse(out, b.data ? b.data : "", b.len, path);
	dl_buf_free(&b);
	return rc;
}

void dl_shr_config_free(dl_shr_config *c)
{
	dl_arena_free(&c->arena);
	memset(c, 0, sizeof *c);
}

/* Names are case-insensitive (PROTOCOL.md: "It's case-insensitive"). */
const dl_shr_share *dl_shr_config_share(const dl_shr_config *c, const char *name)
{
	for (size_t i = 0; i < c->nshares; i++)
		if (!strcasecmp(c->shares[i].name, name)) return &c->shares[i];
	return NULL;
}

const dl_shr_schema *dl_shr_share_schema(const dl_shr_share *s, const char *name)
{
	for (size_t i = 0; i < s->nschemas; i++)
		if (!strcasecmp(s->schemas[i].name, name)) return &s->schemas[i];
	return NULL;
}

const dl_shr_table *dl_shr_schema_table(const dl_shr_schema *s, const char *name)
{
	for (size_t i = 0; i < s->ntables; i++)
		if (!strcasecmp(s->tables[i].name, name)) return &s->tables[i];
	return NULL;
}
