/* Parquet schema -> node tree with levels -> dl_type + assembly plan.
 *
 * Levels: a node's max definition level counts the non-required nodes from
 * the root down to it; its max repetition level counts the repeated ones.
 * Lists and maps follow LogicalTypes.md, including the backward-compatibility
 * rules for 2-level lists, bare repeated fields and MAP_KEY_VALUE. */
#include "parquet/schema_read.h"
#include "parquet/variant_shred.h"
#include "columnar/geo_type.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "util/buf.h"
#include "util/error.h"
#include "util/mem.h"

typedef struct builder {
	const pq_file_metadata *md;
	const char *what;
	pq_schema *s;
	uint32_t next;  /* next schema element */
	int nnodes;
} builder;

static int corrupt(const char *what, const char *msg, const char *name)
{
	return dl_error_set(DL_ECORRUPT, "%s: invalid Parquet schema: %s%s%s%s", what, msg,
	                    name ? " (field '" : "", name ? name : "", name ? "')" : "");
}

/* Builds node `n` from schema element b->next and its descendants. */
static int build_node(builder *b, pq_node *n, pq_node *parent, int depth)
{
	if (depth > PQ_MAX_SCHEMA_DEPTH) return corrupt(b->what, "nesting deeper than 64 levels", NULL);
	if (b->next >= b->md->nschema) return corrupt(b->what, "num_children exceeds the schema elements", NULL);
	const pq_schema_element *el = &b->md->schema[b->next++];
	n->el = el;
	n->parent = parent;
	n->depth = depth;
	n->def = 0;
	n->rep = 0;
	if (parent) {
		if (!el->has_repetition && depth > 0) return corrupt(b->what, "missing repetition_type", el->name);
		if ((int)el->repetition < 0 || el->repetition > PQ_REPEATED)
			return corrupt(b->what, "unknown repetition_type", el->name);
		n->def = (int16_t)(parent->def + (el->repetition != PQ_REQUIRED));
		n->rep = (int16_t)(parent->rep + (el->repetition == PQ_REPEATED));
	}
	n->first_leaf = b->s->nleaves;
	bool group = parent == NULL || el->has_num_children || !el->has_type;
	if (!group) {
		if ((int)el->type < 0 || el->type > PQ_FIXED_LEN_BYTE_ARRAY)
			return corrupt(b->what, "unknown physical type", el->name);
		n->nleaves = 1;
		b->s->nleaves++;
		return 0;
	}
	int32_t nc = el->num_children;
	if (nc < 0 || (uint32_t)nc > b->md->nschema - b->next)
		return corrupt(b->what, "num_children exceeds the schema elements", el->name);
	if (nc == 0 && parent) return corrupt(b->what, "group without children", el->name);
	n->children = dl_calloc(nc ? (size_t)nc : 1, sizeof *n->children);
	if (!n->children) return DL_ENOMEM;
	n->nchildren = nc;
	for (int i = 0; i < nc; i++) DL_TRY(build_node(b, &n->children[i], n, depth + 1));
	n->nleaves = b->s->nleaves - n->first_leaf;
	return 0;
}

static void free_node(pq_node *n)
{
	for (int i = 0; i < n->nchildren; i++) free_node(&n->children[i]);
	dl_free(n->children);
}

static int decimal_params(const pq_schema_element *el, int *p, int *s)
{
	if (el->logical.kind == PQ_LT_DECIMAL) {
		*p = el->logical.precision;
		*s = el->logical.scale;
	} else {
		*p = el->precision;
		*s = el->has_scale ? el->scale : 0;
	}
	return 0;
}

static bool is_string_annot(const pq_schema_element *el)
{
	pq_logical_kind k = el->logical.kind;
	return k == PQ_LT_STRING || k == PQ_LT_ENUM || k == PQ_LT_JSON || el->converted_type == PQ_CT_UTF8 ||
	       el->converted_type == PQ_CT_ENUM || el->converted_type == PQ_CT_JSON;
}

