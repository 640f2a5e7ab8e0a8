/* Profile files (PROTOCOL.md "Profile File Format"): version 1 carries a
 * bearer token; version 2 names its type, bearer_token or
 * oauth_client_credentials (the client credentials grant of RFC 6749 4.4,
 * as delta-sharing's clients read it). Every field is checked here so a bad
 * profile fails with one line naming the file and the field, before any
 * request. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "json/json.h"
#include "sharing/client.h"
#include "util/error.h"
#include "util/mem.h"
#include "util/time.h"

/* The newest shareCredentialsVersion this client reads. */
#define PROFILE_MAX_VERSION 2
/* Profiles are a few hundred bytes; a bound keeps a wrong path (a table,
 * a device) from being read whole. */
#define PROFILE_MAX_BYTES (1 << 20)

int sh_parse_iso_ms(int64_t *out, const char *s)
{
	int64_t us;
	*out = -1;
	if (!s || dl_timestamp_parse(&us, s, strlen(s), NULL) < 0) return DL_EINVALID;
	*out = dl_floor_div(us, 1000);
	return 0;
}

void dl_sharing_profile_free(dl_sharing_profile *p)
{
	if (!p) return;
	dl_free(p->source);
	dl_free(p->endpoint);
	if (p->bearer_token) memset(p->bearer_token, 0, strlen(p->bearer_token));
	dl_free(p->bearer_token);
	dl_free(p->token_endpoint);
	dl_free(p->client_id);
	if (p->client_secret) memset(p->client_secret, 0, strlen(p->client_secret));
	dl_free(p->client_secret);
	dl_free(p->scope);
	dl_free(p);
}

/* A required (or optional) string field. */
static int str_field(char **out, const dl_json *root, const char *key, bool required,
                     const char *what)
{
	const dl_json *v = dl_json_get(root, key);
	*out = NULL;
	if (!v || v->kind == DL_JSON_NULL) {
		if (!required) return 0;
		return dl_error_set(DL_EINVALID, "profile %s: the field \"%s\" is missing; ask the data "
		                    "provider for a complete profile file", what, key);
	}
	if (v->kind != DL_JSON_STRING || v->u.str.len == 0 || strlen(v->u.str.ptr) != v->u.str.len)
		return dl_error_set(DL_EINVALID, "profile %s: \"%s\" must be a non-empty string", what, key);
	*out = dl_strdup(v->u.str.ptr);
	return *out ? 0 : DL_ENOMEM;
}

static int check_url(const char *url, const char *key, const char *what)
{
	if (strncmp(url, "https://", 8) == 0 || strncmp(url, "http://", 7) == 0) return 0;
	return dl_error_set(DL_EINVALID, "profile %s: \"%s\" must be an http(s) URL, not \"%.64s\"",
	                    what, key, url);
}

