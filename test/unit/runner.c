/* Unit test runner: runs every TEST() or the ones named on the command line, prints
 * "N passed, N failed" and exits non-zero when anything failed. */
#include "test/unit/test.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <curl/curl.h>

#include "log/log.h"
#include "util/arena.h"
#include "util/json.h"
#include "util/mem.h"

int wh_test_failed_checks;

#define X(name) void test_##name(void);
#include "unit_tests.inc"
#undef X

struct test_case {
    const char *name;
    void (*fn)(void);
};

static const struct test_case tests[] = {
#define X(name) {#name, test_##name},
#include "unit_tests.inc"
#undef X
};

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

int main(int argc, char **argv)
{
    wh_json_init();
    curl_global_init(CURL_GLOBAL_DEFAULT); /* before any test starts a thread, as main does */
    wh_log_setup(getenv("WH_TEST_VERBOSE") ? WH_LOG_DEBUG : WH_LOG_ERROR, WH_LOG_TEXT);
    int passed = 0, failed = 0;
    for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
        if (argc > 1) {
            bool wanted = false;
            for (int a = 1; a < argc; a++)
                wanted |= strcmp(argv[a], tests[i].name) == 0;
            if (!wanted)
                continue;
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
