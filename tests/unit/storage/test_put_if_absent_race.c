/* The commit primitive under contention: many processes put_if_absent the
 * same log entry at the same moment with different large contents. Exactly
 * one must win, every other must get DL_EEXISTS, and the object must hold
 * exactly the winner's bytes - never a mix, never a partial file. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>
#include "deltalake/store.h"
#include "storage/store_mem.h"
#include "util/error.h"

#define WRITERS 16
#define ROUNDS 4
#define SIZE (1u << 20)

enum { EXIT_WON = 10, EXIT_LOST = 11, EXIT_OTHER = 12 };

/* Content unique to a writer: every 4-byte word holds (writer << 24 | i). */
static uint8_t *content_of(int writer)
{
	uint32_t *p = malloc(SIZE);
	for (uint32_t i = 0; i < SIZE / 4; i++) p[i] = ((uint32_t)writer << 24) | (i & 0xffffff);
	return (uint8_t *)p;
}

static void child(const char *root, const char *name, int writer, int go_fd)
{
	uint8_t *data = content_of(writer);
	dl_store *s;
	if (!data || dl_store_open(&s, root, NULL) < 0) _exit(EXIT_OTHER);
	char c;
	if (read(go_fd, &c, 1) != 1) _exit(EXIT_OTHER); /* wait for the start signal */
	int rc = dl_store_put_if_absent(s, name, data, SIZE);
	dl_store_free(s);
	free(data);
	_exit(rc == 0 ? EXIT_WON : rc == DL_EEXISTS ? EXIT_LOST : EXIT_OTHER);
}

static void race_round(const char *root, const char *name)
{
	int go[2];
	assert_int_equal(pipe(go), 0);
	pid_t pids[WRITERS];
	for (int w = 0; w < WRITERS; w++) {
		pids[w] = fork();
		assert_true(pids[w] >= 0);
		if (pids[w] == 0) {
			close(go[1]);
			child(root, name, w, go[0]);
		}
	}
	close(go[0]);
	/* All children are blocked on the pipe; release them together. */
	char start[WRITERS];
	memset(start, 'g', sizeof start);
	assert_int_equal(write(go[1], start, sizeof start), WRITERS);
	close(go[1]);

	int winners = 0, losers = 0, winner = -1;
	for (int w = 0; w < WRITERS; w++) {
		int status;
		assert_int_equal(waitpid(pids[w], &status, 0), pids[w]);
		assert_true(WIFEXITED(status));
		int code = WEXITSTATUS(status);
		if (code == EXIT_WON) winners++, winner = w;
		else if (code == EXIT_LOST) losers++;
		else fail_msg("writer %d failed with exit code %d", w, code);
	}
	assert_int_equal(winners, 1);
	assert_int_equal(losers, WRITERS - 1);

	dl_store *s;
	assert_int_equal(dl_store_open(&s, root, NULL), 0);
	uint8_t *got;
	size_t len;
	assert_int_equal(dl_store_get(&got, &len, s, name), 0);
	assert_int_equal(len, SIZE);
	uint8_t *want = content_of(winner);
	assert_memory_equal(got, want, SIZE);
	free(want);
	dl_free(got);

	/* Losers cleaned up their temp files: only committed objects remain. */
	dl_object_list l;
	assert_int_equal(dl_store_list_recursive(&l, s, ""), 0);
	for (size_t i = 0; i < l.count; i++) assert_null(strstr(l.items[i].path, ".tmp"));
	dl_object_list_free(&l);
	dl_store_free(s);
}

static void file_store_race(void **state)
{
	(void)state;
	char dir[] = "/tmp/dl_race_XXXXXX";
	assert_non_null(mkdtemp(dir));
	char root[64];
	snprintf(root, sizeof root, "file://%s/table", dir);
	for (int r = 0; r < ROUNDS; r++) {
		char name[64];
		/* Round 0 also races on creating _delta_log itself. */
		snprintf(name, sizeof name, "_delta_log/%020d.json", r);
		race_round(root, name);
	}
	dl_store *s;
	assert_int_equal(dl_store_open(&s, root, NULL), 0);
	dl_object_list l;
	assert_int_equal(dl_store_list_from(&l, s, "_delta_log", NULL), 0);
	assert_int_equal(l.count, ROUNDS);
	dl_object_list_free(&l);
	dl_store_free(s);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

typedef struct racer {
	const char *root;
	int writer;
	pthread_barrier_t *start;
	int rc;
} racer;

static void *race_thread(void *arg)
{
	racer *r = arg;
	uint8_t *data = content_of(r->writer);
	dl_store *s;
	r->rc = dl_store_open(&s, r->root, NULL);
	pthread_barrier_wait(r->start);
	if (r->rc == 0) {
		r->rc = dl_store_put_if_absent(s, "_delta_log/00000000000000000000.json", data, SIZE);
		dl_store_free(s);
	}
	free(data);
	return NULL;
}

/* The same contest between threads, on both backends. */
static void thread_race(const char *root)
{
	pthread_barrier_t start;
	pthread_barrier_init(&start, NULL, WRITERS);
	pthread_t th[WRITERS];
	racer r[WRITERS];
	for (int w = 0; w < WRITERS; w++) {
		r[w] = (racer){root, w, &start, 1};
		assert_int_equal(pthread_create(&th[w], NULL, race_thread, &r[w]), 0);
	}
	int winners = 0, winner = -1;
	for (int w = 0; w < WRITERS; w++) {
		pthread_join(th[w], NULL);
		if (r[w].rc == 0) winners++, winner = w;
		else assert_int_equal(r[w].rc, DL_EEXISTS);
	}
	pthread_barrier_destroy(&start);
	assert_int_equal(winners, 1);
	dl_store *s;
	assert_int_equal(dl_store_open(&s, root, NULL), 0);
	uint8_t *got;
	size_t len;
	assert_int_equal(dl_store_get(&got, &len, s, "_delta_log/00000000000000000000.json"), 0);
	assert_int_equal(len, SIZE);
	uint8_t *want = content_of(winner);
	assert_memory_equal(got, want, SIZE);
	free(want);
	dl_free(got);
	dl_store_free(s);
}

static void threads_race_on_both_backends(void **state)
{
	(void)state;
	thread_race("mem://race_test/t");
	dl_store_mem_drop("race_test");
	char dir[] = "/tmp/dl_race_XXXXXX";
	assert_non_null(mkdtemp(dir));
	thread_race(dir);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(file_store_race),
		cmocka_unit_test(threads_race_on_both_backends),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
