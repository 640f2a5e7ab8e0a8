/* Option parsing: --name value, --name=value, -n value, -nvalue, repeated
 * and comma-separated lists, positionals, "--". Values land in the command's
 * args struct at the offsets its table gives. */
#include "options.h"
#include "util.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

const dl_cli_opt dl_cli_global_opts[] = {
	DL_CLI_STRING(dl_cli_globals, format, 0, "format", "FMT", NULL,
	              "output format: table (default), csv, jsonl, json or vertical"),
	DL_CLI_STRING(dl_cli_globals, output, 'o', "output", "FILE", NULL,
	              "write the results to FILE instead of standard output"),
	DL_CLI_STRING(dl_cli_globals, storage_option, 0, "storage-option", "KEY=VALUE", NULL,
	              "store option for s3:// and other stores, e.g. region=eu-west-1 (repeatable)"),
	DL_CLI_FLAG(dl_cli_globals, quiet, 'q', "quiet", "no progress bars or notes on standard error"),
	DL_CLI_FLAG(dl_cli_globals, help, 'h', "help", "show this help"),
	DL_CLI_END,
};

bool dl_cli_is_positional(dl_cli_opt_kind k)
{
	return k == DL_CLI_OPT_ARG || k == DL_CLI_OPT_ARG_OPT || k == DL_CLI_OPT_ARG_REST;
}

bool dl_cli_takes_value(dl_cli_opt_kind k)
{
	return k == DL_CLI_OPT_STRING || k == DL_CLI_OPT_INT || k == DL_CLI_OPT_LIST || k == DL_CLI_OPT_NAMES;
}

static bool is_list(dl_cli_opt_kind k)
{
	return k == DL_CLI_OPT_LIST || k == DL_CLI_OPT_NAMES || k == DL_CLI_OPT_ARG_REST;
}

/* What a command's parse allocates, freed after the command ran. */
typedef struct cli_scratch {
	const char **items; /* the arrays of every list */
	dl_cli_arena arena;     /* copies of split names */
} cli_scratch;

void dl_cli_scratch_free(dl_cli *cli)
{
	cli_scratch *s = cli->scratch_;
	if (!s) return;
	free(s->items);
	dl_cli_arena_free(&s->arena);
	free(s);
	cli->scratch_ = NULL;
}

static void *field(const dl_cli_target *t, const dl_cli_opt *o)
{
	return t->base + o->offset;
}

static int parse_int(int64_t *out, const char *s)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end) return -1;
	*out = v;
	return 0;
}

static const char *opt_display(const dl_cli_opt *o, char *buf, size_t cap)
{
	if (o->name) snprintf(buf, cap, "--%s", o->name);
	else snprintf(buf, cap, "-%c", o->short_name);
	return buf;
}

/* --columns a,b: each comma-separated name becomes an item (copied, so the
 * caller's argv stays intact). Empty names are a usage error. */
static int store_names(dl_cli *cli, const dl_cli_target *t, const dl_cli_opt *o, const char *value)
{
	cli_scratch *s = cli->scratch_;
	dl_cli_list *l = field(t, o);
	for (const char *p = value;; p++) {
		size_t n = strcspn(p, ",");
		if (n == 0)
			return dl_cli_usage_error(cli, "--%s needs names separated by commas, got '%s'", o->name, value);
		const char *copy = dl_cli_arena_strndup(&s->arena, p, n);
		if (!copy) return DL_ENOMEM;
		l->items[l->n++] = copy;
		p += n;
		if (!*p) return 0;
	}
}

