#include "test/support/vector.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config/config.h"
#include "gocompat/gotime.h"
#include "handlers/registry.h"
#include "jsonpatch/apply.h"
#include "kube/cluster.h"
#include "kube/resource.h"
#include "server/dispatch.h"
#include "test/support/vector_compare.h"
#include "util/base64.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"
#include "util/time.h"

enum wh_err wh_vec_load(const char *path, struct wh_vec *v, struct wh_errbuf *eb)
{
    memset(v, 0, sizeof(*v));
    json_error_t jerr;
    v->root = json_load_file(path, JSON_ALLOW_NUL, &jerr);
    if (!v->root)
        return wh_errbuf_set(eb, WH_ERR_PARSE, "%s:%d:%d: %s", path, jerr.line, jerr.column,
                             jerr.text);
    v->path = wh_xstrdup(path);
    const char *slash = strrchr(v->path, '/');
    v->name = wh_json_str(v->root, "name");
    if (!v->name)
        v->name = slash ? slash + 1 : v->path;
    /* the folder name: the path component before the file */
    const char *start = slash ? slash : v->path;
    while (start > v->path && start[-1] != '/')
        start--;
    v->area = wh_xstrndup(start, slash ? (size_t)(slash - start) : 0);
    v->endpoint = wh_json_str(v->root, "endpoint");
    v->gates = wh_json_obj(v->root, "featureGates");
    v->cluster = wh_json_arr(v->root, "cluster");
    v->request = wh_json_obj(v->root, "request");
    v->expect = wh_json_obj(v->root, "expect");
    if (!v->endpoint || !v->request || !v->expect) {
        wh_vec_fini(v);
        return wh_errbuf_set(eb, WH_ERR_INVALID, "%s: needs endpoint, request and expect", path);
    }
    v->conversion = wh_json_str(v->request, "desiredAPIVersion") != NULL;
    return WH_OK;
}

void wh_vec_fini(struct wh_vec *v)
{
    json_decref(v->root);
    free(v->path);
    free(v->area);
    memset(v, 0, sizeof(*v));
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char *wh_vec_gates(const struct wh_vec *v)
{
    struct wh_buf b;
    wh_buf_init(&b, 1 << 16);
    size_t n = json_object_size(v->gates), i = 0;
    const char **keys = wh_xcalloc(n ? n : 1, sizeof(*keys));
    const char *k;
    json_t *val;
    json_object_foreach((json_t *)(uintptr_t)v->gates, k, val)
    {
        keys[i++] = k;
    }
    qsort(keys, n, sizeof(*keys), cmp_str);
    for (i = 0; i < n; i++) {
        val = json_object_get(v->gates, keys[i]);
        if (wh_buf_printf(&b, "%s%s=%s", i ? "," : "", keys[i],
                          json_is_true(val) ? "true" : "false"))
            WH_PANIC("feature gates too long");
    }
    free(keys);
    return wh_buf_take(&b, NULL);
}

json_t *wh_vec_review(const struct wh_vec *v)
{
    if (v->conversion)
        return json_pack("{s:s,s:s,s:O}", "apiVersion", "apiextensions.k8s.io/v1", "kind",
                         "ConversionReview", "request", v->request);
    return json_pack("{s:s,s:s,s:O}", "apiVersion", "admission.k8s.io/v1", "kind",
                     "AdmissionReview", "request", v->request);
}

/* --- checking -------------------------------------------------------------------------- */

static void say(struct wh_buf *diff, const char *fmt, ...) WH_PRINTF(2, 3);
static void say(struct wh_buf *diff, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (wh_buf_vprintf(diff, fmt, ap) || wh_buf_addc(diff, '\n'))
        (void)0; /* a full diff buffer just stops growing */
    va_end(ap);
}

static char *dump(const json_t *v)
{
    char *s = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    if (s && strlen(s) > 600)
        memcpy(s + 590, "...\0", 4);
    return s ? s : wh_xstrdup("(none)");
}

/* Walks a and b in parallel and reports the first differences with their JSON Pointers. */
static void diff_json(const json_t *want, const json_t *got, struct wh_buf *ptr,
                      struct wh_buf *diff, int *budget)
{
    if (*budget <= 0 || json_equal((json_t *)(uintptr_t)want, (json_t *)(uintptr_t)got))
        return;
    size_t mark = ptr->len;
    if (json_is_object(want) && json_is_object(got)) {
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)(uintptr_t)want, k, v)
        {
            if (wh_buf_printf(ptr, "/%s", k))
                break;
            json_t *g = json_object_get(got, k);
            if (!g) {
                char *s = dump(v);
                say(diff, "  %s: missing (want %s)", ptr->data, s);
                free(s);
                (*budget)--;
            } else {
                diff_json(v, g, ptr, diff, budget);
            }
            ptr->len = mark;
            ptr->data[mark] = '\0';
        }
        json_object_foreach((json_t *)(uintptr_t)got, k, v)
        {
            if (*budget > 0 && !json_object_get(want, k)) {
                char *s = dump(v);
                say(diff, "  %s/%s: unexpected %s", ptr->data ? ptr->data : "", k, s);
                free(s);
                (*budget)--;
            }
        }
        return;
    }
    if (json_is_array(want) && json_is_array(got) &&
        json_array_size(want) == json_array_size(got)) {
        for (size_t i = 0; i < json_array_size(want); i++) {
            if (wh_buf_printf(ptr, "/%zu", i))
                break;
            diff_json(json_array_get(want, i), json_array_get(got, i), ptr, diff, budget);
            ptr->len = mark;
            ptr->data[mark] = '\0';
        }
        return;
    }
    char *sw = dump(want), *sg = dump(got);
    say(diff, "  %s: want %s, got %s", ptr->len ? ptr->data : "(root)", sw, sg);
    free(sw);
    free(sg);
    (*budget)--;
}