static int parse_root(dl_sharing_profile *p, const dl_json *root, const char *what)
{
	if (root->kind != DL_JSON_OBJECT)
		return dl_error_set(DL_EINVALID, "profile %s: a profile is a JSON object", what);
	const dl_json *ver = dl_json_get(root, "shareCredentialsVersion");
	int64_t v;
	if (!ver)
		return dl_error_set(DL_EINVALID, "profile %s: the field \"shareCredentialsVersion\" is "
		                    "missing", what);
	if (dl_json_int64(ver, &v) < 0 || v < 1)
		return dl_error_set(DL_EINVALID, "profile %s: \"shareCredentialsVersion\" must be a positive "
		                    "integer", what);
	if (v > PROFILE_MAX_VERSION)
		return dl_error_set(DL_EUNSUPPORTED, "profile %s: shareCredentialsVersion %lld is newer than "
		                    "this client reads (up to %d); upgrade deltalake", what, (long long)v,
		                    PROFILE_MAX_VERSION);
	p->version = (int)v;
	DL_TRY(str_field(&p->endpoint, root, "endpoint", true, what));
	DL_TRY(check_url(p->endpoint, "endpoint", what));
	size_t n = strlen(p->endpoint);
	while (n > 0 && p->endpoint[n - 1] == '/') p->endpoint[--n] = 0;
	const char *type = "bearer_token";
	const dl_json *t = dl_json_get(root, "type");
	if (p->version >= 2) {
		if (!t || t->kind != DL_JSON_STRING)
			return dl_error_set(DL_EINVALID, "profile %s: version 2 needs \"type\" "
			                    "(bearer_token or oauth_client_credentials)", what);
		type = t->u.str.ptr;
	}
	char *exp = NULL;
	if (strcmp(type, "bearer_token") == 0) {
		p->auth = DL_SHARING_AUTH_BEARER;
		DL_TRY(str_field(&p->bearer_token, root, "bearerToken", true, what));
		DL_TRY(str_field(&exp, root, "expirationTime", false, what));
		p->expiration_ms = -1;
		if (exp) {
			int bad = sh_parse_iso_ms(&p->expiration_ms, exp) < 0;
			/* before 1970: long expired (and -1 must keep meaning "never") */
			if (!bad && p->expiration_ms < 0) p->expiration_ms = 0;
			dl_free(exp);
			if (bad)
				return dl_error_set(DL_EINVALID, "profile %s: \"expirationTime\" is not an ISO 8601 "
				                    "time (2021-11-12T00:12:29.0Z)", what);
		}
		return 0;
	}
	if (strcmp(type, "oauth_client_credentials") == 0) {
		p->auth = DL_SHARING_AUTH_OAUTH;
		p->expiration_ms = -1;
		DL_TRY(str_field(&p->token_endpoint, root, "tokenEndpoint", true, what));
		DL_TRY(check_url(p->token_endpoint, "tokenEndpoint", what));
		DL_TRY(str_field(&p->client_id, root, "clientId", true, what));
		DL_TRY(str_field(&p->client_secret, root, "clientSecret", true, what));
		return str_field(&p->scope, root, "scope", false, what);
	}
	return dl_error_set(DL_EUNSUPPORTED, "profile %s: type \"%.40s\" is not supported (bearer_token, "
	                    "oauth_client_credentials)", what, type);
}

int dl_sharing_profile_parse(dl_sharing_profile **out, const char *json, size_t len, const char *what)
{
	*out = NULL;
	if (!what) what = "(text)";
	dl_sharing_profile *p = dl_calloc(1, sizeof *p);
	if (!p) return DL_ENOMEM;
	p->source = dl_strdup(what);
	dl_arena a = DL_ARENA_INIT;
	dl_json *root;
	int rc = p->source ? 0 : DL_ENOMEM;
	if (rc == 0) {
		rc = dl_json_parse(&a, json, len, what, &root);
		if (rc < 0) dl_error_prefix("profile is not JSON");
	}
	if (rc == 0) rc = parse_root(p, root, what);
	dl_arena_free(&a);
	if (rc < 0) {
		dl_sharing_profile_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

int dl_sharing_profile_load(dl_sharing_profile **out, const char *path)
{
	*out = NULL;
	FILE *f = fopen(path, "rb");
	if (!f)
		return dl_error_set(errno == ENOENT ? DL_ENOTFOUND : DL_EIO, "profile %s: %s", path,
		                    strerror(errno));
	dl_buf b = DL_BUF_INIT;
	char chunk[4096];
	size_t n;
	int rc = 0;
	while (rc == 0 && (n = fread(chunk, 1, sizeof chunk, f)) > 0) {
		if (b.len + n > PROFILE_MAX_BYTES)
			rc = dl_error_set(DL_EINVALID, "profile %s: larger than 1 MiB; is it a profile file?", path);
		else rc = dl_buf_append(&b, chunk, n);
	}
	if (rc == 0 && ferror(f)) rc = dl_error_errno("reading profile", path);
	fclose(f);
	if (rc == 0) rc = dl_sharing_profile_parse(out, b.data ? b.data : "", b.len, path);
	if (b.data) memset(b.data, 0, b.len);
	dl_buf_free(&b);
	return rc;
}

int dl_sharing_profile_version(const dl_sharing_profile *p) { return p->version; }
dl_sharing_auth dl_sharing_profile_auth(const dl_sharing_profile *p) { return p->auth; }
const char *dl_sharing_profile_endpoint(const dl_sharing_profile *p) { return p->endpoint; }
int64_t dl_sharing_profile_expiration(const dl_sharing_profile *p) { return p->expiration_ms; }