/* WKB under Parquet's GEOMETRY / GEOGRAPHY annotation: binary annotated
 * with the Delta type text. A CRS Delta cannot spell (inline PROJJSON,
 * spaces, commas) or an unknown algorithm leaves the column plain binary:
 * the bytes are readable either way. */
static int geo_leaf_type(pq_rleaf *lf)
{
	const pq_logical_type *lt = &lf->el->logical;
	dl_geo_kind kind = lt->kind == PQ_LT_GEOMETRY ? DL_GEO_GEOMETRY : DL_GEO_GEOGRAPHY;
	int rc = dl_type_geo_from_parts(&lf->type, kind, lt->crs, lt->has_algorithm ? lt->algorithm : -1);
	if (rc == DL_ENOMEM) return rc;
	if (rc < 0) {
		lf->type = dl_type_new(DL_TYPE_BINARY);
	}
	return lf->type ? 0 : DL_ENOMEM;
}

/* Output type and conversion of a primitive leaf. */
static int leaf_type(pq_rleaf *lf, const char *what)
{
	const pq_schema_element *el = lf->el;
	pq_logical_kind lk = el->logical.kind;
	pq_converted_type ct = el->converted_type;
	dl_type_id id;
	int prec = 0, scale = 0;
	bool dec = lk == PQ_LT_DECIMAL || ct == PQ_CT_DECIMAL;
	lf->conv = PQ_CONV_NONE;
	if (dec) decimal_params(el, &prec, &scale);
	switch (el->type) {
	case PQ_BOOLEAN:
		id = DL_TYPE_BOOLEAN;
		lf->conv = PQ_CONV_BOOL;
		lf->phys_width = 1;
		break;
	case PQ_INT32:
		lf->phys_width = 4;
		id = DL_TYPE_INTEGER;
		if (dec) {
			id = DL_TYPE_DECIMAL;
			lf->conv = PQ_CONV_I32_DEC;
		} else if (lk == PQ_LT_DATE || ct == PQ_CT_DATE) {
			id = DL_TYPE_DATE;
		} else if (lk == PQ_LT_INTEGER || (ct >= PQ_CT_UINT_8 && ct <= PQ_CT_INT_64)) {
			int bits = lk == PQ_LT_INTEGER ? el->logical.bit_width : 0;
			bool sign = lk == PQ_LT_INTEGER ? el->logical.is_signed : ct >= PQ_CT_INT_8;
			if (!bits) bits = ct == PQ_CT_INT_8 || ct == PQ_CT_UINT_8 ? 8 : ct == PQ_CT_INT_16 || ct == PQ_CT_UINT_16 ? 16 : 32;
			if (sign && bits == 8) { id = DL_TYPE_BYTE; lf->conv = PQ_CONV_I32_I8; }
			else if (sign && bits == 16) { id = DL_TYPE_SHORT; lf->conv = PQ_CONV_I32_I16; }
			else if (!sign && bits == 8) { id = DL_TYPE_SHORT; lf->conv = PQ_CONV_I32_I16; }
			else if (!sign && bits == 16) id = DL_TYPE_INTEGER;
			else if (!sign) { id = DL_TYPE_LONG; lf->conv = PQ_CONV_U32_I64; }
		}
		break;
	case PQ_INT64:
		lf->phys_width = 8;
		id = DL_TYPE_LONG;
		if (dec) {
			id = DL_TYPE_DECIMAL;
			lf->conv = PQ_CONV_I64_DEC;
		} else if (lk == PQ_LT_TIMESTAMP) {
			id = el->logical.is_adjusted_to_utc ? DL_TYPE_TIMESTAMP : DL_TYPE_TIMESTAMP_NTZ;
			lf->conv = el->logical.unit == PQ_UNIT_MILLIS ? PQ_CONV_MILLIS
			         : el->logical.unit == PQ_UNIT_NANOS ? PQ_CONV_NANOS : PQ_CONV_NONE;
		} else if (ct == PQ_CT_TIMESTAMP_MILLIS || ct == PQ_CT_TIMESTAMP_MICROS) {
			id = DL_TYPE_TIMESTAMP;
			lf->conv = ct == PQ_CT_TIMESTAMP_MILLIS ? PQ_CONV_MILLIS : PQ_CONV_NONE;
		} else if ((lk == PQ_LT_INTEGER && !el->logical.is_signed) || ct == PQ_CT_UINT_64) {
			id = DL_TYPE_DECIMAL;
			prec = 20;
			scale = 0;
			lf->conv = PQ_CONV_U64_DEC;
		}
		break;
	case PQ_INT96:
		lf->phys_width = 12;
		id = DL_TYPE_TIMESTAMP;
		lf->conv = PQ_CONV_INT96;
		break;
	case PQ_FLOAT:
		lf->phys_width = 4;
		id = DL_TYPE_FLOAT;
		break;
	case PQ_DOUBLE:
		lf->phys_width = 8;
		id = DL_TYPE_DOUBLE;
		break;
	case PQ_BYTE_ARRAY:
		lf->phys_width = 0;
		id = is_string_annot(el) ? DL_TYPE_STRING : DL_TYPE_BINARY;
		if (dec) {
			id = DL_TYPE_DECIMAL;
			lf->conv = PQ_CONV_BA_DEC;
		}
		break;
	case PQ_FIXED_LEN_BYTE_ARRAY:
		if (!el->has_type_length || el->type_length <= 0 || el->type_length > (1 << 20))
			return corrupt(what, "FIXED_LEN_BYTE_ARRAY without a valid type_length", el->name);
		lf->phys_width = el->type_length;
		id = DL_TYPE_BINARY;
		lf->conv = PQ_CONV_FLBA_BIN;
		if (dec) {
			id = DL_TYPE_DECIMAL;
			lf->conv = PQ_CONV_FLBA_DEC;
			if (el->type_length > 16) return dl_error_set(DL_EUNSUPPORTED, "%s: column '%s' is a decimal of %d bytes; at most 16 (precision 38) is supported", what, lf->path, el->type_length);
		} else if (lk == PQ_LT_UUID && el->type_length == 16) {
			id = DL_TYPE_STRING;
			lf->conv = PQ_CONV_UUID;
		} else if (lk == PQ_LT_FLOAT16 && el->type_length == 2) {
			id = DL_TYPE_FLOAT;
			lf->conv = PQ_CONV_F16;
		} else if (is_string_annot(el)) {
			id = DL_TYPE_STRING;
		}
		break;
	default:
		return corrupt(what, "unknown physical type", el->name);
	}
	if (id == DL_TYPE_DECIMAL) {
		if (prec < 1 || prec > 38 || scale < 0 || scale > prec)
			return dl_error_set(DL_EUNSUPPORTED, "%s: column '%s' is decimal(%d,%d); precision must be 1..38 and scale 0..precision",
			                    what, lf->path, prec, scale);
		lf->type = dl_type_decimal(prec, scale);
	} else if (id == DL_TYPE_BINARY && (lk == PQ_LT_GEOMETRY || lk == PQ_LT_GEOGRAPHY)) {
		return geo_leaf_type(lf);
	} else {
		lf->type = dl_type_new(id);
	}
	return lf->type ? 0 : DL_ENOMEM;
}

