/* Versioned option structs: see options.h. */
#include "util/options.h"
#include <string.h>
#include "util/error.h"

int dl_options_check(int version, int current, const char *name, const char *init)
{
	if (version >= 1 && version <= current) return 0;
	if (current == 1)
		return dl_error_set(DL_EINVALID, "%s.version is %d; this library knows version 1 only: "
		                                  "initialize the options with %s",
		                    name, version, init);
	return dl_error_set(DL_EINVALID, "%s.version is %d; this library knows versions 1 to %d: "
	                                  "initialize the options with %s",
	                    name, version, current, init);
}

int dl_options_load(void *dst, const void *src, const size_t *ends, int current, const char *name,
                    const char *init)
{
	if (!src) return 0;
	int version;
	memcpy(&version, src, sizeof version);
	DL_TRY(dl_options_check(version, current, name, init));
	memcpy(dst, src, ends[version - 1]);
	memcpy(dst, &current, sizeof current);
	return 0;
}
