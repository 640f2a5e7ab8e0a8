/* What the restore, clone and convert commands share: the library's
 * progress callback driving the terminal bar, and printing one row of
 * Spark's metrics columns. */
#ifndef DL_CLI_RESTORE_CLONE_CLI_H
#define DL_CLI_RESTORE_CLONE_CLI_H
#include "output.h"
#include "progress.h"
#include "table_cli.h"

/* The bar follows the phase's done/total (files). */
static inline int dl_cli_maint_progress(const dl_progress_info *info, void *payload)
{
	dl_progress *p = payload;
	if (info->total > 0 && p->total != info->total) p->total = info->total;
	if (info->done >= 0) dl_progress_update(p, info->done);
	return 0;
}

static inline int dl_cli_metrics_row(dl_cli *cli, const char *const *names, const int64_t *v, int n)
{
	dl_out_column cols[8];
	char text[8][32];
	const char *row[8];
	for (int i = 0; i < n && i < 8; i++) {
		cols[i] = (dl_out_column){names[i], DL_OUT_NUMBER};
		snprintf(text[i], sizeof text[i], "%" PRId64, v[i]);
		row[i] = text[i];
	}
	dl_out *out = NULL;
	int rc = dl_cli_out_begin(&out, cli, cols, n);
	if (rc == 0) rc = dl_out_row(out, row);
	if (rc == 0) rc = dl_out_end(out);
	else dl_out_free(out);
	return rc;
}
#endif
