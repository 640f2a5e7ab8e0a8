/* Thread-local last error. Messages are kept in a fixed per-thread buffer so
 * raising an error never needs memory (it must work when malloc fails). */
#include "util/error.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>

#define DL_ERR_MSG_MAX 1024
#define DL_ERR_CLASS_MAX 96

static _Thread_local char tl_message[DL_ERR_MSG_MAX];
static _Thread_local char tl_class[DL_ERR_CLASS_MAX];
static _Thread_local dl_error tl_error = {DL_OK, "", ""};
/* warnings: fixed room too, so warning never needs memory either */
static _Thread_local char tl_warnings[2048];

const char *dl_warning_last(void)
{
	return tl_warnings[0] ? tl_warnings : NULL;
}

void dl_warning_clear(void)
{
	tl_warnings[0] = 0;
}

void dl_warning_add(const char *fmt, ...)
{
	size_t len = strlen(tl_warnings);
	if (len + 2 >= sizeof tl_warnings) return;
	if (len) tl_warnings[len++] = '\n';
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(tl_warnings + len, sizeof tl_warnings - len, fmt, ap);
	va_end(ap);
}

const dl_error *dl_error_last(void)
{
	tl_error.klass = tl_class;
	tl_error.message = tl_message;
	return &tl_error;
}

void dl_error_clear(void)
{
	tl_error.code = DL_OK;
	tl_message[0] = 0;
	tl_class[0] = 0;
}

int dl_error_setv(int code, const char *fmt, va_list ap)
{
	tl_error.code = code;
	tl_class[0] = 0;
	vsnprintf(tl_message, sizeof tl_message, fmt, ap);
	return code;
}

int dl_error_set(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	dl_error_setv(code, fmt, ap);
	va_end(ap);
	return code;
}

int dl_error_set_class(int code, const char *klass, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	dl_error_setv(code, fmt, ap);
	va_end(ap);
	snprintf(tl_class, sizeof tl_class, "%s", klass ? klass : "");
	return code;
}

int dl_error_prefix(const char *fmt, ...)
{
	char prefix[512];
	char old[DL_ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof prefix, fmt, ap);
	va_end(ap);
	memcpy(old, tl_message, sizeof old);
	/* Truncation is fine: the start of the message matters most. */
	size_t pl = strlen(prefix), ol = strlen(old);
	if (pl > sizeof tl_message - 3) pl = sizeof tl_message - 3;
	memcpy(tl_message, prefix, pl);
	memcpy(tl_message + pl, ": ", 2);
	if (ol > sizeof tl_message - pl - 3) ol = sizeof tl_message - pl - 3;
	memcpy(tl_message + pl + 2, old, ol);
	tl_message[pl + 2 + ol] = 0;
	if (tl_error.code == DL_OK) tl_error.code = DL_ERROR;
	return tl_error.code;
}

int dl_error_errno(const char *what, const char *path)
{
	int e = errno;
	int code = DL_EIO;
	if (e == ENOENT || e == ENOTDIR) code = DL_ENOTFOUND;
	else if (e == EEXIST) code = DL_EEXISTS;
	else if (e == ENOMEM) code = DL_ENOMEM;
	return dl_error_set(code, "%s %s: %s", what, path ? path : "", strerror(e));
}

const char *dl_error_code_name(int code)
{
	switch (code) {
	case DL_OK: return "DL_OK";
	case DL_ERROR: return "DL_ERROR";
	case DL_ENOTFOUND: return "DL_ENOTFOUND";
	case DL_EINVALID: return "DL_EINVALID";
	case DL_EUNSUPPORTED: return "DL_EUNSUPPORTED";
	case DL_ECONFLICT: return "DL_ECONFLICT";
	case DL_EEXISTS: return "DL_EEXISTS";
	case DL_EIO: return "DL_EIO";
	case DL_ECORRUPT: return "DL_ECORRUPT";
	case DL_ENOMEM: return "DL_ENOMEM";
	case DL_ECONSTRAINT: return "DL_ECONSTRAINT";
	case DL_ESCHEMA: return "DL_ESCHEMA";
	case DL_ECANCELLED: return "DL_ECANCELLED";
	case DL_EPERM: return "DL_EPERM";
	default: return "DL_E?";
	}
}
