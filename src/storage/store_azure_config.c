/* Where an Azure store's settings come from.
 *
 * The URI names the container, and the account when it has one:
 *   az://container/path, azure://container/path        (account from the settings)
 *   abfs[s]://container@account.dfs.core.windows.net/path  (ADLS Gen2, as Hadoop writes it)
 *   wasb[s]://container@account.blob.core.windows.net/path
 * ADLS Gen2 accounts answer the Blob API too, so every form is served by
 * the Blob endpoint https://account.blob.<suffix>, the suffix taken from
 * the URI's host (dfs. becomes blob.; core.windows.net by default).
 *
 * The rest, first found wins (names as delta-rs / object_store use them;
 * the CLI maps azure_storage_account_name and the like to these keys):
 *   1. the store options: azure.account_name, azure.account_key,
 *      azure.sas_token, azure.use_emulator, azure.allow_http,
 *      azure.skip_signature, azure.connection_string, azure.block_size,
 *      azure.list_page_size, and the shared endpoint;
 *   2. the environment: AZURE_STORAGE_ACCOUNT_NAME,
 *      AZURE_STORAGE_ACCOUNT_KEY (AZURE_STORAGE_ACCESS_KEY),
 *      AZURE_STORAGE_SAS_TOKEN (AZURE_STORAGE_SAS_KEY),
 *      AZURE_STORAGE_ENDPOINT, AZURE_STORAGE_USE_EMULATOR, AZURE_ALLOW_HTTP;
 *   3. a connection string (the option, else AZURE_STORAGE_CONNECTION_STRING):
 *      AccountName, AccountKey, SharedAccessSignature, BlobEndpoint,
 *      EndpointSuffix, DefaultEndpointsProtocol, UseDevelopmentStorage;
 *   4. the emulator (use_emulator): account devstoreaccount1 with its
 *      published key at http://127.0.0.1:10000/devstoreaccount1
 *      (AZURITE_BLOB_STORAGE_URL moves the host).
 * Credentials (an account key or a SAS token) come whole from one place. */
#include "storage/store_azure.h"
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

void dl_az_config_free(dl_az_config *c)
{
	dl_free(c->account);
	dl_free(c->container);
	dl_free(c->prefix);
	dl_free(c->endpoint);
	if (c->key) memset(c->key, 0, c->key_len);
	dl_free(c->key);
	if (c->sas) memset(c->sas, 0, strlen(c->sas));
	dl_free(c->sas);
	memset(c, 0, sizeof *c);
}

static const char *nonempty(const char *s) { return s && *s ? s : NULL; }

static const char *env2(dl_az_getenv_fn env, const char *a, const char *b)
{
	const char *v = nonempty(env(a));
	return v ? v : (b ? nonempty(env(b)) : NULL);
}

static int parse_bool(bool *out, const char *v, const char *what)
{
	if (strcasecmp(v, "true") == 0 || strcmp(v, "1") == 0) *out = true;
	else if (strcasecmp(v, "false") == 0 || strcmp(v, "0") == 0) *out = false;
	else return dl_error_set(DL_EINVALID, "%s=\"%s\" must be true or false", what, v);
	return 0;
}

/* The option `key`, else the environment `var`; *found says whether either was set. */
static int get_bool(bool *out, bool *found, const dl_store_options *o, const char *key, dl_az_getenv_fn env,
                    const char *var)
{
	const char *v = dl_store_options_get(o, key);
	const char *what = key;
	if (!v && var) {
		v = nonempty(env(var));
		what = var;
	}
	if (found) *found = v != NULL;
	if (!v) return 0;
	return parse_bool(out, v, what);
}

/* ---- connection strings: "Key=Value;Key=Value" ---- */

typedef struct conn {
	char *account, *key, *sas, *blob_endpoint, *suffix, *protocol;
	bool dev;
} conn;

static void conn_free(conn *cs)
{
	dl_free(cs->account);
	if (cs->key) memset(cs->key, 0, strlen(cs->key));
	dl_free(cs->key);
	if (cs->sas) memset(cs->sas, 0, strlen(cs->sas));
	dl_free(cs->sas);
	dl_free(cs->blob_endpoint);
	dl_free(cs->suffix);
	dl_free(cs->protocol);
	memset(cs, 0, sizeof *cs);
}

