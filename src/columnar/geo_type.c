/* Delta geospatial type text: parsing, validation and building the
 * annotated binary type. */
#include "columnar/geo_type.h"
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "util/error.h"
#include "util/mem.h"

static const char *const algorithm_names[] = {"spherical", "vincenty", "thomas", "andoyer", "karney"};
#define N_ALGORITHMS (int)(sizeof algorithm_names / sizeof algorithm_names[0])

const char *dl_geo_algorithm_name(dl_geo_algorithm a)
{
	return (int)a >= 0 && (int)a < N_ALGORITHMS ? algorithm_names[a] : "unknown";
}

/* Returns the length of the kind keyword the text starts with, 0 if none. */
static size_t kind_prefix(const char *s, dl_geo_kind *kind)
{
	if (strncmp(s, "geometry", 8) == 0) *kind = DL_GEO_GEOMETRY;
	else if (strncmp(s, "geography", 9) == 0) *kind = DL_GEO_GEOGRAPHY;
	else return 0;
	size_t n = *kind == DL_GEO_GEOMETRY ? 8 : 9;
	return s[n] == 0 || s[n] == '(' ? n : 0;
}

bool dl_geo_is_geo_name(const char *name)
{
	dl_geo_kind k;
	return name && kind_prefix(name, &k) > 0;
}

static const char *skip_ws(const char *p)
{
	while (*p == ' ') p++;
	return p;
}

/* A token: everything up to ',', ')', a space or the end. */
static size_t token_len(const char *p)
{
	size_t n = 0;
	while (p[n] && p[n] != ',' && p[n] != ')' && p[n] != ' ') n++;
	return n;
}

static bool all_digits(const char *p, size_t n)
{
	if (n == 0) return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)p[i])) return false;
	return true;
}

/* AUTHORITY:ID with a non-empty authority of letters, digits, '_', '-' or
 * '.', and a non-empty id of printable ASCII; srid:<number>;
 * projjson:<tableProperty>. */
static int check_crs(const char *text, const char *crs, size_t n)
{
	const char *colon = memchr(crs, ':', n);
	if (!colon || colon == crs || colon == crs + n - 1)
		return dl_error_set(DL_ECORRUPT,
		                    "geospatial type '%s': the CRS '%.*s' must be AUTHORITY:ID (e.g. "
		                    "OGC:CRS84), srid:<number> or projjson:<tableProperty>",
		                    text, (int)n, crs);
	for (size_t i = 0; i < n; i++) /* identifiers, not free text: keeps JSON/Arrow spellings plain */
		if (crs[i] < 0x21 || crs[i] > 0x7E || crs[i] == '"' || crs[i] == '\\')
			return dl_error_set(DL_ECORRUPT,
			                    "geospatial type '%s': the CRS may hold only printable ASCII "
			                    "without quotes or backslashes",
			                    text);
	size_t auth = (size_t)(colon - crs);
	for (size_t i = 0; i < auth; i++)
		if (!isalnum((unsigned char)crs[i]) && crs[i] != '_' && crs[i] != '-' && crs[i] != '.')
			return dl_error_set(DL_ECORRUPT, "geospatial type '%s': bad CRS authority '%.*s'",
			                    text, (int)auth, crs);
	if (auth == 4 && strncasecmp(crs, "srid", 4) == 0 && !all_digits(colon + 1, n - auth - 1))
		return dl_error_set(DL_ECORRUPT, "geospatial type '%s': srid:<number> needs a number, not '%.*s'",
		                    text, (int)(n - auth - 1), colon + 1);
	return 0;
}

static int parse_algorithm(dl_geo_info *out, const char *text, const char *p, size_t n)
{
	for (int i = 0; i < N_ALGORITHMS; i++) {
		if (strlen(algorithm_names[i]) == n && strncasecmp(p, algorithm_names[i], n) == 0) {
			out->algorithm = (dl_geo_algorithm)i;
			out->has_algorithm = true;
			return 0;
		}
	}
	return dl_error_set(DL_ECORRUPT,
	                    "geospatial type '%s': unknown edge interpolation algorithm '%.*s' (expected "
	                    "spherical, vincenty, thomas, andoyer or karney)",
	                    text, (int)n, p);
}