static int collect_leaves(pq_schema *s, pq_node *n, int *k, dl_buf *path, const char *what)
{
	size_t mark = path->len;
	if (n->parent) {
		if (n->parent->parent) DL_TRY(dl_buf_putc(path, '.'));
		DL_TRY(dl_buf_puts(path, n->el->name));
	}
	if (n->nchildren == 0 && n->parent) {
		pq_rleaf *lf = &s->leaves[(*k)++];
		lf->node = n;
		lf->el = n->el;
		lf->max_def = n->def;
		lf->max_rep = n->rep;
		lf->path = dl_strdup(path->data ? path->data : "");
		if (!lf->path) return DL_ENOMEM;
		DL_TRY(leaf_type(lf, what));
	}
	for (int i = 0; i < n->nchildren; i++) DL_TRY(collect_leaves(s, &n->children[i], k, path, what));
	path->len = mark;
	if (path->data) path->data[mark] = 0;
	return 0;
}

/* ---- plan construction ---- */

static int field_meta(const pq_schema_element *el, char *buf, size_t cap)
{
	if (el && el->has_field_id) snprintf(buf, cap, "{\"parquet.field.id\":%d}", (int)el->field_id);
	else snprintf(buf, cap, "{}");
	return 0;
}

static int build_out(const pq_schema *s, const pq_node *n, int16_t rep_ctx, int16_t def_ctx,
                     int16_t parent_def, pq_out *o, const char *what);

