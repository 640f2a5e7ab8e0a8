/* libFuzzer harness for the Delta Sharing client's parsers of outside data:
 * profile files and the NDJSON lines of query/changes answers. Any input
 * must parse or fail with an error code (never crash, hang or leak); every
 * string a parsed line hands out is NUL-terminated. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "deltalake/sharing.h"

static int check(const dl_sharing_line *l, void *p)
{
	(void)p;
	const char *s[] = {l->url, l->id, l->partition_values, l->stats, l->delta_action, l->metadata,
	                   l->delta_protocol, l->deletion_vector_file_id};
	size_t n = 0;
	for (size_t i = 0; i < sizeof s / sizeof *s; i++)
		if (s[i]) n += strlen(s[i]);
	if (l->kind < DL_SHARING_PROTOCOL || l->kind > DL_SHARING_END_STREAM) abort();
	if ((l->kind == DL_SHARING_FILE || l->kind == DL_SHARING_ADD) && (!l->url || !l->id)) abort();
	return n == (size_t)-1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	dl_sharing_profile *p = NULL;
	if (dl_sharing_profile_parse(&p, (const char *)data, size, "fuzz") == 0) {
		if (!dl_sharing_profile_endpoint(p)) abort();
		dl_sharing_profile_free(p);
	} else if (p) {
		abort();
	}
	int rc = dl_sharing_parse_line((const char *)data, size, 1, "fuzz", check, NULL);
	if (rc > 0) abort();
	return 0;
}