static void report_json_diff(const char *what, const json_t *want, const json_t *got,
                             struct wh_buf *diff)
{
    say(diff, "%s differs:", what);
    struct wh_buf ptr;
    wh_buf_init(&ptr, 4096);
    if (wh_buf_adds(&ptr, ""))
        (void)0;
    int budget = 12;
    diff_json(want, got, &ptr, diff, &budget);
    wh_buf_fini(&ptr);
}

/* Removes the value at pointer p (RFC 6901) from doc; false when it is not there. */
static bool remove_pointer(json_t *doc, const char *p)
{
    json_t *cur = doc;
    char tok[512];
    while (*p == '/') {
        p++;
        size_t n = 0;
        while (*p && *p != '/' && n + 1 < sizeof(tok)) {
            if (p[0] == '~' && p[1] == '1') {
                tok[n++] = '/';
                p += 2;
            } else if (p[0] == '~' && p[1] == '0') {
                tok[n++] = '~';
                p += 2;
            } else {
                tok[n++] = *p++;
            }
        }
        tok[n] = '\0';
        bool last = *p != '/';
        if (json_is_object(cur)) {
            if (!json_object_get(cur, tok))
                return false;
            if (last)
                return json_object_del(cur, tok) == 0;
            cur = json_object_get(cur, tok);
        } else if (json_is_array(cur)) {
            long long idx = 0;
            if (wh_str_to_ll(tok, 0, (long long)json_array_size(cur) - 1, &idx))
                return false;
            if (last)
                return json_array_remove(cur, (size_t)idx) == 0;
            cur = json_array_get(cur, (size_t)idx);
        } else {
            return false;
        }
    }
    return false;
}