static bool has_annot(const pq_schema_element *el, pq_logical_kind lk, pq_converted_type ct)
{
	return el->logical.kind == lk || el->converted_type == ct;
}

/* A VARIANT-annotated group {metadata, value} (any order) becomes Delta's
 * variant type, whose children are (value, metadata). Leaves o->type NULL
 * when the group does not have that shape (it is then a plain struct). */
static int variant_out(const pq_schema *s, const pq_node *n, int16_t rep_ctx, int16_t def_ctx, int16_t self_def,
                       pq_out *o, const char *what)
{
	int vi = -1, mi = -1;
	for (int i = 0; i < n->nchildren; i++) {
		const pq_node *c = &n->children[i];
		if (c->nchildren || c->el->type != PQ_BYTE_ARRAY || c->el->repetition == PQ_REPEATED) continue;
		if (!strcmp(c->el->name, "value")) vi = i;
		if (!strcmp(c->el->name, "metadata")) mi = i;
	}
	if (vi < 0 || mi < 0 || n->nchildren != 2) return 0;
	o->kind = PQ_OUT_STRUCT;
	o->nchildren = 2;
	o->children = dl_calloc(2, sizeof *o->children);
	if (!o->children) return DL_ENOMEM;
	DL_TRY(build_out(s, &n->children[vi], rep_ctx, def_ctx, self_def, &o->children[0], what));
	DL_TRY(build_out(s, &n->children[mi], rep_ctx, def_ctx, self_def, &o->children[1], what));
	o->type = dl_type_variant();
	return o->type ? 0 : DL_ENOMEM;
}

/* The node itself with its repetition ignored: it is non-null at def
 * `self_def` and its entries are those of context (rep_ctx, def_ctx). */
