/* --storage-option KEY=VALUE (storage_options.h). Taken out of argv before
 * the ordinary parsing, so it is accepted anywhere on the line and any
 * number of times without every command declaring it. */
#include "storage_options.h"
#include "cli.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct kept {
	dl_store_options opts;
	const char **keys, **values;
} kept;

/* One process runs one command: the options live in a static. */
static kept g_kept;

/* delta-rs / object_store names -> the library's. */
static const char *canonical_key(const char *k)
{
	static const char *const map[][2] = {
		{"aws_access_key_id", "access_key_id"},
		{"aws_secret_access_key", "secret_access_key"},
		{"aws_session_token", "session_token"},
		{"aws_token", "session_token"},
		{"aws_region", "region"},
		{"aws_default_region", "region"},
		{"aws_endpoint_url", "endpoint"},
		{"aws_endpoint", "endpoint"},
		{"aws_virtual_hosted_style_request", "s3.virtual_hosted_style_request"},
		{"aws_allow_http", "s3.allow_http"},
		{"allow_http", "s3.allow_http"},
		{"aws_s3_allow_unsafe_rename", "s3.allow_unsafe_rename"},
		{"aws_profile", "s3.profile"},
		{"aws_skip_signature", "s3.skip_signature"},
		{"azure_storage_account_name", "azure.account_name"},
		{"azure_storage_account", "azure.account_name"},
		{"account_name", "azure.account_name"},
		{"azure_storage_account_key", "azure.account_key"},
		{"azure_storage_access_key", "azure.account_key"},
		{"azure_storage_master_key", "azure.account_key"},
		{"account_key", "azure.account_key"},
		{"azure_storage_sas_token", "azure.sas_token"},
		{"azure_storage_sas_key", "azure.sas_token"},
		{"sas_token", "azure.sas_token"},
		{"sas_key", "azure.sas_token"},
		{"azure_storage_endpoint", "endpoint"},
		{"azure_endpoint", "endpoint"},
		{"azure_storage_use_emulator", "azure.use_emulator"},
		{"use_emulator", "azure.use_emulator"},
		{"azure_allow_http", "azure.allow_http"},
		{"azure_skip_signature", "azure.skip_signature"},
		{"azure_storage_connection_string", "azure.connection_string"},
	};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (strcasecmp(k, map[i][0]) == 0) return map[i][1];
	return NULL;
}

int dl_cli_take_storage_options(dl_cli *cli, int *argc, char **argv)
{
	static const char opt[] = "--storage-option";
	size_t ol = sizeof opt - 1;
	int n = *argc, out = 0, count = 0;
	for (int i = 0; i < n; i++)
		if (!strncmp(argv[i], opt, ol) && (argv[i][ol] == 0 || argv[i][ol] == '=')) count++;
	if (!count) return 0;
	g_kept.keys = calloc((size_t)count, sizeof *g_kept.keys);
	g_kept.values = calloc((size_t)count, sizeof *g_kept.values);
	if (!g_kept.keys || !g_kept.values) {
		dl_cli_storage_options_free(cli);
		return dl_cli_fail(DL_ENOMEM, "out of memory");
	}
	int k = 0;
	bool rest = false;
	for (int i = 0; i < n; i++) {
		const char *a = argv[i];
		if (rest || strncmp(a, opt, ol) != 0 || (a[ol] != 0 && a[ol] != '=')) {
			if (!strcmp(a, "--")) rest = true;
			argv[out++] = argv[i];
			continue;
		}
		const char *v = a[ol] == '=' ? a + ol + 1 : (i + 1 < n ? argv[++i] : NULL);
		const char *eq = v ? strchr(v, '=') : NULL;
		if (!v || !eq || eq == v) {
			dl_cli_storage_options_free(cli);
			return dl_cli_usage_error(cli, "--storage-option needs KEY=VALUE, e.g. --storage-option "
			                          "region=eu-west-1%s%s%s", v ? " (got '" : "", v ? v : "", v ? "')" : "");
		}
		char *key = strndup(v, (size_t)(eq - v));
		if (!key) {
			dl_cli_storage_options_free(cli);
			return dl_cli_fail(DL_ENOMEM, "out of memory");
		}
		const char *c = canonical_key(key);
		if (c) {
			free(key);
			key = strdup(c);
			if (!key) {
				dl_cli_storage_options_free(cli);
				return dl_cli_fail(DL_ENOMEM, "out of memory");
			}
		}
		g_kept.keys[k] = key;
		g_kept.values[k] = eq + 1; /* argv outlives the command */
		g_kept.opts.noptions = ++k;
	}
	argv[out] = NULL;
	*argc = out;
	int nk = g_kept.opts.noptions;
	g_kept.opts = (dl_store_options)DL_STORE_OPTIONS_INIT;
	g_kept.opts.noptions = nk;
	g_kept.opts.keys = g_kept.keys;
	g_kept.opts.values = g_kept.values;
	return 0;
}

const dl_store_options *dl_cli_store_options(const dl_cli *cli)
{
	(void)cli;
	return g_kept.opts.noptions ? &g_kept.opts : NULL;
}

void dl_cli_storage_options_free(dl_cli *cli)
{
	(void)cli;
	for (int i = 0; g_kept.keys && i < g_kept.opts.noptions; i++) free((void *)g_kept.keys[i]);
	free(g_kept.keys);
	free(g_kept.values);
	memset(&g_kept, 0, sizeof g_kept);
}
