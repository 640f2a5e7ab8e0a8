/* Helpers shared by the table commands (cat, schema, files, history,
 * detail, changes, protocol): opening a snapshot at --version/--timestamp
 * and turning epoch milliseconds into display text. */
#ifndef DL_CLI_TABLE_CLI_H
#define DL_CLI_TABLE_CLI_H
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "deltalake.h"
#include "deltalake/timestamp.h"
#include "util.h"
#include "storage_options.h"

/* a / b rounded toward negative infinity (epoch micros to millis). */
static inline int64_t dl_cli_floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* Opens the snapshot of `table` at `version` (>= 0) or `timestamp` (Spark
 * timestamp text, UTC unless it names a zone), else the latest. With
 * metadata_only, only protocol, metadata and commit info are loaded (no
 * file list): enough for schema, protocol and history. */
static inline int dl_cli_open_snapshot_ex(dl_cli *cli, dl_snapshot **out, const char *table, int64_t version,
                                          const char *timestamp, bool metadata_only)
{
	dl_snapshot_options o = DL_SNAPSHOT_OPTIONS_INIT;
	o.metadata_only = metadata_only;
	o.store_options = dl_cli_store_options(cli);
	if (version >= 0 && timestamp)
		return dl_cli_usage_error(cli, "give --version or --timestamp, not both");
	if (version < -1) return dl_cli_usage_error(cli, "--version must be >= 0");
	o.as_of_version = version;
	if (timestamp) {
		int64_t us;
		if (dl_timestamp_parse_text(&us, timestamp) < 0)
			return dl_cli_usage_error(cli, "--timestamp '%s' is not a timestamp such as "
			                          "'2024-01-31 12:00:00' or '2024-01-31T12:00:00Z'", timestamp);
		o.as_of_timestamp_ms = dl_cli_floor_div(us, 1000);
	}
	return dl_snapshot_open(out, table, &o);
}

/* The same with the whole file list. */
static inline int dl_cli_open_snapshot(dl_cli *cli, dl_snapshot **out, const char *table, int64_t version,
                                       const char *timestamp)
{
	return dl_cli_open_snapshot_ex(cli, out, table, version, timestamp, false);
}

/* Room for dl_cli_format_ms (the name the commands have always used). */
#ifndef DL_TIME_TEXT_MAX
#define DL_TIME_TEXT_MAX DL_TIMESTAMP_TEXT_MAX
#endif

/* "2024-01-31 12:00:00.123" (UTC) for epoch milliseconds. */
static inline void dl_cli_format_ms(char out[DL_TIME_TEXT_MAX], int64_t ms)
{
	dl_timestamp_format(out, DL_TIME_TEXT_MAX, ms * 1000);
}

#endif