/* Only the fields the vector writes are compared; a timestamp string only has to exist. */
static bool subset_matches(const json_t *want, const json_t *got)
{
    if (json_is_object(want)) {
        if (!json_is_object(got))
            return false;
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)(uintptr_t)want, k, v)
        {
            json_t *g = json_object_get(got, k);
            if (!g || !subset_matches(v, g))
                return false;
        }
        return true;
    }
    if (json_is_array(want)) {
        if (!json_is_array(got) || json_array_size(got) != json_array_size(want))
            return false;
        for (size_t i = 0; i < json_array_size(want); i++) {
            if (!subset_matches(json_array_get(want, i), json_array_get(got, i)))
                return false;
        }
        return true;
    }
    struct wh_gotime t;
    if (json_is_string(want) && wh_gotime_parse(json_string_value(want), json_string_length(want),
                                                WH_GOTIME_RFC3339, &t, NULL) == WH_OK)
        return json_is_string(got);
    return json_equal((json_t *)(uintptr_t)want, (json_t *)(uintptr_t)got);
}

static bool check_cluster_after(const struct wh_vec *v, wh_vec_fetch_fn fetch, void *arg,
                                struct wh_buf *diff)
{
    const json_t *after = wh_json_arr(v->expect, "clusterAfter");
    bool ok = true;
    size_t i;
    json_t *want;
    json_array_foreach((json_t *)(uintptr_t)after, i, want)
    {
        const char *ns = wh_json_meta_str(want, "namespace");
        const char *name = wh_json_meta_str(want, "name");
        json_t *got = NULL;
        if (!fetch || fetch(arg, wh_json_str(want, "apiVersion"), wh_json_str(want, "kind"), ns,
                            name, &got)) {
            say(diff, "clusterAfter: %s %s/%s cannot be read back", wh_json_str(want, "kind"),
                ns ? ns : "", name ? name : "");
            ok = false;
            continue;
        }
        json_t *w = json_deep_copy(want);
        json_object_del(w, "apiVersion");
        json_object_del(w, "kind");
        if (!subset_matches(w, got)) {
            char what[256];
            snprintf(what, sizeof(what), "clusterAfter %s %s/%s", wh_json_str(want, "kind"),
                     ns ? ns : "", name ? name : "");
            json_t *gs = json_object();
            json_object_set(gs, "status", json_object_get(got, "status"));
            json_t *ws = json_object();
            json_object_set(ws, "status", json_object_get(w, "status"));
            report_json_diff(what, ws, gs, diff);
            json_decref(gs);
            json_decref(ws);
            ok = false;
        }
        json_decref(w);
        json_decref(got);
    }
    return ok;
}

/* Go's %#v prints the addresses pointers hold, which differ in every process: an expected
 * message recorded from upstream holds its run's addresses, the answer this server's stand-in
 * (WH_GO_ADDRESS). Both are read with every 0x and 6 to 16 hex digits as one word. */
static char *mask_addresses(const char *s, size_t n, size_t *outlen)
{
    char *out = wh_xmalloc(n + 1), *o = out;
    for (size_t i = 0; i < n;) {
        size_t h = 0;
        if (i + 1 < n && s[i] == '0' && s[i + 1] == 'x')
            while (h < 17 && i + 2 + h < n && strchr("0123456789abcdef", s[i + 2 + h]) &&
                   s[i + 2 + h])
                h++;
        if (h >= 6 && h <= 16) {
            memcpy(o, "0xADDR", 6);
            o += 6;
            i += 2 + h;
        } else {
            *o++ = s[i++];
        }
    }
    *o = '\0';
    *outlen = (size_t)(o - out);
    return out;
}

/* want within msg (both JSON strings, whose bytes may hold NUL: a message echoes Go strings
 * whole), addresses aside. */
static bool message_contains(const json_t *msg, const json_t *want)
{
    if (!json_is_string(msg) || !json_is_string(want))
        return false;
    size_t mn, wn;
    char *m = mask_addresses(json_string_value(msg), json_string_length(msg), &mn);
    char *w = mask_addresses(json_string_value(want), json_string_length(want), &wn);
    bool found = false;
    for (size_t i = 0; !found && wn <= mn && i <= mn - wn; i++)
        found = memcmp(m + i, w, wn) == 0;
    free(m);
    free(w);
    return found;
}

