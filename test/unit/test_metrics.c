#include "test/unit/test.h"

#include <stdlib.h>

#include "metrics/metrics.h"
#include "metrics/process.h"

static double value_of(void *arg)
{
    return *(double *)arg;
}

/* Values are written as Go's client writes them: the shortest spelling that reads back the
 * same (issue 22: 9 digits moved process_start_time_seconds by a second). */
TEST(metrics_values_are_written_to_the_last_digit)
{
    static double start = 1796166209.39, small = 0.000123456789, third = 1.0 / 3;
    wh_metrics_gauge_fn("t_start_seconds", "t", NULL, value_of, &start);
    wh_metrics_gauge_fn("t_small", "t", NULL, value_of, &small);
    wh_metrics_gauge_fn("t_third", "t", NULL, value_of, &third);
    struct wh_buf b;
    wh_buf_init(&b, 1 << 20);
    CHECK_EQ_INT(wh_metrics_render(&b), WH_OK);
    CHECK(strstr(b.data, "\nt_start_seconds 1796166209.39\n") != NULL);
    CHECK(strstr(b.data, "\nt_small 0.000123456789\n") != NULL);
    CHECK(strstr(b.data, "\nt_third 0.3333333333333333\n") != NULL);
    wh_buf_fini(&b);
}

/* The process_* series of Prometheus' Go client, from /proc/self. */
TEST(metrics_process_series)
{
    wh_metrics_process_register();
    struct wh_buf b;
    wh_buf_init(&b, 1 << 20);
    CHECK_EQ_INT(wh_metrics_render(&b), WH_OK);
    static const char *const names[] = {
        "# TYPE process_cpu_seconds_total counter\n", "\nprocess_resident_memory_bytes ",
        "\nprocess_virtual_memory_bytes ",            "\nprocess_open_fds ",
        "\nprocess_max_fds ",                          "\nprocess_start_time_seconds "};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        CHECK(strstr(b.data, names[i]) != NULL);
    const char *rss = strstr(b.data, "\nprocess_resident_memory_bytes ");
    CHECK(rss && strtod(rss + 31, NULL) > 1e6);
    const char *fds = strstr(b.data, "\nprocess_open_fds ");
    CHECK(fds && strtod(fds + 18, NULL) >= 3);
    wh_buf_fini(&b);
}
