#ifndef WH_GOCOMPAT_GOURL_H
#define WH_GOCOMPAT_GOURL_H

/* Whether Go's net/url.Parse accepts a string (upstream's PodProbeMarker validation asks it of
 * an httpGet probe's path), with the error Go gives: control bytes, a scheme that starts with
 * ':', a relative path whose first segment has a colon, malformed %-escapes in the path, the
 * userinfo, the host or the fragment, a host with characters a host may not hold, an IP
 * literal that is not an IPv6 address (netip.ParseAddr's rules), a port that is not digits.
 * As go1.26's net/url (GODEBUG defaults); the wording of an IP literal's error is this
 * server's (netip's names the position). Thread rule: pure. */

#include "util/err.h"

/* WH_OK, or WH_ERR_INVALID with Go's *url.Error text in eb ("parse \"<s>\": invalid URL escape
 * \"%zz\""). */
WH_NODISCARD enum wh_err wh_gourl_parse(const char *s, struct wh_errbuf *eb);

#endif
