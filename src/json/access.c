/* Lookups in parsed values. */
#include "json/json.h"
#include <string.h>

const dl_json *dl_json_get(const dl_json *obj, const char *key)
{
	if (!obj || obj->kind != DL_JSON_OBJECT || !key) return NULL;
	size_t klen = strlen(key);
	/* Duplicate names: the last one wins, as in JavaScript and Jackson
	 * (which Spark uses to write Delta logs). */
	for (size_t i = obj->u.obj.n; i-- > 0;) {
		const dl_json_member *m = &obj->u.obj.items[i];
		/* Checking the first byte inline skips most memcmp calls. */
		if (m->key_len == klen && (klen == 0 || (m->key[0] == key[0] && memcmp(m->key, key, klen) == 0)))
			return &m->value;
	}
	return NULL;
}

const char *dl_json_get_str(const dl_json *obj, const char *key)
{
	const dl_json *v = dl_json_get(obj, key);
	return v && v->kind == DL_JSON_STRING ? v->u.str.ptr : NULL;
}

bool dl_json_is_null(const dl_json *v)
{
	return v && v->kind == DL_JSON_NULL;
}
