/* Liquid clustering's table state: the delta.clustering domain, resolving
 * names between logical and physical, and Spark's CLUSTER BY checks. */
#include "optimize/clustering.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "json/json.h"
#include "log/schema.h"
#include "log/snapshot.h"
#include "util/arena.h"
#include "util/error.h"
#include "util/mem.h"

static void free_parts(char **p, int n)
{
	if (!p) return;
	for (int i = 0; i < n; i++) dl_free(p[i]);
	dl_free(p);
}

void dl_clustering_free(dl_clustering *c)
{
	if (!c) return;
	for (int i = 0; i < c->n; i++) {
		free_parts(c->cols[i].physical, c->cols[i].nparts);
		free_parts(c->cols[i].logical, c->cols[i].nparts);
		dl_free(c->cols[i].name);
	}
	dl_free(c->cols);
	c->cols = NULL;
	c->n = 0;
}

int dl_column_name_split(char ***parts, int *n, const char *name)
{
	*parts = NULL;
	*n = 0;
	char **out = NULL;
	int cnt = 0;
	dl_buf cur = DL_BUF_INIT;
	const char *p = name;
	int rc = 0;
	for (;;) {
		dl_buf_clear(&cur);
		bool quoted = false;
		if (*p == '`') {
			quoted = true;
			p++;
			for (;;) {
				if (!*p) {
					rc = dl_error_set(DL_EINVALID, "column name %s: unterminated backquote", name);
					goto fail;
				}
				if (*p == '`') {
					if (p[1] == '`') {
						if ((rc = dl_buf_putc(&cur, '`'))) goto fail;
						p += 2;
						continue;
					}
					p++;
					break;
				}
				if ((rc = dl_buf_putc(&cur, *p++))) goto fail;
			}
		} else {
			while (*p && *p != '.') {
				if ((rc = dl_buf_putc(&cur, *p++))) goto fail;
			}
		}
		if (!quoted && cur.len == 0) {
			rc = dl_error_set(DL_EINVALID, "column name '%s': empty name part", name);
			goto fail;
		}
		char **g = dl_reallocarray(out, (size_t)cnt + 1, sizeof *g);
		if (!g) { rc = DL_ENOMEM; goto fail; }
		out = g;
		if (!(out[cnt] = dl_strdup(cur.data ? cur.data : ""))) { rc = DL_ENOMEM; goto fail; }
		cnt++;
		if (*p == '.') { p++; continue; }
		if (*p) {
			rc = dl_error_set(DL_EINVALID, "column name %s: '.' expected after a quoted part", name);
			goto fail;
		}
		break;
	}
	dl_buf_free(&cur);
	*parts = out;
	*n = cnt;
	return 0;
fail:
	dl_buf_free(&cur);
	free_parts(out, cnt);
	return rc;
}

static bool plain_ident(const char *s)
{
	if (!*s || isdigit((unsigned char)*s)) return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_') return false;
	return true;
}

int dl_column_name_join(dl_buf *out, const char *const *parts, int n)
{
	for (int i = 0; i < n; i++) {
		if (i) DL_TRY(dl_buf_putc(out, '.'));
		if (plain_ident(parts[i])) {
			DL_TRY(dl_buf_puts(out, parts[i]));
			continue;
		}
		DL_TRY(dl_buf_putc(out, '`'));
		for (const char *c = parts[i]; *c; c++) {
			if (*c == '`') DL_TRY(dl_buf_putc(out, '`'));
			DL_TRY(dl_buf_putc(out, *c));
		}
		DL_TRY(dl_buf_putc(out, '`'));
	}
	return 0;
}

/* ---- treeString ---- */

static int tree_type(dl_buf *b, const dl_type *t, int depth);

static int tree_prefix(dl_buf *b, int depth)
{
	DL_TRY(dl_buf_puts(b, " |"));
	for (int i = 0; i < depth; i++) DL_TRY(dl_buf_puts(b, "    |"));
	return dl_buf_puts(b, "-- ");
}