static int conn_parse(conn *cs, const char *s, const char *what)
{
	memset(cs, 0, sizeof *cs);
	while (*s) {
		const char *semi = strchr(s, ';');
		size_t n = semi ? (size_t)(semi - s) : strlen(s);
		const char *eq = memchr(s, '=', n);
		if (n && !eq) {
			conn_free(cs);
			/* never echo the string: it may hold the key */
			return dl_error_set(DL_EINVALID, "%s: a part without '=' (a connection string is "
			                    "Key=Value pairs separated by ';')", what);
		}
		if (n) {
			size_t kl = (size_t)(eq - s);
			char **dst = NULL;
			if (kl == 11 && strncasecmp(s, "AccountName", kl) == 0) dst = &cs->account;
			else if (kl == 10 && strncasecmp(s, "AccountKey", kl) == 0) dst = &cs->key;
			else if (kl == 21 && strncasecmp(s, "SharedAccessSignature", kl) == 0) dst = &cs->sas;
			else if (kl == 12 && strncasecmp(s, "BlobEndpoint", kl) == 0) dst = &cs->blob_endpoint;
			else if (kl == 14 && strncasecmp(s, "EndpointSuffix", kl) == 0) dst = &cs->suffix;
			else if (kl == 24 && strncasecmp(s, "DefaultEndpointsProtocol", kl) == 0) dst = &cs->protocol;
			else if (kl == 21 && strncasecmp(s, "UseDevelopmentStorage", kl) == 0)
				cs->dev = strncasecmp(eq + 1, "true", n - kl - 1) == 0 && n - kl - 1 == 4;
			/* other keys (QueueEndpoint, ...) are other services' */
			if (dst) {
				dl_free(*dst);
				*dst = dl_strndup(eq + 1, n - kl - 1);
				if (!*dst) {
					conn_free(cs);
					return DL_ENOMEM;
				}
			}
		}
		s += n + (semi ? 1 : 0);
	}
	return 0;
}

/* ---- URIs ---- */

static bool valid_container(const char *p, size_t n)
{
	if (n < 3 || n > 63) return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)p[i];
		if (!islower(ch) && !isdigit(ch) && ch != '-' && ch != '$') return false;
	}
	return true;
}

static bool valid_account(const char *p, size_t n)
{
	if (n < 3 || n > 24) return false;
	for (size_t i = 0; i < n; i++)
		if (!islower((unsigned char)p[i]) && !isdigit((unsigned char)p[i])) return false;
	return true;
}

/* Container, account (or NULL) and the host's suffix after the account
 * ("blob.core.windows.net", or NULL). */
static int parse_uri(dl_az_config *c, char **suffix, const char *uri)
{
	const char *p = strstr(uri, "://");
	if (!p)
		return dl_error_set(DL_EINVALID, "Azure URI %s must look like az://container/path or "
		                    "abfss://container@account.dfs.core.windows.net/path", uri);
	p += 3;
	const char *slash = strchr(p, '/');
	size_t al = slash ? (size_t)(slash - p) : strlen(p);
	const char *at = memchr(p, '@', al);
	size_t cl = at ? (size_t)(at - p) : al;
	if (cl == 0)
		return dl_error_set(DL_EINVALID, "Azure URI %s has no container: write az://container/path "
		                    "or abfss://container@account.dfs.core.windows.net/path", uri);
	if (!valid_container(p, cl))
		return dl_error_set(DL_EINVALID, "Azure URI %s: container name \"%.*s\" is 3 to 63 lower-case "
		                    "letters, digits and '-'", uri, (int)cl, p);
	c->container = dl_strndup(p, cl);
	if (!c->container) return DL_ENOMEM;
	if (at) {
		const char *host = at + 1, *hend = p + al;
		const char *dot = memchr(host, '.', (size_t)(hend - host));
		size_t nl = dot ? (size_t)(dot - host) : (size_t)(hend - host);
		if (!valid_account(host, nl))
			return dl_error_set(DL_EINVALID, "Azure URI %s: account name \"%.*s\" is 3 to 24 lower-case "
			                    "letters and digits", uri, (int)nl, host);
		c->account = dl_strndup(host, nl);
		if (!c->account) return DL_ENOMEM;
		if (dot) {
			const char *sx = dot + 1;
			size_t sl = (size_t)(hend - sx);
			/* the DFS endpoint of ADLS Gen2 has a Blob endpoint beside it */
			dl_buf b = DL_BUF_INIT;
			int rc = sl > 4 && strncmp(sx, "dfs.", 4) == 0 ? dl_buf_printf(&b, "blob.%.*s", (int)(sl - 4), sx + 4)
			                                                : dl_buf_append(&b, sx, sl);
			if (rc < 0) {
				dl_buf_free(&b);
				return rc;
			}
			*suffix = dl_buf_detach(&b, NULL);
		}
	}
	const char *rest = slash ? slash + 1 : "";
	return dl_path_key_prefix(&c->prefix, rest);
}

