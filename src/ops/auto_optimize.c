/* Whether a table optimizes its writes / compacts after commits (see
 * auto_optimize.h). */
#include "ops/auto_optimize.h"
#include <ctype.h>
#include <string.h>
#include <strings.h>
#include "optimize/auto_compact.h"
#include "util/error.h"
#include "util/mem.h"

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
	return configuration && dl_auto_compact_enabled(configuration);
}

void dl_ops_auto_compact_after_commit(dl_store *store, const dl_str_map *configuration, int override,
                                      int64_t version)
{
	if (version < 0 || !store || !dl_ops_auto_compact_enabled(configuration, override)) return;
	/* the caller's error state (a success: usually clear) survives */
	dl_error saved = *dl_error_last();
	char *msg = saved.code ? dl_strdup(saved.message) : NULL;
	char *klass = saved.code ? dl_strdup(saved.klass) : NULL;
	dl_optimize_metrics m;
	dl_auto_compact_options o = DL_AUTO_COMPACT_OPTIONS_INIT;
	(void)dl_auto_compact(&m, store, version, &o);
	if (!saved.code) dl_error_clear();
	else if (msg && klass && *klass) dl_error_set_class(saved.code, klass, "%s", msg);
	else if (msg) dl_error_set(saved.code, "%s", msg);
	dl_free(msg);
	dl_free(klass);
}