/* Stores one value of an option; DL_CLI_USAGE after a message. */
static int store_value(dl_cli *cli, const dl_cli_target *t, const dl_cli_opt *o, const char *value)
{
	char name[80];
	switch (o->kind) {
	case DL_CLI_OPT_FLAG:
		*(bool *)field(t, o) = true;
		return 0;
	case DL_CLI_OPT_ARG:
	case DL_CLI_OPT_ARG_OPT:
		*(const char **)field(t, o) = value;
		return 0;
	case DL_CLI_OPT_INT:
		if (parse_int((int64_t *)field(t, o), value) < 0)
			return dl_cli_usage_error(cli, "%s expects an integer, got '%s'",
			                          opt_display(o, name, sizeof name), value);
		/* An option defaulting to -1 uses it for "not given" (--version,
		 * --limit): its values are counts or versions, never negative, and a
		 * -1 typed by the user must not silently mean the default. */
		if (value != o->def && o->def && strcmp(o->def, "-1") == 0 && *(int64_t *)field(t, o) < 0)
			return dl_cli_usage_error(cli, "%s expects a number of 0 or more, got '%s'",
			                          opt_display(o, name, sizeof name), value);
		return 0;
	case DL_CLI_OPT_STRING:
		if (value != o->def && o->name && strcmp(o->name, "where") == 0 && !value[strspn(value, " \t\r\n")])
			return dl_cli_usage_error(cli, "--where needs a predicate, got an empty one");
		*(const char **)field(t, o) = value;
		return 0;
	case DL_CLI_OPT_NAMES:
		return store_names(cli, t, o, value);
	case DL_CLI_OPT_LIST:
	case DL_CLI_OPT_ARG_REST: {
		/* The items array was sized for every argument by dl_cli_parse_args. */
		dl_cli_list *l = field(t, o);
		l->items[l->n++] = value;
		return 0;
	}
	case DL_CLI_OPT_END:
		break;
	}
	return 0;
}

const dl_cli_opt *dl_cli_find_long(const dl_cli_opt *opts, const char *name, size_t len)
{
	for (const dl_cli_opt *o = opts; o && o->kind; o++) {
		if (!dl_cli_is_positional(o->kind) && o->name && strlen(o->name) == len && !strncmp(o->name, name, len))
			return o;
	}
	return NULL;
}

const dl_cli_opt *dl_cli_find_short(const dl_cli_opt *opts, char c)
{
	for (const dl_cli_opt *o = opts; o && o->kind; o++) {
		if (!dl_cli_is_positional(o->kind) && o->short_name == c) return o;
	}
	return NULL;
}

/* Looks an option up in the command's table, then in the global one. */
static const dl_cli_opt *lookup(const dl_cli_target *t, int nt, const char *name, size_t len, char c,
                                const dl_cli_target **which)
{
	for (int i = 0; i < nt; i++) {
		const dl_cli_opt *o = c ? dl_cli_find_short(t[i].opts, c) : dl_cli_find_long(t[i].opts, name, len);
		if (o) {
			*which = &t[i];
			return o;
		}
	}
	return NULL;
}

/* Sizes every list of the table for all the values argv could give it (one
 * allocation): one per word, plus one per comma for split names. */
int dl_cli_alloc_lists(dl_cli *cli, const dl_cli_target *t, int argc, char **argv)
{
	size_t nlists = 0, per = (size_t)argc + 1;
	for (const dl_cli_opt *o = t->opts; o && o->kind; o++) nlists += is_list(o->kind);
	for (int i = 0; i < argc; i++)
		for (const char *p = argv[i]; (p = strchr(p, ',')); p++) per++;
	cli_scratch *s = dl_cli_calloc(1, sizeof *s);
	if (!s) return DL_ENOMEM;
	cli->scratch_ = s;
	if (!nlists) return 0;
	size_t total;
	if (__builtin_mul_overflow(nlists, per, &total)) return dl_cli_fail(DL_ENOMEM, "too many arguments");
	const char **items = dl_cli_calloc(total, sizeof *items);
	if (!items) return DL_ENOMEM;
	s->items = items;
	for (const dl_cli_opt *o = t->opts; o && o->kind; o++) {
		if (is_list(o->kind)) {
			((dl_cli_list *)field(t, o))->items = items;
			items += per;
		}
	}
	return 0;
}