static int parse_count(size_t *out, const dl_store_options *o, const char *key, size_t def, size_t min,
                       size_t max)
{
	const char *v = dl_store_options_get(o, key);
	*out = def;
	if (!v) return 0;
	char *end;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	if (!*v || *end || errno || n < min || n > max)
		return dl_error_set(DL_EINVALID, "store option %s=\"%s\" must be a number from %zu to %zu", key, v,
		                    min, max);
	*out = (size_t)n;
	return 0;
}

static int set_endpoint(dl_az_config *c, const char *ep)
{
	size_t n = strlen(ep);
	while (n && ep[n - 1] == '/') n--;
	c->endpoint = dl_strndup(ep, n);
	return c->endpoint ? 0 : DL_ENOMEM;
}

/* The last path segment of an endpoint URL ("devstoreaccount1" of
 * http://127.0.0.1:10000/devstoreaccount1), or NULL. */
static char *endpoint_account(const char *ep)
{
	const char *h = strstr(ep, "://");
	if (!h) return NULL;
	const char *path = strchr(h + 3, '/');
	if (!path) return NULL;
	const char *last = strrchr(path, '/') + 1;
	return *last && valid_account(last, strlen(last)) ? dl_strdup(last) : NULL;
}

static int set_key(dl_az_config *c, const char *b64, const char *what)
{
	int rc = dl_az_base64_decode(&c->key, &c->key_len, b64);
	if (rc == DL_EINVALID) /* never the key itself in the message */
		return dl_error_set(DL_EINVALID, "the Azure account key from %s is not base64 (copy it whole "
		                    "from the account's Access keys)", what);
	return rc;
}

static int set_sas(dl_az_config *c, const char *sas)
{
	while (*sas == '?') sas++;
	c->sas = dl_strdup(sas);
	return c->sas ? 0 : DL_ENOMEM;
}

