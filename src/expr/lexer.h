/* Tokens of Spark SQL expression text. */
#ifndef DL_EXPR_LEXER_H
#define DL_EXPR_LEXER_H
#include <stdbool.h>
#include <stddef.h>

typedef enum ex_tok_kind {
	TK_EOF,
	TK_IDENT,   /* bare word (keywords too) */
	TK_QIDENT,  /* `back quoted` */
	TK_NUMBER,  /* numeric literal text with its suffix */
	TK_STRING,  /* 'single' or "double" quoted (raw text, escapes undone later) */
	TK_HEXSTR,  /* X'0AFF' */
	TK_OP,      /* punctuation / operator: text in op[] */
} ex_tok_kind;

typedef struct ex_token {
	ex_tok_kind kind;
	const char *p; /* start in the source */
	size_t len;
	int pos;       /* byte offset */
	char op[4];    /* TK_OP: the operator, NUL-terminated */
} ex_token;

typedef struct ex_lexer {
	const char *src;
	size_t len;
	size_t i;
} ex_lexer;

/* Scans the next token. DL_EINVALID on an unterminated quote or a
 * character that cannot start a token. */
int ex_lex_next(ex_lexer *lx, ex_token *out);
/* Case-insensitive comparison of an identifier token with a keyword. */
bool ex_tok_is(const ex_token *t, const char *kw);

#endif