int dl_cli_apply_defaults(dl_cli *cli, const dl_cli_target *t)
{
	for (const dl_cli_opt *o = t->opts; o && o->kind; o++) {
		if (o->def && !dl_cli_is_positional(o->kind) && !is_list(o->kind)) {
			int rc = store_value(cli, t, o, o->def);
			if (rc) return rc;
		}
	}
	return 0;
}

/* The next positional of the table still open for a value. */
static const dl_cli_opt *next_positional(const dl_cli_target *t, int *pos_index)
{
	int i = 0;
	for (const dl_cli_opt *o = t->opts; o && o->kind; o++) {
		if (!dl_cli_is_positional(o->kind)) continue;
		if (o->kind == DL_CLI_OPT_ARG_REST) return o;
		if (i++ == *pos_index) {
			(*pos_index)++;
			return o;
		}
	}
	return NULL;
}

/* A "-5" or "-1.5" is a value, not an option, unless -5 is declared. */
static bool looks_like_option(const dl_cli_target *t, int nt, const char *a)
{
	const dl_cli_target *w;
	if (a[0] != '-' || a[1] == 0) return false; /* "-" is stdin, a value */
	if ((a[1] >= '0' && a[1] <= '9') || a[1] == '.') return lookup(t, nt, NULL, 0, a[1], &w) != NULL;
	return true;
}

/* Parses one option at argv[*i]; advances *i past its value. */
int dl_cli_parse_option(dl_cli *cli, const dl_cli_target *t, int nt, int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	const char *value = NULL;
	const dl_cli_target *which = NULL;
	const dl_cli_opt *o;
	char name[80];
	if (a[1] == '-') {
		const char *nm = a + 2;
		const char *eq = strchr(nm, '=');
		size_t len = eq ? (size_t)(eq - nm) : strlen(nm);
		o = lookup(t, nt, nm, len, 0, &which);
		if (!o) return dl_cli_usage_error(cli, "unknown option '--%.*s'", (int)len, nm);
		if (eq && !dl_cli_takes_value(o->kind))
			return dl_cli_usage_error(cli, "option --%s takes no value", o->name);
		if (eq) value = eq + 1;
	} else {
		o = lookup(t, nt, NULL, 0, a[1], &which);
		if (!o) return dl_cli_usage_error(cli, "unknown option '-%c'", a[1]);
		if (a[2] && !dl_cli_takes_value(o->kind))
			return dl_cli_usage_error(cli, "unknown option '%s' (flags cannot be combined)", a);
		if (a[2]) value = a + 2;
	}
	if (dl_cli_takes_value(o->kind) && !value) {
		if (*i + 1 >= argc)
			return dl_cli_usage_error(cli, "option %s needs a value (%s)",
			                          opt_display(o, name, sizeof name), o->metavar ? o->metavar : "VALUE");
		value = argv[++*i];
	}
	return store_value(cli, which, o, value);
}

/* Parses argv[0..argc) into the targets; the first target's positionals
 * receive the non-option words. */
int dl_cli_parse_args(dl_cli *cli, const dl_cli_target *t, int nt, int argc, char **argv)
{
	int pos_index = 0;
	bool only_positional = false;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (!only_positional && !strcmp(a, "--")) {
			only_positional = true;
			continue;
		}
		if (!only_positional && looks_like_option(t, nt, a)) {
			int rc = dl_cli_parse_option(cli, t, nt, argc, argv, &i);
			if (rc) return rc;
			continue;
		}
		const dl_cli_opt *p = next_positional(&t[0], &pos_index);
		if (!p) return dl_cli_usage_error(cli, "unexpected argument '%s'", a);
		int rc = store_value(cli, &t[0], p, a);
		if (rc) return rc;
	}
	return 0;
}

int dl_cli_check_required(dl_cli *cli, const dl_cli_target *t)
{
	for (const dl_cli_opt *o = t->opts; o && o->kind; o++) {
		if (o->kind == DL_CLI_OPT_ARG && !*(const char **)field(t, o))
			return dl_cli_usage_error(cli, "missing %s", o->metavar ? o->metavar : "argument");
	}
	return 0;
}