static int tree_line(dl_buf *b, const char *name, const dl_type *t, const char *nullkey, bool nullable,
                     int depth)
{
	char tn[64];
	DL_TRY(tree_prefix(b, depth));
	dl_type_name(t, tn, sizeof tn);
	if (t->id == DL_TYPE_STRUCT || t->id == DL_TYPE_ARRAY || t->id == DL_TYPE_MAP)
		snprintf(tn, sizeof tn, "%s", dl_type_id_name(t->id));
	if (nullkey) DL_TRY(dl_buf_printf(b, "%s: %s (%s = %s)\n", name, tn, nullkey, nullable ? "true" : "false"));
	else DL_TRY(dl_buf_printf(b, "%s: %s\n", name, tn));
	return tree_type(b, t, depth + 1);
}

static int tree_type(dl_buf *b, const dl_type *t, int depth)
{
	if (t->id == DL_TYPE_STRUCT) {
		for (int i = 0; i < t->nchildren; i++)
			DL_TRY(tree_line(b, t->children[i].name, t->children[i].type, "nullable",
			                 t->children[i].nullable, depth));
	} else if (t->id == DL_TYPE_ARRAY) {
		DL_TRY(tree_line(b, "element", t->children[0].type, "containsNull", t->children[0].nullable, depth));
	} else if (t->id == DL_TYPE_MAP) {
		DL_TRY(tree_line(b, "key", t->children[0].type, NULL, false, depth));
		DL_TRY(tree_line(b, "value", t->children[1].type, "valueContainsNull", t->children[1].nullable,
		                 depth));
	}
	return 0;
}

int dl_schema_tree_string(dl_buf *out, const dl_type *schema)
{
	DL_TRY(dl_buf_puts(out, "root\n"));
	return tree_type(out, schema, 0);
}

/* ---- resolution ---- */

static int find_ci(const dl_type *st, const char *name)
{
	if (!st || st->id != DL_TYPE_STRUCT) return -1;
	for (int i = 0; i < st->nchildren; i++)
		if (!strcmp(st->children[i].name, name)) return i;
	for (int i = 0; i < st->nchildren; i++)
		if (!strcasecmp(st->children[i].name, name)) return i;
	return -1;
}

static int find_physical(const dl_type *st, const char *phys, dl_column_mapping_mode mode, dl_arena *a)
{
	if (!st || st->id != DL_TYPE_STRUCT) return -1;
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < st->nchildren; i++) {
			const char *pn;
			if (dl_field_physical_name(&st->children[i], mode, a, &pn)) return -1;
			if (pass == 0 ? !strcmp(pn, phys) : !strcasecmp(pn, phys)) return i;
		}
	return -1;
}

static int not_found(const char *name, const dl_type *schema)
{
	dl_buf t = DL_BUF_INIT;
	dl_schema_tree_string(&t, schema);
	int rc = dl_error_set_class(DL_EINVALID, "DELTA_COLUMN_NOT_FOUND_IN_SCHEMA", "Couldn't find column %s in:\n%s",
	                            name, t.data ? t.data : "");
	dl_buf_free(&t);
	return rc;
}

/* Fills col from logical (by_physical false) or physical parts. */
static int fill_column(dl_clustering_column *col, char **parts, int n, bool by_physical, const dl_type *schema,
                       dl_column_mapping_mode mode, const char *display)
{
	dl_arena a = {0};
	int rc = 0;
	col->nparts = n;
	col->physical = dl_calloc((size_t)n, sizeof(char *));
	col->logical = dl_calloc((size_t)n, sizeof(char *));
	if (!col->physical || !col->logical) { rc = DL_ENOMEM; goto done; }
	const dl_type *cur = schema;
	for (int i = 0; i < n; i++) {
		int idx = by_physical ? find_physical(cur, parts[i], mode, &a) : find_ci(cur, parts[i]);
		if (idx < 0) { rc = not_found(display, schema); goto done; }
		const dl_field *f = &cur->children[idx];
		const char *pn;
		if ((rc = dl_field_physical_name(f, mode, &a, &pn))) goto done;
		col->physical[i] = dl_strdup(pn);
		col->logical[i] = dl_strdup(f->name);
		if (!col->physical[i] || !col->logical[i]) { rc = DL_ENOMEM; goto done; }
		cur = f->type;
	}
	col->type = cur;
	dl_buf nb = DL_BUF_INIT;
	rc = dl_column_name_join(&nb, (const char *const *)col->logical, n);
	col->name = rc ? NULL : dl_buf_detach(&nb, NULL);
	dl_buf_free(&nb);
	if (!rc && !col->name) rc = DL_ENOMEM;
done:
	dl_arena_free(&a);
	return rc;
}

