/* --storage-option KEY=VALUE (repeatable, before or after the command):
 * the store options every table command opens its table's store with
 * (include/deltalake/store.h). The names delta-rs and object_store use are
 * accepted too (aws_access_key_id, AWS_REGION, aws_endpoint_url,
 * aws_allow_http, aws_s3_allow_unsafe_rename, ...) and mapped to the
 * library's keys; any other key goes to the library, which rejects unknown
 * ones by name. */
#ifndef DL_CLI_STORAGE_OPTIONS_H
#define DL_CLI_STORAGE_OPTIONS_H
#include "deltalake/store.h"

typedef struct dl_cli dl_cli;

/* Removes every --storage-option (and its value) from argv before a "--",
 * compacting it and updating *argc, and keeps the options for
 * dl_cli_store_options. Returns 0, or DL_CLI_USAGE after printing the
 * error (a missing value, no '='). */
int dl_cli_take_storage_options(dl_cli *cli, int *argc, char **argv);
/* The options given (NULL when none): for *_options.store_options. */
const dl_store_options *dl_cli_store_options(const dl_cli *cli);
/* Releases what dl_cli_take_storage_options kept. */
void dl_cli_storage_options_free(dl_cli *cli);

#endif
