/* The command registry: every DL_CLI_COMMAND puts a pointer into the
 * linker section "dl_cli_commands"; this file walks it. */
#include "registry.h"
#include "util.h"
#include <stdlib.h>
#include <string.h>

/* Defined by the linker around the section; weak so a program without any
 * registered command still links (the range is then empty). */
extern const dl_cli_command *const __start_dl_cli_commands[] __attribute__((weak));
extern const dl_cli_command *const __stop_dl_cli_commands[] __attribute__((weak));

void dl_cli_registry(const dl_cli_command *const **begin, size_t *n)
{
	*begin = __start_dl_cli_commands;
	*n = __start_dl_cli_commands && __stop_dl_cli_commands
	         ? (size_t)(__stop_dl_cli_commands - __start_dl_cli_commands)
	         : 0;
}

const dl_cli_command *dl_cli_find(const char *name)
{
	const dl_cli_command *const *cmds;
	size_t n;
	dl_cli_registry(&cmds, &n);
	for (size_t i = 0; i < n; i++) {
		if (cmds[i] && cmds[i]->name && !strcmp(cmds[i]->name, name)) return cmds[i];
	}
	return NULL;
}

const dl_cli_command *dl_cli_find_pair(const char *w0, const char *w1)
{
	const dl_cli_command *const *cmds;
	size_t n, l0 = strlen(w0);
	dl_cli_registry(&cmds, &n);
	for (size_t i = 0; i < n; i++) {
		const char *nm = cmds[i] && cmds[i]->name ? cmds[i]->name : "";
		if (!strncmp(nm, w0, l0) && nm[l0] == ' ' && !strcmp(nm + l0 + 1, w1)) return cmds[i];
	}
	return NULL;
}

size_t dl_cli_first_word_len(const char *name)
{
	return strcspn(name, " ");
}

bool dl_cli_is_group(const char *group)
{
	const dl_cli_command *const *cmds;
	size_t n, gl = strlen(group);
	dl_cli_registry(&cmds, &n);
	for (size_t i = 0; i < n; i++) {
		const char *nm = cmds[i] && cmds[i]->name ? cmds[i]->name : "";
		if (!strncmp(nm, group, gl) && nm[gl] == ' ') return true;
	}
	return false;
}

static int compare_commands(const void *a, const void *b)
{
	const dl_cli_command *x = *(const dl_cli_command *const *)a;
	const dl_cli_command *y = *(const dl_cli_command *const *)b;
	return strcmp(x->name, y->name);
}

const dl_cli_command **dl_cli_sorted_commands(size_t *count)
{
	const dl_cli_command *const *cmds;
	size_t n, k = 0;
	dl_cli_registry(&cmds, &n);
	*count = 0;
	const dl_cli_command **out = n ? dl_cli_calloc(n, sizeof *out) : NULL;
	if (!out) return NULL;
	for (size_t i = 0; i < n; i++) {
		if (cmds[i] && cmds[i]->name && !cmds[i]->hidden) out[k++] = cmds[i];
	}
	qsort(out, k, sizeof *out, compare_commands);
	*count = k;
	return out;
}
