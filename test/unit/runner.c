/* Unit test runner: runs every TEST(), or those named on the command line (a test, or a suite:
 * the file name without .c, such as test_config), announces each suite as it starts, prints
 * "N passed, N failed" and exits non-zero when anything failed. */
#include "test/unit/test.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <curl/curl.h>

#include "log/log.h"
#include "util/arena.h"
#include "util/json.h"
#include "util/mem.h"

int wh_test_failed_checks;

#define X(suite, name) void test_##name(void);
#include "unit_tests.inc"
#undef X

struct test_case {
    const char *suite; /* its file, test_<module> */
    const char *name;
    void (*fn)(void);
};

static const struct test_case tests[] = {
#define X(suite, name) {#suite, #name, test_##name},
#include "unit_tests.inc"
#undef X
};
#define NTESTS (sizeof(tests) / sizeof(tests[0]))

static bool wanted(const struct test_case *t, int argc, char **argv)
{
    if (argc <= 1)
        return true;
    for (int a = 1; a < argc; a++)
        if (strcmp(argv[a], t->name) == 0 || strcmp(argv[a], t->suite) == 0)
            return true;
    return false;
}

void wh_test_check_json(const char *file, int line, const char *ea, const char *eb,
                        const json_t *a, const json_t *b)
{
    if (a && b && json_equal((json_t *)(uintptr_t)a, (json_t *)(uintptr_t)b))
        return;
    char *sa = a ? json_dumps(a, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY) : NULL;
    char *sb = b ? json_dumps(b, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY) : NULL;
    fprintf(stderr, "%s:%d: %s == %s failed:\n  %s\n  %s\n", file, line, ea, eb,
            sa ? sa : "(null)", sb ? sb : "(null)");
    free(sa);
    free(sb);
    wh_test_failed_checks++;
}

json_t *wh_test_json(const char *text)
{
    json_error_t err;
    json_t *v = json_loads(text, JSON_DECODE_ANY, &err);
    if (!v) {
        fprintf(stderr, "bad JSON in test: %s at %d:%d\n%s\n", err.text, err.line, err.column,
                text);
        abort();
    }
    return v;
}

json_t *wh_test_jq(const char *text)
{
    char *t = wh_xstrdup(text);
    for (char *p = t; *p; p++)
        if (*p == '\'')
            *p = '"';
    json_t *v = wh_test_json(t);
    free(t);
    return v;
}

void wh_test_write_file(const char *dir, const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    for (char *p = path + strlen(dir) + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0755);
            *p = '/';
        }
    }
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

char *wh_test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open test data %s\n", path);
        abort();
    }
    size_t cap = 4096, n = 0;
    char *buf = wh_xmalloc(cap);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n - 1 == 0) {
            cap *= 2;
            buf = wh_xrealloc(buf, cap);
        }
    }
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

struct wh_test_cli wh_test_cli_run(wh_test_cli_fn fn, const char *cmd, ...)
{
    char *argv[32];
    int argc = 0;
    argv[argc++] = (char *)(uintptr_t)cmd;
    va_list ap;
    va_start(ap, cmd);
    for (const char *a = va_arg(ap, const char *); a; a = va_arg(ap, const char *)) {
        if (argc == 31) {
            fprintf(stderr, "wh_test_cli_run: too many arguments\n");
            abort();
        }
        argv[argc++] = (char *)(uintptr_t)a;
    }
    va_end(ap);
    argv[argc] = NULL;
    struct wh_test_cli c = {0};
    size_t on = 0, en = 0;
    FILE *out = open_memstream(&c.out, &on);
    FILE *err = open_memstream(&c.err, &en);
    c.status = fn(argc, argv, out, err);
    fclose(out);
    fclose(err);
    return c;
}

void wh_test_cli_fini(struct wh_test_cli *c)
{
    free(c->out);
    free(c->err);
    c->out = c->err = NULL;
}

int main(int argc, char **argv)
{
    wh_json_init();
    curl_global_init(CURL_GLOBAL_DEFAULT); /* before any test starts a thread, as main does */
    wh_log_setup(getenv("WH_TEST_VERBOSE") ? WH_LOG_DEBUG : WH_LOG_ERROR, WH_LOG_TEXT);
    int passed = 0, failed = 0;
    const char *suite = NULL;
    for (size_t i = 0; i < NTESTS; i++) {
        if (!wanted(&tests[i], argc, argv))
            continue;
        /* A line as each suite starts, so that a slow one never looks like a hang. */
        if (!suite || strcmp(suite, tests[i].suite) != 0) {
            suite = tests[i].suite;
            size_t n = 0;
            for (size_t k = i; k < NTESTS && strcmp(tests[k].suite, suite) == 0; k++)
                n += wanted(&tests[k], argc, argv);
            printf("unit: %s.c (%zu test%s)\n", suite, n, n == 1 ? "" : "s");
            fflush(stdout);
        }
        int before = wh_test_failed_checks;
        tests[i].fn();
        if (wh_test_failed_checks == before) {
            passed++;
        } else {
            failed++;
            fprintf(stderr, "FAIL %s\n", tests[i].name);
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    curl_global_cleanup();
    wh_arena_release();
    return failed ? 1 : 0;
}
