/* Where an S3 store's settings come from, first found wins:
 *   1. the store options: endpoint, region, access_key_id,
 *      secret_access_key, session_token (or the credentials callback), and
 *      s3.* (virtual_hosted_style_request, allow_http, allow_unsafe_rename,
 *      skip_signature, profile, part_size);
 *   2. the environment: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
 *      AWS_SESSION_TOKEN, AWS_REGION (AWS_DEFAULT_REGION), AWS_ENDPOINT_URL_S3
 *      (AWS_ENDPOINT_URL), AWS_VIRTUAL_HOSTED_STYLE_REQUEST, AWS_ALLOW_HTTP,
 *      AWS_S3_ALLOW_UNSAFE_RENAME, AWS_PROFILE;
 *   3. the profile in ~/.aws/credentials (aws_access_key_id, ...) and
 *      ~/.aws/config (region, endpoint_url), as the AWS CLI reads them
 *      (AWS_SHARED_CREDENTIALS_FILE and AWS_CONFIG_FILE move them).
 * Credentials come as a whole from one place: a key id from the options
 * never pairs with a secret from the environment. */
#include "storage/store_s3.h"
#include "storage/backend.h"
#include "storage/path.h"
#include "util/error.h"
#include "util/mem.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void dl_s3_config_free(dl_s3_config *c)
{
	dl_free(c->bucket);
	dl_free(c->prefix);
	dl_free(c->region);
	dl_free(c->endpoint);
	dl_free(c->access_key_id);
	if (c->secret_access_key) memset(c->secret_access_key, 0, strlen(c->secret_access_key));
	dl_free(c->secret_access_key);
	dl_free(c->session_token);
	memset(c, 0, sizeof *c);
}

/* ---- INI files of the AWS CLI ---- */

/* The value of `key` in section `section` of an INI file, or NULL (also
 * when the file is missing). */
static char *ini_get(const char *file, const char *section, const char *key)
{
	FILE *f = fopen(file, "r");
	if (!f) return NULL;
	char line[4096];
	bool in = false;
	char *found = NULL;
	while (!found && fgets(line, sizeof line, f)) {
		char *p = line;
		while (isspace((unsigned char)*p)) p++;
		size_t n = strlen(p);
		while (n && isspace((unsigned char)p[n - 1])) p[--n] = 0;
		if (!*p || *p == '#' || *p == ';') continue;
		if (*p == '[') {
			char *e = strchr(p, ']');
			if (!e) continue;
			*e = 0;
			char *name = p + 1;
			while (isspace((unsigned char)*name)) name++;
			size_t nl = strlen(name);
			while (nl && isspace((unsigned char)name[nl - 1])) name[--nl] = 0;
			in = strcmp(name, section) == 0;
			continue;
		}
		if (!in) continue;
		char *eq = strchr(p, '=');
		if (!eq) continue;
		char *k = p, *v = eq + 1;
		char *ke = eq;
		while (ke > k && isspace((unsigned char)ke[-1])) ke--;
		*ke = 0;
		while (isspace((unsigned char)*v)) v++;
		if (strcasecmp(k, key) == 0) found = dl_strdup(v);
	}
	fclose(f);
	return found;
}

typedef struct files {
	char credentials[1024];
	char config[1024];
	char profile[256];
	char config_section[300];
} files;

static void files_init(files *fs, dl_s3_getenv_fn env, const char *home, const char *profile)
{
	const char *h = home ? home : env("HOME");
	if (!h) h = "";
	const char *cf = env("AWS_SHARED_CREDENTIALS_FILE"), *cg = env("AWS_CONFIG_FILE");
	if (cf && *cf) snprintf(fs->credentials, sizeof fs->credentials, "%s", cf);
	else snprintf(fs->credentials, sizeof fs->credentials, "%s/.aws/credentials", h);
	if (cg && *cg) snprintf(fs->config, sizeof fs->config, "%s", cg);
	else snprintf(fs->config, sizeof fs->config, "%s/.aws/config", h);
	snprintf(fs->profile, sizeof fs->profile, "%s", profile);
	/* ~/.aws/config names profiles "[profile x]", except "[default]" */
	if (strcmp(profile, "default") == 0) snprintf(fs->config_section, sizeof fs->config_section, "default");
	else snprintf(fs->config_section, sizeof fs->config_section, "profile %s", profile);
}

/* ---- helpers ---- */

static const char *nonempty(const char *s) { return s && *s ? s : NULL; }

static int set_str(char **dst, const char *v)
{
	*dst = dl_strdup(v);
	return *dst ? 0 : DL_ENOMEM;
}

