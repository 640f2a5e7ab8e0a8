/* Bare column references (op.h: dl_exec_column_ref). Evaluating `x`
 * through the expression layer copies the column, which is right for a
 * result that must outlive its batch; operators that use a value only
 * while the batch is alive (the aggregate's keys and arguments), or that
 * own the batch and may take its columns (project), ask this first and
 * borrow or move the column instead. */
#include "exec/op.h"
#include "expr/ast.h"

int dl_exec_column_ref(const dl_expr *e, const dl_batch *b)
{
	if (!e || !e->bound || e->bound->kind != EX_COL || e->bound->npath != 1 || !e->bound->colidx) return -1;
	int c = e->bound->colidx[0];
	if (!b) return c;
	/* the same checks eval_column makes before it hands the column out */
	if (c < 0 || c >= b->ncols || !b->cols[c] || b->cols[c]->length != b->num_rows ||
	    b->cols[c]->type->id != e->bound->type->id)
		return -1;
	return c;
}
