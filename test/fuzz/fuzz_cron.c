/* Fuzz target for gocompat/cron (robfig/cron's dialect), the time.ParseDuration it reads @every
 * with, and time.LoadLocation's name checks. The input is a schedule, parsed with ParseStandard's
 * options and with a seconds-first parser (its first byte picks the optional field). Properties:
 * a schedule that parses has bits only inside its fields' bounds (plus the star bit), a non-empty
 * location, and an @every delay of whole seconds, at least one; a refusal always says why; the
 * same input gives the same answer twice. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gocompat/cron.h"
#include "gocompat/gotime.h"
#include "gocompat/gozone.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t bounds_mask(unsigned lo, unsigned hi)
{
    uint64_t m = 0;
    for (unsigned i = lo; i <= hi; i++)
        m |= 1ull << i;
    return m | WH_CRON_STAR_BIT;
}

static void check(const char *text, size_t n, unsigned options)
{
    struct wh_cron_schedule s, again;
    char *msg = NULL, *msg2 = NULL;
    enum wh_err rc = wh_cron_parse(text, n, options, &s, &msg);
    enum wh_err rc2 = wh_cron_parse(text, n, options, &again, &msg2);
    if (rc != rc2 || (msg && (!msg2 || strcmp(msg, msg2) != 0))) {
        fprintf(stderr, "two answers for one input\n");
        abort();
    }
    if (rc) {
        if (!msg || !*msg) {
            fprintf(stderr, "refused without a message\n");
            abort();
        }
    } else {
        if (!s.location || !s.location_len) {
            fprintf(stderr, "no location\n");
            abort();
        }
        if (s.constant_delay) {
            if (s.delay_ns < 1000000000 || s.delay_ns % 1000000000) {
                fprintf(stderr, "delay %lld\n", (long long)s.delay_ns);
                abort();
            }
        } else if ((s.second & ~bounds_mask(0, 59)) || (s.minute & ~bounds_mask(0, 59)) ||
                   (s.hour & ~bounds_mask(0, 23)) || (s.dom & ~bounds_mask(1, 31)) ||
                   (s.month & ~bounds_mask(1, 12)) || (s.dow & ~bounds_mask(0, 6))) {
            fprintf(stderr, "a bit outside its field\n");
            abort();
        }
        wh_cron_schedule_fini(&s);
        wh_cron_schedule_fini(&again);
    }
    free(msg);
    free(msg2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    check(text, size, WH_CRON_STANDARD);
    unsigned optional = size && (data[0] & 1) ? WH_CRON_SECOND_OPTIONAL : WH_CRON_DOW_OPTIONAL;
    unsigned seconds = WH_CRON_MINUTE | WH_CRON_HOUR | WH_CRON_DOM | WH_CRON_MONTH |
                       WH_CRON_DESCRIPTOR | optional |
                       (optional == WH_CRON_DOW_OPTIONAL ? WH_CRON_SECOND : WH_CRON_DOW);
    check(text, size, seconds);

    int64_t ns;
    char *msg = NULL;
    if (wh_gotime_parse_duration(text, size, &ns, &msg) != WH_OK && (!msg || !*msg))
        abort();
    free(msg);
    /* zone names short enough to be files; longer ones are refused by the file system */
    if (size < 64) {
        msg = NULL;
        if (wh_gozone_load(text, size, &msg) != WH_OK && (!msg || !*msg))
            abort();
        free(msg);
    }
    return 0;
}