/* A boolean from the option `key`, else the environment `var`. */
static int get_bool(bool *out, const dl_store_options *o, const char *key, dl_s3_getenv_fn env,
                    const char *var, bool def)
{
	const char *v = dl_store_options_get(o, key);
	const char *what = key;
	if (!v && var) {
		v = nonempty(env(var));
		what = var;
	}
	*out = def;
	if (!v) return 0;
	if (strcasecmp(v, "true") == 0 || strcmp(v, "1") == 0) *out = true;
	else if (strcasecmp(v, "false") == 0 || strcmp(v, "0") == 0) *out = false;
	else return dl_error_set(DL_EINVALID, "%s=\"%s\" must be true or false", what, v);
	return 0;
}

static int parse_uri(dl_s3_config *c, const char *uri)
{
	const char *p = strstr(uri, "://");
	if (!p) return dl_error_set(DL_EINVALID, "S3 URI %s must look like s3://bucket/path", uri);
	p += 3;
	const char *slash = strchr(p, '/');
	size_t bl = slash ? (size_t)(slash - p) : strlen(p);
	if (bl == 0) return dl_error_set(DL_EINVALID, "S3 URI %s has no bucket: write s3://bucket/path", uri);
	for (size_t i = 0; i < bl; i++) {
		unsigned char ch = (unsigned char)p[i];
		if (!isalnum(ch) && ch != '-' && ch != '.' && ch != '_')
			return dl_error_set(DL_EINVALID, "S3 URI %s: bucket name \"%.*s\" may hold only letters, digits, "
			                    "'-', '.' and '_'", uri, (int)bl, p);
	}
	c->bucket = dl_strndup(p, bl);
	if (!c->bucket) return DL_ENOMEM;
	const char *rest = slash ? slash + 1 : "";
	return dl_path_key_prefix(&c->prefix, rest);
}

static int parse_size(size_t *out, const dl_store_options *o, const char *key, size_t def, size_t min)
{
	const char *v = dl_store_options_get(o, key);
	*out = def;
	if (!v) return 0;
	char *end;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	if (!*v || *end || errno || n < min || n > (5ull << 30))
		return dl_error_set(DL_EINVALID, "store option %s=\"%s\" must be a byte count from %zu to 5 GiB",
		                    key, v, min);
	*out = (size_t)n;
	return 0;
}

