#ifndef WH_GOCOMPAT_REGEX_H
#define WH_GOCOMPAT_REGEX_H

/* Go's regular expressions (package regexp, RE2 syntax) as upstream OpenKruise runs them: it is
 * built with Go 1.23 (golang:1.23.9), so this is that release's regexp.Compile and
 * Regexp.MatchString, with an engine of our own (gocompat/regex/: parse.c, classes.c,
 * compile.c, match.c).
 *
 * Compiling accepts exactly what Go 1.23's regexp.Compile accepts and refuses the rest with its
 * error, code and offending text (`error parsing regexp: invalid repeat count: `{1,1000}``):
 * the parser follows regexp/syntax step by step, because Go's limits depend on the shape of its
 * parse tree: repeat counts over 1000, nested repeats whose product exceeds 1000, a tree more
 * than 1000 deep ("expression nests too deeply"), more than 3355443 program instructions or
 * 33554432 class runes by Go's own accounting ("expression too large"). Go 1.23 names Unicode
 * classes exactly as its unicode.Categories and unicode.Scripts do (\pL, \p{Greek},
 * \p{Old_Italic}, \P{..}, \p{^..}) plus Any; later releases also take aliases and loose
 * spellings (\p{Letter}, \p{greek}), which 1.23 refuses and so do we.
 *
 * Matching is regexp.MatchString: true when the pattern matches anywhere in the text (UTF-8,
 * invalid bytes read as U+FFFD as Go reads them), with every Unicode class exact (the Unicode
 * 15.0 tables of Go 1.23 are compiled in). It simulates the compiled program breadth-first
 * (Thompson's construction, no backtracking), so its cost is at most proportional to the text's
 * length times the program's size, whatever the pattern.
 *
 * Cost of a compiled regex: a 4-byte instruction per program step (a literal string is one
 * step however long) and the runes of its classes, identical classes stored once: a few hundred
 * bytes for an ordinary pattern. Go's limits bound both: the instructions to about 27 MB (twice
 * Go's 3355443; compile.c refuses past four times Go's count, which no pattern Go accepts has
 * been found to reach), the class runes to Go's own 128 MB, which takes tens of thousands of
 * distinct large classes (\pL alone is 5 KB). Compiling costs time and memory proportional to the
 * pattern (about 48 bytes a node of Go's tree, plus its classes) and to that program, and is
 * released before it returns.
 *
 * Thread rule: a compiled regex is immutable; any number of threads may match with it at once.
 * Compiling and matching keep no shared state. */

#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

struct wh_regex;

/* regexp/syntax's error codes (ErrorCode), in the order Go declares them. */
enum wh_regex_code {
    WH_REGEX_OK = 0,
    WH_REGEX_INTERNAL_ERROR,        /* "regexp/syntax: internal error" (never produced) */
    WH_REGEX_INVALID_CHAR_CLASS,    /* "invalid character class" (declared, never produced) */
    WH_REGEX_INVALID_CHAR_RANGE,    /* "invalid character class range" */
    WH_REGEX_INVALID_ESCAPE,        /* "invalid escape sequence" */
    WH_REGEX_INVALID_NAMED_CAPTURE, /* "invalid named capture" */
    WH_REGEX_INVALID_PERL_OP,       /* "invalid or unsupported Perl syntax" */
    WH_REGEX_INVALID_REPEAT_OP,     /* "invalid nested repetition operator" */
    WH_REGEX_INVALID_REPEAT_SIZE,   /* "invalid repeat count" */
    WH_REGEX_INVALID_UTF8,          /* "invalid UTF-8" */
    WH_REGEX_MISSING_BRACKET,       /* "missing closing ]" */
    WH_REGEX_MISSING_PAREN,         /* "missing closing )" */
    WH_REGEX_MISSING_REPEAT_ARG,    /* "missing argument to repetition operator" */
    WH_REGEX_TRAILING_BACKSLASH,    /* "trailing backslash at end of expression" */
    WH_REGEX_UNEXPECTED_PAREN,      /* "unexpected )" */
    WH_REGEX_NESTING_DEPTH,         /* "expression nests too deeply" */
    WH_REGEX_LARGE,                 /* "expression too large" */
};

/* Why a pattern was refused: the code and the offending text (Go's Error.Expr), which is always
 * pattern[off, off + len). */
struct wh_regex_error {
    enum wh_regex_code code;
    size_t off, len;
};

/* regexp.Compile(pattern[0, len)) (the pattern may hold NUL bytes). On success *out is a new
 * regex (release it with wh_regex_free). Errors: WH_ERR_INVALID with *err set and *out NULL. */
WH_NODISCARD enum wh_err wh_regex_compile(const char *pattern, size_t len, struct wh_regex **out,
                                          struct wh_regex_error *err);
void wh_regex_free(struct wh_regex *r); /* accepts NULL */

/* Only the syntax check, without building the program: true when Go would compile the pattern;
 * else false with *err set (err may be NULL). */
bool wh_regex_valid(const char *pattern, size_t len, struct wh_regex_error *err);

/* Regexp.MatchString(s[0, len)): true when the pattern matches anywhere in s. */
bool wh_regex_match(const struct wh_regex *r, const char *s, size_t len);

/* Bytes the compiled regex holds (for benchmarks and the cache's accounting). */
size_t wh_regex_memory(const struct wh_regex *r);

/* How many times wh_regex_compile has run in this process (the tests check with it that a Pod
 * compiles nothing). */
unsigned long wh_regex_compilations(void);

/* The ErrorCode's text ("invalid repeat count"). Returns: a static string. */
const char *wh_regex_code_text(enum wh_regex_code code);

/* Go's message for err, pattern being the text that was compiled: "error parsing regexp:
 * <code text>: `<expr>`". The offending text may hold NUL bytes: *len (when len is not NULL)
 * is the message's length. Returns: new string, never NULL (free it). */
char *wh_regex_error_message(const char *pattern, const struct wh_regex_error *err, size_t *len);

#endif