static int build_as(const pq_schema *s, const pq_node *n, int16_t rep_ctx, int16_t def_ctx,
                    int16_t self_def, bool nullable, pq_out *o, const char *what)
{
	memset(o, 0, sizeof *o);
	o->nullable = nullable;
	o->def = self_def;
	o->rep_ctx = rep_ctx;
	o->def_ctx = def_ctx;
	o->leaf = n->first_leaf;
	const pq_schema_element *el = n->el;
	if (n->nchildren == 0) {
		o->kind = PQ_OUT_LEAF;
		o->type = dl_type_ref(s->leaves[n->first_leaf].type);
		return 0;
	}
	int16_t rdef = (int16_t)(self_def + 1); /* def of a repeated child */
	const pq_node *r = n->nchildren == 1 ? &n->children[0] : NULL;
	bool rep_child = r && r->el->repetition == PQ_REPEATED;
	if (rep_child && has_annot(el, PQ_LT_LIST, PQ_CT_LIST)) {
		o->kind = PQ_OUT_LIST;
		o->nchildren = 1;
		o->children = dl_calloc(1, sizeof *o->children);
		if (!o->children) return DL_ENOMEM;
		/* Backward-compatibility rules: the repeated node is itself the
		 * (required) element when it is primitive, has several fields, or is
		 * named "array" or "<list>_tuple"; otherwise its one child is. */
		char tuple[512];
		snprintf(tuple, sizeof tuple, "%s_tuple", el->name);
		bool legacy = r->nchildren == 0 || r->nchildren > 1 || !strcmp(r->el->name, "array") ||
		              !strcmp(r->el->name, tuple);
		if (legacy) DL_TRY(build_as(s, r, (int16_t)(rep_ctx + 1), rdef, rdef, false, &o->children[0], what));
		else DL_TRY(build_out(s, &r->children[0], (int16_t)(rep_ctx + 1), rdef, rdef, &o->children[0], what));
		o->type = dl_type_array(o->children[0].type, o->children[0].nullable);
		return o->type ? 0 : DL_ENOMEM;
	}
	bool is_map = has_annot(el, PQ_LT_MAP, PQ_CT_MAP) || el->converted_type == PQ_CT_MAP_KEY_VALUE;
	if (rep_child && is_map && r->nchildren == 2) {
		o->kind = PQ_OUT_MAP;
		o->nchildren = 2;
		o->children = dl_calloc(2, sizeof *o->children);
		if (!o->children) return DL_ENOMEM;
		for (int i = 0; i < 2; i++)
			DL_TRY(build_out(s, &r->children[i], (int16_t)(rep_ctx + 1), rdef, rdef, &o->children[i], what));
		o->children[0].nullable = false; /* keys are never null */
		o->type = dl_type_map(o->children[0].type, o->children[1].type, o->children[1].nullable);
		return o->type ? 0 : DL_ENOMEM;
	}
	if (el->logical.kind == PQ_LT_VARIANT && el->logical.has_spec_version && el->logical.spec_version != 1)
		/* LogicalTypes.md: a VARIANT group carries specification version 1;
		 * another version is an encoding this reader does not know */
		return dl_error_set(DL_EUNSUPPORTED,
		                    "%s: column %s is annotated VARIANT(%d); only Variant specification version 1 "
		                    "is supported",
		                    what, el->name, el->logical.spec_version);
	if (el->logical.kind == PQ_LT_VARIANT) DL_TRY(variant_out(s, n, rep_ctx, def_ctx, self_def, o, what));
	if (o->type) return 0;
	o->kind = PQ_OUT_STRUCT;
	o->nchildren = n->nchildren;
	o->children = dl_calloc((size_t)n->nchildren, sizeof *o->children);
	dl_field *fields = dl_calloc((size_t)n->nchildren, sizeof *fields);
	char (*meta)[48] = dl_calloc((size_t)n->nchildren, sizeof *meta);
	int rc = (o->children && fields && meta) ? 0 : DL_ENOMEM;
	for (int i = 0; rc == 0 && i < n->nchildren; i++) {
		rc = build_out(s, &n->children[i], rep_ctx, def_ctx, self_def, &o->children[i], what);
		if (rc < 0) break;
		field_meta(n->children[i].el, meta[i], sizeof meta[i]);
		fields[i] = (dl_field){n->children[i].el->name, o->children[i].type, o->children[i].nullable, meta[i]};
	}
	if (rc == 0) {
		o->type = dl_type_struct(fields, n->nchildren);
		if (!o->type) rc = DL_ENOMEM;
	}
	dl_free(fields);
	dl_free(meta);
	if (rc == 0 && el->logical.kind == PQ_LT_VARIANT) {
		/* a VARIANT group with typed_value: the rebuilt variant */
		dl_type *vt = dl_type_variant();
		pq_out v;
		bool shredded = false;
		rc = vt ? pq_variant_plan(&v, o, vt, what, el->name, &shredded) : DL_ENOMEM;
		if (vt) dl_type_unref(vt);
		if (rc < 0 && shredded) pq_plan_free(&v);
		/* a malformed one stays a plain group: the file's other columns
		 * still read, and reading it as a variant gives the error */
		if (rc == DL_ECORRUPT && !shredded) rc = 0;
		if (rc == 0 && shredded) {
			pq_plan_free(o);
			*o = v;
		}
	}
	return rc;
}

/* A node under a parent that is non-null at parent_def, in the parent's
 * entry context: applies its repetition. */
