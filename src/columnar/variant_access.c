/* Reading inside variant values (see variant_access.h). */
#include "columnar/variant_access.h"
#include <string.h>
#include "util/error.h"

static uint64_t rd(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = n; i-- > 0;) v = (v << 8) | p[i];
	return v;
}

static int malformed(const char *what)
{
	return dl_error_set_class(DL_ECORRUPT, "MALFORMED_VARIANT",
	                          "[MALFORMED_VARIANT] Variant binary is malformed (%s). Please check the data source is valid.",
	                          what);
}

int dl_vmeta_parse(dl_vmeta *m, const uint8_t *p, size_t n)
{
	memset(m, 0, sizeof *m);
	if (n < 1) return malformed("empty metadata");
	if ((p[0] & 0x0F) != 1) return malformed("metadata version is not 1");
	m->offset_size = ((p[0] >> 6) & 3) + 1;
	if (n < 1 + (size_t)m->offset_size) return malformed("metadata shorter than its header");
	m->dict_size = rd(p + 1, m->offset_size);
	if (m->dict_size > n) return malformed("metadata dictionary larger than the metadata");
	uint64_t head = 1 + (uint64_t)m->offset_size * (m->dict_size + 2);
	if (head > n) return malformed("metadata dictionary offsets past the end");
	m->offsets = p + 1 + m->offset_size;
	m->bytes = p + head;
	uint64_t last = rd(m->offsets + m->dict_size * (uint64_t)m->offset_size, m->offset_size);
	if (last > n - head) return malformed("metadata strings past the end");
	m->bytes_len = last;
	m->size = (size_t)(head + last);
	return 0;
}

int dl_vmeta_key(const dl_vmeta *m, uint64_t id, const char **s, size_t *len)
{
	if (id >= m->dict_size) return malformed("field id outside the metadata dictionary");
	uint64_t a = rd(m->offsets + id * (uint64_t)m->offset_size, m->offset_size);
	uint64_t b = rd(m->offsets + (id + 1) * (uint64_t)m->offset_size, m->offset_size);
	if (a > b || b > m->bytes_len) return malformed("metadata string out of range");
	*s = (const char *)m->bytes + a;
	*len = (size_t)(b - a);
	return 0;
}

int dl_variant_decode(dl_vprim *o, const uint8_t *v, size_t n)
{
	static const int8_t sizes[] = {0, 0, 0, 1, 2, 4, 8, 8, 5, 9, 17, 4, 8, 8, 4, 4, 4, 8, 8, 8, 16};
	memset(o, 0, sizeof *o);
	if (n < 1) return malformed("empty value");
	int basic = v[0] & 3, hdr = v[0] >> 2;
	if (basic == 2) return o->kind = DL_V_OBJECT, 0;
	if (basic == 3) return o->kind = DL_V_ARRAY, 0;
	if (basic == 1) {
		if ((size_t)hdr > n - 1) return malformed("short string longer than the value");
		o->kind = DL_V_STRING;
		o->s = v + 1;
		o->slen = (size_t)hdr;
		return 0;
	}
	if (hdr >= (int)sizeof sizes)
		return dl_error_set_class(DL_EUNSUPPORTED, "UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT",
		                          "[UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT] Unknown primitive type with id %d was found in a "
		                          "variant value.",
		                          hdr);
	const uint8_t *p = v + 1;
	if ((size_t)sizes[hdr] > n - 1) return malformed("primitive value truncated");
	switch (hdr) {
	case 0: o->kind = DL_V_NULL; break;
	case 1:
	case 2:
		o->kind = DL_V_BOOLEAN;
		o->b = hdr == 1;
		break;
	case 3: o->kind = DL_V_INT, o->int_width = 1, o->i = (int8_t)p[0]; break;
	case 4: o->kind = DL_V_INT, o->int_width = 2, o->i = (int16_t)rd(p, 2); break;
	case 5: o->kind = DL_V_INT, o->int_width = 4, o->i = (int32_t)rd(p, 4); break;
	case 6: o->kind = DL_V_INT, o->int_width = 8, o->i = (int64_t)rd(p, 8); break;
	case 7:
		o->kind = DL_V_DOUBLE;
		memcpy(&o->d, p, 8);
		break;
	case 14: {
		float f;
		memcpy(&f, p, 4);
		o->kind = DL_V_FLOAT;
		o->d = f;
		break;
	}
	case 8:
	case 9:
	case 10: {
		if (p[0] > 38) return malformed("decimal scale above 38");
		int w = hdr == 8 ? 4 : hdr == 9 ? 8 : 16;
		__extension__ unsigned __int128 u = 0;
		memcpy(&u, p + 1, (size_t)w);
		int shift = 128 - 8 * w;
		o->kind = DL_V_DECIMAL;
		o->dec = (dl_i128)(u << shift) >> shift;
		o->scale = p[0];
		o->dec_width = w;
		break;
	}
	case 11: o->kind = DL_V_DATE, o->i = (int32_t)rd(p, 4); break;
	case 12: o->kind = DL_V_TIMESTAMP, o->i = (int64_t)rd(p, 8); break;
	case 13: o->kind = DL_V_TIMESTAMP_NTZ, o->i = (int64_t)rd(p, 8); break;
	case 17: o->kind = DL_V_TIME, o->i = (int64_t)rd(p, 8); break;
	case 18: o->kind = DL_V_TIMESTAMP_NANOS, o->i = (int64_t)rd(p, 8); break;
	case 19: o->kind = DL_V_TIMESTAMP_NTZ_NANOS, o->i = (int64_t)rd(p, 8); break;
	case 15:
	case 16: {
		uint64_t len = rd(p, 4);
		if (len > n - 5) return malformed("binary or string longer than the value");
		o->kind = hdr == 15 ? DL_V_BINARY : DL_V_STRING;
		o->s = p + 4;
		o->slen = (size_t)len;
		break;
	}
	default: /* 20 */
		o->kind = DL_V_UUID;
		o->s = p;
		o->slen = 16;
		break;
	}
	return 0;
}

