/* The values Pod validation prints with Go's %#v (field.ErrorBody's fallback for types without
 * a String method), given as the v1 JSON they were converted from. Go prints the address of a
 * non-nil pointer; any address reads the same to a reader (and differs per run in Go), so one
 * fixed address stands for all. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/podvalidation_int.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"

#define GO_ADDRESS "0xc000010000"

static void put_quoted(struct wh_buf *b, const char *s)
{
    char *q = wh_go_quote(s ? s : "");
    wh_buf_put(b, "%s", q);
    free(q);
}

/* A struct field of pointer type: Go name, JSON member, pointed-to type. */
struct ptr_field {
    const char *go, *json, *type;
};

static void put_pointer(struct wh_buf *b, const struct ptr_field *f, const json_t *o, bool first)
{
    wh_buf_put(b, "%s%s:(*%s)(%s)", first ? "" : ", ", f->go, f->type,
               wh_pv_get(o, f->json) ? GO_ADDRESS : "nil");
}

static void start(struct wh_buf *b)
{
    wh_buf_init(b, 1u << 20);
}

char *wh_pv_gosyntax_strings(const json_t *arr)
{
    struct wh_buf b;
    size_t i;
    const json_t *v;
    start(&b);
    if (!json_is_array(arr)) {
        wh_buf_put(&b, "[]string(nil)");
        return wh_buf_take(&b, NULL);
    }
    wh_buf_put(&b, "[]string{");
    json_array_foreach(arr, i, v)
    {
        wh_buf_put(&b, "%s", i ? ", " : "");
        put_quoted(&b, json_string_value(v));
    }
    wh_buf_put(&b, "}");
    return wh_buf_take(&b, NULL);
}

char *wh_pv_gosyntax_security_context(const json_t *sc)
{
    static const struct ptr_field fields[] = {
        {"Capabilities", "capabilities", "core.Capabilities"},
        {"Privileged", "privileged", "bool"},
        {"SELinuxOptions", "seLinuxOptions", "core.SELinuxOptions"},
        {"WindowsOptions", "windowsOptions", "core.WindowsSecurityContextOptions"},
        {"RunAsUser", "runAsUser", "int64"},
        {"RunAsGroup", "runAsGroup", "int64"},
        {"RunAsNonRoot", "runAsNonRoot", "bool"},
        {"ReadOnlyRootFilesystem", "readOnlyRootFilesystem", "bool"},
        {"AllowPrivilegeEscalation", "allowPrivilegeEscalation", "bool"},
        {"ProcMount", "procMount", "core.ProcMountType"},
        {"SeccompProfile", "seccompProfile", "core.SeccompProfile"},
        {"AppArmorProfile", "appArmorProfile", "core.AppArmorProfile"},
    };
    struct wh_buf b;
    start(&b);
    wh_buf_put(&b, "core.SecurityContext{");
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
        put_pointer(&b, &fields[i], sc, i == 0);
    wh_buf_put(&b, "}");
    return wh_buf_take(&b, NULL);
}

char *wh_pv_gosyntax_seccomp_profile(const json_t *sp)
{
    static const struct ptr_field lp = {"LocalhostProfile", "localhostProfile", "string"};
    struct wh_buf b;
    start(&b);
    wh_buf_put(&b, "core.SeccompProfile{Type:");
    put_quoted(&b, wh_json_str_or_empty(sp, "type"));
    put_pointer(&b, &lp, sp, false);
    wh_buf_put(&b, "}");
    return wh_buf_take(&b, NULL);
}

char *wh_pv_gosyntax_resize_policies(const json_t *arr)
{
    struct wh_buf b;
    size_t i;
    const json_t *v;
    start(&b);
    wh_buf_put(&b, "[]core.ContainerResizePolicy{");
    json_array_foreach(arr, i, v)
    {
        wh_buf_put(&b, "%score.ContainerResizePolicy{ResourceName:", i ? ", " : "");
        put_quoted(&b, wh_json_str_or_empty(v, "resourceName"));
        wh_buf_put(&b, ", RestartPolicy:");
        put_quoted(&b, wh_json_str_or_empty(v, "restartPolicy"));
        wh_buf_put(&b, "}");
    }
    wh_buf_put(&b, "}");
    return wh_buf_take(&b, NULL);
}

