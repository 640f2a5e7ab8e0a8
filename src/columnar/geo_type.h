/* Delta's geospatial types (protocol RFC "geospatial-types"): geometry(<crs>)
 * and geography(<crs>, <algorithm>). Their values are WKB byte strings, so
 * in memory a geo column is a DL_TYPE_BINARY whose dl_type.geo holds the
 * type's Delta text exactly as the schema spelled it (so the schema JSON
 * serializes back byte-identically); plain binary has geo == NULL. */
#ifndef DL_COLUMNAR_GEO_TYPE_H
#define DL_COLUMNAR_GEO_TYPE_H
#include <stdbool.h>
#include <stddef.h>
#include "columnar/types.h"

typedef enum dl_geo_kind {
	DL_GEO_GEOMETRY = 1,
	DL_GEO_GEOGRAPHY = 2,
} dl_geo_kind;

/* Edge interpolation algorithms, numbered as Parquet's
 * EdgeInterpolationAlgorithm enum. */
typedef enum dl_geo_algorithm {
	DL_GEO_SPHERICAL = 0,
	DL_GEO_VINCENTY = 1,
	DL_GEO_THOMAS = 2,
	DL_GEO_ANDOYER = 3,
	DL_GEO_KARNEY = 4,
} dl_geo_algorithm;

/* The CRS both Delta and Parquet assume when none is written. */
#define DL_GEO_DEFAULT_CRS "OGC:CRS84"

typedef struct dl_geo_info {
	dl_geo_kind kind;
	const char *crs; /* points into the parsed text, or DL_GEO_DEFAULT_CRS */
	size_t crs_len;
	dl_geo_algorithm algorithm; /* DL_GEO_SPHERICAL for geometry / when omitted */
	bool has_crs, has_algorithm; /* written in the text (not defaulted) */
} dl_geo_info;

/* True when a Delta type name is meant as a geospatial type ("geometry" or
 * "geography", alone or followed by '('), whether or not it is well formed. */
bool dl_geo_is_geo_name(const char *name);

/* Parses "geometry", "geometry(<crs>)", "geography",
 * "geography(<crs>)" or "geography(<crs>, <algorithm>)". The CRS is
 * AUTHORITY:ID (OGC:CRS84, EPSG:3857), srid:<number> or
 * projjson:<tableProperty>; the algorithm one of spherical, vincenty, thomas,
 * andoyer, karney (any case). Omitted parts take the defaults OGC:CRS84 and
 * spherical. DL_ECORRUPT with what is wrong otherwise. */
int dl_geo_parse(dl_geo_info *out, const char *text);

/* Lower-case name of an algorithm ("spherical"...), "unknown" if out of range. */
const char *dl_geo_algorithm_name(dl_geo_algorithm a);

/* A new annotated binary type for the Delta text (validated with
 * dl_geo_parse). */
int dl_type_geo(dl_type **out, const char *text);

/* The same, built from Parquet's GEOMETRY / GEOGRAPHY annotation: crs NULL
 * for the default, algorithm < 0 for the default. Writes the canonical
 * Delta text ("geometry(OGC:CRS84)", "geography(OGC:CRS84, spherical)"). */
int dl_type_geo_from_parts(dl_type **out, dl_geo_kind kind, const char *crs, int algorithm);

/* GeoArrow's extension metadata for a geo type ("geoarrow.wkb"): a JSON
 * object with the CRS ({"crs":"OGC:CRS84","crs_type":"authority_code"},
 * srid:N as {"crs":"N","crs_type":"srid"}; a projjson:<property> reference
 * names no CRS here) and, for geography, "edges". Allocated (dl_free). */
#define DL_GEOARROW_WKB_EXTENSION "geoarrow.wkb"
int dl_geo_arrow_metadata(char **out, const char *text);

#endif
