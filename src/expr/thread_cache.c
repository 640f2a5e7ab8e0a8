#include "expr/thread_cache.h"
#include <pthread.h>
#include "util/mem.h"

static pthread_key_t key;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int key_ok;

static void release(void *p)
{
	ex_thread_cache *c = p;
	for (int i = 0; i < EX_POOL_SIZE; i++) dl_array_free(c->pool[i]);
	if (c->regex) c->regex_free(c->regex);
	dl_free(c);
}

static void make_key(void)
{
	key_ok = pthread_key_create(&key, release) == 0;
}

ex_thread_cache *ex_thread_cache_get(void)
{
	pthread_once(&once, make_key);
	if (!key_ok) return NULL;
	ex_thread_cache *c = pthread_getspecific(key);
	if (c) return c;
	c = dl_calloc(1, sizeof *c);
	if (!c) return NULL;
	if (pthread_setspecific(key, c) != 0) {
		dl_free(c);
		return NULL;
	}
	return c;
}