char *wh_pv_gosyntax_resource_claim(const json_t *claim)
{
    static const struct ptr_field fields[] = {
        {"ResourceClaimName", "resourceClaimName", "string"},
        {"ResourceClaimTemplateName", "resourceClaimTemplateName", "string"},
    };
    struct wh_buf b;
    start(&b);
    wh_buf_put(&b, "core.PodResourceClaim{Name:");
    put_quoted(&b, wh_json_str_or_empty(claim, "name"));
    for (size_t i = 0; i < 2; i++)
        put_pointer(&b, &fields[i], claim, false);
    wh_buf_put(&b, "}");
    return wh_buf_take(&b, NULL);
}

char *wh_pv_gosyntax_cluster_trust_bundle(const json_t *ctb)
{
    static const struct ptr_field fields[] = {
        {"Name", "name", "string"},
        {"SignerName", "signerName", "string"},
        {"LabelSelector", "labelSelector", "v1.LabelSelector"},
        {"Optional", "optional", "bool"},
    };
    struct wh_buf b;
    start(&b);
    wh_buf_put(&b, "core.ClusterTrustBundleProjection{");
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
        put_pointer(&b, &fields[i], ctb, i == 0);
    wh_buf_put(&b, ", Path:");
    put_quoted(&b, wh_json_str_or_empty(ctb, "path"));
    wh_buf_put(&b, "}");
    return wh_buf_take(&b, NULL);
}

char *wh_pv_gosyntax_field_path(const char *name, const char *index)
{
    struct wh_buf b;
    start(&b);
    wh_buf_put(&b, "field.Path{name:");
    put_quoted(&b, name);
    wh_buf_put(&b, ", index:");
    put_quoted(&b, index);
    wh_buf_put(&b, ", parent:(*field.Path)(" GO_ADDRESS ")}");
    return wh_buf_take(&b, NULL);
}

/* --- resource.Quantity ------------------------------------------------------------------------ */

/* What ParseQuantity builds from text: the int64Amount fast path (value x 10^scale, the text
 * kept as the cached String() when it is canonical), or an inf.Dec. */
struct go_quantity {
    bool dec; /* an inf.Dec: i is zero */
    long long value;
    int scale;
    bool cached;
    const char *format;
};

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* quantitySuffixer.interpret: base, exponent, format. */
static bool interpret_suffix(const char *suf, int *base, int *exp, const char **format)
{
    static const struct {
        const char *s;
        int base, exp;
    } si[] = {{"", 10, 0},   {"n", 10, -9}, {"u", 10, -6}, {"m", 10, -3},
              {"k", 10, 3},  {"M", 10, 6},  {"G", 10, 9},  {"T", 10, 12},
              {"P", 10, 15}, {"E", 10, 18}, {"Ki", 2, 10}, {"Mi", 2, 20},
              {"Gi", 2, 30}, {"Ti", 2, 40}, {"Pi", 2, 50}, {"Ei", 2, 60}};
    for (size_t i = 0; i < sizeof(si) / sizeof(si[0]); i++) {
        if (strcmp(si[i].s, suf) == 0) {
            *base = si[i].base;
            *exp = si[i].exp;
            *format = si[i].base == 2 ? "BinarySI" : "DecimalSI";
            return true;
        }
    }
    if ((suf[0] == 'e' || suf[0] == 'E') && suf[1]) {
        char *end = NULL;
        long e = strtol(suf + 1, &end, 10);
        if (!*end && e > -1000000 && e < 1000000) {
            *base = 10;
            *exp = (int)e;
            *format = "DecimalExponent";
            return true;
        }
    }
    return false;
}

