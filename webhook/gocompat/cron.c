#include "gocompat/cron.h"

#include <stdlib.h>
#include <string.h>

#include "gocompat/gotime.h"
#include "gocompat/gozone.h"
#include "gocompat/strconv.h"
#include "util/mem.h"
#include "util/str.h"
#include "util/utf8.h"

/* A slice of the spec (Go's substrings share the spec's bytes). */
struct str {
    const char *p;
    size_t n;
};

/* A field's bounds and, for months and weekdays, its names (spec.go). */
struct name {
    const char *name;
    unsigned value;
};
struct bounds {
    uint64_t min, max;
    const struct name *names; /* NULL-terminated, or NULL */
};

static const struct name month_names[] = {
    {"jan", 1}, {"feb", 2}, {"mar", 3}, {"apr", 4},  {"may", 5},  {"jun", 6}, {"jul", 7},
    {"aug", 8}, {"sep", 9}, {"oct", 10}, {"nov", 11}, {"dec", 12}, {NULL, 0},
};
static const struct name dow_names[] = {
    {"sun", 0}, {"mon", 1}, {"tue", 2}, {"wed", 3}, {"thu", 4}, {"fri", 5}, {"sat", 6}, {NULL, 0},
};

static const struct bounds seconds = {0, 59, NULL}, minutes = {0, 59, NULL},
                           hours = {0, 23, NULL}, dom = {1, 31, NULL},
                           months = {1, 12, month_names}, dow = {0, 6, dow_names};

/* The six places in order, their option bits and the value an omitted one takes. */
static const unsigned places[6] = {WH_CRON_SECOND, WH_CRON_MINUTE, WH_CRON_HOUR,
                                   WH_CRON_DOM,    WH_CRON_MONTH,  WH_CRON_DOW};
static const char *const place_defaults[6] = {"0", "0", "0", "*", "*", "*"};

static enum wh_err fail(char **message, char *text)
{
    *message = text;
    return WH_ERR_INVALID;
}

/* --- numbers and ranges (getRange, parseIntOrName, mustParseInt) --------------------------- */

/* mustParseInt: strconv.Atoi, and no negative numbers. */
static enum wh_err must_parse_int(struct str e, uint64_t *out, char **message)
{
    char *text = wh_xmalloc(e.n + 1);
    memcpy(text, e.p, e.n);
    text[e.n] = '\0';
    int64_t v = 0;
    enum wh_err rc = WH_OK;
    char *why = NULL;
    if (wh_go_atoi_message(text, &v, &why)) {
        rc = fail(message, wh_str_printf("failed to parse int from %s: %s", text, why));
    } else if (v < 0) {
        rc = fail(message,
                  wh_str_printf("negative number (%lld) not allowed: %s", (long long)v, text));
    } else {
        *out = (uint64_t)v;
    }
    free(why);
    free(text);
    return rc;
}

static bool name_equal(struct str e, const char *name)
{
    /* strings.ToLower(expr) == name: a name is three ASCII letters, and no other rune lowers to
     * one of theirs (the Kelvin sign lowers to 'k', which no name has) */
    if (e.n != strlen(name))
        return false;
    for (size_t i = 0; i < e.n; i++) {
        char c = e.p[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != name[i])
            return false;
    }
    return true;
}

static enum wh_err parse_int_or_name(struct str e, const struct name *names, uint64_t *out,
                                     char **message)
{
    for (size_t i = 0; names && names[i].name; i++) {
        if (name_equal(e, names[i].name)) {
            *out = names[i].value;
            return WH_OK;
        }
    }
    return must_parse_int(e, out, message);
}

/* strings.Split(s, sep) for a one-byte sep: the number of parts, the first two in parts. */
static size_t split2(struct str s, char sep, struct str parts[2])
{
    size_t count = 1;
    const char *start = s.p, *end = s.p + s.n;
    parts[0] = (struct str){s.p, s.n};
    for (const char *p = s.p; p < end; p++) {
        if (*p != sep)
            continue;
        if (count == 1)
            parts[0].n = (size_t)(p - start);
        if (count == 1)
            parts[1] = (struct str){p + 1, (size_t)(end - p - 1)};
        else if (count == 2)
            parts[1].n = (size_t)(p - parts[1].p);
        count++;
    }
    return count;
}

/* getBits: the bits min..max every step (Go's shifts past 63 give 0). */
static uint64_t get_bits(uint64_t min, uint64_t max, uint64_t step)
{
    if (step == 1) {
        uint64_t below_max = max + 1 >= 64 ? ~0ull : ~(~0ull << (max + 1));
        uint64_t from_min = min >= 64 ? 0 : ~0ull << min;
        return below_max & from_min;
    }
    uint64_t bits = 0;
    for (uint64_t i = min; i <= max; i += step) {
        if (i < 64)
            bits |= 1ull << i;
        if (i + step < i)
            break;
    }
    return bits;
}