/* The "(<crs>[, <algorithm>])" part after the keyword. */
static int parse_params(dl_geo_info *out, const char *text, const char *p)
{
	p = skip_ws(p + 1);
	size_t n = token_len(p);
	if (n == 0)
		return dl_error_set(DL_ECORRUPT, "geospatial type '%s': the parentheses need a CRS", text);
	DL_TRY(check_crs(text, p, n));
	out->crs = p;
	out->crs_len = n;
	out->has_crs = true;
	p = skip_ws(p + n);
	if (*p == ',') {
		if (out->kind == DL_GEO_GEOMETRY)
			return dl_error_set(DL_ECORRUPT,
			                    "geospatial type '%s': geometry takes only a CRS (an edge "
			                    "algorithm belongs to geography)",
			                    text);
		p = skip_ws(p + 1);
		n = token_len(p);
		DL_TRY(parse_algorithm(out, text, p, n));
		p = skip_ws(p + n);
	}
	if (p[0] != ')' || p[1] != 0)
		return dl_error_set(DL_ECORRUPT,
		                    "geospatial type '%s' is malformed: expected geometry(<crs>) or "
		                    "geography(<crs>, <algorithm>)",
		                    text);
	return 0;
}

int dl_geo_parse(dl_geo_info *out, const char *text)
{
	memset(out, 0, sizeof *out);
	out->crs = DL_GEO_DEFAULT_CRS;
	out->crs_len = strlen(DL_GEO_DEFAULT_CRS);
	out->algorithm = DL_GEO_SPHERICAL;
	size_t k = kind_prefix(text, &out->kind);
	if (k == 0)
		return dl_error_set(DL_ECORRUPT, "'%s' is not a geospatial type (geometry or geography)", text);
	if (text[k] == 0) return 0; /* all defaults */
	return parse_params(out, text, text + k);
}

int dl_type_geo(dl_type **out, const char *text)
{
	dl_geo_info info;
	*out = NULL;
	DL_TRY(dl_geo_parse(&info, text));
	dl_type *t = dl_type_new(DL_TYPE_BINARY);
	if (!t) return DL_ENOMEM;
	t->geo = dl_strdup(text);
	if (!t->geo) {
		dl_type_unref(t);
		return DL_ENOMEM;
	}
	*out = t;
	return 0;
}

static bool json_safe(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] == '"' || p[i] == '\\' || (unsigned char)p[i] < 0x20) return false;
	return true;
}

int dl_geo_arrow_metadata(char **out, const char *text)
{
	dl_geo_info g;
	*out = NULL;
	DL_TRY(dl_geo_parse(&g, text));
	const char *crs = g.crs, *type = "authority_code";
	size_t n = g.crs_len;
	if (n > 5 && strncasecmp(crs, "srid:", 5) == 0) {
		crs += 5;
		n -= 5;
		type = "srid";
	} else if ((n > 9 && strncasecmp(crs, "projjson:", 9) == 0) || !json_safe(crs, n)) {
		n = 0; /* the PROJJSON text lives in a table property */
	}
	size_t cap = n + 96;
	char *s = dl_malloc(cap);
	if (!s) return DL_ENOMEM;
	int k = n ? snprintf(s, cap, "{\"crs\":\"%.*s\",\"crs_type\":\"%s\"", (int)n, crs, type)
	          : snprintf(s, cap, "{");
	if (g.kind == DL_GEO_GEOGRAPHY)
		snprintf(s + k, cap - (size_t)k, "%s\"edges\":\"%s\"}", n ? "," : "", algorithm_names[g.algorithm]);
	else snprintf(s + k, cap - (size_t)k, "}");
	*out = s;
	return 0;
}

int dl_type_geo_from_parts(dl_type **out, dl_geo_kind kind, const char *crs, int algorithm)
{
	*out = NULL;
	if (!crs || !crs[0]) crs = DL_GEO_DEFAULT_CRS;
	if (algorithm < 0) algorithm = DL_GEO_SPHERICAL;
	if (algorithm >= N_ALGORITHMS)
		return dl_error_set(DL_ECORRUPT, "unknown geography edge interpolation algorithm %d", algorithm);
	size_t cap = strlen(crs) + 32;
	char *text = dl_malloc(cap);
	if (!text) return DL_ENOMEM;
	if (kind == DL_GEO_GEOMETRY) snprintf(text, cap, "geometry(%s)", crs);
	else snprintf(text, cap, "geography(%s, %s)", crs, algorithm_names[algorithm]);
	int rc = dl_type_geo(out, text);
	dl_free(text);
	return rc;
}