static int add_column(dl_clustering *c, char **parts, int n, bool by_physical, const dl_type *schema,
                      dl_column_mapping_mode mode, const char *display)
{
	dl_clustering_column *g = dl_reallocarray(c->cols, (size_t)c->n + 1, sizeof *g);
	if (!g) return DL_ENOMEM;
	c->cols = g;
	memset(&c->cols[c->n], 0, sizeof c->cols[c->n]);
	c->n++;
	return fill_column(&c->cols[c->n - 1], parts, n, by_physical, schema, mode, display);
}

static bool same_column(const dl_clustering_column *a, const dl_clustering_column *b)
{
	if (a->nparts != b->nparts) return false;
	for (int i = 0; i < a->nparts; i++)
		if (strcmp(a->physical[i], b->physical[i])) return false;
	return true;
}

int dl_clustering_resolve(dl_clustering *out, const char *const *names, int n, const dl_type *schema,
                          dl_column_mapping_mode mode)
{
	memset(out, 0, sizeof *out);
	int rc = 0;
	for (int i = 0; i < n && rc == 0; i++) {
		char **parts;
		int np;
		if ((rc = dl_column_name_split(&parts, &np, names[i]))) break;
		rc = add_column(out, parts, np, false, schema, mode, names[i]);
		free_parts(parts, np);
		for (int j = 0; rc == 0 && j < out->n - 1; j++)
			if (same_column(&out->cols[j], &out->cols[out->n - 1]))
				rc = dl_error_set_class(DL_EINVALID, "DELTA_DUPLICATE_COLUMNS_FOUND",
				                        "Found duplicate column(s) in the clustering columns: %s",
				                        out->cols[j].name);
	}
	if (rc) dl_clustering_free(out);
	return rc;
}

int dl_clustering_parse(dl_clustering *out, const char *configuration, const dl_type *schema,
                        dl_column_mapping_mode mode)
{
	memset(out, 0, sizeof *out);
	dl_arena a = {0};
	const dl_json *root;
	int rc = dl_json_parse(&a, configuration, strlen(configuration), "delta.clustering domain", (dl_json **)&root);
	if (rc) goto done;
	const dl_json *cols = root->kind == DL_JSON_OBJECT ? dl_json_get(root, "clusteringColumns") : NULL;
	if (!cols || cols->kind != DL_JSON_ARRAY) {
		rc = dl_error_set(DL_ECORRUPT, "delta.clustering domain: clusteringColumns is not an array");
		goto done;
	}
	for (size_t i = 0; i < cols->u.arr.n && rc == 0; i++) {
		const dl_json *c = &cols->u.arr.items[i];
		if (c->kind != DL_JSON_ARRAY || c->u.arr.n == 0) {
			rc = dl_error_set(DL_ECORRUPT, "delta.clustering domain: column %zu is not an array of names", i);
			break;
		}
		char **parts = dl_calloc(c->u.arr.n, sizeof *parts);
		if (!parts) { rc = DL_ENOMEM; break; }
		int np = (int)c->u.arr.n;
		for (int k = 0; k < np && rc == 0; k++) {
			const dl_json *s = &c->u.arr.items[k];
			if (s->kind != DL_JSON_STRING)
				rc = dl_error_set(DL_ECORRUPT, "delta.clustering domain: column %zu has a non-string name", i);
			else if (!(parts[k] = dl_strndup(s->u.str.ptr, s->u.str.len)))
				rc = DL_ENOMEM;
		}
		dl_buf disp = DL_BUF_INIT;
		if (rc == 0) rc = dl_column_name_join(&disp, (const char *const *)parts, np);
		if (rc == 0) {
			rc = add_column(out, parts, np, true, schema, mode, disp.data);
			if (rc == DL_EINVALID)
				rc = dl_error_set(DL_ECORRUPT, "delta.clustering domain names column %s (physical), "
				                  "which the schema does not have", disp.data);
		}
		dl_buf_free(&disp);
		free_parts(parts, np);
	}
done:
	dl_arena_free(&a);
	if (rc) dl_clustering_free(out);
	return rc;
}

