#include "test/unit/test.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <jansson.h>

#include "log/log.h"
#include "util/time.h"

/* Runs one wh_log_req with stderr captured; returns what was written (new string). */
static char *captured(enum wh_log_format fmt, const char *uid, const char *msg)
{
    int fds[2];
    if (pipe(fds) != 0)
        return NULL;
    int saved = dup(STDERR_FILENO);
    dup2(fds[1], STDERR_FILENO);
    wh_log_setup(WH_LOG_INFO, fmt);
    wh_log_req(WH_LOG_INFO, uid, "/p\x1b", "%s", msg);
    wh_log_setup(WH_LOG_INFO, WH_LOG_JSON);
    dup2(saved, STDERR_FILENO);
    close(saved);
    close(fds[1]);
    char *out = calloc(1, 8192);
    ssize_t n = read(fds[0], out, 8191);
    close(fds[0]);
    out[n > 0 ? n : 0] = '\0';
    return out;
}

TEST(log_text_escapes_control_characters)
{
    char *line = captured(WH_LOG_TEXT, "u\nfake error line", "ns \x1b[31mred\r\t\\ \xc2\x85 é");
    CHECK(line != NULL);
    if (!line)
        return;
    /* One line, ending in its only newline. */
    CHECK(strchr(line, '\n') == line + strlen(line) - 1);
    CHECK(strstr(line, "ns \\x1b[31mred\\r\\t\\\\ \\u0085 é") != NULL);
    CHECK(strstr(line, "uid=u\\nfake error line") != NULL);
    CHECK(strstr(line, "webhook=/p\\x1b") != NULL);
    free(line);
    line = captured(WH_LOG_JSON, "u\n", "a\x1b");
    CHECK(line && strstr(line, "\"msg\":\"a\\u001b\"") && strstr(line, "\"uid\":\"u\\u000a\""));
    free(line);
}