static bool check_conversion(const struct wh_vec *v, const json_t *answer, struct wh_buf *diff)
{
    const json_t *resp = wh_json_obj(answer, "response");
    bool ok = true;
    if (!wh_str_eq(wh_json_str(resp, "uid"), wh_json_str(v->request, "uid"))) {
        say(diff, "response.uid is not request.uid");
        ok = false;
    }
    const char *want_result = wh_json_str(v->expect, "result");
    const char *got_result = wh_json_path_str(resp, "result", "status", NULL);
    if (want_result && !wh_str_eq(want_result, got_result)) {
        say(diff, "result.status: want %s, got %s (message: %s)", want_result,
            got_result ? got_result : "(none)",
            wh_json_path_str(resp, "result", "message", NULL)
                ? wh_json_path_str(resp, "result", "message", NULL)
                : "");
        ok = false;
    }
    const char *msg = wh_json_path_str(resp, "result", "message", NULL);
    size_t i;
    json_t *sub;
    json_array_foreach(wh_json_arr(v->expect, "messageContains"), i, sub)
    {
        if (!message_contains(wh_json_path(resp, "result", "message", NULL), sub)) {
            say(diff, "result.message %s%s%s does not contain \"%s\"", msg ? "\"" : "",
                msg ? msg : "(none)", msg ? "\"" : "", json_string_value(sub));
            ok = false;
        }
    }
    const json_t *want_objs = wh_json_arr(v->expect, "convertedObjects");
    const json_t *got_objs = json_object_get(resp, "convertedObjects");
    if (!want_objs || !ok)
        return ok;
    const json_t *inputs = wh_json_arr(v->request, "objects");
    if (json_array_size(want_objs) != json_array_size(got_objs)) {
        say(diff, "convertedObjects: want %zu objects, got %zu", json_array_size(want_objs),
            json_array_size(got_objs));
        return false;
    }
    for (i = 0; i < json_array_size(want_objs); i++) {
        struct wh_buf d;
        wh_buf_init(&d, 8192);
        if (!wh_vec_conversion_equal(json_array_get(want_objs, i), json_array_get(got_objs, i),
                                     json_array_get(inputs, i), &d)) {
            say(diff, "convertedObjects[%zu] differs:\n%s", i, d.data ? d.data : "");
            ok = false;
        }
        wh_buf_fini(&d);
    }
    return ok;
}