int dl_az_config_load(dl_az_config *c, const char *uri, const dl_store_options *o, dl_az_getenv_fn env)
{
	static const char *const known[] = {"account_name", "account_key", "sas_token", "use_emulator",
	                                    "allow_http", "skip_signature", "connection_string",
	                                    "block_size", "list_page_size", NULL};
	memset(c, 0, sizeof *c);
	char *suffix = NULL;
	conn cs = {0};
	int rc = dl_store_options_check_namespace(o, "azure", known);
	if (rc == 0) rc = parse_uri(c, &suffix, uri);
	if (rc < 0) goto fail;

	const char *csv = dl_store_options_get(o, "azure.connection_string");
	const char *cs_what = "store option azure.connection_string";
	if (!csv) {
		csv = nonempty(env("AZURE_STORAGE_CONNECTION_STRING"));
		cs_what = "AZURE_STORAGE_CONNECTION_STRING";
	}
	if (csv && (rc = conn_parse(&cs, csv, cs_what)) < 0) goto fail;

	bool found;
	if ((rc = get_bool(&c->use_emulator, &found, o, "azure.use_emulator", env, "AZURE_STORAGE_USE_EMULATOR")) < 0)
		goto fail;
	if (!found) c->use_emulator = cs.dev;
	bool http_default = c->use_emulator || (cs.protocol && strcasecmp(cs.protocol, "http") == 0);
	if ((rc = get_bool(&c->allow_http, &found, o, "azure.allow_http", env, "AZURE_ALLOW_HTTP")) < 0) goto fail;
	if (!found) c->allow_http = http_default;
	if ((rc = get_bool(&c->skip_signature, NULL, o, "azure.skip_signature", env, NULL)) < 0) goto fail;
	if ((rc = parse_count(&c->block_size, o, "azure.block_size", 8u << 20, 1u << 20, 4000u << 20)) < 0) goto fail;
	size_t page;
	if ((rc = parse_count(&page, o, "azure.list_page_size", 0, 1, 5000)) < 0) goto fail;
	c->list_page_size = (int)page;

	/* account: the URI's, else the settings' */
	if (!c->account) {
		const char *a = dl_store_options_get(o, "azure.account_name");
		if (!a) a = nonempty(env("AZURE_STORAGE_ACCOUNT_NAME"));
		if (!a) a = cs.account;
		if (!a && c->use_emulator) a = DL_AZ_EMULATOR_ACCOUNT;
		if (a) {
			if (!valid_account(a, strlen(a))) {
				rc = dl_error_set(DL_EINVALID, "Azure account name \"%s\" may hold only lower-case letters "
				                  "and digits (3 to 24)", a);
				goto fail;
			}
			if (!(c->account = dl_strdup(a))) { rc = DL_ENOMEM; goto fail; }
		}
	}

	/* endpoint: the account's URL */
	const char *ep = dl_store_options_get(o, DL_STORE_OPT_ENDPOINT);
	if (!ep) ep = env2(env, "AZURE_STORAGE_ENDPOINT", "AZURE_ENDPOINT");
	if (!ep) ep = cs.blob_endpoint;
	if (ep) {
		if ((rc = set_endpoint(c, ep)) < 0) goto fail;
	} else if (c->use_emulator) {
		const char *host = nonempty(env("AZURITE_BLOB_STORAGE_URL"));
		size_t hl = host ? strlen(host) : 0;
		while (hl && host[hl - 1] == '/') hl--;
		if (!c->account && !(c->account = dl_strdup(DL_AZ_EMULATOR_ACCOUNT))) { rc = DL_ENOMEM; goto fail; }
		dl_buf b = DL_BUF_INIT;
		if ((rc = dl_buf_printf(&b, "%.*s/%s", host ? (int)hl : 22, host ? host : "http://127.0.0.1:10000",
		                        c->account)) < 0)
			goto fail;
		c->endpoint = dl_buf_detach(&b, NULL);
	}
	if (!c->account && c->endpoint) c->account = endpoint_account(c->endpoint);
	if (!c->account) {
		rc = dl_error_set(DL_EINVALID, "%s: no Azure storage account: name it in the URI "
		                  "(abfss://container@account.dfs.core.windows.net/path), the store option "
		                  "azure_storage_account_name or AZURE_STORAGE_ACCOUNT_NAME", uri);
		goto fail;
	}
	if (!c->endpoint) {
		dl_buf b = DL_BUF_INIT;
		const char *sx = suffix ? suffix : NULL;
		char cssx[256];
		if (!sx && cs.suffix) {
			snprintf(cssx, sizeof cssx, "blob.%s", cs.suffix);
			sx = cssx;
		}
		const char *proto = cs.protocol && strcasecmp(cs.protocol, "http") == 0 ? "http" : "https";
		if ((rc = dl_buf_printf(&b, "%s://%s.%s", proto, c->account, sx ? sx : "blob.core.windows.net")) < 0)
			goto fail;
		c->endpoint = dl_buf_detach(&b, NULL);
	}
	if (strncmp(c->endpoint, "https://", 8) != 0 && strncmp(c->endpoint, "http://", 7) != 0) {
		rc = dl_error_set(DL_EINVALID, "Azure endpoint \"%s\" must start with https:// (or http:// with "
		                  "azure.allow_http=true)", c->endpoint);
		goto fail;
	}
	if (strncmp(c->endpoint, "http://", 7) == 0 && !c->allow_http) {
		rc = dl_error_set(DL_EINVALID, "Azure endpoint %s is plain http: data would cross the network "
		                  "unencrypted; set the store option azure_allow_http=true (or AZURE_ALLOW_HTTP=true, "
		                  "or azure_storage_use_emulator=true for Azurite) to allow it", c->endpoint);
		goto fail;
	}

	/* credentials: whole from one place */
	if (!c->skip_signature) {
		const char *k = dl_store_options_get(o, "azure.account_key");
		const char *sas = dl_store_options_get(o, "azure.sas_token");
		const char *src = "store options";
		if (!k && !sas) {
			k = env2(env, "AZURE_STORAGE_ACCOUNT_KEY", "AZURE_STORAGE_ACCESS_KEY");
			sas = env2(env, "AZURE_STORAGE_SAS_TOKEN", "AZURE_STORAGE_SAS_KEY");
			src = k ? "environment (AZURE_STORAGE_ACCOUNT_KEY)" : "environment (AZURE_STORAGE_SAS_TOKEN)";
		}
		if (!k && !sas) {
			k = cs.key;
			sas = cs.sas;
			src = csv && strcmp(cs_what, "AZURE_STORAGE_CONNECTION_STRING") == 0
			          ? "environment (AZURE_STORAGE_CONNECTION_STRING)" : "store option azure.connection_string";
		}
		if (!k && !sas && c->use_emulator) {
			k = DL_AZ_EMULATOR_KEY;
			src = "the emulator's published key";
		}
		if (!k && !sas) {
			rc = dl_error_set(DL_EINVALID, "%s: no Azure credentials found: set the store option "
			                  "azure_storage_account_key or azure_storage_sas_token, or "
			                  "AZURE_STORAGE_ACCOUNT_KEY, AZURE_STORAGE_SAS_TOKEN or "
			                  "AZURE_STORAGE_CONNECTION_STRING (azure_storage_use_emulator=true for "
			                  "Azurite, azure_skip_signature=true for a public container)", uri);
			goto fail;
		}
		c->cred_source = src;
		/* a key signs every request; with both, the key wins (a SAS may expire) */
		if (k) rc = set_key(c, k, src);
		else rc = set_sas(c, sas);
		if (rc < 0) goto fail;
	}
	dl_free(suffix);
	conn_free(&cs);
	return 0;
fail:
	dl_free(suffix);
	conn_free(&cs);
	dl_az_config_free(c);
	return rc;
}