static enum wh_err get_range(struct str expr, const struct bounds *r, uint64_t *out,
                             char **message)
{
    struct str range_step[2], low_high[2];
    size_t nslash = split2(expr, '/', range_step);
    size_t nhyphen = split2(range_step[0], '-', low_high);
    bool single = nhyphen == 1;
    uint64_t start, end, step, extra = 0;
    enum wh_err rc;
    *out = 0;
    char *text = wh_xmalloc(expr.n + 1);
    memcpy(text, expr.p, expr.n);
    text[expr.n] = '\0';
    if (low_high[0].n == 1 && (low_high[0].p[0] == '*' || low_high[0].p[0] == '?')) {
        /* a star ignores whatever hyphens follow it */
        start = r->min;
        end = r->max;
        extra = WH_CRON_STAR_BIT;
    } else {
        rc = parse_int_or_name(low_high[0], r->names, &start, message);
        if (rc)
            goto out;
        if (nhyphen == 1) {
            end = start;
        } else if (nhyphen == 2) {
            rc = parse_int_or_name(low_high[1], r->names, &end, message);
            if (rc)
                goto out;
        } else {
            rc = fail(message, wh_str_printf("too many hyphens: %s", text));
            goto out;
        }
    }
    if (nslash == 1) {
        step = 1;
    } else if (nslash == 2) {
        rc = must_parse_int(range_step[1], &step, message);
        if (rc)
            goto out;
        /* "N/step" means "N-max/step" */
        if (single)
            end = r->max;
        if (step > 1)
            extra = 0;
    } else {
        rc = fail(message, wh_str_printf("too many slashes: %s", text));
        goto out;
    }
    if (start < r->min) {
        rc = fail(message,
                  wh_str_printf("beginning of range (%llu) below minimum (%llu): %s",
                                (unsigned long long)start, (unsigned long long)r->min, text));
    } else if (end > r->max) {
        rc = fail(message,
                  wh_str_printf("end of range (%llu) above maximum (%llu): %s",
                                (unsigned long long)end, (unsigned long long)r->max, text));
    } else if (start > end) {
        rc = fail(message,
                  wh_str_printf("beginning of range (%llu) beyond end of range (%llu): %s",
                                (unsigned long long)start, (unsigned long long)end, text));
    } else if (step == 0) {
        rc = fail(message, wh_str_printf("step of range should be a positive number: %s", text));
    } else {
        *out = get_bits(start, end, step) | extra;
        rc = WH_OK;
    }
out:
    free(text);
    return rc;
}

/* getField: the ranges between commas (strings.FieldsFunc: empty ones dropped), OR-ed. */
static enum wh_err get_field(struct str field, const struct bounds *r, uint64_t *out,
                             char **message)
{
    *out = 0;
    size_t i = 0;
    while (i < field.n) {
        while (i < field.n && field.p[i] == ',')
            i++;
        size_t start = i;
        while (i < field.n && field.p[i] != ',')
            i++;
        if (i == start)
            break;
        uint64_t bits;
        enum wh_err rc = get_range((struct str){field.p + start, i - start}, r, &bits, message);
        if (rc)
            return rc;
        *out |= bits;
    }
    return WH_OK;
}

/* --- fields (strings.Fields, normalizeFields) ---------------------------------------------- */

struct fields {
    struct str *v;
    size_t n, cap;
};

static void fields_push(struct fields *f, struct str s)
{
    if (f->n == f->cap) {
        f->cap = f->cap ? f->cap * 2 : 8;
        f->v = wh_xrealloc(f->v, f->cap * sizeof(*f->v));
    }
    f->v[f->n++] = s;
}

/* strings.Fields: the runs between Unicode white space. */
static void split_fields(struct str s, struct fields *out)
{
    const unsigned char *p = (const unsigned char *)s.p;
    size_t i = 0;
    while (i < s.n) {
        size_t sp;
        while (i < s.n && (sp = wh_utf8_space_len(p + i, s.n - i)) > 0)
            i += sp;
        if (i == s.n)
            break;
        size_t start = i;
        while (i < s.n && wh_utf8_space_len(p + i, s.n - i) == 0)
            i++;
        fields_push(out, (struct str){s.p + start, i - start});
    }
}

/* fmt's %s of a []string: "[a b c]". Returns: new string. */
static char *fields_text(const struct fields *f)
{
    size_t n = 2;
    for (size_t i = 0; i < f->n; i++)
        n += f->v[i].n + 1;
    char *out = wh_xmalloc(n + 1), *o = out;
    *o++ = '[';
    for (size_t i = 0; i < f->n; i++) {
        if (i)
            *o++ = ' ';
        memcpy(o, f->v[i].p, f->v[i].n);
        o += f->v[i].n;
    }
    *o++ = ']';
    *o = '\0';
    return out;
}

