#include "test/unit/test.h"

#include <pthread.h>
#include <stdatomic.h>

#include "server/health.h"
#include "server/watchdog.h"
#include "util/time.h"

struct stuck {
    atomic_bool inside, release;
};

static void *work(void *arg)
{
    struct stuck *s = arg;
    wh_watchdog_enter();
    atomic_store(&s->inside, true);
    while (!atomic_load(&s->release))
        wh_time_sleep_ms(5);
    wh_watchdog_leave();
    return NULL;
}

/* Issue 22: with every worker blocked (on a stderr nobody read), the health port kept saying
 * ok. A worker inside one request for longer than the limit makes the liveness check fail,
 * naming it; once it leaves, the check passes again. */
TEST(watchdog_reports_a_worker_wedged_past_the_limit)
{
    char why[256] = "";
    wh_watchdog_set_limit(10000);
    CHECK(wh_watchdog_live(NULL, why, sizeof(why)));
    struct stuck s = {false, false};
    pthread_t t;
    CHECK(pthread_create(&t, NULL, work, &s) == 0);
    while (!atomic_load(&s.inside))
        wh_time_sleep_ms(1);
    /* inside, within the limit */
    CHECK(wh_watchdog_live(NULL, why, sizeof(why)));
    /* past it */
    wh_watchdog_set_limit(50);
    wh_time_sleep_ms(100);
    CHECK(!wh_watchdog_live(NULL, why, sizeof(why)));
    CHECK(strstr(why, "it is wedged") != NULL);
    atomic_store(&s.release, true);
    pthread_join(t, NULL);
    CHECK(wh_watchdog_live(NULL, why, sizeof(why)));
    /* short pieces of work, however many, never count */
    for (int i = 0; i < 100; i++) {
        wh_watchdog_enter();
        wh_watchdog_leave();
    }
    wh_time_sleep_ms(60);
    CHECK(wh_watchdog_live(NULL, why, sizeof(why)));
    wh_watchdog_set_limit(30000);
}
