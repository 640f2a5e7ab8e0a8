/* Window functions: fn(...) OVER (PARTITION BY ... ORDER BY ... frame).
 * They need the exec window operator (dl_exec_window), which is being
 * written on its own branch; until it is merged they are refused with a
 * clear error rather than planned half-way. */
#include "sql/plan_internal.h"

int pl_window_call(ex_node **out, rw_ctx *c, const ex_node *n)
{
	(void)out;
	(void)c;
	return dl_error_set(DL_EUNSUPPORTED, "window function %s at position %d: window functions are not supported yet",
	                    n->name, n->pos);
}

int pl_windows(pn **node, planner *P, win_ctx *w)
{
	(void)node;
	(void)P;
	return w->n ? dl_error_set(DL_EUNSUPPORTED, "window functions are not supported yet") : 0;
}