/* The layout shared by objects and arrays: count, [ids], offsets, values. */
typedef struct vcont {
	uint64_t count, ids, offs, vals, end;
	int id_size, off_size;
} vcont;

static int container(vcont *c, const uint8_t *v, size_t n, bool object)
{
	if (n < 1 || (v[0] & 3) != (object ? 2 : 3)) return malformed("not a container");
	int hdr = v[0] >> 2;
	int large = object ? (hdr >> 4) & 1 : (hdr >> 2) & 1;
	c->id_size = object ? ((hdr >> 2) & 3) + 1 : 0;
	c->off_size = (hdr & 3) + 1;
	size_t count_size = large ? 4 : 1;
	if (n < 1 + count_size) return malformed("container header truncated");
	c->count = rd(v + 1, (int)count_size);
	c->ids = 1 + count_size;
	if (c->count > n) return malformed("container offsets past the end");
	c->offs = c->ids + c->count * (uint64_t)c->id_size;
	c->vals = c->offs + (c->count + 1) * (uint64_t)c->off_size;
	if (c->vals > n) return malformed("container offsets past the end");
	c->end = rd(v + c->offs + c->count * (uint64_t)c->off_size, c->off_size);
	if (c->end > n - c->vals) return malformed("container values past the end");
	return 0;
}

static int child(const vcont *c, const uint8_t *v, uint64_t i, const uint8_t **cv, size_t *cn)
{
	uint64_t at = rd(v + c->offs + i * (uint64_t)c->off_size, c->off_size);
	if (at >= c->end) return malformed("field offset past the values");
	*cv = v + c->vals + at;
	*cn = (size_t)(c->end - at);
	return 0;
}

int dl_variant_count(const uint8_t *v, size_t n, uint64_t *count)
{
	vcont c;
	DL_TRY(container(&c, v, n, n > 0 && (v[0] & 3) == 2));
	*count = c.count;
	return 0;
}

int dl_variant_field_at(const dl_vmeta *m, const uint8_t *v, size_t n, uint64_t i, const char **key, size_t *klen,
                        const uint8_t **fv, size_t *fn)
{
	vcont c;
	DL_TRY(container(&c, v, n, true));
	if (i >= c.count) return malformed("field index out of range");
	DL_TRY(dl_vmeta_key(m, rd(v + c.ids + i * (uint64_t)c.id_size, c.id_size), key, klen));
	return child(&c, v, i, fv, fn);
}

int dl_variant_field(const dl_vmeta *m, const uint8_t *v, size_t n, const char *key, size_t klen,
                     const uint8_t **fv, size_t *fn)
{
	if (n < 1 || (v[0] & 3) != 2) return 0;
	vcont c;
	DL_TRY(container(&c, v, n, true));
	/* Fields are sorted by name (the encoding requires it), but a linear
	 * scan also finds them in a file that broke the rule. */
	for (uint64_t i = 0; i < c.count; i++) {
		const char *k;
		size_t kl;
		DL_TRY(dl_vmeta_key(m, rd(v + c.ids + i * (uint64_t)c.id_size, c.id_size), &k, &kl));
		if (kl == klen && memcmp(k, key, klen) == 0) {
			DL_TRY(child(&c, v, i, fv, fn));
			return 1;
		}
	}
	return 0;
}

int dl_variant_element(const uint8_t *v, size_t n, uint64_t idx, const uint8_t **ev, size_t *en)
{
	if (n < 1 || (v[0] & 3) != 3) return 0;
	vcont c;
	DL_TRY(container(&c, v, n, false));
	if (idx >= c.count) return 0;
	DL_TRY(child(&c, v, idx, ev, en));
	return 1;
}

int dl_variant_size(const uint8_t *v, size_t n, size_t *size)
{
	if (n < 1) return malformed("empty value");
	int basic = v[0] & 3;
	if (basic >= 2) {
		vcont c;
		DL_TRY(container(&c, v, n, basic == 2));
		*size = (size_t)(c.vals + c.end);
		return 0;
	}
	dl_vprim p;
	DL_TRY(dl_variant_decode(&p, v, n));
	if (basic == 1) *size = 1 + p.slen;
	else if (p.kind == DL_V_STRING || p.kind == DL_V_BINARY) *size = 5 + p.slen;
	else {
		static const int8_t sizes[] = {0, 0, 0, 1, 2, 4, 8, 8, 5, 9, 17, 4, 8, 8, 4, 4, 4, 8, 8, 8, 16};
		*size = 1 + (size_t)sizes[v[0] >> 2];
	}
	return 0;
}
