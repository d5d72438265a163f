#ifndef WH_GOCOMPAT_CRON_H
#define WH_GOCOMPAT_CRON_H

/* The cron dialect of github.com/robfig/cron v3.0.1 (Parser.Parse, and ParseStandard, which
 * AdvancedCronJob validation calls), with its error texts word for word, since upstream puts
 * them in its field errors. No Debian library reads this dialect.
 *
 * A spec is an optional "TZ=<zone> " or "CRON_TZ=<zone> " prefix (the zone loaded as Go's
 * time.LoadLocation loads it, gocompat/gozone.h), then either a descriptor (@yearly,
 * @annually, @monthly, @weekly, @daily, @midnight, @hourly, "@every <Go duration>") or the
 * fields the options ask for, split on Unicode white space: each a comma-separated list of
 * ranges "*", "?", "N", "N-M", any of those with "/step", months and weekdays also by their
 * three-letter English names in any case. Numbers are read with strconv.Atoi.
 *
 * Where robfig's parser panics, upstream recovers the panic: a prefix without a following
 * ASCII space ("TZ=UTC") slices with index -1. That is answered WH_ERR_INTERNAL with the
 * panic's value as Go prints it ("runtime error: slice bounds out of range [:-1]").
 * Only parsing is here: the schedule's activation times (Schedule.Next) are not computed.
 * Thread rule: thread-safe (no state). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/* robfig's ParseOption bits. */
enum {
    WH_CRON_SECOND = 1u << 0,
    WH_CRON_SECOND_OPTIONAL = 1u << 1,
    WH_CRON_MINUTE = 1u << 2,
    WH_CRON_HOUR = 1u << 3,
    WH_CRON_DOM = 1u << 4,
    WH_CRON_MONTH = 1u << 5,
    WH_CRON_DOW = 1u << 6,
    WH_CRON_DOW_OPTIONAL = 1u << 7,
    WH_CRON_DESCRIPTOR = 1u << 8,
};

/* ParseStandard's parser: minute, hour, day of month, month, day of week, descriptors. */
#define WH_CRON_STANDARD                                                                           \
    (WH_CRON_MINUTE | WH_CRON_HOUR | WH_CRON_DOM | WH_CRON_MONTH | WH_CRON_DOW | WH_CRON_DESCRIPTOR)

/* The bit a field has when it was written as a star ("*" or "?" without a step above 1). */
#define WH_CRON_STAR_BIT (1ull << 63)

/* What a spec parses into: robfig's SpecSchedule (a bit per allowed value of each field) or,
 * for @every, its ConstantDelaySchedule. */
struct wh_cron_schedule {
    bool constant_delay;
    int64_t delay_ns; /* constant_delay: Every()'s delay (at least 1 s, whole seconds) */
    uint64_t second, minute, hour, dom, month, dow;
    /* the schedule's location as Go names it: "Local" without a prefix, "UTC" for an empty or
     * UTC zone, else the zone's name (may hold any byte but an ASCII space) */
    char *location;
    size_t location_len;
};

/* Parses spec (len bytes, which may include NUL bytes: Go strings do) with options (WH_CRON_*;
 * at most one of the two optional fields, as NewParser requires). On WH_OK *out is filled (free
 * it with wh_cron_schedule_fini). Otherwise *message is a new string (caller frees):
 * WH_ERR_INVALID with robfig's error text, or WH_ERR_INTERNAL with the text of the panic Go's
 * parser would raise. */
WH_NODISCARD enum wh_err wh_cron_parse(const char *spec, size_t len, unsigned options,
                                       struct wh_cron_schedule *out, char **message);

void wh_cron_schedule_fini(struct wh_cron_schedule *s);

/* robfig's internal steps, exported so that its own test tables run against them. Each
 * returns WH_OK, or WH_ERR_INVALID with robfig's text in *message (new string). */

/* getRange(expr, bounds{min, max, nil}): the bits of one range. */
WH_NODISCARD enum wh_err wh_cron_range(const char *expr, uint64_t min, uint64_t max,
                                       uint64_t *bits, char **message);
/* getField(field, bounds{min, max, nil}): the bits of a comma-separated list of ranges. */
WH_NODISCARD enum wh_err wh_cron_field(const char *field, uint64_t min, uint64_t max,
                                       uint64_t *bits, char **message);
/* getBits(min, max, step). */
uint64_t wh_cron_bits(uint64_t min, uint64_t max, uint64_t step);
/* normalizeFields(fields, options): the six fields (second to weekday), each one of the given
 * strings or a default ("0" or "*"). */
WH_NODISCARD enum wh_err wh_cron_normalize_fields(const char *const *fields, size_t n,
                                                  unsigned options, const char *out[6],
                                                  char **message);

#endif
