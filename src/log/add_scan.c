/* DOM-free extraction of add actions from commit lines. */
#include "log/add_scan.h"
#include <string.h>
#include "log/path.h"
#include "util/error.h"

typedef struct scan {
	const char *p, *end;
	dl_arena *arena;
} scan;

static void ws(scan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\r' || *s->p == '\n')) s->p++;
}

static int lit(scan *s, const char *text, size_t n)
{
	if ((size_t)(s->end - s->p) < n || memcmp(s->p, text, n) != 0) return 0;
	s->p += n;
	return 1;
}

static int hex4(const char *p, unsigned *out)
{
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		v <<= 4;
		if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
		else return 0;
	}
	*out = v;
	return 1;
}

/* A JSON string of ASCII characters into the arena (NUL-terminated).
 * 1 ok, 0 decline (non-ASCII, bad escape, control character), <0 ENOMEM. */
static int string(scan *s, const char **out, size_t *len)
{
	if (s->p >= s->end || *s->p != '"') return 0;
	const char *start = ++s->p, *q = start;
	bool escapes = false;
	while (q < s->end && *q != '"') {
		unsigned char c = (unsigned char)*q;
		if (c < 0x20 || c >= 0x80) return 0;
		if (c == '\\') {
			escapes = true;
			if (q + 1 >= s->end) return 0;
			q += 2;
		} else {
			q++;
		}
	}
	if (q >= s->end) return 0;
	size_t n = (size_t)(q - start);
	char *d = dl_arena_alloc(s->arena, n + 1);
	if (!d) return DL_ENOMEM;
	size_t k = 0;
	if (!escapes) {
		memcpy(d, start, n);
		k = n;
	} else {
		for (const char *p = start; p < q; p++) {
			if (*p != '\\') {
				d[k++] = *p;
				continue;
			}
			p++;
			switch (*p) {
			case '"': d[k++] = '"'; break;
			case '\\': d[k++] = '\\'; break;
			case '/': d[k++] = '/'; break;
			case 'b': d[k++] = '\b'; break;
			case 'f': d[k++] = '\f'; break;
			case 'n': d[k++] = '\n'; break;
			case 'r': d[k++] = '\r'; break;
			case 't': d[k++] = '\t'; break;
			case 'u': {
				unsigned u;
				/* only escapes of ASCII: others (and NUL) go the DOM way */
				if (q - p < 5 || !hex4(p + 1, &u) || u == 0 || u >= 0x80) return 0;
				d[k++] = (char)u;
				p += 4;
				break;
			}
			default: return 0;
			}
		}
	}
	d[k] = 0;
	s->p = q + 1;
	*out = d;
	*len = k;
	return 1;
}

/* A plain integer (no fraction or exponent). 1 ok, 0 decline. */
static int integer(scan *s, int64_t *out)
{
	const char *p = s->p;
	bool neg = p < s->end && *p == '-';
	if (neg) p++;
	if (p >= s->end || *p < '0' || *p > '9') return 0;
	if (*p == '0' && p + 1 < s->end && p[1] >= '0' && p[1] <= '9') return 0;
	uint64_t v = 0;
	for (; p < s->end && *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10) return 0;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p < s->end && (*p == '.' || *p == 'e' || *p == 'E')) return 0;
	if (neg ? v > (uint64_t)INT64_MAX + 1 : v > (uint64_t)INT64_MAX) return 0;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	s->p = p;
	return 1;
}

/* {"k":"v"|null,...} into a map (null: empty map), allocated at its exact
 * size. 1 ok, 0 decline (more than 64 entries too: rare, the DOM way). */
static int str_map(scan *s, dl_str_map *out)
{
	enum { MAX = 64 };
	dl_kv kv[MAX];
	uint32_t n = 0;
	out->items = NULL;
	out->n = 0;
	if (lit(s, "null", 4)) return 1;
	if (!lit(s, "{", 1)) return 0;
	ws(s);
	if (!lit(s, "}", 1)) {
		for (;;) {
			const char *k, *v = NULL;
			size_t kl, vl;
			ws(s);
			int rc = string(s, &k, &kl);
			if (rc <= 0) return rc;
			ws(s);
			if (!lit(s, ":", 1)) return 0;
			ws(s);
			if (!lit(s, "null", 4)) {
				rc = string(s, &v, &vl);
				if (rc <= 0) return rc;
			}
			if (n == MAX) return 0;
			for (uint32_t i = 0; i < n; i++)
				if (strcmp(kv[i].key, k) == 0) return 0; /* duplicate key */
			kv[n].key = k;
			kv[n].value = v;
			n++;
			ws(s);
			if (lit(s, "}", 1)) break;
			if (!lit(s, ",", 1)) return 0;
		}
	}
	if (n) {
		out->items = dl_arena_alloc(s->arena, n * sizeof *kv);
		if (!out->items) return DL_ENOMEM;
		memcpy(out->items, kv, n * sizeof *kv);
		out->n = n;
	}
	return 1;
}

