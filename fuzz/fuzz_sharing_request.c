/* libFuzzer harness for what the sharing server parses from a request
 * before touching a table: the URL path grammar (src/sharing/
 * server_routes.c), the Authorization header, the capabilities header and
 * the jsonPredicateHints translation (server_query.c), and /files tokens
 * (signed_url.c). The input is split at NUL bytes into those fields. A
 * parsed path never has "." / ".." / empty names or a '/' in a name, a
 * token never verifies without the key, and nothing crashes or leaks. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sharing/server.h"
#include "util/error.h"
#include "util/mem.h"

static void check_name(const char *s)
{
	if (!s) return;
	if (!*s || strchr(s, '/') || !strcmp(s, ".") || !strcmp(s, "..")) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = dl_malloc(size + 1);
	if (!buf) return 0;
	memcpy(buf, data, size);
	buf[size] = 0;
	const char *field[4] = {"", "", "", ""};
	size_t n = 0, start = 0;
	for (size_t i = 0; i <= size && n < 4; i++)
		if (i == size || buf[i] == 0) {
			field[n++] = buf + start;
			start = i + 1;
		}
	dl_shr_path p;
	if (dl_shr_path_parse(&p, (size & 1) ? "/delta-sharing" : "", field[0]) == 0) {
		check_name(p.share);
		check_name(p.schema);
		check_name(p.table);
		check_name(p.token);
		dl_shr_path_free(&p);
	}
	dl_shr_caps caps;
	dl_shr_caps_parse(&caps, field[1]);
	char *sql;
	if (dl_shr_json_predicate_sql(&sql, field[2]) == 0) dl_free(sql);
	/* A fixed key: the fuzzer cannot know it, so nothing may verify. */
	dl_shr_signer s;
	memset(&s, 0x5a, sizeof s);
	dl_shr_signed_file f;
	if (dl_shr_verify_file(&f, &s, field[3], 0) == 0) {
		/* Only a token signed with the key verifies: re-sign to compare. */
		dl_buf b = DL_BUF_INIT;
		if (dl_shr_sign_file(&b, &s, f.share, f.schema, f.table, f.location, f.expires_ms) < 0 ||
		    strcmp(b.data + 7, field[3]))
			abort();
		dl_buf_free(&b);
		dl_shr_signed_file_free(&f);
	}
	dl_shr_config c = {0};
	const char *why;
	(void)dl_shr_authenticate(&c, field[1], 0, &why);
	dl_free(buf);
	return 0;
}
