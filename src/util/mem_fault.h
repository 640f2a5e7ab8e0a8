/* Test-only allocation failure, as SQLite's test harness fails its own
 * malloc: once armed, every dl_malloc/dl_calloc/dl_realloc (and the
 * functions built on them) is counted, and the nth (and the `times - 1`
 * after it) fails with DL_ENOMEM exactly as a real out-of-memory would.
 * tests/unit/ops/test_fail_walk_*.c walk n over every allocation of a
 * command. Disarmed (the default) it costs one relaxed atomic load per
 * allocation. Counting is process-wide (every thread), so a walk runs its
 * command with one thread to make "the nth allocation" the same call in
 * every run. */
#ifndef DL_UTIL_MEM_FAULT_H
#define DL_UTIL_MEM_FAULT_H
#include <stdint.h>

/* Starts counting allocations from 0. nth 0: count only, never fail; else
 * allocations nth .. nth+times-1 fail (times 0: every one from nth on). */
void dl_mem_fault_arm(int64_t nth, int64_t times);

/* Stops counting; the allocations counted since dl_mem_fault_arm and how
 * many of them were failed (either may be NULL). */
void dl_mem_fault_disarm(int64_t *calls, int64_t *injected);

#endif