/* Everything written to stderr while fn(arg) runs (new string). */
static char *capture(void (*fn)(void *), void *arg)
{
    int fds[2];
    if (pipe(fds) != 0)
        return NULL;
    int saved = dup(STDERR_FILENO);
    dup2(fds[1], STDERR_FILENO);
    fn(arg);
    dup2(saved, STDERR_FILENO);
    close(saved);
    close(fds[1]);
    size_t cap = 1 << 20, len = 0;
    char *out = calloc(1, cap + 1);
    ssize_t n;
    while (len < cap && (n = read(fds[0], out + len, cap - len)) > 0)
        len += (size_t)n;
    close(fds[0]);
    return out;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* Issue 22: U+2028 and U+2029 reached the logs raw in both formats, U+0085 in JSON; and bytes
 * that are not UTF-8 made a JSON line no reader could parse. */
TEST(log_line_separators_never_reach_the_log_raw)
{
    static const char msg[] = "a\xe2\x80\xa8" "b\xe2\x80\xa9" "c\xc2\x85" "d\xff" "e\xc3" "f é";
    char *json = captured(WH_LOG_JSON, "u\xe2\x80\xa8", msg);
    char *text = captured(WH_LOG_TEXT, "u\xe2\x80\xa8", msg);
    CHECK(json && text);
    if (!json || !text)
        return;
    CHECK(strstr(json, "\"msg\":\"a\\u2028b\\u2029c\\u0085d\\ufffde\\ufffdf é\"") != NULL);
    CHECK(strstr(json, "\"uid\":\"u\\u2028\"") != NULL);
    CHECK(strstr(text, "a\\u2028b\\u2029c\\u0085d\\xffe\\xc3f é") != NULL);
    CHECK(strstr(text, "uid=u\\u2028") != NULL);
    for (char *line = json; line; line = line == json ? text : NULL) {
        CHECK(strstr(line, "\xe2\x80\xa8") == NULL && strstr(line, "\xe2\x80\xa9") == NULL);
        CHECK(strstr(line, "\xc2\x85") == NULL && strchr(line, '\xff') == NULL);
    }
    /* the JSON line is JSON */
    json_error_t jerr;
    json_t *v = json_loads(json, 0, &jerr);
    CHECK(v != NULL);
    json_decref(v);
    free(json);
    free(text);
}

static void log_kind_lines(void *arg)
{
    int n = *(int *)arg;
    for (int i = 0; i < n; i++)
        wh_log_limited(WH_LOG_DENIED, WH_LOG_INFO, "u", "/p", "denied %d", i);
}

/* A burst of WH_LOG_BURST lines per kind, then WH_LOG_PER_SECOND: the rest are counted, and the
 * next line that passes says how many were held back. Other kinds are not affected. */
TEST(log_rate_limit_per_kind_counts_and_says_what_it_held_back)
{
    wh_log_setup(WH_LOG_INFO, WH_LOG_JSON);
    unsigned long before = wh_log_suppressed(WH_LOG_DENIED);
    unsigned long other = wh_log_suppressed(WH_LOG_HANDLER_FAILED);
    int n = 100;
    char *out = capture(log_kind_lines, &n);
    CHECK(out != NULL);
    size_t lines = out ? count(out, "\"msg\":\"denied ") : 0;
    CHECK(lines >= 1 && lines <= WH_LOG_BURST + 1);
    CHECK_EQ_INT(wh_log_suppressed(WH_LOG_DENIED) - before, (unsigned long)n - lines);
    CHECK_EQ_INT(wh_log_suppressed(WH_LOG_HANDLER_FAILED), other);
    free(out);
    /* a token comes back every 1/WH_LOG_PER_SECOND s: the next line carries the count */
    wh_time_sleep_ms(1000 / WH_LOG_PER_SECOND + 50);
    n = 1;
    out = capture(log_kind_lines, &n);
    char want[128];
    snprintf(want, sizeof(want), "(%lu more lines of this kind held back by the log rate limit)",
             100 - (unsigned long)lines);
    CHECK(out && strstr(out, want) != NULL);
    if (out && !strstr(out, want))
        fprintf(stderr, "  got: %s  wanted: %s\n", out, want);
    free(out);
    wh_log_setup(WH_LOG_ERROR, WH_LOG_TEXT);
}

struct flood {
    int lines;
    int64_t worst_ns;
};

static void flood_lines(void *arg)
{
    struct flood *f = arg;
    for (int i = 0; i < f->lines; i++) {
        int64_t t0 = wh_time_mono_ns();
        wh_log(WH_LOG_WARN, "line %d %0200d", i, 0);
        int64_t took = wh_time_mono_ns() - t0;
        if (took > f->worst_ns)
            f->worst_ns = took;
    }
}

/* With the writer thread, a stderr that does not drain never blocks the caller: lines beyond
 * what the pipe and the 1 MiB queue hold are dropped and counted, and once stderr drains the
 * writer says how many. */
TEST(log_queue_drops_and_counts_when_stderr_does_not_drain)
{
    int fds[2];
    CHECK(pipe(fds) == 0);
    int saved = dup(STDERR_FILENO);
    dup2(fds[1], STDERR_FILENO);
    wh_log_setup(WH_LOG_INFO, WH_LOG_JSON);
    CHECK_EQ_INT(wh_log_start(), WH_OK);
    unsigned long before = wh_log_dropped();
    /* 10 000 lines of about 300 bytes: 3 MB, beyond the pipe (64 KiB) and the queue (1 MiB)
     * while nobody reads */
    struct flood f = {10000, 0};
    flood_lines(&f);
    unsigned long dropped = wh_log_dropped() - before;
    CHECK(dropped > 5000);
    /* the caller never waited for stderr */
    CHECK(f.worst_ns < 1000000000);
    /* now read it all: the queued lines, then the writer's own line about the drops */
    size_t cap = 4 << 20, len = 0;
    char *out = calloc(1, cap + 1);
    CHECK(fcntl(fds[0], F_SETFL, O_NONBLOCK) == 0);
    int64_t deadline = wh_time_mono_ns() + 5000000000LL;
    char want[160];
    snprintf(want, sizeof(want), "\"msg\":\"%lu log lines dropped: stderr did not take them",
             dropped);
    while (len < cap && wh_time_mono_ns() < deadline && !strstr(out, want)) {
        ssize_t n = read(fds[0], out + len, cap - len);
        if (n > 0)
            len += (size_t)n;
        else
            wh_time_sleep_ms(5);
    }
    CHECK(strstr(out, want) != NULL);
    /* what was kept is whole lines */
    CHECK_EQ_INT(count(out, "\"msg\":\"line "), 10000 - dropped);
    CHECK_EQ_INT(count(out, "\n"), 10000 - dropped + 1);
    CHECK(wh_log_stop(5000));
    dup2(saved, STDERR_FILENO);
    close(saved);
    close(fds[1]);
    free(out);
    close(fds[0]);
    wh_log_setup(WH_LOG_ERROR, WH_LOG_TEXT);
}
