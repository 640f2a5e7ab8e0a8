/* `deltalake version`: the version of the tool, and with --verbose the
 * versions of the libraries it runs on (what a bug report needs). */
#include <lz4.h>
#include <roaring/roaring_version.h>
#include <stdio.h>
#include <zlib.h>
#include <zstd.h>
#include <brotli/decode.h>
#include "cli.h"
#include "deltalake.h"

typedef struct version_args {
	bool verbose;
} version_args;

static const dl_cli_opt version_opts[] = {
	DL_CLI_FLAG(version_args, verbose, 'v', "verbose", "also list the libraries and the build"),
	DL_CLI_END,
};

static int list_components(dl_cli *cli)
{
	char brotli[32], roaring[32];
	uint32_t bv = BrotliDecoderVersion(); /* 0xMMMmmmppp */
	snprintf(brotli, sizeof brotli, "%u.%u.%u", bv >> 24, (bv >> 12) & 0xFFF, bv & 0xFFF);
	snprintf(roaring, sizeof roaring, "%d.%d.%d", ROARING_VERSION_MAJOR, ROARING_VERSION_MINOR,
	         ROARING_VERSION_REVISION);
	char compiler[64];
#if defined(__clang__)
	snprintf(compiler, sizeof compiler, "clang %d.%d.%d", __clang_major__, __clang_minor__,
	         __clang_patchlevel__);
#elif defined(__GNUC__)
	snprintf(compiler, sizeof compiler, "gcc %d.%d.%d", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#else
	snprintf(compiler, sizeof compiler, "unknown");
#endif
	dl_out *o;
	int rc = dl_cli_out_begin(&o, cli, dl_out_kv_columns, 2);
	if (rc < 0) return rc;
	const char *rows[][2] = {
		{"deltalake", DL_VERSION_STRING},
		{"libdeltalake", dl_version()},
		{"zstd", ZSTD_versionString()},
		{"zlib", zlibVersion()},
		{"lz4", LZ4_versionString()},
		{"brotli", brotli},
		{"roaring", roaring},
		{"compiler", compiler},
	};
	for (size_t i = 0; i < sizeof rows / sizeof *rows && rc == 0; i++)
		rc = dl_out_kv(o, rows[i][0], rows[i][1]);
	if (rc < 0) {
		dl_out_free(o);
		return rc;
	}
	return dl_out_end(o);
}

static int version_run(dl_cli *cli, const void *args)
{
	const version_args *a = args;
	if (a->verbose || cli->format_set) return list_components(cli);
	fprintf(cli->out, "deltalake %s\n", dl_version());
	return 0;
}

DL_CLI_COMMAND(version, .name = "version", .summary = "print the version of deltalake",
               .description = "With --verbose (or any --format) also lists the versions of the\n"
                              "compression libraries and of the compiler.",
               .examples = "  deltalake version\n  deltalake version --verbose --format json",
               .opts = version_opts, .args_size = sizeof(version_args), .run = version_run);
