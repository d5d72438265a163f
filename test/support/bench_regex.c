#include "test/support/bench_regex.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gocompat/regex.h"
#include "test/support/bench_loop.h"
#include "util/time.h"

/* Runs fn until about budget_ns have passed (WH_BENCH_ITERS=n: n times); returns ns per call. */
static double timed(void (*fn)(void *), void *arg, int64_t budget_ns)
{
    const char *fixed = getenv("WH_BENCH_ITERS");
    long want = fixed ? strtol(fixed, NULL, 10) : 0, iters = 0;
    int64_t start = wh_time_mono_ns(), now = start;
    while (want > 0 ? iters < want : now - start < budget_ns) {
        fn(arg);
        iters++;
        now = wh_time_mono_ns();
    }
    return (double)(now - start) / (double)iters;
}

struct compile_arg {
    const char *pattern;
    size_t len;
};

static void compile_once(void *p)
{
    const struct compile_arg *a = p;
    struct wh_regex *r = NULL;
    struct wh_regex_error err;
    if (wh_regex_compile(a->pattern, a->len, &r, &err) == WH_OK)
        wh_regex_free(r);
}

struct match_arg {
    const struct wh_regex *re;
    const char *text;
    size_t len;
};

static void match_once(void *p)
{
    const struct match_arg *a = p;
    (void)wh_regex_match(a->re, a->text, a->len);
}

static char *repeated(const char *head, const char *unit, int n, const char *tail)
{
    size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail);
    char *s = malloc(hl + ul * (size_t)n + tl + 1);
    memcpy(s, head, hl);
    for (int i = 0; i < n; i++)
        memcpy(s + hl + ul * (size_t)i, unit, ul);
    memcpy(s + hl + ul * (size_t)n, tail, tl + 1);
    return s;
}

void wh_bench_regex(void)
{
    /* what SidecarSets and whitelists hold, then issue 22's, then large ones Go accepts */
    char *long_literal = repeated("(?:", "a", 3000, "){1000}");
    char *classes = repeated("", "\\pL", 20000, "");
    struct {
        const char *label, *pattern;
    } cases[] = {
        {"ordinary: ^(app|main)$", "^(app|main)$"},
        {"ordinary: .*", ".*"},
        {"ordinary: nginx|main", "nginx|main"},
        {"ordinary: ^sidecar\\.example\\.com/.*$", "^sidecar\\.example\\.com/.*$"},
        {"ordinary: DNS label", "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},
        {"ordinary: (?i)^(istio|envoy)-proxy-\\d+$", "(?i)^(istio|envoy)-proxy-\\d+$"},
        {"ordinary: \\pL+-\\p{Greek}*", "\\pL+-\\p{Greek}*"},
        {"refused: ([a-z]{1,1000}){1,1000}", "([a-z]{1,1000}){1,1000}"},
        {"refused: (a{1000}){1000}", "(a{1000}){1000}"},
        {"accepted: [a-z]{1,1000}", "[a-z]{1,1000}"},
        {"accepted: (a{100}){10}", "(a{100}){10}"},
        {"accepted: (?:a x3000){1000}", long_literal},
        {"accepted: \\pL x20000", classes},
    };
    char name[64], key[254];
    memset(name, 'a', 63);
    name[63] = '\0';
    memset(key, 'k', 253);
    key[253] = '\0';
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char label[160];
        snprintf(label, sizeof(label), "regex: compile %s", cases[i].label);
        size_t plen = strlen(cases[i].pattern);
        struct compile_arg ca = {cases[i].pattern, plen};
        struct wh_regex *r = NULL;
        struct wh_regex_error err;
        bool ok = wh_regex_compile(cases[i].pattern, plen, &r, &err) == WH_OK;
        if (wh_bench_wanted(label)) {
            double ns = timed(compile_once, &ca, 200000000);
            if (ok)
                printf("%-64s %12.0f ns/op %10zu bytes kept\n", label, ns, wh_regex_memory(r));
            else
                printf("%-64s %12.0f ns/op  refused: %s\n", label, ns,
                       wh_regex_code_text(err.code));
        }
        if (!ok)
            continue;
        static const struct {
            const char *what;
            size_t len;
        } texts[] = {{"63-byte name", 63}, {"253-byte key", 253}};
        for (size_t k = 0; k < 2; k++) {
            snprintf(label, sizeof(label), "regex: match %s, %s", cases[i].label, texts[k].what);
            if (!wh_bench_wanted(label))
                continue;
            struct match_arg ma = {r, k ? key : name, texts[k].len};
            printf("%-64s %12.0f ns/op\n", label, timed(match_once, &ma, 100000000));
        }
        wh_regex_free(r);
    }
    free(long_literal);
    free(classes);
}