static int build_out(const pq_schema *s, const pq_node *n, int16_t rep_ctx, int16_t def_ctx,
                     int16_t parent_def, pq_out *o, const char *what)
{
	if (n->el->repetition != PQ_REPEATED) {
		bool opt = n->el->repetition == PQ_OPTIONAL;
		return build_as(s, n, rep_ctx, def_ctx, (int16_t)(parent_def + opt), opt, o, what);
	}
	/* A bare repeated field is a required list of required elements. */
	memset(o, 0, sizeof *o);
	o->kind = PQ_OUT_LIST;
	o->nullable = false;
	o->def = parent_def;
	o->rep_ctx = rep_ctx;
	o->def_ctx = def_ctx;
	o->leaf = n->first_leaf;
	o->nchildren = 1;
	o->children = dl_calloc(1, sizeof *o->children);
	if (!o->children) return DL_ENOMEM;
	int16_t rdef = (int16_t)(parent_def + 1);
	DL_TRY(build_as(s, n, (int16_t)(rep_ctx + 1), rdef, rdef, false, &o->children[0], what));
	o->type = dl_type_array(o->children[0].type, false);
	return o->type ? 0 : DL_ENOMEM;
}

int pq_schema_build(pq_schema *out, const pq_file_metadata *md, const char *what)
{
	memset(out, 0, sizeof *out);
	if (md->nschema == 0) return corrupt(what, "empty schema", NULL);
	builder b = {md, what, out, 0, 0};
	out->nodes = dl_calloc(1, sizeof *out->nodes);
	if (!out->nodes) return DL_ENOMEM;
	out->nnodes = 1;
	int rc = build_node(&b, out->nodes, NULL, 0);
	if (rc == 0 && b.next != md->nschema) rc = corrupt(what, "schema elements left over after the root's children", NULL);
	if (rc == 0 && out->nleaves == 0) rc = corrupt(what, "no columns", NULL);
	if (rc == 0) {
		out->leaves = dl_calloc((size_t)out->nleaves, sizeof *out->leaves);
		if (!out->leaves) rc = DL_ENOMEM;
	}
	if (rc == 0) {
		int k = 0;
		dl_buf path = DL_BUF_INIT;
		rc = collect_leaves(out, out->nodes, &k, &path, what);
		dl_buf_free(&path);
	}
	if (rc == 0) rc = build_as(out, out->nodes, 0, 0, 0, false, &out->root, what);
	if (rc == 0 && out->root.kind != PQ_OUT_STRUCT) {
		/* A root that looks like a list/map annotation is still the row. */
		rc = corrupt(what, "the root must be a plain group", NULL);
	}
	if (rc == 0) out->type = dl_type_ref(out->root.type);
	if (rc < 0) pq_schema_free(out);
	return rc;
}

void pq_plan_free(pq_out *p)
{
	if (!p) return;
	/* children is NULL when its allocation failed (nchildren is set first) */
	for (int i = 0; p->children && i < p->nchildren; i++) pq_plan_free(&p->children[i]);
	dl_free(p->children);
	if (p->type) dl_type_unref(p->type);
	memset(p, 0, sizeof *p);
}

void pq_schema_free(pq_schema *s)
{
	if (!s) return;
	pq_plan_free(&s->root);
	if (s->type) dl_type_unref(s->type);
	for (int i = 0; i < s->nleaves && s->leaves; i++) {
		dl_free(s->leaves[i].path);
		if (s->leaves[i].type) dl_type_unref(s->leaves[i].type);
	}
	dl_free(s->leaves);
	if (s->nodes) free_node(s->nodes);
	dl_free(s->nodes);
	memset(s, 0, sizeof *s);
}

/* On failure *out is released (the caller has nothing to free): the
 * children array is zeroed, so the copies not made yet free as empty. */
int pq_plan_copy(pq_out *out, const pq_out *src)
{
	*out = *src;
	out->type = dl_type_ref(src->type);
	out->children = NULL;
	if (src->nchildren) {
		out->children = dl_calloc((size_t)src->nchildren, sizeof *out->children);
		int rc = out->children ? 0 : DL_ENOMEM;
		for (int i = 0; rc == 0 && i < src->nchildren; i++) rc = pq_plan_copy(&out->children[i], &src->children[i]);
		if (rc < 0) {
			pq_plan_free(out);
			return rc;
		}
	}
	return 0;
}