static void go_parse(const char *str, struct go_quantity *g)
{
    memset(g, 0, sizeof(*g));
    g->format = "DecimalSI";
    if (strcmp(str, "0") == 0) {
        g->cached = true;
        return;
    }
    bool positive = true;
    const char *s = str;
    if (*s == '-' || *s == '+')
        positive = *s++ != '-';
    while (*s == '0')
        s++;
    const char *num = s;
    while (is_digit(*s))
        s++;
    size_t nnum = (size_t)(s - num);
    const char *denom = "";
    size_t nden = 0;
    if (*s == '.') {
        denom = ++s;
        while (is_digit(*s))
            s++;
        nden = (size_t)(s - denom);
    }
    int base, exp;
    if (!interpret_suffix(s, &base, &exp, &g->format)) {
        g->dec = true;
        return;
    }
    char numbuf[64];
    if (nnum == 0) {
        num = "0";
        nnum = 1;
    }
    int precision, scale = 0;
    long long mantissa = 1;
    if (base == 10) {
        scale = exp;
        precision = 18 - (int)(nnum + nden);
    } else if (exp >= 0 && nden == 0) {
        mantissa = exp < 63 ? 1LL << exp : 0;
        precision = 15 - (int)nnum - (int)((float)exp * 3 / 10) - 1;
    } else {
        precision = -1;
    }
    g->dec = true;
    if (precision < 0)
        return;
    scale -= (int)nden;
    if (scale < -9 || nnum + nden >= sizeof(numbuf))
        return;
    snprintf(numbuf, sizeof(numbuf), "%.*s%.*s", (int)nnum, num, (int)nden, denom);
    long long value = strtoll(numbuf, NULL, 10), result;
    if (__builtin_mul_overflow(value, mantissa, &result))
        return;
    g->dec = false;
    g->value = positive ? result : -result;
    g->scale = scale;
    size_t ns = strlen(numbuf);
    if (base == 2)
        g->cached = exp % 10 == 0 && (value & 0x07) != 0;
    else
        g->cached =
            scale % 3 == 0 && !(ns >= 3 && strcmp(numbuf + ns - 3, "000") == 0) && numbuf[0] != '0';
}

/* negativeScaleInt64: base / 10^scale, rounded away from zero. */
static long long negative_scale(long long base, int scale)
{
    long long value = base;
    bool fraction = false;
    for (int i = 0; i < scale; i++) {
        if (!fraction && value % 10 != 0)
            fraction = true;
        value /= 10;
        if (value == 0)
            return fraction ? (base > 0 ? 1 : -1) : 0;
    }
    if (fraction)
        value += base > 0 ? 1 : -1;
    return value;
}

char *wh_pv_gosyntax_quantity(const json_t *v, bool rounded)
{
    char text[96];
    if (json_is_string(v)) {
        /* UnmarshalJSON trims the white space around the number */
        const char *s = json_string_value(v);
        size_t n = strlen(s);
        while (n && strchr(" \t\n\r\v\f", s[n - 1]))
            n--;
        while (n && strchr(" \t\n\r\v\f", *s)) {
            s++;
            n--;
        }
        snprintf(text, sizeof(text), "%.*s", (int)n, s);
    } else if (json_is_integer(v)) {
        snprintf(text, sizeof(text), "%lld", (long long)json_integer_value(v));
    } else if (json_is_real(v)) {
        snprintf(text, sizeof(text), "%.17g", json_real_value(v));
    } else {
        text[0] = '\0';
    }
    struct go_quantity g;
    go_parse(text, &g);
    /* RoundUp(milliScale): an int64Amount below milli precision is scaled, and its cached text
     * goes */
    if (rounded && !g.dec && g.scale < -3) {
        g.value = negative_scale(g.value, -3 - g.scale);
        g.scale = -3;
        g.cached = false;
    }
    struct wh_buf b;
    start(&b);
    if (g.dec) {
        /* an inf.Dec below 1 in binary SI is printed in decimal SI */
        struct wh_quantity q, one;
        struct wh_errbuf eb;
        if (strcmp(g.format, "BinarySI") == 0 && wh_quantity_parse(text, &q, &eb) == WH_OK) {
            wh_quantity_set_scaled(&one, 1, 0, WH_QUANTITY_DECIMAL_SI);
            if (wh_quantity_sign(&q) > 0 && wh_quantity_cmp(&q, &one) < 0)
                g.format = "DecimalSI";
        }
        wh_buf_put(&b,
                   "resource.Quantity{i:resource.int64Amount{value:0, scale:0}, "
                   "d:resource.infDecAmount{Dec:(*inf.Dec)(" GO_ADDRESS
                   ")}, s:\"\", Format:\"%s\"}",
                   g.format);
    } else {
        wh_buf_put(&b,
                   "resource.Quantity{i:resource.int64Amount{value:%lld, scale:%d}, "
                   "d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:",
                   g.value, g.scale);
        put_quoted(&b, g.cached ? text : "");
        wh_buf_put(&b, ", Format:\"%s\"}", g.format);
    }
    return wh_buf_take(&b, NULL);
}