/* normalizeFields: the six places, from the fields given and the options' defaults. */
static enum wh_err normalize_fields(const struct fields *in, unsigned options, struct str out[6],
                                    char **message)
{
    int optionals = 0;
    if (options & WH_CRON_SECOND_OPTIONAL) {
        options |= WH_CRON_SECOND;
        optionals++;
    }
    if (options & WH_CRON_DOW_OPTIONAL) {
        options |= WH_CRON_DOW;
        optionals++;
    }
    if (optionals > 1)
        return fail(message, wh_xstrdup("multiple optionals may not be configured"));
    size_t max = 0;
    for (int i = 0; i < 6; i++)
        max += (options & places[i]) != 0;
    size_t min = max - (size_t)optionals;
    if (in->n < min || in->n > max) {
        char *text = fields_text(in);
        char *msg = min == max ? wh_str_printf("expected exactly %zu fields, found %zu: %s", min,
                                               in->n, text)
                               : wh_str_printf("expected %zu to %zu fields, found %zu: %s", min,
                                               max, in->n, text);
        free(text);
        return fail(message, msg);
    }
    /* the fields as given, the omitted optional one filled in */
    struct str given[7];
    size_t n = 0;
    if (min < max && in->n == min && (options & WH_CRON_SECOND_OPTIONAL) &&
        !(options & WH_CRON_DOW_OPTIONAL))
        given[n++] = (struct str){place_defaults[0], 1};
    for (size_t i = 0; i < in->n; i++)
        given[n++] = in->v[i];
    if (min < max && in->n == min && (options & WH_CRON_DOW_OPTIONAL))
        given[n++] = (struct str){place_defaults[5], 1};
    size_t k = 0;
    for (int i = 0; i < 6; i++) {
        out[i] = (struct str){place_defaults[i], 1};
        if (options & places[i])
            out[i] = given[k++];
    }
    return WH_OK;
}

/* --- descriptors (parseDescriptor) --------------------------------------------------------- */

static bool is(struct str s, const char *lit)
{
    return s.n == strlen(lit) && memcmp(s.p, lit, s.n) == 0;
}

static uint64_t all(const struct bounds *r)
{
    return get_bits(r->min, r->max, 1) | WH_CRON_STAR_BIT;
}

static enum wh_err parse_descriptor(struct str d, struct wh_cron_schedule *s, char **message)
{
    s->second = 1ull << seconds.min;
    s->minute = 1ull << minutes.min;
    s->hour = 1ull << hours.min;
    s->dom = all(&dom);
    s->month = all(&months);
    s->dow = all(&dow);
    if (is(d, "@yearly") || is(d, "@annually")) {
        s->dom = 1ull << dom.min;
        s->month = 1ull << months.min;
    } else if (is(d, "@monthly")) {
        s->dom = 1ull << dom.min;
    } else if (is(d, "@weekly")) {
        s->dow = 1ull << dow.min;
    } else if (is(d, "@daily") || is(d, "@midnight")) {
        /* the defaults above */
    } else if (is(d, "@hourly")) {
        s->hour = all(&hours);
    } else if (d.n >= 7 && memcmp(d.p, "@every ", 7) == 0) {
        int64_t ns;
        char *why = NULL;
        s->second = s->minute = s->hour = s->dom = s->month = s->dow = 0;
        if (wh_gotime_parse_duration(d.p + 7, d.n - 7, &ns, &why)) {
            char *msg = wh_str_printf("failed to parse duration %.*s: %s", (int)d.n, d.p, why);
            free(why);
            return fail(message, msg);
        }
        /* Every: at least a second, fractions of a second dropped */
        if (ns < 1000000000)
            ns = 1000000000;
        s->constant_delay = true;
        s->delay_ns = ns - ns % 1000000000;
    } else {
        s->second = s->minute = s->hour = s->dom = s->month = s->dow = 0;
        return fail(message, wh_str_printf("unrecognized descriptor: %.*s", (int)d.n, d.p));
    }
    return WH_OK;
}

/* --- Parse --------------------------------------------------------------------------------- */

/* strings.TrimSpace. */
static struct str trim_space(struct str s)
{
    const unsigned char *p = (const unsigned char *)s.p;
    size_t sp;
    while (s.n && (sp = wh_utf8_space_len(p, s.n)) > 0) {
        p += sp;
        s.n -= sp;
    }
    s.p = (const char *)p;
    /* from the end: the last rune is a space when one of the space encodings ends there */
    for (;;) {
        size_t cut = 0;
        for (size_t back = 1; back <= 3 && back <= s.n && !cut; back++) {
            const unsigned char *q = p + s.n - back;
            size_t size;
            uint32_t r = wh_utf8_decode(q, back, &size);
            if (size == back && wh_utf8_is_space(r))
                cut = back;
        }
        if (!cut)
            break;
        s.n -= cut;
    }
    return s;
}