int dl_s3_config_load(dl_s3_config *c, const char *uri, const dl_store_options *o, dl_s3_getenv_fn env,
                      const char *home)
{
	static const char *const known[] = {"virtual_hosted_style_request", "allow_http", "allow_unsafe_rename",
	                                    "skip_signature", "profile", "part_size", NULL};
	memset(c, 0, sizeof *c);
	int rc = dl_store_options_check_namespace(o, "s3", known);
	if (rc == 0) rc = parse_uri(c, uri);
	if (rc < 0) goto fail;

	const char *profile = dl_store_options_get(o, "s3.profile");
	if (!profile) profile = nonempty(env("AWS_PROFILE"));
	bool named_profile = profile != NULL;
	if (!profile) profile = "default";
	files fs;
	files_init(&fs, env, home, profile);

	/* region */
	const char *region = dl_store_options_get(o, DL_STORE_OPT_REGION);
	if (!region) region = nonempty(env("AWS_REGION"));
	if (!region) region = nonempty(env("AWS_DEFAULT_REGION"));
	char *fregion = region ? NULL : ini_get(fs.config, fs.config_section, "region");
	if (!region) region = fregion ? fregion : "us-east-1";
	rc = set_str(&c->region, region);
	dl_free(fregion);
	if (rc < 0) goto fail;

	/* endpoint */
	if ((rc = get_bool(&c->allow_http, o, "s3.allow_http", env, "AWS_ALLOW_HTTP", false)) < 0) goto fail;
	const char *ep = dl_store_options_get(o, DL_STORE_OPT_ENDPOINT);
	if (!ep) ep = nonempty(env("AWS_ENDPOINT_URL_S3"));
	if (!ep) ep = nonempty(env("AWS_ENDPOINT_URL"));
	char *fep = ep ? NULL : ini_get(fs.config, fs.config_section, "endpoint_url");
	if (!ep) ep = fep;
	if (ep) {
		c->custom_endpoint = true;
		size_t n = strlen(ep);
		while (n && ep[n - 1] == '/') n--;
		c->endpoint = dl_strndup(ep, n);
		dl_free(fep);
		if (!c->endpoint) { rc = DL_ENOMEM; goto fail; }
		if (strncmp(c->endpoint, "https://", 8) != 0 && strncmp(c->endpoint, "http://", 7) != 0) {
			rc = dl_error_set(DL_EINVALID, "S3 endpoint \"%s\" must start with https:// (or http:// "
			                  "with s3.allow_http=true)", c->endpoint);
			goto fail;
		}
		if (strncmp(c->endpoint, "http://", 7) == 0 && !c->allow_http) {
			rc = dl_error_set(DL_EINVALID, "S3 endpoint %s is plain http: credentials and data would "
			                  "cross the network unencrypted; set the store option s3.allow_http=true "
			                  "(or AWS_ALLOW_HTTP=true) to allow it", c->endpoint);
			goto fail;
		}
	} else {
		dl_buf b = DL_BUF_INIT;
		if ((rc = dl_buf_printf(&b, "https://s3.%s.amazonaws.com", c->region)) < 0) goto fail;
		c->endpoint = dl_buf_detach(&b, NULL);
	}
	/* AWS itself: virtual-hosted; a custom endpoint (Ceph, MinIO): path-style */
	rc = get_bool(&c->virtual_hosted, o, "s3.virtual_hosted_style_request", env,
	              "AWS_VIRTUAL_HOSTED_STYLE_REQUEST", !c->custom_endpoint);
	if (rc == 0) rc = get_bool(&c->allow_unsafe_rename, o, "s3.allow_unsafe_rename", env,
	                           "AWS_S3_ALLOW_UNSAFE_RENAME", false);
	if (rc == 0) rc = get_bool(&c->skip_signature, o, "s3.skip_signature", env, NULL, false);
	if (rc == 0) rc = parse_size(&c->part_size, o, "s3.part_size", 16u << 20, 5u << 20);
	if (rc < 0) goto fail;
	if (c->virtual_hosted && strchr(c->bucket, '.') && strncmp(c->endpoint, "https://", 8) == 0) {
		rc = dl_error_set(DL_EINVALID, "S3 bucket \"%s\" has a '.', which breaks TLS with virtual-hosted "
		                  "addressing; set s3.virtual_hosted_style_request=false", c->bucket);
		goto fail;
	}

	/* credentials: all from one place */
	if (c->skip_signature) return 0;
	dl_store_credentials cr;
	rc = dl_store_backend_credentials(&cr, o, uri);
	if (rc == 0 && cr.access_key_id && cr.secret_access_key) {
		c->cred_source = "store options";
		if ((rc = set_str(&c->access_key_id, cr.access_key_id)) < 0) goto fail;
		if ((rc = set_str(&c->secret_access_key, cr.secret_access_key)) < 0) goto fail;
		if (cr.session_token && (rc = set_str(&c->session_token, cr.session_token)) < 0) goto fail;
		return 0;
	}
	if (rc < 0 && rc != DL_ENOTFOUND) goto fail;
	rc = 0;
	const char *ek = nonempty(env("AWS_ACCESS_KEY_ID")), *es = nonempty(env("AWS_SECRET_ACCESS_KEY"));
	if (ek && es && !named_profile) {
		c->cred_source = "environment (AWS_ACCESS_KEY_ID)";
		if ((rc = set_str(&c->access_key_id, ek)) < 0) goto fail;
		if ((rc = set_str(&c->secret_access_key, es)) < 0) goto fail;
		const char *et = nonempty(env("AWS_SESSION_TOKEN"));
		if (et && (rc = set_str(&c->session_token, et)) < 0) goto fail;
		return 0;
	}
	c->access_key_id = ini_get(fs.credentials, fs.profile, "aws_access_key_id");
	c->secret_access_key = ini_get(fs.credentials, fs.profile, "aws_secret_access_key");
	c->session_token = ini_get(fs.credentials, fs.profile, "aws_session_token");
	if (!c->access_key_id || !c->secret_access_key) {
		/* the config file may hold keys too */
		dl_free(c->access_key_id);
		dl_free(c->secret_access_key);
		dl_free(c->session_token);
		c->access_key_id = ini_get(fs.config, fs.config_section, "aws_access_key_id");
		c->secret_access_key = ini_get(fs.config, fs.config_section, "aws_secret_access_key");
		c->session_token = ini_get(fs.config, fs.config_section, "aws_session_token");
	}
	if (c->access_key_id && c->secret_access_key) {
		c->cred_source = "a profile in ~/.aws";
		return 0;
	}
	rc = dl_error_set(DL_EINVALID, "%s: no AWS credentials found: set the store options access_key_id "
	                  "and secret_access_key, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or profile "
	                  "\"%s\" in %s (s3.skip_signature=true for a public bucket)",
	                  uri, fs.profile, fs.credentials);
fail:
	dl_s3_config_free(c);
	return rc;
}
