/* Whether a table optimizes its writes / compacts after commits (see
 * auto_optimize.h). */
#include "ops/auto_optimize.h"
#include <ctype.h>
#include <string.h>
#include <strings.h>

/* "true" (any case, surrounding blanks allowed) */
static bool is_true(const char *v)
{
	if (!v) return false;
	while (isspace((unsigned char)*v)) v++;
	size_t n = strlen(v);
	while (n && isspace((unsigned char)v[n - 1])) n--;
	return n == 4 && strncasecmp(v, "true", 4) == 0;
}

static const char *get(const dl_str_map *cfg, const char *key)
{
	bool found;
	return cfg ? dl_str_map_get(cfg, key, &found) : NULL;
}

bool dl_ops_optimize_write_enabled(const dl_str_map *configuration, int override)
{
	if (override >= 0) return override > 0;
	return is_true(get(configuration, "delta.autoOptimize.optimizeWrite"));
}

bool dl_ops_auto_compact_enabled(const dl_str_map *configuration, int override)
{
	if (override >= 0) return override > 0;
	/* the deprecated delta.autoOptimize = true turns it on; otherwise the
	 * newer property decides (AutoCompact.getAutoCompactType) */
	if (is_true(get(configuration, "delta.autoOptimize"))) return true;
	return is_true(get(configuration, "delta.autoOptimize.autoCompact"));
}
