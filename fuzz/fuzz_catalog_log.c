/* Fuzzes the catalog log (src/catalog/catalog_log.c) with hostile
 * _catalog/_log contents: the input is split at NUL bytes into versions
 * 0.json, 1.json, ... (a last piece starting with '{"version"' becomes the
 * checkpoint of the version before it instead), then a catalog is opened on
 * them and every schema listed, every table of each listed and looked up,
 * and a rename and a set location tried on the first (they may commit:
 * the store is cleared after each input). Any outcome but a crash, a hang
 * or a leak is fine. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "deltalake.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	dl_store *s;
	if (dl_store_open(&s, "mem://fuzz-catalog-log", NULL) < 0) return 0;
	int n = 0;
	size_t start = 0;
	for (size_t i = 0; i <= size && n < 64; i++) {
		if (i < size && data[i] != 0) continue;
		const char *piece = (const char *)data + start;
		size_t len = i - start;
		char name[96];
		if (i == size && n > 0 && len > 10 && memcmp(piece, "{\"version\"", 10) == 0)
			snprintf(name, sizeof name, "_catalog/_log/%020d.checkpoint.json", n - 1);
		else
			snprintf(name, sizeof name, "_catalog/_log/%020d.json", n);
		dl_store_put(s, name, piece, len);
		n++;
		start = i + 1;
	}
	dl_catalog_options o = DL_CATALOG_OPTIONS_INIT;
	o.store = s;
	dl_catalog *c;
	if (dl_catalog_open(&c, NULL, &o) == 0) {
		dl_catalog_name_list schemas;
		if (dl_catalog_list_schemas(&schemas, c) == 0) {
			for (size_t i = 0; i < schemas.count; i++) {
				dl_catalog_table_list tables;
				if (dl_catalog_list_tables(&tables, c, schemas.names[i]) < 0) continue;
				for (size_t j = 0; j < tables.count; j++) {
					char full[300];
					snprintf(full, sizeof full, "%s.%s", tables.items[j].schema, tables.items[j].name);
					dl_catalog_table_info info;
					if (dl_catalog_lookup_table(&info, c, full) == 0) dl_catalog_table_info_free(&info);
					if (j == 0) {
						dl_catalog_rename_table(c, full, "fuzz_renamed");
						dl_catalog_set_table_location(c, "fuzz_renamed", "mem://fuzz-catalog-none");
					}
				}
				dl_catalog_table_list_free(&tables);
			}
			dl_catalog_name_list_free(&schemas);
		}
		dl_catalog_free(c);
	}
	dl_object_list l = {NULL, 0};
	if (dl_store_list_recursive(&l, s, "") == 0)
		for (size_t i = 0; i < l.count; i++) dl_store_delete(s, l.items[i].path);
	dl_object_list_free(&l);
	dl_store_free(s);
	dl_error_clear();
	return 0;
}
