#include "certs/verify.h"

#include <stdio.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "certs/keypair.h"
#include "gocompat/gotime.h"

const char *wh_certs_verdict_str(enum wh_certs_verdict v)
{
    switch (v) {
    case WH_CERTS_VALID:
        return "valid";
    case WH_CERTS_MISSING:
        return "missing";
    case WH_CERTS_GARBAGE:
        return "unparsable";
    case WH_CERTS_KEY_MISMATCH:
        return "private key does not match the certificate";
    case WH_CERTS_NOT_CHAINED:
        return "not issued by the CA";
    case WH_CERTS_EXPIRED:
        return "expired";
    case WH_CERTS_EXPIRING:
        return "expires within the renewal margin";
    case WH_CERTS_NOT_YET_VALID:
        return "not yet valid";
    case WH_CERTS_WRONG_HOST:
        return "not valid for the host name";
    case WH_CERTS_WRONG_USAGE:
        return "usage does not permit serverAuth";
    case WH_CERTS_UNSUITABLE_CA:
        return "CA not reusable";
    }
    return "unknown";
}

bool wh_certs_verify_key_matches(X509 *cert, EVP_PKEY *key)
{
    EVP_PKEY *pub = X509_get0_pubkey(cert);
    bool ok = pub && key && EVP_PKEY_eq(pub, key) == 1;
    ERR_clear_error();
    return ok;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

enum wh_err wh_certs_verify_asn1_time(const ASN1_TIME *t, time_t *out)
{
    struct tm tm;
    memset(&tm, 0, sizeof(tm));
    if (!t || ASN1_TIME_to_tm(t, &tm) != 1) {
        ERR_clear_error();
        return WH_ERR_PARSE;
    }
    int64_t days =
        days_from_civil((int64_t)tm.tm_year + 1900, (unsigned)tm.tm_mon + 1, (unsigned)tm.tm_mday);
    *out = (time_t)(days * 86400 + tm.tm_hour * 3600 + tm.tm_min * 60 + tm.tm_sec);
    return WH_OK;
}

int64_t wh_certs_verify_secs_left(X509 *cert, time_t now)
{
    time_t end = 0;
    if (wh_certs_verify_asn1_time(X509_get0_notAfter(cert), &end))
        return INT64_MIN;
    return (int64_t)end - (int64_t)now;
}

/* "100d", "5h", "12min", "30s": the largest unit that fits (m means 30 days in
 * --certs-renew-before, so minutes are "min"). */
void wh_certs_verify_format_secs(int64_t secs, char *buf, size_t bufsz)
{
    static const struct {
        int64_t secs;
        const char *unit;
    } units[] = {{86400, "d"}, {3600, "h"}, {60, "min"}, {1, "s"}};
    int64_t a = secs < 0 ? -secs : secs;
    size_t i = 0;
    while (i + 1 < sizeof(units) / sizeof(units[0]) && a < units[i].secs)
        i++;
    snprintf(buf, bufsz, "%lld%s", (long long)(a / units[i].secs), units[i].unit);
}

void wh_certs_verify_describe_expiry(X509 *cert, time_t now, char *buf, size_t bufsz)
{
    time_t end = 0;
    char when[WH_GOTIME_MAX], left[32];
    if (wh_certs_verify_asn1_time(X509_get0_notAfter(cert), &end) != WH_OK) {
        snprintf(buf, bufsz, "has an unreadable notAfter");
        return;
    }
    wh_gotime_format((struct wh_gotime){(int64_t)end, 0}, WH_GOTIME_RFC3339, when, sizeof(when));
    wh_certs_verify_format_secs((int64_t)end - (int64_t)now, left, sizeof(left));
    if (end >= now)
        snprintf(buf, bufsz, "expires in %s (%s)", left, when);
    else
        snprintf(buf, bufsz, "expired %s ago (%s)", left, when);
}

static enum wh_certs_verdict time_verdict(X509 *bad, int err, time_t now)
{
    if (err == X509_V_ERR_CERT_NOT_YET_VALID)
        return WH_CERTS_NOT_YET_VALID;
    if (bad && wh_certs_verify_secs_left(bad, now) >= 0)
        return WH_CERTS_EXPIRING;
    return WH_CERTS_EXPIRED;
}

enum wh_certs_verdict wh_certs_verify_chain(X509 *leaf, STACK_OF(X509) * anchors, time_t now,
                                            time_t at, struct wh_errbuf *why)
{
    enum wh_certs_verdict v = WH_CERTS_NOT_CHAINED;
    X509_STORE *store = X509_STORE_new();
    X509_STORE_CTX *ctx = X509_STORE_CTX_new();
    if (!store || !ctx) {
        wh_errbuf_set(why, WH_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (int i = 0; i < sk_X509_num(anchors); i++) {
        /* A duplicate anchor is refused with an error that does not matter here. */
        X509_STORE_add_cert(store, sk_X509_value(anchors, i));
    }
    ERR_clear_error();
    if (X509_STORE_CTX_init(ctx, store, leaf, NULL) != 1) {
        wh_errbuf_set(why, WH_ERR_NOMEM, "cannot set up verification");
        goto out;
    }
    X509_VERIFY_PARAM *param = X509_STORE_CTX_get0_param(ctx);
    /* Go treats every pool member as an anchor, self-signed or not. */
    X509_VERIFY_PARAM_set_flags(param, X509_V_FLAG_PARTIAL_CHAIN);
    X509_VERIFY_PARAM_set_time(param, at);
    /* Level 1 refuses SHA-1 signatures (63 bits) and tiny keys, as Go does. */
    X509_VERIFY_PARAM_set_auth_level(param, 1);
    X509_STORE_CTX_set_purpose(ctx, X509_PURPOSE_SSL_SERVER);

    if (X509_verify_cert(ctx) == 1) {
        v = WH_CERTS_VALID;
        goto out;
    }
    int err = X509_STORE_CTX_get_error(ctx);
    X509 *bad = X509_STORE_CTX_get_current_cert(ctx);
    switch (err) {
    case X509_V_ERR_CERT_HAS_EXPIRED:
    case X509_V_ERR_CERT_NOT_YET_VALID:
        v = time_verdict(bad, err, now);
        break;
    case X509_V_ERR_INVALID_PURPOSE:
        v = WH_CERTS_WRONG_USAGE;
        break;
    default:
        v = WH_CERTS_NOT_CHAINED;
        break;
    }
    int depth = X509_STORE_CTX_get_error_depth(ctx);
    if (bad && (v == WH_CERTS_EXPIRED || v == WH_CERTS_EXPIRING)) {
        /* OpenSSL says "certificate has expired" for one that is merely checked at a later
         * instant: say when it expires, and how far ahead it was checked. */
        char expiry[160], ahead[32];
        wh_certs_verify_describe_expiry(bad, now, expiry, sizeof(expiry));
        wh_certs_verify_format_secs((int64_t)at - (int64_t)now, ahead, sizeof(ahead));
        if (v == WH_CERTS_EXPIRING)
            wh_errbuf_set(why, WH_ERR_TLS, "the certificate at depth %d %s, within the %s checked",
                          depth, expiry, ahead);
        else
            wh_errbuf_set(why, WH_ERR_TLS, "the certificate at depth %d %s", depth, expiry);
    } else {
        wh_errbuf_set(why, WH_ERR_TLS, "%s (at depth %d: %s)", wh_certs_verdict_str(v), depth,
                      X509_verify_cert_error_string(err));
    }
out:
    X509_STORE_CTX_free(ctx);
    X509_STORE_free(store);
    ERR_clear_error();
    return v;
}

static bool ip_matches(X509 *cert, const unsigned char *want, size_t want_len)
{
    static const unsigned char v4_mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    bool found = false;
    GENERAL_NAMES *gens = X509_get_ext_d2i(cert, NID_subject_alt_name, NULL, NULL);
    for (int i = 0; !found && i < sk_GENERAL_NAME_num(gens); i++) {
        const GENERAL_NAME *g = sk_GENERAL_NAME_value(gens, i);
        if (g->type != GEN_IPADD)
            continue;
        const unsigned char *b = ASN1_STRING_get0_data(g->d.iPAddress);
        size_t n = (size_t)ASN1_STRING_length(g->d.iPAddress);
        /* Go compares with net.IP.Equal, which folds IPv4-mapped IPv6 onto IPv4. */
        if (n == 16 && memcmp(b, v4_mapped, sizeof(v4_mapped)) == 0) {
            b += 12;
            n = 4;
        }
        found = n == want_len && memcmp(b, want, n) == 0;
    }
    GENERAL_NAMES_free(gens);
    ERR_clear_error();
    return found;
}

bool wh_certs_verify_host(X509 *cert, const char *dns_name)
{
    unsigned char ip[16];
    size_t ip_len = wh_certs_keypair_parse_ip(dns_name, ip);
    if (ip_len)
        return ip_matches(cert, ip, ip_len);
    unsigned flags = X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS | X509_CHECK_FLAG_NEVER_CHECK_SUBJECT;
    bool ok = X509_check_host(cert, dns_name, strlen(dns_name), flags, NULL) == 1;
    ERR_clear_error();
    return ok;
}
