/* The public timestamp helpers (deltalake/timestamp.h) over time.c. */
#include <stdio.h>
#include <string.h>
#include "deltalake/timestamp.h"
#include "util/error.h"
#include "util/time.h"

_Static_assert(DL_TIMESTAMP_TEXT_MAX >= DL_TIME_TEXT_MAX, "the public text size must hold time.c's");

int dl_timestamp_parse_text(int64_t *us, const char *text)
{
	*us = 0;
	if (!text) return dl_error_set(DL_EINVALID, "no timestamp text");
	if (dl_timestamp_parse(us, text, strlen(text), NULL) < 0)
		return dl_error_set(DL_EINVALID, "'%s' is not a timestamp such as '2024-01-31 12:00:00' or "
		                    "'2024-01-31T12:00:00Z'", text);
	return 0;
}

size_t dl_timestamp_format(char *buf, size_t n, int64_t us)
{
	char tmp[DL_TIME_TEXT_MAX];
	size_t len = dl_timestamp_format_spark(tmp, us, NULL);
	if (n) snprintf(buf, n, "%s", tmp);
	return len;
}