void pq_plan_leaves(const pq_out *p, bool *need, bool *values)
{
	if (p->kind == PQ_OUT_ABSENT) return;
	if (p->leaf >= 0) need[p->leaf] = true;
	if (p->kind == PQ_OUT_LEAF) values[p->leaf] = true;
	for (int i = 0; i < p->nchildren; i++) pq_plan_leaves(&p->children[i], need, values);
}

/* ---- projection ---- */

static int64_t field_id_of(const char *meta)
{
	const char *k = meta ? strstr(meta, "\"parquet.field.id\"") : NULL;
	if (!k) return -1;
	k = strchr(k + 18, ':');
	if (!k) return -1;
	return strtoll(k + 1, NULL, 10);
}

static bool castable(const dl_type *from, const dl_type *to)
{
	if (dl_type_equals(from, to)) return true;
	dl_type_id f = from->id, t = to->id;
	/* plain or geospatial (WKB) binary: the same bytes either way */
	if (f == DL_TYPE_BINARY && t == DL_TYPE_BINARY) return true;
	bool fint = f == DL_TYPE_BYTE || f == DL_TYPE_SHORT || f == DL_TYPE_INTEGER || f == DL_TYPE_LONG;
	if (fint && (t == DL_TYPE_SHORT || t == DL_TYPE_INTEGER || t == DL_TYPE_LONG)) return dl_type_fixed_width(to) >= dl_type_fixed_width(from);
	if ((fint || f == DL_TYPE_FLOAT) && t == DL_TYPE_DOUBLE) return true;
	if (fint && t == DL_TYPE_DECIMAL) {
		/* every value of the integer type must fit the integer digits */
		int digits = f == DL_TYPE_BYTE ? 3 : f == DL_TYPE_SHORT ? 5 : f == DL_TYPE_INTEGER ? 10 : 19;
		return to->precision - to->scale >= digits;
	}
	if (f == DL_TYPE_DECIMAL && t == DL_TYPE_DECIMAL) return to->scale >= from->scale && to->precision - to->scale >= from->precision - from->scale;
	if (f == DL_TYPE_DATE && t == DL_TYPE_TIMESTAMP_NTZ) return true;
	if ((f == DL_TYPE_STRING && t == DL_TYPE_BINARY) || (f == DL_TYPE_BINARY && t == DL_TYPE_STRING)) return true;
	if ((f == DL_TYPE_TIMESTAMP && t == DL_TYPE_TIMESTAMP_NTZ) || (f == DL_TYPE_TIMESTAMP_NTZ && t == DL_TYPE_TIMESTAMP)) return true;
	return false;
}

static int project(pq_out *out, const pq_out *file, const dl_type *req, bool by_id, const char *what,
                   const char *name);

static int absent(pq_out *out, const dl_type *req)
{
	memset(out, 0, sizeof *out);
	out->kind = PQ_OUT_ABSENT;
	out->leaf = -1;
	out->nullable = true;
	out->type = dl_type_ref((dl_type *)req);
	return 0;
}