static void set_location(struct wh_cron_schedule *s, const char *name, size_t n)
{
    free(s->location);
    s->location = wh_xmalloc(n + 1);
    memcpy(s->location, name, n);
    s->location[n] = '\0';
    s->location_len = n;
}

enum wh_err wh_cron_parse(const char *spec_p, size_t spec_n, unsigned options,
                          struct wh_cron_schedule *out, char **message)
{
    struct str spec = {spec_p, spec_n};
    struct fields f = {NULL, 0, 0};
    enum wh_err rc = WH_OK;
    memset(out, 0, sizeof(*out));
    *message = NULL;
    set_location(out, "Local", 5);
    if (spec.n == 0) {
        rc = fail(message, wh_xstrdup("empty spec string"));
        goto out;
    }
    if ((spec.n >= 3 && memcmp(spec.p, "TZ=", 3) == 0) ||
        (spec.n >= 8 && memcmp(spec.p, "CRON_TZ=", 8) == 0)) {
        const char *sp = memchr(spec.p, ' ', spec.n);
        const char *eq = memchr(spec.p, '=', spec.n);
        if (!sp) {
            /* spec[eq+1 : -1] */
            *message = wh_xstrdup("runtime error: slice bounds out of range [:-1]");
            rc = WH_ERR_INTERNAL;
            goto out;
        }
        struct str zone = {eq + 1, (size_t)(sp - eq - 1)};
        char *why = NULL;
        if (wh_gozone_load(zone.p, zone.n, &why)) {
            rc = fail(message, wh_str_printf("provided bad location %.*s: %s", (int)zone.n,
                                             zone.p, why));
            free(why);
            goto out;
        }
        bool utc = zone.n == 0 || is(zone, "UTC");
        set_location(out, utc ? "UTC" : zone.p, utc ? 3 : zone.n);
        spec = trim_space((struct str){sp, spec.n - (size_t)(sp - spec.p)});
    }
    if (spec.n && spec.p[0] == '@') {
        if (!(options & WH_CRON_DESCRIPTOR)) {
            rc = fail(message, wh_str_printf("parser does not accept descriptors: %.*s",
                                             (int)spec.n, spec.p));
            goto out;
        }
        rc = parse_descriptor(spec, out, message);
        goto out;
    }
    split_fields(spec, &f);
    struct str six[6];
    rc = normalize_fields(&f, options, six, message);
    if (rc)
        goto out;
    const struct bounds *b[6] = {&seconds, &minutes, &hours, &dom, &months, &dow};
    uint64_t *bits[6] = {&out->second, &out->minute, &out->hour,
                         &out->dom,    &out->month,  &out->dow};
    for (int i = 0; i < 6 && !rc; i++)
        rc = get_field(six[i], b[i], bits[i], message);
out:
    free(f.v);
    if (rc)
        wh_cron_schedule_fini(out);
    return rc;
}

void wh_cron_schedule_fini(struct wh_cron_schedule *s)
{
    free(s->location);
    s->location = NULL;
    s->location_len = 0;
}

/* --- robfig's steps, for its test tables --------------------------------------------------- */

enum wh_err wh_cron_range(const char *expr, uint64_t min, uint64_t max, uint64_t *bits,
                          char **message)
{
    struct bounds r = {min, max, NULL};
    *message = NULL;
    return get_range((struct str){expr, strlen(expr)}, &r, bits, message);
}

enum wh_err wh_cron_field(const char *field, uint64_t min, uint64_t max, uint64_t *bits,
                          char **message)
{
    struct bounds r = {min, max, NULL};
    *message = NULL;
    return get_field((struct str){field, strlen(field)}, &r, bits, message);
}

uint64_t wh_cron_bits(uint64_t min, uint64_t max, uint64_t step)
{
    return get_bits(min, max, step);
}

enum wh_err wh_cron_normalize_fields(const char *const *fields, size_t n, unsigned options,
                                     const char *out[6], char **message)
{
    struct fields f = {NULL, 0, 0};
    struct str six[6];
    *message = NULL;
    for (size_t i = 0; i < n; i++)
        fields_push(&f, (struct str){fields[i], strlen(fields[i])});
    enum wh_err rc = normalize_fields(&f, options, six, message);
    for (int i = 0; !rc && i < 6; i++)
        out[i] = six[i].p; /* whole given strings or the NUL-terminated defaults */
    free(f.v);
    return rc;
}
