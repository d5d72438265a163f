#include "test/unit/test.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "log/log.h"

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

TEST(log_limit_passes_a_burst_then_counts_the_rest)
{
    struct wh_log_limit l = {0};
    unsigned long dropped = 99;
    for (int i = 0; i < 3; i++)
        CHECK(wh_log_limit_pass(&l, 3, 10, &dropped));
    CHECK_EQ_INT(dropped, 0);
    CHECK(!wh_log_limit_pass(&l, 3, 10, &dropped));
    CHECK(!wh_log_limit_pass(&l, 3, 10, &dropped));
    /* The next window: the first line passes and says how many were dropped. */
    l.window -= 10;
    CHECK(wh_log_limit_pass(&l, 3, 10, &dropped));
    CHECK_EQ_INT(dropped, 2);
    CHECK(wh_log_limit_pass(&l, 3, 10, &dropped));
    CHECK_EQ_INT(dropped, 0);
}