static int project_struct(pq_out *out, const pq_out *file, const dl_type *req, bool by_id, const char *what)
{
	*out = *file;
	out->type = dl_type_ref((dl_type *)req);
	out->nchildren = 0;
	out->children = dl_calloc(req->nchildren ? (size_t)req->nchildren : 1, sizeof *out->children);
	if (!out->children) return DL_ENOMEM;
	const dl_type *ft = file->type;
	for (int i = 0; i < req->nchildren; i++) {
		const dl_field *rf = &req->children[i];
		int idx = -1;
		int64_t want = by_id ? field_id_of(rf->metadata) : -1;
		if (want >= 0) {
			for (int j = 0; j < ft->nchildren && idx < 0; j++)
				if (field_id_of(ft->children[j].metadata) == want) idx = j;
		} else {
			/* by name; in id mode only for a requested column without a
			 * field id: one outside the table schema (the materialized
			 * row-tracking columns, PROTOCOL.md "Row Tracking") */
			idx = dl_type_field_index(ft, rf->name);
		}
		int rc = idx < 0 ? absent(&out->children[i], rf->type)
		                 : project(&out->children[i], &file->children[idx], rf->type, by_id, what, rf->name);
		out->nchildren = i + 1;
		if (rc < 0) return rc;
	}
	/* The struct's levels may come from any leaf below it (each holds the
	 * struct's definition and repetition levels), and the file's choice is
	 * its first leaf, which the projection may have left out: reading it
	 * would decompress a whole column for nothing. Take a projected one,
	 * a flat leaf first (fewest levels); keep the file's only when every
	 * requested field is absent. */
	int flat = -1, any = -1;
	for (int i = 0; i < out->nchildren; i++) {
		const pq_out *c = &out->children[i];
		if (c->kind == PQ_OUT_ABSENT || c->leaf < 0) continue;
		if (c->kind == PQ_OUT_LEAF && flat < 0) flat = c->leaf;
		if (any < 0) any = c->leaf;
	}
	if (flat >= 0) out->leaf = flat;
	else if (any >= 0) out->leaf = any;
	return 0;
}

static int project(pq_out *out, const pq_out *file, const dl_type *req, bool by_id, const char *what,
                   const char *name)
{
	/* A void (NullType) field holds only NULLs whatever a file stored for
	 * it: writers that keep nested void fields write them as all-null
	 * INT32 annotated UNKNOWN (Arrow, and ours inside structs). */
	if (req->id == DL_TYPE_NULL) return absent(out, req);
	if (file->kind == PQ_OUT_VARIANT && req->id == DL_TYPE_VARIANT) {
		int rc = pq_plan_copy(out, file);
		if (rc == 0) {
			dl_type_unref(out->type);
			out->type = dl_type_ref((dl_type *)req);
		}
		return rc;
	}
	if (file->kind == PQ_OUT_STRUCT && req->id == DL_TYPE_VARIANT) {
		bool shredded;
		int rc = pq_variant_plan(out, file, req, what, name, &shredded);
		if (rc < 0 || shredded) return rc;
	}
	if (file->kind == PQ_OUT_STRUCT && (req->id == DL_TYPE_STRUCT || req->id == DL_TYPE_VARIANT))
		return project_struct(out, file, req, by_id, what);
	if ((file->kind == PQ_OUT_LIST && req->id == DL_TYPE_ARRAY) || (file->kind == PQ_OUT_MAP && req->id == DL_TYPE_MAP)) {
		*out = *file;
		out->type = dl_type_ref((dl_type *)req);
		out->nchildren = 0;
		out->children = dl_calloc((size_t)file->nchildren, sizeof *out->children);
		if (!out->children) return DL_ENOMEM;
		for (int i = 0; i < file->nchildren; i++) {
			int rc = project(&out->children[i], &file->children[i], req->children[i].type, by_id, what, req->children[i].name);
			out->nchildren = i + 1;
			if (rc < 0) return rc;
		}
		return 0;
	}
	if (file->kind == PQ_OUT_LEAF && castable(file->type, req)) {
		*out = *file;
		out->type = dl_type_ref((dl_type *)req);
		out->children = NULL;
		return 0;
	}
	char a[128], b[128];
	dl_type_sql(file->type, a, sizeof a);
	dl_type_sql(req, b, sizeof b);
	return dl_error_set(DL_ESCHEMA, "%s: column '%s' is %s in the file but %s was requested; the types are not compatible",
	                    what, name, a, b);
}

int pq_plan_project(pq_out *out, const pq_schema *s, const dl_type *requested, bool by_field_id,
                    const char *what)
{
	memset(out, 0, sizeof *out);
	if (!requested || requested->id != DL_TYPE_STRUCT)
		return dl_error_set(DL_EINVALID, "a projection must be a struct type");
	int rc = project_struct(out, &s->root, requested, by_field_id, what);
	if (rc < 0) pq_plan_free(out);
	/* The root is never assembled (a batch's rows are the row group's), so
	 * it needs no levels: a projection of absent columns reads nothing. */
	else out->leaf = -1;
	return rc;
}