int dl_clustering_from_snapshot(dl_clustering *out, bool *present, const dl_snapshot *snap)
{
	memset(out, 0, sizeof *out);
	*present = false;
	const dl_log_state *st = dl_snapshot_state(snap);
	for (size_t i = 0; i < st->ndomains; i++) {
		const dl_domain_metadata *d = &st->domains[i];
		if (d->removed || strcmp(d->domain, DL_CLUSTERING_DOMAIN)) continue;
		const dl_type *schema = dl_snapshot_schema(snap);
		if (!schema) return dl_error_set(DL_ECORRUPT, "version %lld: clustered table without a schema",
		                                 (long long)st->version);
		int rc = dl_clustering_parse(out, d->configuration ? d->configuration : "", schema,
		                             dl_snapshot_props(snap)->column_mapping_mode);
		if (rc) {
			const dl_error *e = dl_error_last();
			return dl_error_set(rc, "version %lld: %s", (long long)st->version,
			                    e && e->message ? e->message : "bad delta.clustering domain");
		}
		*present = true;
		return 0;
	}
	return 0;
}

int dl_clustering_domain_json(dl_buf *out, const dl_clustering *c)
{
	dl_json_writer w;
	dl_jw_init(&w, out);
	dl_jw_object_begin(&w);
	dl_jw_key(&w, "clusteringColumns");
	dl_jw_array_begin(&w);
	for (int i = 0; i < c->n; i++) {
		dl_jw_array_begin(&w);
		for (int k = 0; k < c->cols[i].nparts; k++) dl_jw_string(&w, c->cols[i].physical[k]);
		dl_jw_array_end(&w);
	}
	dl_jw_array_end(&w);
	dl_jw_object_end(&w);
	return dl_jw_finish(&w);
}

/* ---- which columns have stats ---- */

static bool skipping_eligible(const dl_type *t)
{
	switch (t->id) {
	case DL_TYPE_BYTE: case DL_TYPE_SHORT: case DL_TYPE_INTEGER: case DL_TYPE_LONG:
	case DL_TYPE_FLOAT: case DL_TYPE_DOUBLE: case DL_TYPE_DECIMAL: case DL_TYPE_STRING:
	case DL_TYPE_DATE: case DL_TYPE_TIMESTAMP: case DL_TYPE_TIMESTAMP_NTZ:
		return true;
	default:
		return false;
	}
}

static bool is_partition(const char *name, const char *const *pc, int npc)
{
	for (int i = 0; i < npc; i++)
		if (!strcasecmp(pc[i], name)) return true;
	return false;
}

/* Is the leaf at logical path parts among the first `left` leaves? Leaves
 * count in schema order as Spark's truncation of the stats schema: every
 * non-struct field is one leaf. Returns 1 found, 0 not found, and keeps
 * counting through *left. */
static int in_first_leaves(const dl_type *t, const char *const *parts, int n, int depth, int64_t *left,
                           const char *const *pc, int npc, bool on_path)
{
	for (int i = 0; i < t->nchildren && *left > 0; i++) {
		const dl_field *f = &t->children[i];
		if (depth == 0 && is_partition(f->name, pc, npc)) continue;
		bool match = on_path && depth < n && !strcasecmp(f->name, parts[depth]);
		if (f->type->id == DL_TYPE_STRUCT) {
			int r = in_first_leaves(f->type, parts, n, depth + 1, left, pc, npc, match);
			if (r) return r;
		} else {
			if (match && depth == n - 1) return 1;
			(*left)--;
		}
	}
	return 0;
}

