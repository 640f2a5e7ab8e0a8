#include "json/c_locale.h"
#include <pthread.h>
#include <stddef.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static locale_t c_locale;

static void make_c_locale(void)
{
	/* Lives for the whole process, like the global locale itself. */
	c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

locale_t dl_json_c_locale(void)
{
	pthread_once(&once, make_c_locale);
	return c_locale;
}
