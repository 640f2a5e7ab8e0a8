/* The memory budget operators charge (exec.h). Charging is a compare and
 * swap on one counter so parallel operators can share a budget; the check
 * happens before the bytes count, so a refused charge leaves the budget as
 * it was. */
#include "exec/exec.h"
#include "exec/spill.h"
#include "util/error.h"

int dl_exec_mem_charge(dl_exec_memory *m, int64_t bytes, const char *what)
{
	if (!m || bytes <= 0) return 0;
	int64_t cur = atomic_load(&m->used);
	for (;;) {
		int64_t next = cur + bytes;
		if (m->limit > 0 && next > m->limit)
			return dl_error_set(DL_ENOMEM,
			                    "%s: memory limit of %lld bytes exceeded (%lld in use, %lld more needed)",
			                    what, (long long)m->limit, (long long)cur, (long long)bytes);
		if (atomic_compare_exchange_weak(&m->used, &cur, next)) break;
	}
	int64_t peak = atomic_load(&m->peak), now = cur + bytes;
	while (now > peak && !atomic_compare_exchange_weak(&m->peak, &peak, now)) {
	}
	return 0;
}

void dl_exec_mem_release(dl_exec_memory *m, int64_t bytes)
{
	if (m && bytes > 0) atomic_fetch_sub(&m->used, bytes);
}

void dl_exec_mem_force(dl_exec_memory *m, int64_t bytes)
{
	if (!m || bytes <= 0) return;
	int64_t now = atomic_fetch_add(&m->used, bytes) + bytes, peak = atomic_load(&m->peak);
	while (now > peak && !atomic_compare_exchange_weak(&m->peak, &peak, now)) {
	}
}