bool dl_column_has_stats(const dl_type *schema, const dl_table_properties *props,
                         const char *const *partition_columns, int npartition_columns,
                         const char *const *parts, int n)
{
	if (n < 1) return false;
	/* Resolve the leaf type; a partition column has no stats. */
	const dl_type *cur = schema;
	for (int i = 0; i < n; i++) {
		int idx = find_ci(cur, parts[i]);
		if (idx < 0) return false;
		cur = cur->children[idx].type;
	}
	if (is_partition(parts[0], partition_columns, npartition_columns)) return false;
	if (!skipping_eligible(cur)) return false;
	if (props->data_skipping_stats_columns) {
		/* Each listed column (or struct, meaning its leaves) is indexed. */
		const char *c = props->data_skipping_stats_columns;
		bool found = false;
		dl_buf one = DL_BUF_INIT;
		while (*c && !found) {
			const char *e = c;
			bool q = false;
			while (*e && (q || *e != ',')) {
				if (*e == '`') q = !q;
				e++;
			}
			dl_buf_clear(&one);
			const char *s = c, *t = e;
			while (s < t && isspace((unsigned char)*s)) s++;
			while (t > s && isspace((unsigned char)t[-1])) t--;
			if (t > s && dl_buf_append(&one, s, (size_t)(t - s)) == 0) {
				char **lp;
				int ln;
				if (dl_column_name_split(&lp, &ln, one.data) == 0) {
					if (ln <= n) {
						bool pre = true;
						for (int k = 0; k < ln && pre; k++) pre = !strcasecmp(lp[k], parts[k]);
						found = pre;
					}
					free_parts(lp, ln);
				} else {
					dl_error_clear();
				}
			}
			c = *e ? e + 1 : e;
		}
		dl_buf_free(&one);
		return found;
	}
	int64_t left = props->data_skipping_num_indexed_cols;
	if (left < 0) return true;
	return in_first_leaves(schema, parts, n, 0, &left, partition_columns, npartition_columns, true) == 1;
}

int dl_clustering_validate(const dl_clustering *c, const dl_type *schema, const dl_table_properties *props,
                           const char *const *partition_columns, int npartition_columns)
{
	if (c->n > 0 && npartition_columns > 0)
		return dl_error_set_class(DL_EINVALID, "DELTA_CLUSTER_BY_WITH_PARTITIONED_BY",
		                          "Clustering and partitioning cannot both be specified. Please remove "
		                          "PARTITIONED BY if you want to create a Delta table with clustering.");
	if (c->n > DL_CLUSTERING_MAX_COLUMNS)
		return dl_error_set_class(DL_EINVALID, "DELTA_CLUSTER_BY_INVALID_NUM_COLUMNS",
		                          "CLUSTER BY supports up to %d clustering columns, but the table has %d "
		                          "clustering columns. Please remove the extra clustering columns.",
		                          DL_CLUSTERING_MAX_COLUMNS, c->n);
	dl_buf missing = DL_BUF_INIT;
	int rc = 0;
	for (int i = 0; i < c->n && rc == 0; i++) {
		if (dl_column_has_stats(schema, props, partition_columns, npartition_columns,
		                        (const char *const *)c->cols[i].logical, c->cols[i].nparts))
			continue;
		if (missing.len) rc = dl_buf_puts(&missing, ", ");
		if (rc == 0) rc = dl_buf_puts(&missing, c->cols[i].name);
	}
	if (rc == 0 && missing.len) {
		dl_buf t = DL_BUF_INIT;
		dl_schema_tree_string(&t, schema);
		rc = dl_error_set_class(DL_EINVALID, "DELTA_CLUSTERING_COLUMN_MISSING_STATS",
		                        "Liquid clustering requires clustering columns to have stats. Couldn't find "
		                        "clustering column(s) '%s' in stats schema:\n%s",
		                        missing.data, t.data ? t.data : "");
		dl_buf_free(&t);
	}
	dl_buf_free(&missing);
	return rc;
}