static bool check_admission(const struct wh_vec *v, const json_t *answer, wh_vec_fetch_fn fetch,
                            void *arg, struct wh_buf *diff)
{
    const json_t *resp = wh_json_obj(answer, "response");
    bool ok = true;
    if (!resp) {
        say(diff, "no response member in the answer");
        return false;
    }
    if (!wh_str_eq(wh_json_str(resp, "uid"), wh_json_str(v->request, "uid"))) {
        say(diff, "response.uid is not request.uid");
        ok = false;
    }
    const json_t *want_allowed = json_object_get(v->expect, "allowed");
    const char *msg = wh_json_path_str(resp, "status", "message", NULL);
    if (want_allowed &&
        json_equal((json_t *)(uintptr_t)want_allowed, json_object_get(resp, "allowed")) == 0) {
        say(diff, "allowed: want %s, got %s (code %lld, message \"%s\")",
            json_is_true(want_allowed) ? "true" : "false",
            json_is_true(json_object_get(resp, "allowed")) ? "true" : "false",
            json_integer_value(wh_json_path(resp, "status", "code", NULL)), msg ? msg : "");
        ok = false;
    }
    const json_t *want_code = json_object_get(v->expect, "code");
    if (want_code && json_integer_value(want_code) !=
                         json_integer_value(wh_json_path(resp, "status", "code", NULL))) {
        say(diff, "status.code: want %lld, got %lld", json_integer_value(want_code),
            json_integer_value(wh_json_path(resp, "status", "code", NULL)));
        ok = false;
    }
    size_t i;
    json_t *sub;
    json_array_foreach(wh_json_arr(v->expect, "messageContains"), i, sub)
    {
        if (!message_contains(wh_json_path(resp, "status", "message", NULL), sub)) {
            say(diff, "status.message \"%s\" does not contain \"%s\"", msg ? msg : "(none)",
                json_string_value(sub));
            ok = false;
        }
    }
    const char *patch64 = wh_json_str(resp, "patch");
    json_t *patch = NULL;
    if (patch64) {
        unsigned char *raw = NULL;
        size_t len = 0;
        json_error_t jerr;
        if (wh_base64_decode(patch64, strlen(patch64), &raw, &len) == WH_OK)
            patch = json_loadb((const char *)raw, len, 0, &jerr);
        free(raw);
        if (!json_is_array(patch)) {
            say(diff, "response.patch is not a base64 JSON Patch array");
            json_decref(patch);
            return false;
        }
        if (!wh_str_eq(wh_json_str(resp, "patchType"), "JSONPatch")) {
            say(diff, "patchType is not JSONPatch");
            ok = false;
        }
    }
    if (json_is_true(json_object_get(v->expect, "noPatch")) && json_array_size(patch) > 0) {
        char *s = dump(patch);
        say(diff, "want no patch, got %s", s);
        free(s);
        ok = false;
    }
    const json_t *want_obj = json_object_get(v->expect, "object");
    if (want_obj) {
        json_t *got = NULL;
        struct wh_errbuf eb = {{0}};
        const json_t *orig = json_object_get(v->request, "object");
        if (patch && wh_patch_apply(orig, patch, &got, &eb)) {
            say(diff, "the patch does not apply: %s", eb.msg);
            ok = false;
        } else {
            if (!patch)
                got = json_deep_copy(orig);
            json_t *want = json_deep_copy(want_obj);
            json_t *p;
            json_array_foreach(wh_json_arr(v->expect, "ignorePaths"), i, p)
            {
                const char *ptr = json_string_value(p);
                remove_pointer(want, ptr);
                if (!remove_pointer(got, ptr)) {
                    say(diff, "ignored path %s is missing from the patched object", ptr);
                    ok = false;
                }
            }
            if (!json_equal(want, got)) {
                report_json_diff("patched object", want, got, diff);
                ok = false;
            }
            json_decref(want);
        }
        json_decref(got);
    }
    json_decref(patch);
    if (wh_json_arr(v->expect, "clusterAfter") && !check_cluster_after(v, fetch, arg, diff))
        ok = false;
    return ok;
}

bool wh_vec_check(const struct wh_vec *v, const json_t *answer, wh_vec_fetch_fn fetch, void *arg,
                  struct wh_buf *diff)
{
    return v->conversion ? check_conversion(v, answer, diff)
                         : check_admission(v, answer, fetch, arg, diff);
}

/* --- in process ------------------------------------------------------------------------ */

static void api_group(const char *api_version, char *group, size_t gsz, const char **version)
{
    const char *slash = strchr(api_version, '/');
    size_t n = slash ? (size_t)(slash - api_version) : 0;
    snprintf(group, gsz, "%.*s", (int)n, api_version);
    *version = slash ? slash + 1 : api_version;
}

static enum wh_err fetch_local(void *arg, const char *api_version, const char *kind, const char *ns,
                               const char *name, json_t **out)
{
    struct wh_cluster *cl = arg;
    char group[128];
    const char *version = NULL;
    api_group(api_version ? api_version : "", group, sizeof(group), &version);
    enum wh_resource_id id = wh_resource_by_kind(group, kind ? kind : "");
    if (id >= WH_RES_COUNT)
        return WH_ERR_NOT_FOUND;
    struct wh_errbuf eb = {{0}};
    return wh_cluster_get_live(cl, group, version, wh_resource_get(id)->resource, ns, name, out,
                               &eb);
}

