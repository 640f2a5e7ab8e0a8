/* Java regular expressions (what Spark's RLIKE, regexp_replace,
 * regexp_extract and split take) translated to POSIX extended regular
 * expressions for regcomp. */
#ifndef DL_EXPR_REGEX_JAVA_H
#define DL_EXPR_REGEX_JAVA_H
#include <stddef.h>
#include "util/buf.h"

/* Appends the POSIX ERE form of the Java pattern p[0..n) to out (NUL-
 * terminated). Translated: the classes \d \D \w \W \s \S (also inside
 * [...]), the escapes \t \n \r \f \e \0ooo \xhh, \Q...\E quoting and escaped
 * punctuation. Java constructs with no POSIX equivalent (lazy or possessive
 * quantifiers, (?...) groups and look-around, back-references in patterns,
 * \b \B \A \z \Z \p{..}) are DL_EUNSUPPORTED naming the construct, rather
 * than compiled into something that matches differently. */
int ex_regex_from_java(dl_buf *out, const char *p, size_t n);

#endif
