#ifndef WH_TEST_UNIT_TEST_H
#define WH_TEST_UNIT_TEST_H

/* The unit test helper (redis style). A test is `TEST(name) { ... }` at the start of a line in
 * test/unit/test_<module>.c; the Makefile collects the names, so there is no list to edit.
 * A failed check prints file:line with both values and the test goes on. */

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

extern int wh_test_failed_checks;

#define TEST(name)                                                                                 \
    void test_##name(void);                                                                        \
    void test_##name(void)

#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #c);                  \
            wh_test_failed_checks++;                                                               \
        }                                                                                          \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                                         \
    do {                                                                                           \
        long long wh_a_ = (long long)(a), wh_b_ = (long long)(b);                                  \
        if (wh_a_ != wh_b_) {                                                                      \
            fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, #a, #b,  \
                    wh_a_, wh_b_);                                                                 \
            wh_test_failed_checks++;                                                               \
        }                                                                                          \
    } while (0)

#define CHECK_EQ_STR(a, b)                                                                         \
    do {                                                                                           \
        const char *wh_a_ = (a), *wh_b_ = (b);                                                     \
        if (!wh_a_ || !wh_b_ || strcmp(wh_a_, wh_b_) != 0) {                                       \
            fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" != \"%s\"\n", __FILE__, __LINE__, #a,  \
                    #b, wh_a_ ? wh_a_ : "(null)", wh_b_ ? wh_b_ : "(null)");                       \
            wh_test_failed_checks++;                                                               \
        }                                                                                          \
    } while (0)

/* Compares two JSON values (key order ignored, array order not) and prints both on failure. */
#define CHECK_EQ_JSON(a, b) wh_test_check_json(__FILE__, __LINE__, #a, #b, (a), (b))
void wh_test_check_json(const char *file, int line, const char *ea, const char *eb,
                        const json_t *a, const json_t *b);

/* Parses a JSON literal for a test; aborts the runner on a typo in the test itself.
 * Returns: new ref. */
json_t *wh_test_json(const char *text);
/* The same with single quotes standing for double quotes (no string in it may contain a
 * quote), so that JSON reads well inside C strings. Returns: new ref. */
json_t *wh_test_jq(const char *text);

/* Writes text to dir/name, creating the directories name passes through (name may hold '/'). */
void wh_test_write_file(const char *dir, const char *name, const char *text);

/* Reads a whole file (for test data); aborts if it cannot. Returns: new string. */
char *wh_test_read_file(const char *path, size_t *len);

/* An offline command run in process (wh_inject_run, wh_convert_run): its exit status and what it
 * wrote on stdout and stderr (new strings, freed by wh_test_cli_fini). */
struct wh_test_cli {
    int status;
    char *out, *err;
};
typedef int (*wh_test_cli_fn)(int argc, char **argv, FILE *out, FILE *err);
/* Runs fn with argv {cmd, the arguments up to NULL}. */
struct wh_test_cli wh_test_cli_run(wh_test_cli_fn fn, const char *cmd, ...);
void wh_test_cli_fini(struct wh_test_cli *c);

#endif
