#ifndef WH_GOCOMPAT_REGEX_H
#define WH_GOCOMPAT_REGEX_H

/* Go regular expressions (RE2 syntax, package regexp) as far as the webhooks need them: compile
 * with Go's error messages ("error parsing regexp: missing closing ]: `[a`"), and an unanchored
 * "does it match anywhere" test (regexp.MatchString). Matching runs on the C library's POSIX
 * extended regex engine after the RE2 syntax is translated (Perl classes \d \w \s, (?:...),
 * non-greedy operators, \A \z, flags (?i) at the start, \Q...\E, classes with escapes);
 * existence of a match does not depend on greediness, so MatchString agrees with Go.
 * Unicode classes (\pL) are approximated by their ASCII POSIX counterparts.
 * Thread rule: a compiled regex may be used by several threads (regexec is thread-safe). */

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

struct wh_regex {
    regex_t re;
    bool ok;
};

/* Compiles pattern. Errors: WH_ERR_INVALID with Go's message in eb (the message of
 * regexp.Compile's error, starting "error parsing regexp: "). */
WH_NODISCARD enum wh_err wh_regex_compile(struct wh_regex *r, const char *pattern,
                                          struct wh_errbuf *eb);
void wh_regex_free(struct wh_regex *r); /* accepts a failed or zeroed one */

/* regexp.MatchString: true when the pattern matches anywhere in s. */
bool wh_regex_match(const struct wh_regex *r, const char *s);

/* Only the syntax check: true when Go would compile pattern; else false with the message. */
bool wh_regex_check(const char *pattern, char *msg, size_t msgsz);

#endif
