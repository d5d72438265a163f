#ifndef WH_GOCOMPAT_GOZONE_H
#define WH_GOCOMPAT_GOZONE_H

/* Go's time.LoadLocation (Go 1.23, the version kruise-manager is built with), for the rules
 * whose answers depend on which time zone names load: AdvancedCronJob's spec.timeZone and the
 * TZ= / CRON_TZ= prefix of a cron schedule (gocompat/cron.h).
 *
 * As Go on Linux: "" and "UTC" are UTC and "Local" the local zone; a name containing ".." or
 * starting with '/' or '\' is "time: invalid location name"; otherwise the file of that name is
 * read from $ZONEINFO (a directory), then from /usr/share/zoneinfo/, /usr/share/lib/zoneinfo/,
 * /usr/lib/locale/TZ/ and /etc/zoneinfo, and must hold TZif data as Go's
 * LoadLocationFromTZData reads it. The first error that is not "no such file" is the answer
 * ("is a directory", "not a directory", "file name too long", "malformed time zone
 * information", "time: file <path> is too large"); none: "unknown time zone <name>".
 *
 * What differs: kruise-manager also embeds Go's own copy of the database (time/tzdata) and
 * finds there a name its image's /usr/share/zoneinfo lacks. Here only the system's database
 * counts (Debian's tzdata, a required package, holds every name Go's copy has), and a $ZONEINFO
 * naming a .zip file is not read.
 *
 * Thread rule: thread-safe (no state; files are read on each call). */

#include <stddef.h>

#include "util/err.h"

/* time.LoadLocation(name), name being len bytes (it may hold NUL bytes, which Go's open refuses
 * with "invalid argument"). WH_OK when Go would load it; WH_ERR_INVALID with Go's error text in
 * *message (new string, caller frees) otherwise. */
WH_NODISCARD enum wh_err wh_gozone_load(const char *name, size_t len, char **message);

#endif
