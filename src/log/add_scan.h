/* The hot path of log replay: extracting an add action straight from its
 * line, without building a JSON DOM. It handles the common shape of add
 * lines (the fields of PROTOCOL.md "Add File" without a deletion vector,
 * ASCII strings) and declines anything else, which then goes through the
 * DOM parser (json/json.h) and dl_action_from_json: the result is the same,
 * only slower. Declining is never an error. */
#ifndef DL_LOG_ADD_SCAN_H
#define DL_LOG_ADD_SCAN_H
#include <stddef.h>
#include "log/actions.h"
#include "util/arena.h"

/* 1: *out is the line's add action (strings in `arena`); 0: declined
 * (arena allocations of the attempt may remain); DL_ENOMEM. */
int dl_add_scan(dl_add *out, dl_arena *arena, const char *line, size_t len);

#endif