enum { F_PATH = 1, F_PV = 2, F_SIZE = 4, F_MTIME = 8, F_DC = 16, F_STATS = 32, F_TAGS = 64,
       F_DV = 128, F_BRI = 256, F_DRCV = 512, F_CP = 1024 };

static int field(scan *s, const char *key, size_t kl, dl_add *a, unsigned *seen)
{
	const char *str;
	size_t n;
	int rc;
#define KEY(lit_, bit)                                                                       \
	(kl == sizeof lit_ - 1 && memcmp(key, lit_, kl) == 0 && !(*seen & (bit)) && (*seen |= (bit)))
	if (KEY("path", F_PATH)) {
		rc = string(s, &str, &n);
		if (rc <= 0) return rc;
		if (memchr(str, '%', n) || strncmp(str, "file:", 5) == 0) {
			rc = dl_log_path_decode(s->arena, str, n, "add.path", &a->path);
			if (rc < 0) {
				if (rc == DL_ENOMEM) return rc;
				dl_error_clear();
				return 0; /* let the DOM path report it */
			}
			a->log_path = str; /* the scanned string, kept like a->path otherwise */
		} else {
			a->path = a->log_path = str;
		}
		return 1;
	}
	if (KEY("partitionValues", F_PV)) return str_map(s, &a->partition_values);
	if (KEY("size", F_SIZE)) return integer(s, &a->size);
	if (KEY("modificationTime", F_MTIME)) return integer(s, &a->modification_time);
	if (KEY("dataChange", F_DC)) {
		if (lit(s, "true", 4)) a->data_change = true;
		else if (lit(s, "false", 5)) a->data_change = false;
		else return 0;
		return 1;
	}
	if (KEY("stats", F_STATS)) {
		if (lit(s, "null", 4)) return 1;
		rc = string(s, &str, &n);
		if (rc <= 0) return rc;
		if (n > UINT32_MAX) return 0;
		a->stats = str;
		a->stats_len = (uint32_t)n;
		return 1;
	}
	if (KEY("tags", F_TAGS)) return str_map(s, &a->tags);
	if (KEY("deletionVector", F_DV)) return lit(s, "null", 4); /* a DV: the DOM way */
	if (KEY("baseRowId", F_BRI)) return lit(s, "null", 4) || integer(s, &a->base_row_id);
	if (KEY("defaultRowCommitVersion", F_DRCV))
		return lit(s, "null", 4) || integer(s, &a->default_row_commit_version);
	if (KEY("clusteringProvider", F_CP)) {
		if (lit(s, "null", 4)) return 1;
		return string(s, &a->clustering_provider, &n);
	}
#undef KEY
	return 0; /* unknown or repeated field */
}

int dl_add_scan(dl_add *out, dl_arena *arena, const char *line, size_t len)
{
	scan s = {line, line + len, arena};
	memset(out, 0, sizeof *out);
	out->data_change = true;
	out->base_row_id = out->default_row_commit_version = DL_NONE;
	ws(&s);
	if (!lit(&s, "{\"add\":", 7)) return 0;
	ws(&s);
	if (!lit(&s, "{", 1)) return 0;
	unsigned seen = 0;
	ws(&s);
	if (!lit(&s, "}", 1)) {
		for (;;) {
			ws(&s);
			if (s.p >= s.end || *s.p != '"') return 0;
			const char *key = s.p + 1, *kend = memchr(key, '"', (size_t)(s.end - key));
			if (!kend || memchr(key, '\\', (size_t)(kend - key))) return 0;
			size_t kl = (size_t)(kend - key);
			s.p = kend + 1;
			ws(&s);
			if (!lit(&s, ":", 1)) return 0;
			ws(&s);
			int rc = field(&s, key, kl, out, &seen);
			if (rc <= 0) return rc;
			ws(&s);
			if (lit(&s, "}", 1)) break;
			if (!lit(&s, ",", 1)) return 0;
		}
	}
	ws(&s);
	if (!lit(&s, "}", 1)) return 0;
	ws(&s);
	if (s.p != s.end) return 0;
	/* required fields; their absence is the DOM path's error to report */
	if (!(seen & F_PATH) || !(seen & F_SIZE)) return 0;
	if (out->size < 0) return 0; /* the DOM path names the error */
	/* as the DOM path: absent (or the DL_NONE value itself) means 0 */
	if (!(seen & F_MTIME) || out->modification_time == DL_NONE) out->modification_time = 0;
	return 1;
}
