#ifndef WH_K8S_QUANTITY_H
#define WH_K8S_QUANTITY_H

/* Kubernetes resource quantities as k8s.io/apimachinery/pkg/api/resource parses and prints
 * them: ParseQuantity's grammar, fast path and rounding (up to nano), the cached original text
 * when the input is already canonical, and String()'s canonical form ("1000m" -> "1",
 * "0.5Gi" -> "512Mi", "1e3" stays "1e3").
 * A value is a decimal mantissa (digits, most significant first) times 10^scale.
 * Thread rule: plain values; every function is thread-safe. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define WH_QUANTITY_MAX_DIGITS 96 /* mantissa digits kept; longer values are refused */
#define WH_QUANTITY_MAX_INPUT 64  /* longest text accepted */

enum wh_quantity_format {
    WH_QUANTITY_DECIMAL_SI,       /* 300m, 1, 2k, 1G */
    WH_QUANTITY_BINARY_SI,        /* 512Mi, 2Gi */
    WH_QUANTITY_DECIMAL_EXPONENT, /* 1e3 */
};

struct wh_quantity {
    uint8_t digits[WH_QUANTITY_MAX_DIGITS]; /* magnitude, no leading zeros */
    uint8_t ndigits;                        /* 0 for zero */
    int32_t scale;                          /* value = mantissa x 10^scale */
    bool neg;
    enum wh_quantity_format format;
    char cached[WH_QUANTITY_MAX_INPUT + 1]; /* the input when Go keeps it as the String() */
};

/* Parses str as resource.ParseQuantity. Errors: WH_ERR_PARSE with upstream's message
 * ("quantities must match the regular expression ...", "unable to parse quantity's suffix",
 * "unable to parse numeric part of quantity"). */
WH_NODISCARD enum wh_err wh_quantity_parse(const char *str, struct wh_quantity *q,
                                           struct wh_errbuf *eb);

/* Whether ParseQuantity accepts str, without computing the value (what a decoder that only
 * checks types needs). Errors: those of wh_quantity_parse. */
WH_NODISCARD enum wh_err wh_quantity_check(const char *str, struct wh_errbuf *eb);

/* q = v x 10^scale in the given format. */
void wh_quantity_set_scaled(struct wh_quantity *q, int64_t v, int32_t scale,
                            enum wh_quantity_format format);

bool wh_quantity_is_zero(const struct wh_quantity *q);
/* -1, 0 or 1. */
int wh_quantity_sign(const struct wh_quantity *q);
/* Compares the values (formats ignored): -1, 0 or 1. */
int wh_quantity_cmp(const struct wh_quantity *a, const struct wh_quantity *b);

/* sum += x for values that are not negative (sums of requests and limits); the text cache is
 * dropped. False, with sum unchanged, when the result needs more than WH_QUANTITY_MAX_DIGITS. */
bool wh_quantity_add(struct wh_quantity *sum, const struct wh_quantity *x);

/* Rounds the magnitude up (away from zero) so that q->scale >= scale; true when nothing was
 * lost. Drops the cached text when it changes the value's representation. */
bool wh_quantity_round_up(struct wh_quantity *q, int32_t scale);

/* The value in units of 10^scale, rounded away from zero (ScaledValue); saturates at the
 * int64 limits. */
int64_t wh_quantity_scaled_value(const struct wh_quantity *q, int32_t scale);

/* The canonical text (String()) into out (truncated to outsz; WH_QUANTITY_MAX_DIGITS + 8 is
 * always enough). */
void wh_quantity_format(const struct wh_quantity *q, char *out, size_t outsz);

#endif