bool wh_vec_run_local(const struct wh_vec *v, bool *skipped, struct wh_buf *diff)
{
    *skipped = false;
    struct wh_config cfg;
    struct wh_errbuf eb = {{0}};
    char *gates = wh_vec_gates(v);
    char gate_flag[1024];
    snprintf(gate_flag, sizeof(gate_flag), "--feature-gates=%s", gates);
    free(gates);
    char *argv[] = {"kruise-webhook", gate_flag, NULL};
    if (wh_config_load(&cfg, 2, argv, &eb)) {
        say(diff, "feature gates: %s", eb.msg);
        wh_config_fini(&cfg);
        return false;
    }
    bool ok = false;
    struct wh_cluster *cl = NULL;
    json_t *review = NULL, *answer = NULL;
    const struct wh_route *route = wh_routes_find(&cfg, v->endpoint);
    if (!route || !wh_route_covers(route, v->area)) {
        bool known = wh_routes_implement(v->endpoint, v->area);
        /* Not implemented: skipped. Implemented but switched off by a gate: the server's 404. */
        *skipped = !known;
        if (known)
            say(diff, "%s is not served with these feature gates", v->endpoint);
        ok = !known;
        goto out;
    }
    json_t *empty = json_array();
    enum wh_err rc = wh_cluster_new_standalone_objects(v->cluster ? v->cluster : empty, &cl, &eb);
    json_decref(empty);
    if (!rc)
        rc = wh_routes_setup(&cfg, cl, &eb);
    if (!rc)
        rc = wh_cluster_start(cl, &eb);
    if (rc) {
        say(diff, "cluster state: %s", eb.msg);
        goto out;
    }
    review = wh_vec_review(v);
    char *body = wh_json_dumps(review);
    struct wh_reply reply;
    struct wh_handler_ctx ctx = {.cfg = &cfg, .cluster = cl};
    wh_dispatch(route, &ctx, body, strlen(body), &reply);
    free(body);
    if (reply.http_status != 200) {
        say(diff, "HTTP %d: %s", reply.http_status, reply.body);
        wh_reply_fini(&reply);
        goto out;
    }
    json_error_t jerr;
    answer = json_loadb(reply.body, reply.len, JSON_ALLOW_NUL, &jerr);
    wh_reply_fini(&reply);
    ok = answer && wh_vec_check(v, answer, fetch_local, cl, diff);
out:
    json_decref(answer);
    json_decref(review);
    wh_cluster_free(cl);
    wh_config_fini(&cfg);
    return ok;
}

char **wh_vec_list_dir(const char *dir, size_t *n)
{
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    size_t cap = 16;
    char **names = wh_xmalloc(cap * sizeof(*names));
    for (struct dirent *de = readdir(d); de; de = readdir(d)) {
        if (de->d_name[0] == '.' || !wh_str_has_suffix(de->d_name, ".json"))
            continue;
        if (*n == cap) {
            cap *= 2;
            names = wh_xrealloc(names, cap * sizeof(*names));
        }
        names[(*n)++] = wh_str_printf("%s/%s", dir, de->d_name);
    }
    closedir(d);
    qsort(names, *n, sizeof(*names), cmp_str);
    return names;
}

int wh_vec_run_dir_local(const char *dir, int *passed, int *skipped)
{
    int failed = 0, ok = 0, skip = 0;
    size_t n = 0;
    char **paths = wh_vec_list_dir(dir, &n);
    for (size_t i = 0; i < n; i++) {
        struct wh_vec v;
        struct wh_errbuf eb = {{0}};
        struct wh_buf diff;
        wh_buf_init(&diff, 1 << 16);
        if (wh_vec_load(paths[i], &v, &eb)) {
            fprintf(stderr, "FAIL %s: %s\n", paths[i], eb.msg);
            failed++;
        } else {
            bool was_skipped = false;
            if (wh_vec_run_local(&v, &was_skipped, &diff)) {
                if (was_skipped)
                    skip++;
                else
                    ok++;
            } else {
                fprintf(stderr, "FAIL %s (%s)\n%s", paths[i], v.name, diff.data ? diff.data : "");
                failed++;
            }
            wh_vec_fini(&v);
        }
        wh_buf_fini(&diff);
        free(paths[i]);
    }
    free(paths);
    if (passed)
        *passed = ok;
    if (skipped)
        *skipped = skip;
    return failed;
}
