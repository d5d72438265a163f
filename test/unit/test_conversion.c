/* Tests of webhook/conversion: every conversion vector in-process, the round-trip property
 * (over the vectors' inputs and over objects generated from the mapping tables, up to exactly
 * the losses conversion.md lists), wrong-typed fields (generated from the tables), review-level
 * errors, structural sharing, and malformed input. */
#include "test/unit/test.h"

#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conversion/convert.h"
#include "conversion/convert_int.h"
#include "conversion/review.h"
#include "server/dispatch.h"
#include "gocompat/gotime.h"
#include "test/support/vector_compare.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/jsonparse.h"
#include "util/mem.h"
#include "util/str.h"

#define VECTOR_DIR "test/vectors/conversion"

/* ---- helpers ------------------------------------------------------------------------------ */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Returns: the sorted .json file names of the vector folder (caller frees each and the list). */
static char **vector_files(size_t *n)
{
    DIR *d = opendir(VECTOR_DIR);
    char **names = NULL;
    size_t cap = 0;
    *n = 0;
    if (!d)
        return NULL;
    for (struct dirent *e = readdir(d); e; e = readdir(d)) {
        if (!wh_str_has_suffix(e->d_name, ".json"))
            continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 64;
            names = wh_xrealloc(names, cap * sizeof(*names));
        }
        names[(*n)++] = wh_str_printf("%s/%s", VECTOR_DIR, e->d_name);
    }
    closedir(d);
    qsort(names, *n, sizeof(*names), cmp_str);
    return names;
}

static void free_files(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static json_t *load(const char *path)
{
    size_t len;
    char *text = wh_test_read_file(path, &len);
    json_t *v = wh_test_json(text);
    free(text);
    return v;
}

static const struct wh_conv_plan *plan_of(const char *kind);

/* ---- the vectors -------------------------------------------------------------------------- */

/* Runs one vector; prints why it fails. */
static bool run_vector(const char *path, const json_t *v)
{
    const json_t *req = json_object_get(v, "request"), *exp = json_object_get(v, "expect");
    const json_t *objects = json_object_get(req, "objects");
    const char *desired = json_string_value(json_object_get(req, "desiredAPIVersion"));
    const char *want = json_string_value(json_object_get(exp, "result"));
    json_t *out = NULL;
    char *msg = NULL;
    bool ok = true;
    struct wh_buf diff;
    wh_buf_init(&diff, 1 << 16);
    enum wh_err rc = wh_convert_objects(desired, objects, &out, &msg);
    if (strcmp(want, "Success") == 0) {
        const json_t *eo = json_object_get(exp, "convertedObjects");
        if (rc) {
            fprintf(stderr, "%s: unexpected failure: %s\n", path, msg);
            ok = false;
        } else if (!json_is_array(eo) || json_array_size(eo) == 0) {
            ok = out == NULL;
        } else if (json_array_size(out) != json_array_size(eo)) {
            ok = false;
        } else {
            for (size_t i = 0; i < json_array_size(eo); i++)
                ok &= wh_vec_conversion_equal(json_array_get(eo, i), json_array_get(out, i),
                                              json_array_get(objects, i), &diff);
        }
    } else {
        CHECK(out == NULL);
        if (!rc) {
            fprintf(stderr, "%s: unexpected success\n", path);
            ok = false;
        }
        size_t i;
        json_t *s;
        json_array_foreach(json_object_get(exp, "messageContains"), i, s)
        {
            if (rc && !strstr(msg, json_string_value(s))) {
                fprintf(stderr, "%s: message \"%s\" lacks \"%s\"\n", path, msg,
                        json_string_value(s));
                ok = false;
            }
        }
    }
    if (!ok && diff.data)
        fprintf(stderr, "%s:\n%s", path, diff.data);
    wh_buf_fini(&diff);
    json_decref(out);
    free(msg);
    return ok;
}

TEST(conversion_vectors)
{
    size_t n, passed = 0;
    char **files = vector_files(&n);
    CHECK(n >= 70);
    for (size_t i = 0; i < n; i++) {
        json_t *v = load(files[i]);
        bool ok = run_vector(files[i], v);
        CHECK(ok);
        passed += ok;
        json_decref(v);
    }
    fprintf(stderr, "conversion vectors: %zu/%zu passed\n", passed, n);
    free_files(files, n);
}

/* The answer as the dispatcher built it before it copied the input's text of unchanged parts:
 * parsed without spans, converted, encoded and serialised. Returns: new string. */
static char *answer_without_spans(const char *body)
{
    json_t *review = wh_json_parse(body, strlen(body), NULL);
    struct wh_conversion_request req;
    struct wh_errbuf eb = {{0}};
    CHECK(review && wh_conversion_decode(review, &req, &eb) == WH_OK);
    json_t *converted = NULL;
    char *message = NULL;
    if (wh_convert_objects(req.desired_api_version, req.objects, &converted, &message) && !message)
        message = wh_xstrdup("conversion failed");
    json_t *answer = wh_conversion_encode_new(&req, message ? NULL : converted, message);
    if (message)
        json_decref(converted);
    char *text = wh_json_dumps(answer);
    json_decref(answer);
    free(message);
    json_decref(review);
    return text;
}

static void check_spliced_answer(const char *name, const char *body)
{
    static const struct wh_route route = {
        .path = "/convert", .kind = WH_ROUTE_CONVERT, .convert = wh_convert_objects};
    struct wh_reply reply;
    wh_dispatch(&route, NULL, body, strlen(body), &reply);
    char *want = answer_without_spans(body);
    CHECK_EQ_INT(reply.http_status, 200);
    if (strcmp(reply.body, want) != 0) {
        fprintf(stderr, "%s: the answer differs from its serialisation\n", name);
        CHECK_EQ_STR(reply.body, want);
    }
    free(want);
    wh_reply_fini(&reply);
}

/* /convert copies the request's text of what conversion left unchanged: byte for byte the
 * answer serialising the converted objects gives, compact or indented (no text copied), for
 * every vector and the 100 StatefulSets of the benchmark. */
TEST(conversion_answer_copies_unchanged_text_exactly)
{
    size_t n;
    char **files = vector_files(&n);
    for (size_t i = 0; i <= n; i++) {
        json_t *v = i < n ? load(files[i]) : load("test/bench/data/conversion-100.json");
        json_t *review =
            i < n ? json_pack("{s:s,s:s,s:O}", "apiVersion", "apiextensions.k8s.io/v1", "kind",
                              "ConversionReview", "request", json_object_get(v, "request"))
                  : json_incref(v);
        for (int indent = 0; indent < 2; indent++) {
            char *body = json_dumps(review, JSON_COMPACT | (indent ? JSON_INDENT(2) : 0));
            check_spliced_answer(i < n ? files[i] : "conversion-100.json", body);
            free(body);
        }
        json_decref(review);
        json_decref(v);
    }
    free_files(files, n);
}

/* The input is never modified, and what the conversion does not change stays shared. */
TEST(conversion_vectors_share_and_keep_input)
{
    size_t n;
    char **files = vector_files(&n);
    for (size_t i = 0; i < n; i++) {
        json_t *v = load(files[i]);
        const json_t *req = json_object_get(v, "request");
        const json_t *objects = json_object_get(req, "objects");
        json_t *before = json_deep_copy(objects);
        json_t *out = NULL;
        char *msg = NULL;
        enum wh_err rc = wh_convert_objects(
            json_string_value(json_object_get(req, "desiredAPIVersion")), objects, &out, &msg);
        CHECK(json_equal(before, (json_t *)(uintptr_t)objects));
        for (size_t j = 0; !rc && j < json_array_size(out); j++) {
            const json_t *in = json_array_get(objects, j), *o = json_array_get(out, j);
            const json_t *t_in = wh_conv_get(in, "spec", "template", NULL);
            if (t_in)
                CHECK(wh_conv_get(o, "spec", "template", NULL) == t_in);
        }
        json_decref(out);
        free(msg);
        json_decref(before);
        json_decref(v);
    }
    free_files(files, n);
}

/* A conversion that changes nothing under spec, status or metadata shares them whole. */
TEST(conversion_unchanged_parts_are_shared)
{
    static const char *const files[] = {
        VECTOR_DIR "/010-statefulset-v1alpha1-to-v1beta1-full.json",
        VECTOR_DIR "/062-nodeimage-v1alpha1-to-v1beta1.json",
        VECTOR_DIR "/053-broadcastjob-v1alpha1-to-v1beta1.json",
    };
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        json_t *v = load(files[i]);
        const json_t *req = json_object_get(v, "request");
        const json_t *in = json_array_get(json_object_get(req, "objects"), 0);
        json_t *out = NULL;
        char *msg = NULL;
        CHECK(wh_convert_object(json_string_value(json_object_get(req, "desiredAPIVersion")), in,
                                &out, &msg) == WH_OK);
        CHECK(json_object_get(out, "spec") == json_object_get(in, "spec"));
        CHECK(json_object_get(out, "status") == json_object_get(in, "status"));
        CHECK(json_object_get(out, "metadata") == json_object_get(in, "metadata"));
        json_decref(out);
        free(msg);
        json_decref(v);
    }
}

/* ---- the round-trip property -------------------------------------------------------------- */

/* A path with "[]" and "*" steps, as in the tables: removes every value it reaches. */
static void drop_path(json_t *v, const char *path)
{
    if (!json_is_object(v))
        return;
    const char *dot = strchr(path, '.');
    size_t len = dot ? (size_t)(dot - path) : strlen(path);
    bool arr = len >= 2 && path[len - 1] == ']' && path[len - 2] == '[';
    char *name = wh_xstrndup(path, arr ? len - 2 : len);
    if (!dot) {
        json_object_del(v, name);
    } else if (strcmp(name, "*") == 0) {
        const char *k;
        json_t *x;
        json_object_foreach(v, k, x)
        {
            if (arr) {
                size_t i;
                json_t *e;
                json_array_foreach(x, i, e) drop_path(e, dot + 1);
            } else {
                drop_path(x, dot + 1);
            }
        }
    } else {
        json_t *x = json_object_get(v, name);
        if (arr) {
            size_t i;
            json_t *e;
            json_array_foreach(x, i, e) drop_path(e, dot + 1);
        } else {
            drop_path(x, dot + 1);
        }
    }
    free(name);
}

/* Is path (a table path) a field of the model's type of version v? */
static bool schema_has(const struct wh_conv_plan *p, enum wh_conv_ver v, const char *path)
{
    const struct wh_gotype *t = wh_conv_root(p, v);
    const char *s = path;
    while (t && *s) {
        const char *dot = strchr(s, '.');
        size_t len = dot ? (size_t)(dot - s) : strlen(s);
        bool arr = len >= 2 && s[len - 1] == ']';
        if (arr)
            len -= 2;
        if (len == 1 && *s == '*') {
            t = wh_gotype_kind(t) == WH_GK_MAP ? wh_gotype_elem(t) : NULL;
        } else {
            char *name = wh_xstrndup(s, len);
            const struct wh_gofield *f =
                wh_gotype_kind(t) == WH_GK_STRUCT ? wh_gotype_member(t, name) : NULL;
            free(name);
            t = f ? f->type : NULL;
        }
        if (t && arr)
            t = wh_gotype_kind(t) == WH_GK_SLICE ? wh_gotype_elem(t) : NULL;
        s = dot ? dot + 1 : s + strlen(s);
    }
    return t != NULL;
}

static bool is_policy(const char *s)
{
    return s && (strcmp(s, "ReCreate") == 0 || strcmp(s, "InPlaceIfPossible") == 0 ||
                 strcmp(s, "InPlaceOnly") == 0);
}

static bool int32_text(const char *s, long long *n)
{
    return s && wh_conv_parse_int(s, INT32_MIN, INT32_MAX, n);
}

static void set_decimal_annotation(json_t *exp, const char *key, long long n)
{
    char buf[32];
    snprintf(buf, sizeof(buf), "%lld", n);
    wh_conv_meta_set(exp, WH_META_ANNOTATION, key, buf);
}

#define ANN_PAR "apps.kruise.io/image-predownload-parallelism"
#define ANN_TMO "apps.kruise.io/image-predownload-timeout-seconds"
#define ANN_MIN "apps.kruise.io/image-predownload-min-updated-ready-pods"

/* conversion.md 6.5 (and 6.1, 6.3, which it summarises). */
static bool loss_cloneset(json_t *exp, const json_t *orig, enum wh_conv_ver start)
{
    const char *t = wh_conv_get_str(orig, "spec", "updateStrategy", "type", NULL);
    static const char *const rolling[] = {
        "partition",       "maxUnavailable",       "maxSurge", "paused", "priorityStrategy",
        "scatterStrategy", "inPlaceUpdateStrategy"};
    if (start == WH_CONV_ALPHA) {
        if (t && strcmp(t, "OnDelete") == 0) {
            for (size_t i = 0; i < sizeof(rolling) / sizeof(rolling[0]); i++)
                wh_conv_del(exp, "spec", "updateStrategy", rolling[i], NULL);
            return true;
        }
        if (!is_policy(t))
            wh_conv_set_new(exp, json_string("ReCreate"), "spec", "updateStrategy", "type", NULL);
        const json_t *s =
            wh_conv_get(orig, "spec", "updateStrategy", "inPlaceUpdateStrategy", NULL);
        json_int_t grace = json_integer_value(wh_conv_get(s, "gracePeriodSeconds", NULL));
        const char *par = wh_conv_meta_get(orig, WH_META_ANNOTATION, ANN_PAR);
        const char *tmo = wh_conv_meta_get(orig, WH_META_ANNOTATION, ANN_TMO);
        const char *min = wh_conv_meta_get(orig, WH_META_ANNOTATION, ANN_MIN);
        long long n;
        bool par_set = par && *par, tmo_ok = int32_text(tmo, &n), min_ok = int32_text(min, &n);
        if ((s && grace) || par_set || tmo_ok || min_ok) {
            json_t *a = json_object();
            if (grace)
                json_object_set_new(a, "gracePeriodSeconds", json_integer(grace));
            wh_conv_set_new(exp, a, "spec", "updateStrategy", "inPlaceUpdateStrategy", NULL);
        } else {
            wh_conv_del(exp, "spec", "updateStrategy", "inPlaceUpdateStrategy", NULL);
        }
        if (int32_text(par, &n))
            set_decimal_annotation(exp, ANN_PAR, n);
        if (int32_text(tmo, &n))
            set_decimal_annotation(exp, ANN_TMO, n);
        if (int32_text(min, &n))
            set_decimal_annotation(exp, ANN_MIN, n);
        return true;
    }
    const char *label =
        wh_conv_get_str(orig, "metadata", "labels",
                        "apps.kruise.io/cloneset-scaling-exclude-preparing-delete", NULL);
    if (label && strcmp(label, "true") == 0)
        wh_conv_set_new(exp, json_true(), "spec", "scaleStrategy", "excludePreparingDelete", NULL);
    else
        wh_conv_del(exp, "spec", "scaleStrategy", "excludePreparingDelete", NULL);
    const json_t *ru = wh_conv_get(orig, "spec", "updateStrategy", "rollingUpdate", NULL);
    const json_t *b = wh_conv_get(ru, "inPlaceUpdateStrategy", NULL);
    json_int_t grace = json_integer_value(wh_conv_get(b, "gracePeriodSeconds", NULL));
    const json_t *bp = wh_conv_get(b, "imagePreDownloadParallelism", NULL);
    const json_t *bt = wh_conv_get(b, "imagePreDownloadTimeoutSeconds", NULL);
    const json_t *bm = wh_conv_get(b, "imagePreDownloadMinUpdatedReadyPods", NULL);
    bool content = b && (grace || bp || bt || bm);
    /* going down writes the annotations of the set fields, whatever the type */
    if (content && bp) {
        if (json_is_string(bp))
            wh_conv_meta_set(exp, WH_META_ANNOTATION, ANN_PAR, json_string_value(bp));
        else
            set_decimal_annotation(exp, ANN_PAR, json_integer_value(bp));
    }
    if (content && bt)
        set_decimal_annotation(exp, ANN_TMO, json_integer_value(bt));
    if (content && bm)
        set_decimal_annotation(exp, ANN_MIN, json_integer_value(bm));
    if (t && strcmp(t, "OnDelete") == 0) {
        wh_conv_del(exp, "spec", "updateStrategy", "rollingUpdate", NULL);
        return true;
    }
    wh_conv_set_new(exp, json_string("RollingUpdate"), "spec", "updateStrategy", "type", NULL);
    json_t *nru = ru ? json_deep_copy(ru) : json_object();
    const char *policy = json_string_value(json_object_get(nru, "podUpdatePolicy"));
    json_object_set_new(nru, "podUpdatePolicy",
                        json_string(is_policy(policy) ? policy : "ReCreate"));
    /* going up rebuilds the in-place strategy from the (alpha) strategy and the annotations */
    const char *par = wh_conv_meta_get(exp, WH_META_ANNOTATION, ANN_PAR);
    const char *tmo = wh_conv_meta_get(exp, WH_META_ANNOTATION, ANN_TMO);
    const char *min = wh_conv_meta_get(exp, WH_META_ANNOTATION, ANN_MIN);
    json_object_del(nru, "inPlaceUpdateStrategy");
    if (content || (par && *par) || (tmo && *tmo) || (min && *min)) {
        json_t *nb = json_object();
        long long n;
        if (content && grace)
            json_object_set_new(nb, "gracePeriodSeconds", json_integer(grace));
        if (par && *par)
            json_object_set_new(nb, "imagePreDownloadParallelism",
                                int32_text(par, &n) ? json_integer(n) : json_string(par));
        if (int32_text(tmo, &n))
            json_object_set_new(nb, "imagePreDownloadTimeoutSeconds", json_integer(n));
        if (int32_text(min, &n))
            json_object_set_new(nb, "imagePreDownloadMinUpdatedReadyPods", json_integer(n));
        json_object_set_new(nru, "inPlaceUpdateStrategy", nb);
    }
    wh_conv_set_new(exp, nru, "spec", "updateStrategy", "rollingUpdate", NULL);
    return true;
}

#define CUSTOM_VERSION "apps.kruise.io/sidecarset-custom-version"

/* conversion.md 7.3 */
static bool loss_sidecarset(json_t *exp, const json_t *orig, enum wh_conv_ver start)
{
    const char *label = wh_conv_meta_get(orig, WH_META_LABEL, CUSTOM_VERSION);
    if (start == WH_CONV_ALPHA) {
        const char *ns = wh_conv_get_str(orig, "spec", "namespace", NULL);
        wh_conv_del(exp, "spec", "namespace", NULL);
        if (ns && *ns)
            wh_conv_set_new(
                exp, json_pack("{s:{s:s}}", "matchLabels", "kubernetes.io/metadata.name", ns),
                "spec", "namespaceSelector", NULL);
        if (label && !*label)
            wh_conv_meta_del(exp, WH_META_LABEL, CUSTOM_VERSION);
        return true;
    }
    const char *cv = wh_conv_get_str(orig, "spec", "customVersion", NULL);
    if (cv && *cv) {
        wh_conv_meta_del(exp, WH_META_LABEL, CUSTOM_VERSION);
    } else if (label) {
        wh_conv_set_new(exp, json_string(label), "spec", "customVersion", NULL);
        wh_conv_meta_del(exp, WH_META_LABEL, CUSTOM_VERSION);
    }
    return true;
}

static void unknown_reasons(json_t *statuses)
{
    size_t i, j;
    json_t *s, *c;
    json_array_foreach(statuses, i, s)
    {
        json_array_foreach(json_object_get(s, "conditions"), j, c)
        {
            const char *r = json_string_value(json_object_get(c, "reason"));
            if (json_is_object(c) && (!r || !*r))
                json_object_set_new(c, "reason", json_string("Unknown"));
        }
    }
}

/* conversion.md 8.4 */
static bool loss_workloadspread(json_t *exp, const json_t *orig, enum wh_conv_ver start)
{
    (void)orig;
    if (start == WH_CONV_BETA)
        return true;
    unknown_reasons(json_object_get(json_object_get(exp, "status"), "subsetStatuses"));
    const char *k;
    json_t *list;
    json_object_foreach(wh_conv_writable(exp, "status", "versionedSubsetStatuses", NULL), k, list)
        unknown_reasons(list);
    return true;
}

#define PROGRESSIVE "daemonset.kruise.io/progressive-create-pod"

/* conversion.md 9 */
static bool loss_daemonset(json_t *exp, const json_t *orig, enum wh_conv_ver start)
{
    /* Surging becomes Standard on every way up, also when a v1beta1 object held it */
    const char *t =
        wh_conv_get_str(orig, "spec", "updateStrategy", "rollingUpdate", "rollingUpdateType", NULL);
    if (t && strcmp(t, "Surging") == 0)
        wh_conv_set_new(exp, json_string("Standard"), "spec", "updateStrategy", "rollingUpdate",
                        "rollingUpdateType", NULL);
    if (start == WH_CONV_ALPHA)
        return true;
    bool ps = json_is_true(wh_conv_get(orig, "spec", "scaleStrategy", "partitionedScaling", NULL));
    const char *ann = wh_conv_meta_get(orig, WH_META_ANNOTATION, PROGRESSIVE);
    if (ps)
        wh_conv_meta_set(exp, WH_META_ANNOTATION, PROGRESSIVE, "true");
    if (ps || (ann && strcmp(ann, "true") == 0))
        wh_conv_set_new(exp, json_pack("{s:b}", "partitionedScaling", 1), "spec", "scaleStrategy",
                        NULL);
    return true;
}

/* conversion.md 11: a v1beta1 imageListPullJobTemplate cannot go down. */
static bool loss_advancedcronjob(json_t *exp, const json_t *orig, enum wh_conv_ver start)
{
    (void)exp;
    return start == WH_CONV_ALPHA ||
           !wh_conv_get(orig, "spec", "template", "imageListPullJobTemplate", NULL);
}

/* conversion.md 13 */
static bool loss_imagelistpulljob(json_t *exp, const json_t *orig, enum wh_conv_ver start)
{
    (void)orig;
    (void)start;
    json_t *list = json_object_get(json_object_get(exp, "status"), "failedImageStatuses");
    for (size_t i = json_array_size(list); i > 0; i--)
        if (json_is_null(json_array_get(list, i - 1)))
            json_array_remove(list, i - 1);
    return true;
}

#define ANN_STATUSES "crr.apps.kruise.io/sync-container-statuses"
#define ANN_UNREADY "crr.apps.kruise.io/unready-acquired"

/* The snapshot in the annotation's compact form (the objects the tests use need no Go
 * specific escaping). Returns: new string. */
static char *snapshot_text(const json_t *list)
{
    json_t *out = json_array();
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e)
    {
        json_t *o = json_object();
        const char *name = json_string_value(json_object_get(e, "name"));
        const char *id = json_string_value(json_object_get(e, "containerID"));
        json_object_set_new(o, "name", json_string(name ? name : ""));
        json_object_set_new(o, "ready", json_boolean(json_is_true(json_object_get(e, "ready"))));
        json_object_set_new(o, "restartCount",
                            json_integer(json_integer_value(json_object_get(e, "restartCount"))));
        if (id && *id)
            json_object_set_new(o, "containerID", json_string(id));
        json_array_append_new(out, o);
    }
    char *s = json_dumps(out, JSON_COMPACT);
    json_decref(out);
    return s;
}

/* The annotation parsed the way the test objects are written (exact keys and types).
 * Returns: new ref or NULL. */
static json_t *snapshot_parse(const char *text)
{
    json_t *v = text ? json_loads(text, 0, NULL) : NULL;
    size_t i;
    json_t *e;
    bool ok = json_is_array(v);
    json_array_foreach(v, i, e) ok = ok && json_is_object(e) &&
                                     json_is_string(json_object_get(e, "name")) &&
                                     json_is_boolean(json_object_get(e, "ready")) &&
                                     json_is_integer(json_object_get(e, "restartCount"));
    if (!ok) {
        json_decref(v);
        return NULL;
    }
    return v;
}

static json_t *grace_condition(const char *when)
{
    return json_pack("[{s:s,s:s,s:s,s:s,s:s}]", "type", "PreRecreateGrace", "status", "True",
                     "lastTransitionTime", when, "reason", "PreRecreateGrace", "message",
                     "Pod has been forced to not-ready for unreadyGracePeriodSeconds drain");
}

/* s as metav1.Time prints it (whole seconds, UTC) into when; false when s is no RFC 3339
 * time. */
static bool utc_seconds(const char *s, char *when)
{
    struct wh_gotime t;
    if (!s || wh_gotime_parse(s, strlen(s), WH_GOTIME_RFC3339, &t, NULL))
        return false;
    wh_gotime_format(t, WH_GOTIME_RFC3339, when, WH_GOTIME_MAX);
    return true;
}

/* conversion.md 15 and 20.3 */
static bool loss_crr(json_t *exp, const json_t *orig, enum wh_conv_ver start)
{
    const char *raw = wh_conv_meta_get(orig, WH_META_ANNOTATION, ANN_STATUSES);
    const char *unready = wh_conv_meta_get(orig, WH_META_ANNOTATION, ANN_UNREADY);
    char when[WH_GOTIME_MAX];
    if (start == WH_CONV_ALPHA) {
        json_t *parsed = snapshot_parse(raw);
        if (parsed && json_array_size(parsed)) {
            char *s = snapshot_text(parsed);
            wh_conv_meta_set(exp, WH_META_ANNOTATION, ANN_STATUSES, s);
            free(s);
        }
        json_decref(parsed);
        if (utc_seconds(unready, when))
            wh_conv_meta_set(exp, WH_META_ANNOTATION, ANN_UNREADY, when);
        return true;
    }
    const json_t *snap = wh_conv_get(orig, "status", "containerStatusSnapshot", NULL);
    if (json_is_array(snap)) {
        char *s = snapshot_text(snap);
        wh_conv_meta_set(exp, WH_META_ANNOTATION, ANN_STATUSES, s);
        free(s);
    } else {
        json_t *parsed = snapshot_parse(raw);
        if (parsed)
            wh_conv_set_new(exp, parsed, "status", "containerStatusSnapshot", NULL);
    }
    const json_t *grace = NULL;
    size_t i;
    json_t *c;
    json_array_foreach(wh_conv_get(orig, "status", "conditions", NULL), i, c)
    {
        const char *type = json_string_value(json_object_get(c, "type"));
        const char *status = json_string_value(json_object_get(c, "status"));
        if (!grace && type && status && strcmp(type, "PreRecreateGrace") == 0 &&
            strcmp(status, "True") == 0)
            grace = c;
    }
    if (grace) {
        const char *ltt = json_string_value(json_object_get(grace, "lastTransitionTime"));
        if (!utc_seconds(ltt, when))
            snprintf(when, sizeof(when), "0001-01-01T00:00:00Z");
        wh_conv_meta_set(exp, WH_META_ANNOTATION, ANN_UNREADY, when);
        wh_conv_set_new(exp, grace_condition(when), "status", "conditions", NULL);
    } else if (utc_seconds(unready, when)) {
        wh_conv_set_new(exp, grace_condition(when), "status", "conditions", NULL);
    } else {
        wh_conv_del(exp, "status", "conditions", NULL);
    }
    return true;
}

static json_t *find_or_append(json_t *list, const char *name)
{
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e)
    {
        const char *n = json_string_value(json_object_get(e, "name"));
        if (strcmp(n ? n : "", name) == 0)
            return e;
    }
    e = json_pack("{s:s}", "name", name);
    json_array_append_new(list, e);
    return e;
}

/* conversion.md 18.2 and 20.3 */
static bool loss_uniteddeployment(json_t *exp, const json_t *orig, enum wh_conv_ver start)
{
    if (start == WH_CONV_BETA)
        return true;
    const json_t *st = json_object_get(orig, "status");
    const json_t *list = json_object_get(st, "subsetStatuses");
    json_t *merged = json_is_array(list) ? json_deep_copy(list) : json_array();
    const char *k;
    json_t *n;
    json_object_foreach((json_t *)(uintptr_t)json_object_get(st, "subsetReplicas"), k, n)
        json_object_set(find_or_append(merged, k), "replicas", n);
    json_object_foreach((json_t *)(uintptr_t)json_object_get(json_object_get(st, "updateStatus"),
                                                             "currentPartitions"),
                        k, n) json_object_set(find_or_append(merged, k), "partition", n);
    const char *rev =
        json_string_value(json_object_get(json_object_get(st, "updateStatus"), "updatedRevision"));
    bool has_rev = rev && *rev;
    json_t *us = json_object();
    if (has_rev)
        json_object_set_new(us, "updatedRevision", json_string(rev));
    if (json_array_size(merged) == 0) {
        wh_conv_del(exp, "status", "subsetReplicas", NULL);
        if (has_rev)
            wh_conv_set_new(exp, us, "status", "updateStatus", NULL);
        else {
            json_decref(us);
            wh_conv_del(exp, "status", "updateStatus", NULL);
        }
        json_decref(merged);
        return true;
    }
    json_t *replicas = json_object(), *parts = json_object();
    size_t i;
    json_t *e;
    json_array_foreach(merged, i, e)
    {
        const char *name = json_string_value(json_object_get(e, "name"));
        if (!name || !*name)
            continue;
        json_object_set_new(replicas, name,
                            json_integer(json_integer_value(json_object_get(e, "replicas"))));
        json_object_set_new(parts, name,
                            json_integer(json_integer_value(json_object_get(e, "partition"))));
    }
    json_object_set_new(us, "currentPartitions", parts);
    wh_conv_set_new(exp, us, "status", "updateStatus", NULL);
    wh_conv_set_new(exp, replicas, "status", "subsetReplicas", NULL);
    wh_conv_set_new(exp, merged, "status", "subsetStatuses", NULL);
    return true;
}

#define ANN_OPS "kruise.io/pub-protect-operations"
#define ANN_TOTAL "pub.kruise.io/protect-total-replicas"

/* conversion.md 19 */
static bool loss_pub(json_t *exp, const json_t *orig, enum wh_conv_ver start)
{
    if (start == WH_CONV_ALPHA) {
        const char *ops = wh_conv_meta_get(orig, WH_META_ANNOTATION, ANN_OPS);
        const char *total = wh_conv_meta_get(orig, WH_META_ANNOTATION, ANN_TOTAL);
        if (ops) {
            /* the annotations the tests write have no exotic white space */
            struct wh_buf b;
            wh_buf_init(&b, 4096);
            const char *p = ops;
            bool bad = false;
            while (*p) {
                const char *end = strchr(p, ',');
                size_t len = end ? (size_t)(end - p) : strlen(p);
                while (len && (*p == ' ' || *p == '\t')) {
                    p++;
                    len--;
                }
                while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
                    len--;
                char *item = wh_xstrndup(p, len);
                if (*item && strcmp(item, "DELETE") && strcmp(item, "UPDATE") &&
                    strcmp(item, "EVICT") && strcmp(item, "RESIZE"))
                    bad = true;
                if (*item && ((b.len && wh_buf_addc(&b, ',')) || wh_buf_adds(&b, item)))
                    bad = true;
                free(item);
                if (!end)
                    break;
                p = end + 1;
            }
            char *joined = wh_buf_take(&b, NULL);
            if (*joined)
                wh_conv_meta_set(exp, WH_META_ANNOTATION, ANN_OPS, joined);
            else
                wh_conv_meta_del(exp, WH_META_ANNOTATION, ANN_OPS);
            free(joined);
            if (bad)
                return false;
        }
        if (total) {
            long long n;
            if (*total && !int32_text(total, &n))
                return false;
            if (*total)
                set_decimal_annotation(exp, ANN_TOTAL, n);
            else
                wh_conv_meta_del(exp, WH_META_ANNOTATION, ANN_TOTAL);
        }
        return true;
    }
    const json_t *ops = wh_conv_get(orig, "spec", "protectOperations", NULL);
    if (json_array_size(ops)) {
        struct wh_buf b;
        wh_buf_init(&b, 4096);
        size_t i;
        json_t *e;
        /* empty items are skipped going down, so they do not come back */
        json_t *kept = json_array();
        json_array_foreach(ops, i, e)
        {
            const char *s = json_string_value(e);
            if (s && *s && ((b.len && wh_buf_addc(&b, ',')) || wh_buf_adds(&b, s)))
                CHECK(false);
            if (s && *s)
                json_array_append(kept, e);
        }
        wh_conv_set_new(exp, kept, "spec", "protectOperations", NULL);
        char *joined = wh_buf_take(&b, NULL);
        wh_conv_meta_set(exp, WH_META_ANNOTATION, ANN_OPS, joined);
        free(joined);
    } else {
        wh_conv_meta_del(exp, WH_META_ANNOTATION, ANN_OPS);
    }
    const json_t *total = wh_conv_get(orig, "spec", "protectTotalReplicas", NULL);
    if (json_is_integer(total))
        set_decimal_annotation(exp, ANN_TOTAL, json_integer_value(total));
    else
        wh_conv_meta_del(exp, WH_META_ANNOTATION, ANN_TOTAL);
    return true;
}

static const struct {
    const char *kind;
    bool (*fn)(json_t *exp, const json_t *orig, enum wh_conv_ver start);
} losses[] = {
    {"CloneSet", loss_cloneset},
    {"SidecarSet", loss_sidecarset},
    {"WorkloadSpread", loss_workloadspread},
    {"DaemonSet", loss_daemonset},
    {"AdvancedCronJob", loss_advancedcronjob},
    {"ImageListPullJob", loss_imagelistpulljob},
    {"ContainerRecreateRequest", loss_crr},
    {"UnitedDeployment", loss_uniteddeployment},
    {"PodUnavailableBudget", loss_pub},
};

/* What a round trip starting at orig must give back: orig minus what the other version cannot
 * hold (the tables' one-version fields, and fields of the other version that orig only carried
 * as unknown members), adjusted by the kind's listed losses. Returns: new ref, or NULL when
 * the round trip must fail. */
static json_t *expected_round_trip(const struct wh_conv_plan *p, const json_t *orig,
                                   enum wh_conv_ver start)
{
    const struct wh_conv_kind *k = wh_conv_plan_kind(p);
    json_t *exp = json_deep_copy(orig);
    enum wh_conv_ver other = start == WH_CONV_ALPHA ? WH_CONV_BETA : WH_CONV_ALPHA;
    for (size_t i = 0; i < k->nrows; i++) {
        const struct wh_conv_row *r = &k->rows[i];
        const char *mine = start == WH_CONV_ALPHA ? r->alpha : r->beta;
        const char *theirs = start == WH_CONV_ALPHA ? r->beta : r->alpha;
        if (theirs && !schema_has(p, start, theirs))
            drop_path(exp, theirs);
        bool one_version = r->rule == WH_CONV_ALPHA_ONLY || r->rule == WH_CONV_BETA_ONLY;
        if (mine && one_version && !schema_has(p, other, mine))
            drop_path(exp, mine);
    }
    for (size_t i = 0; i < sizeof(losses) / sizeof(losses[0]); i++)
        if (strcmp(losses[i].kind, k->kind) == 0 && !losses[i].fn(exp, orig, start)) {
            json_decref(exp);
            return NULL;
        }
    return exp;
}

static char *version_of(const struct wh_conv_kind *k, enum wh_conv_ver v)
{
    return wh_str_printf("%s/%s", k->group, v == WH_CONV_ALPHA ? "v1alpha1" : "v1beta1");
}

/* Converts orig (of kind p, at version start) to the other version and back; checks the
 * result against expected_round_trip. Returns false (and prints) on a mismatch. */
static bool round_trip(const struct wh_conv_plan *p, const json_t *orig, enum wh_conv_ver start,
                       const char *label)
{
    const struct wh_conv_kind *k = wh_conv_plan_kind(p);
    char *there = version_of(k, start == WH_CONV_ALPHA ? WH_CONV_BETA : WH_CONV_ALPHA);
    char *back = version_of(k, start);
    json_t *mid = NULL, *res = NULL, *exp = expected_round_trip(p, orig, start);
    char *msg = NULL;
    bool ok = true;
    enum wh_err rc = wh_convert_object(there, orig, &mid, &msg);
    if (!rc) {
        free(msg);
        msg = NULL;
        rc = wh_convert_object(back, mid, &res, &msg);
    }
    if (!exp) {
        ok = rc != WH_OK;
        if (!ok)
            fprintf(stderr, "%s: round trip should fail\n", label);
    } else if (rc) {
        fprintf(stderr, "%s: round trip failed: %s\n", label, msg);
        ok = false;
    } else {
        struct wh_buf diff;
        wh_buf_init(&diff, 1 << 16);
        ok = wh_vec_conversion_equal(exp, res, orig, &diff);
        if (!ok) {
            char *s = json_dumps(orig, JSON_COMPACT | JSON_SORT_KEYS);
            fprintf(stderr, "%s: round trip %s -> %s -> %s differs:\n%sinput: %s\n", label,
                    start == WH_CONV_ALPHA ? "v1alpha1" : "v1beta1", there, back, diff.data, s);
            free(s);
        }
        wh_buf_fini(&diff);
    }
    json_decref(exp);
    json_decref(mid);
    json_decref(res);
    free(msg);
    free(there);
    free(back);
    return ok;
}

static enum wh_conv_ver ver_of(const json_t *obj)
{
    const char *api = json_string_value(json_object_get(obj, "apiVersion"));
    return api && wh_str_has_suffix(api, "/v1alpha1") ? WH_CONV_ALPHA : WH_CONV_BETA;
}

TEST(conversion_round_trip_vectors)
{
    size_t n, count = 0, passed = 0;
    char **files = vector_files(&n);
    for (size_t i = 0; i < n; i++) {
        json_t *v = load(files[i]);
        size_t j;
        json_t *obj;
        json_array_foreach(json_object_get(json_object_get(v, "request"), "objects"), j, obj)
        {
            const struct wh_conv_plan *p = plan_of(json_string_value(json_object_get(obj, "kind")));
            const char *api = json_string_value(json_object_get(obj, "apiVersion"));
            if (!p || !api ||
                (!wh_str_has_suffix(api, "/v1alpha1") && !wh_str_has_suffix(api, "/v1beta1")))
                continue;
            /* only objects that are valid at all (some vectors are about malformed ones) */
            json_t *probe = NULL;
            char *msg = NULL;
            char *other = version_of(wh_conv_plan_kind(p),
                                     ver_of(obj) == WH_CONV_ALPHA ? WH_CONV_BETA : WH_CONV_ALPHA);
            bool valid = wh_convert_object(other, obj, &probe, &msg) == WH_OK ||
                         strstr(msg, "cannot unmarshal") == NULL;
            json_decref(probe);
            free(msg);
            free(other);
            if (!valid)
                continue;
            count++;
            bool ok = round_trip(p, obj, ver_of(obj), files[i]);
            CHECK(ok);
            passed += ok;
        }
        json_decref(v);
    }
    fprintf(stderr, "round trips over vector inputs: %zu/%zu\n", passed, count);
    CHECK(count >= 60);
    free_files(files, n);
}

/* ---- objects generated from the tables ---------------------------------------------------- */

#define all_kinds wh_conv_kinds
#define NKINDS wh_conv_nkinds
static struct wh_conv_plan *test_plans[64];

static const struct wh_conv_plan *plan_n(size_t i)
{
    CHECK(i < sizeof(test_plans) / sizeof(test_plans[0]));
    if (!test_plans[i])
        test_plans[i] = wh_conv_compile(all_kinds[i]);
    return test_plans[i];
}

static const struct wh_conv_plan *plan_of(const char *kind)
{
    for (size_t i = 0; kind && i < NKINDS; i++)
        if (strcmp(all_kinds[i]->kind, kind) == 0)
            return plan_n(i);
    return NULL;
}

/* The variant-th of the "A|B|C" values (variant == count: the empty value). */
static json_t *pick(const char *values, int variant)
{
    int count = 1;
    for (const char *s = values; *s; s++)
        count += *s == '|';
    int want = variant % (count + 1);
    if (want == count)
        return json_string("");
    const char *s = values;
    for (int i = 0; i < want; i++)
        s = strchr(s, '|') + 1;
    const char *end = strchr(s, '|');
    char *v = wh_xstrndup(s, end ? (size_t)(end - s) : strlen(s));
    json_t *out = json_string(v);
    free(v);
    return out;
}

/* The generated objects spell out OpenKruise's types, ObjectMeta and metav1.Condition (a rule
 * reads its reason); other Kubernetes structs (pod templates and the like) get their first field
 * only: the model's own tests walk those, and the conversion rows never reach into them. */
static bool expanded(const struct wh_gotype *t)
{
    const char *n = wh_gotype_name(t);
    return strncmp(n, "v1.", 3) != 0 || strcmp(n, "v1.ObjectMeta") == 0 ||
           strcmp(n, "v1.Condition") == 0;
}

static json_t *gen_value(const struct wh_gotype *t, const char *name, int variant)
{
    switch (wh_gotype_kind(t)) {
    case WH_GK_STRING:
        if (wh_gotype_enum(t))
            return pick(wh_gotype_enum(t), variant);
        return json_string(name);
    case WH_GK_BOOL:
        return json_boolean(variant % 2 == 0);
    case WH_GK_INT32:
        return json_integer(1 + variant);
    case WH_GK_INT64:
        return json_integer(100 + variant);
    case WH_GK_INTSTR:
        return variant % 2 ? json_string("30%") : json_integer(3 + variant);
    case WH_GK_TIME:
        return json_string(variant % 2 ? "2025-03-01T16:00:00.5+08:00" : "2025-03-01T08:00:00Z");
    case WH_GK_MICROTIME:
        return json_string("2025-03-01T08:00:00.000001Z");
    case WH_GK_QUANTITY:
        return json_string(variant % 2 ? "500m" : "1Gi");
    case WH_GK_BYTES:
        return json_string("Zm9v");
    case WH_GK_RAW:
        return json_pack("{s:s}", "raw", name);
    case WH_GK_STRUCT: {
        json_t *o = json_object();
        if (!wh_gotype_nfields(t)) {
            json_object_set_new(o, "opaque", json_string(name));
            return o;
        }
        if (!expanded(t)) {
            /* its first field only: a member of the type's own, which a moved subtree keeps
             * (unknown members are dropped there, as Go's decoding drops them) */
            const struct wh_gofield *f = wh_gotype_field(t, 0);
            json_object_set_new(o, f->name, gen_value(f->type, name, variant));
            return o;
        }
        for (size_t i = 0; i < wh_gotype_nfields(t); i++) {
            const struct wh_gofield *f = wh_gotype_field(t, i);
            json_object_set_new(o, f->name, gen_value(f->type, f->name, variant + (int)i));
        }
        return o;
    }
    case WH_GK_SLICE:
        return json_pack("[o]", gen_value(wh_gotype_elem(t), name, variant));
    case WH_GK_MAP:
        return json_pack("{s:o}", variant % 2 ? "k1" : "k2",
                         gen_value(wh_gotype_elem(t), name, variant));
    }
    return json_null();
}

/* An object of plan p at version v with every field of the model's type set; labels and
 * annotations that the kind reads get the variant-th of their example values. Returns: new
 * ref. */
static json_t *gen_object(const struct wh_conv_plan *p, enum wh_conv_ver v, int variant)
{
    const struct wh_conv_kind *k = wh_conv_plan_kind(p);
    json_t *obj = gen_value(wh_conv_root(p, v), k->kind, variant);
    char *api = version_of(k, v);
    json_object_set_new(obj, "apiVersion", json_string(api));
    json_object_set_new(obj, "kind", json_string(k->kind));
    free(api);
    /* generated metadata carries no labels or annotations but those the kind reads */
    json_t *meta = json_object_get(obj, "metadata");
    json_object_del(meta, "labels");
    json_object_del(meta, "annotations");
    for (size_t i = 0; i < k->nrows; i++) {
        const struct wh_conv_row *r = &k->rows[i];
        if (r->meta == WH_META_NONE || !r->key)
            continue;
        json_t *val;
        if (r->rule == WH_CONV_META_TRUE)
            val = json_string(variant % 3 == 2 ? "false" : "true");
        else if (r->examples)
            val = pick(r->examples, variant);
        else
            val = json_string(variant % 3 == 2 ? "" : "v2");
        if (json_string_length(val) == 0 && variant % 2) {
            json_decref(val);
            continue;
        }
        wh_conv_set_new(obj, val, "metadata", r->meta == WH_META_LABEL ? "labels" : "annotations",
                        r->key, NULL);
    }
    return obj;
}

TEST(conversion_round_trip_generated)
{
    size_t count = 0, passed = 0;
    for (size_t i = 0; i < NKINDS; i++) {
        const struct wh_conv_plan *p = plan_n(i);
        for (int v = 0; v < 2; v++) {
            for (int variant = 0; variant < 6; variant++) {
                json_t *obj = gen_object(p, (enum wh_conv_ver)v, variant);
                char label[128];
                snprintf(label, sizeof(label), "generated %s %s #%d", all_kinds[i]->kind,
                         v ? "v1beta1" : "v1alpha1", variant);
                count++;
                bool ok = round_trip(p, obj, (enum wh_conv_ver)v, label);
                CHECK(ok);
                passed += ok;
                json_decref(obj);
            }
        }
    }
    fprintf(stderr, "round trips over generated objects: %zu/%zu\n", passed, count);
}

/* ---- wrong types -------------------------------------------------------------------------- */

/* Go's errors name a struct without its package. */
static const char *struct_name(const struct wh_gotype *t)
{
    const char *n = wh_gotype_name(t), *dot = strchr(n, '.');
    return dot ? dot + 1 : n;
}

static void expect_failure(const struct wh_conv_plan *p, enum wh_conv_ver v, const json_t *base,
                           const char *want, size_t *checked)
{
    json_t *out = NULL;
    char *msg = NULL;
    char *dst = version_of(wh_conv_plan_kind(p), v == WH_CONV_ALPHA ? WH_CONV_BETA : WH_CONV_ALPHA);
    enum wh_err rc = wh_convert_object(dst, base, &out, &msg);
    CHECK(rc == WH_ERR_INVALID);
    if (rc)
        CHECK_EQ_STR(msg, want);
    (*checked)++;
    free(msg);
    free(dst);
    json_decref(out);
}

/* Walks every field of the model's type together with the generated object, replaces the field
 * (or its first element) by a value of the wrong type, and checks the failure names it as Go
 * does: the struct that holds the field and the field's path from the object's root. */
static void check_wrong_types(const struct wh_conv_plan *p, enum wh_conv_ver v, const json_t *base,
                              json_t *loc, const struct wh_gotype *t, const char *path,
                              size_t *checked)
{
    for (size_t i = 0; i < wh_gotype_nfields(t); i++) {
        const struct wh_gofield *f = wh_gotype_field(t, i);
        json_t *orig = json_object_get(loc, f->name);
        /* the review reads the type meta before the typed object (its own test) */
        if (!orig || (!*path && (!strcmp(f->name, "kind") || !strcmp(f->name, "apiVersion"))))
            continue;
        json_incref(orig);
        char *fpath = *path ? wh_str_printf("%s.%s", path, f->name) : wh_xstrdup(f->name);
        const struct wh_gotype *ft = f->type;
        json_t *bad = NULL;
        const char *what = NULL, *type = wh_gotype_name(ft);
        switch (wh_gotype_kind(ft)) {
        case WH_GK_STRING:
            bad = json_integer(5);
            what = "number";
            break;
        case WH_GK_BOOL:
            bad = json_string("yes");
            what = "string";
            break;
        case WH_GK_INT32:
            bad = json_integer(3000000000LL);
            what = "number 3000000000";
            break;
        case WH_GK_INT64:
            bad = json_real(1.5);
            what = "number 1.5";
            break;
        case WH_GK_INTSTR:
            bad = json_true();
            what = "bool";
            type = "int32";
            break;
        case WH_GK_TIME:
        case WH_GK_MICROTIME:
            bad = json_integer(7);
            what = "number";
            type = "string";
            break;
        case WH_GK_STRUCT:
            bad = json_array();
            what = "array";
            break;
        case WH_GK_SLICE:
        case WH_GK_MAP:
            bad = json_string("x");
            what = "string";
            break;
        default: /* raw JSON takes anything; quantities and bytes have their own tests */
            break;
        }
        if (bad) {
            json_object_set_new(loc, f->name, bad);
            char *want =
                wh_str_printf("json: cannot unmarshal %s into Go struct field %s.%s of type %s",
                              what, struct_name(t), fpath, type);
            expect_failure(p, v, base, want, checked);
            free(want);
        }
        /* an invalid timestamp */
        if (wh_gotype_kind(ft) == WH_GK_TIME) {
            json_object_set_new(loc, f->name, json_string("2025-13-01T00:00:00Z"));
            expect_failure(p, v, base, "parsing time \"2025-13-01T00:00:00Z\": month out of range",
                           checked);
        }
        /* a wrong element of a list or map of strings */
        const struct wh_gotype *et = wh_gotype_elem(ft);
        if (et && wh_gotype_kind(et) == WH_GK_STRING) {
            json_object_set_new(loc, f->name,
                                wh_gotype_kind(ft) == WH_GK_SLICE ? json_pack("[i]", 5)
                                                                  : json_pack("{s:i}", "k", 5));
            char *want =
                wh_str_printf("json: cannot unmarshal number into Go struct field %s.%s of type %s",
                              struct_name(t), fpath, wh_gotype_name(et));
            expect_failure(p, v, base, want, checked);
            free(want);
        }
        json_object_set_new(loc, f->name, orig);
        /* and the members below it */
        json_t *inner = orig;
        const struct wh_gotype *it = ft;
        if (wh_gotype_kind(ft) == WH_GK_SLICE) {
            inner = json_array_get(orig, 0);
            it = et;
        } else if (wh_gotype_kind(ft) == WH_GK_MAP) {
            inner = json_object_iter_value(json_object_iter(orig));
            it = et;
            if (wh_gotype_kind(it) == WH_GK_SLICE) {
                inner = json_array_get(inner, 0);
                it = wh_gotype_elem(it);
            }
        }
        if (json_is_object(inner) && wh_gotype_kind(it) == WH_GK_STRUCT && expanded(it))
            check_wrong_types(p, v, base, inner, it, fpath, checked);
        free(fpath);
    }
}

TEST(conversion_wrong_types_every_field)
{
    size_t checked = 0;
    for (size_t i = 0; i < NKINDS; i++) {
        const struct wh_conv_plan *p = plan_n(i);
        for (int v = 0; v < 2; v++) {
            /* variant 0 has no unparsable annotations, so only the replaced field can fail */
            json_t *obj = gen_object(p, (enum wh_conv_ver)v, 0);
            json_t *out = NULL;
            char *msg = NULL;
            char *dst = version_of(all_kinds[i], v ? WH_CONV_ALPHA : WH_CONV_BETA);
            enum wh_err rc = wh_convert_object(dst, obj, &out, &msg);
            bool rejects = strcmp(all_kinds[i]->kind, "AdvancedCronJob") == 0 && v;
            if (rc && !rejects)
                fprintf(stderr, "generated %s: %s\n", all_kinds[i]->kind, msg);
            CHECK(rc == WH_OK || rejects);
            json_decref(out);
            free(msg);
            free(dst);
            if (rejects)
                json_object_del(json_object_get(json_object_get(obj, "spec"), "template"),
                                "imageListPullJobTemplate");
            check_wrong_types(p, (enum wh_conv_ver)v, obj, obj,
                              wh_conv_root(p, (enum wh_conv_ver)v), "", &checked);
            json_decref(obj);
        }
    }
    fprintf(stderr, "wrong-typed fields checked: %zu\n", checked);
    CHECK(checked > 500);
}

static char *convert_msg(const char *desired, const char *object)
{
    json_t *obj = wh_test_json(object), *out = NULL;
    char *msg = NULL;
    enum wh_err rc = wh_convert_object(desired, obj, &out, &msg);
    json_decref(obj);
    json_decref(out);
    if (!rc) {
        free(msg);
        return wh_xstrdup("(success)");
    }
    return msg;
}

#define CHECK_MSG(desired, object, want)                                                           \
    do {                                                                                           \
        char *m_ = convert_msg(desired, object);                                                   \
        CHECK_EQ_STR(m_, want);                                                                    \
        free(m_);                                                                                  \
    } while (0)

/* Texts written out from Go's encoding/json rules (spec 2.5 and 3.1), not from our code. */
TEST(conversion_wrong_type_messages)
{
    CHECK_MSG("apps.kruise.io/v1beta1",
              "{\"apiVersion\":\"apps.kruise.io/v1alpha1\",\"kind\":\"StatefulSet\","
              "\"spec\":{\"replicas\":\"three\"}}",
              "json: cannot unmarshal string into Go struct field StatefulSetSpec.spec.replicas "
              "of type int32");
    CHECK_MSG("apps.kruise.io/v1beta1",
              "{\"apiVersion\":\"apps.kruise.io/v1alpha1\",\"kind\":\"CloneSet\","
              "\"status\":{\"replicas\":3000000000}}",
              "json: cannot unmarshal number 3000000000 into Go struct field "
              "CloneSetStatus.status.replicas of type int32");
    CHECK_MSG("apps.kruise.io/v1beta1",
              "{\"apiVersion\":\"apps.kruise.io/v1alpha1\",\"kind\":\"WorkloadSpread\","
              "\"spec\":{\"subsets\":{\"name\":\"a\"}}}",
              "json: cannot unmarshal object into Go struct field WorkloadSpreadSpec.spec.subsets "
              "of type []v1alpha1.WorkloadSpreadSubset");
    CHECK_MSG("apps.kruise.io/v1alpha1",
              "{\"apiVersion\":\"apps.kruise.io/v1beta1\",\"kind\":\"WorkloadSpread\","
              "\"spec\":{\"subsets\":[{\"name\":7}]}}",
              "json: cannot unmarshal number into Go struct field WorkloadSpreadSubset.spec.subsets"
              ".name of type string");
    CHECK_MSG("apps.kruise.io/v1beta1",
              "{\"apiVersion\":\"apps.kruise.io/v1alpha1\",\"kind\":\"StatefulSet\","
              "\"metadata\":{\"labels\":{\"a\":1}}}",
              "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of "
              "type string");
    CHECK_MSG("apps.kruise.io/v1beta1",
              "{\"apiVersion\":\"apps.kruise.io/v1alpha1\",\"kind\":\"StatefulSet\","
              "\"spec\":\"x\"}",
              "json: cannot unmarshal string into Go struct field StatefulSet.spec of type "
              "v1alpha1.StatefulSetSpec");
    CHECK_MSG(
        "apps.kruise.io/v1beta1",
        "{\"apiVersion\":\"apps.kruise.io/v1alpha1\",\"kind\":\"StatefulSet\","
        "\"spec\":{\"replicas\":1.5}}",
        "json: cannot unmarshal number 1.5 into Go struct field StatefulSetSpec.spec.replicas "
        "of type int32");
    /* IntOrString decodes a non-string into int32, and its error ends decoding at once: it
     * wins over the earlier replicas error */
    CHECK_MSG("apps.kruise.io/v1beta1",
              "{\"apiVersion\":\"apps.kruise.io/v1alpha1\",\"kind\":\"StatefulSet\","
              "\"spec\":{\"replicas\":\"x\",\"updateStrategy\":{\"rollingUpdate\":"
              "{\"maxUnavailable\":true}}}}",
              "json: cannot unmarshal bool into Go struct field "
              "RollingUpdateStatefulSetStrategy.spec.updateStrategy.rollingUpdate.maxUnavailable "
              "of type int32");
    /* two plain mismatches: the first in document order */
    CHECK_MSG(
        "apps.kruise.io/v1beta1",
        "{\"apiVersion\":\"apps.kruise.io/v1alpha1\",\"kind\":\"StatefulSet\","
        "\"status\":{\"replicas\":\"x\"},\"spec\":{\"replicas\":\"y\"}}",
        "json: cannot unmarshal string into Go struct field StatefulSetStatus.status.replicas "
        "of type int32");
    CHECK_MSG("apps.kruise.io/v1beta1",
              "{\"apiVersion\":\"apps.kruise.io/v1alpha1\",\"kind\":\"CloneSet\","
              "\"status\":{\"conditions\":[{\"lastTransitionTime\":5}]}}",
              "json: cannot unmarshal number into Go struct field "
              "CloneSetCondition.status.conditions.lastTransitionTime of type string");
    CHECK_MSG("apps.kruise.io/v1beta1",
              "{\"apiVersion\":\"apps.kruise.io/v1alpha1\",\"kind\":\"CloneSet\","
              "\"metadata\":{\"creationTimestamp\":\"yesterday\"}}",
              "parsing time \"yesterday\" as \"2006-01-02T15:04:05Z07:00\": cannot parse "
              "\"yesterday\" as \"2006\"");
    CHECK_MSG("apps.kruise.io/v1beta1",
              "{\"apiVersion\":\"apps.kruise.io/v1alpha1\",\"kind\":\"CloneSet\","
              "\"metadata\":{\"creationTimestamp\":\"2025-02-30T00:00:00Z\"}}",
              "parsing time \"2025-02-30T00:00:00Z\": day out of range");
    CHECK_MSG("apps.kruise.io/v1beta1",
              "{\"apiVersion\":\"apps.kruise.io/v1alpha1\",\"kind\":\"CloneSet\","
              "\"spec\":{\"updateStrategy\":{\"scatterStrategy\":{}}}}",
              "json: cannot unmarshal object into Go struct field "
              "CloneSetUpdateStrategy.spec.updateStrategy.scatterStrategy of type "
              "v1alpha1.UpdateScatterStrategy");
    CHECK_MSG("apps.kruise.io/v1alpha1",
              "{\"apiVersion\":\"apps.kruise.io/v1beta1\",\"kind\":\"UnitedDeployment\","
              "\"spec\":{\"updateStrategy\":{\"manualUpdate\":{\"partitions\":{\"a\":\"1\"}}}}}",
              "json: cannot unmarshal string into Go struct field "
              "ManualUpdate.spec.updateStrategy.manualUpdate.partitions of type int32");
    /* embedded Kubernetes types are checked as deeply as Go decodes them */
    CHECK_MSG("apps.kruise.io/v1beta1",
              "{\"apiVersion\":\"apps.kruise.io/v1alpha1\",\"kind\":\"StatefulSet\","
              "\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":5}]}}}}",
              "json: cannot unmarshal number into Go struct field "
              "Container.spec.template.spec.containers.image of type string");
    CHECK_MSG("apps.kruise.io/v1alpha1",
              "{\"apiVersion\":\"apps.kruise.io/v1beta1\",\"kind\":\"CloneSet\","
              "\"spec\":{\"volumeClaimTemplates\":[{\"spec\":{\"resources\":{\"requests\":"
              "{\"storage\":\"10 Gi\"}}}}]}}",
              "quantities must match the regular expression "
              "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    CHECK_MSG("apps.kruise.io/v1beta1",
              "{\"apiVersion\":\"apps.kruise.io/v1alpha1\",\"kind\":\"UnitedDeployment\","
              "\"spec\":{\"template\":{\"deploymentTemplate\":{\"spec\":{\"template\":{"
              "\"spec\":{\"containers\":{}}}}}}}}",
              "json: cannot unmarshal object into Go struct field "
              "PodSpec.spec.template.deploymentTemplate.spec.template.spec.containers of type "
              "[]v1.Container");
    CHECK_MSG("apps.kruise.io/v1beta1",
              "{\"apiVersion\":\"apps.kruise.io/v1alpha1\",\"kind\":\"AdvancedCronJob\","
              "\"spec\":{\"template\":{\"jobTemplate\":{\"spec\":{\"backoffLimit\":\"6\","
              "\"template\":{\"metadata\":{\"creationTimestamp\":\"today\"}}}}}}}",
              "parsing time \"today\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"today\" "
              "as \"2006\"");
    CHECK_MSG("apps.kruise.io/v1beta1",
              "{\"apiVersion\":\"apps.kruise.io/v1alpha1\",\"kind\":\"SidecarSet\","
              "\"spec\":{\"containers\":[{\"name\":\"s\",\"livenessProbe\":{\"tcpSocket\":"
              "{\"port\":1.5}}}]}}",
              "json: cannot unmarshal number 1.5 into Go struct field "
              "TCPSocketAction.spec.containers.livenessProbe.tcpSocket.port of type int32");
    /* the v1beta1 schema is the one a v1beta1 object is checked against */
    CHECK_MSG("apps.kruise.io/v1alpha1",
              "{\"apiVersion\":\"apps.kruise.io/v1beta1\",\"kind\":\"StatefulSet\","
              "\"spec\":{\"ordinals\":{\"start\":\"1\"}}}",
              "json: cannot unmarshal string into Go struct field "
              "StatefulSetOrdinals.spec.ordinals.start of type int32");
    CHECK_MSG("apps.kruise.io/v1beta1",
              "{\"apiVersion\":\"apps.kruise.io/v1alpha1\",\"kind\":\"StatefulSet\","
              "\"spec\":{\"ordinals\":{\"start\":\"1\"}}}",
              "(success)");
    /* null is never a type error; unknown fields are not checked */
    CHECK_MSG("apps.kruise.io/v1beta1",
              "{\"apiVersion\":\"apps.kruise.io/v1alpha1\",\"kind\":\"StatefulSet\","
              "\"spec\":{\"replicas\":null,\"Replicas\":\"x\",\"template\":null}}",
              "(success)");
}

/* ---- review-level behaviour --------------------------------------------------------------- */

TEST(conversion_review_errors)
{
    const char *alpha_cs = "{\"apiVersion\":\"apps.kruise.io/v1alpha1\",\"kind\":\"CloneSet\"}";
    CHECK_MSG("apps.kruise.io/v1beta1", "42",
              "couldn't get version/kind; json parse error: json: cannot unmarshal number into Go "
              "value of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; "
              "Kind string \"json:\\\"kind,omitempty\\\"\" }");
    CHECK_MSG("apps.kruise.io/v1beta1", "[1]",
              "couldn't get version/kind; json parse error: json: cannot unmarshal array into Go "
              "value of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; "
              "Kind string \"json:\\\"kind,omitempty\\\"\" }");
    CHECK_MSG("apps.kruise.io/v1beta1", "null", "Object 'Kind' is missing in ''");
    CHECK_MSG("apps.kruise.io/v1beta1", "{\"apiVersion\":\"apps.kruise.io/v1alpha1\"}",
              "Object 'Kind' is missing in '{\"apiVersion\":\"apps.kruise.io/v1alpha1\"}'");
    CHECK_MSG("apps.kruise.io/v1beta1", "{\"kind\":\"CloneSet\",\"apiVersion\":\"\"}",
              "Object 'apiVersion' is missing in '{\"kind\":\"CloneSet\",\"apiVersion\":\"\"}'");
    CHECK_MSG("apps.kruise.io/v1beta1", "{\"kind\":5,\"apiVersion\":\"apps.kruise.io/v1alpha1\"}",
              "couldn't get version/kind; json parse error: json: cannot unmarshal number into Go "
              "struct field .kind of type string");
    CHECK_MSG("apps.kruise.io/v1beta1", "{\"kind\":\"CloneSet\",\"apiVersion\":\"a/b/c\"}",
              "unexpected GroupVersion string: a/b/c");
    CHECK_MSG("apps.kruise.io/v1beta1",
              "{\"kind\":\"Widget\",\"apiVersion\":\"apps.kruise.io/v1alpha1\"}",
              "no kind \"Widget\" is registered for version \"apps.kruise.io/v1alpha1\" in scheme "
              "\"main.go:75\"");
    CHECK_MSG("", alpha_cs,
              "no kind \"CloneSet\" is registered for version \"\" in scheme \"main.go:75\"");
    CHECK_MSG("a/b/c", alpha_cs,
              "no kind \"CloneSet\" is registered for version \"\" in scheme \"main.go:75\"");
    CHECK_MSG(
        "apps/v1", alpha_cs,
        "no kind \"CloneSet\" is registered for version \"apps/v1\" in scheme \"main.go:75\"");
    CHECK_MSG("policy.kruise.io/v1beta1", alpha_cs,
              "no kind \"CloneSet\" is registered for version \"policy.kruise.io/v1beta1\" in "
              "scheme \"main.go:75\"");
    CHECK_MSG("apps/v1", "{\"kind\":\"DaemonSet\",\"apiVersion\":\"apps.kruise.io/v1beta1\"}",
              "src *v1beta1.DaemonSet and dst *v1.DaemonSet does not belong to same API Group");
    CHECK_MSG("apps.kruise.io/v1beta1", "{\"kind\":\"StatefulSet\",\"apiVersion\":\"apps/v1\"}",
              "src *v1.StatefulSet and dst *v1beta1.StatefulSet does not belong to same API Group");
    CHECK_MSG("apps/v1beta2", "{\"kind\":\"StatefulSet\",\"apiVersion\":\"apps/v1\"}",
              "*v1.StatefulSet is not convertible to *v1beta2.StatefulSet");
    CHECK_MSG("apps/v1", "{\"kind\":\"StatefulSet\",\"apiVersion\":\"apps/v1\"}",
              "conversion is not allowed between same type *v1.StatefulSet");
    CHECK_MSG("apps.kruise.io/v1beta1",
              "{\"kind\":\"CloneSetList\",\"apiVersion\":\"apps.kruise.io/v1alpha1\"}",
              "*v1alpha1.CloneSetList is not convertible to *v1beta1.CloneSetList");
    CHECK_MSG("apps.kruise.io/v1beta1",
              "{\"kind\":\"EphemeralJob\",\"apiVersion\":\"apps.kruise.io/v1alpha1\"}",
              "no kind \"EphemeralJob\" is registered for version \"apps.kruise.io/v1beta1\" in "
              "scheme \"main.go:75\"");
    CHECK_MSG("apps.kruise.io/v1alpha1", alpha_cs,
              "conversion is not allowed between same type *v1alpha1.CloneSet");
    CHECK_MSG("policy.kruise.io/v1alpha1",
              "{\"kind\":\"PodUnavailableBudget\",\"apiVersion\":\"policy.kruise.io/v1alpha1\"}",
              "conversion is not allowed between same type *v1alpha1.PodUnavailableBudget");
    /* the kind is looked up case-insensitively, the typed object reads "kind" exactly */
    CHECK_MSG("apps.kruise.io/v1beta1",
              "{\"apiVersion\":\"apps.kruise.io/v1alpha1\",\"Kind\":\"CloneSet\"}",
              "src *v1alpha1.CloneSet and dst *v1beta1.CloneSet does not belong to same API Group");
    CHECK_MSG("apps.kruise.io/v1beta1", alpha_cs, "(success)");
}

TEST(conversion_review_lists)
{
    json_t *out = (json_t *)1;
    char *msg = (char *)1;
    CHECK(wh_convert_objects("apps.kruise.io/v1beta1", NULL, &out, &msg) == WH_OK);
    CHECK(out == NULL && msg == NULL);
    json_t *empty = json_array();
    CHECK(wh_convert_objects("apps.kruise.io/v1beta1", empty, &out, &msg) == WH_OK);
    CHECK(out == NULL && msg == NULL);
    json_decref(empty);

    /* in order; the first failure aborts with no partial result */
    json_t *two =
        wh_test_json("[{\"apiVersion\":\"apps.kruise.io/v1alpha1\",\"kind\":\"CloneSet\","
                     "\"metadata\":{\"name\":\"a\"}},{\"apiVersion\":\"apps.kruise.io/"
                     "v1alpha1\",\"kind\":\"StatefulSet\",\"metadata\":{\"name\":\"b\"}}]");
    CHECK(wh_convert_objects("apps.kruise.io/v1beta1", two, &out, &msg) == WH_OK);
    CHECK_EQ_INT(json_array_size(out), 2);
    CHECK_EQ_STR(wh_conv_get_str(json_array_get(out, 0), "metadata", "name", NULL), "a");
    CHECK_EQ_STR(wh_conv_get_str(json_array_get(out, 1), "kind", NULL), "StatefulSet");
    CHECK_EQ_STR(wh_conv_get_str(json_array_get(out, 1), "apiVersion", NULL),
                 "apps.kruise.io/v1beta1");
    json_decref(out);
    json_array_append_new(two, json_integer(3));
    CHECK(wh_convert_objects("apps.kruise.io/v1beta1", two, &out, &msg) == WH_ERR_INVALID);
    CHECK(out == NULL);
    CHECK(msg && wh_str_has_prefix(msg, "couldn't get version/kind"));
    free(msg);
    json_decref(two);

    json_t *notlist = json_object();
    CHECK(wh_convert_objects("apps.kruise.io/v1beta1", notlist, &out, &msg) == WH_ERR_INVALID);
    free(msg);
    json_decref(notlist);
}

/* ---- malformed input ---------------------------------------------------------------------- */

/* Every field of every generated object replaced by every kind of JSON value: a result or an
 * error, never a crash or a leak (the ASan build checks the latter). */
static void every_value_everywhere(const char *dst, json_t *base, json_t *loc,
                                   const struct wh_gotype *t, size_t *runs)
{
    for (size_t i = 0; i < wh_gotype_nfields(t); i++) {
        const struct wh_gofield *f = wh_gotype_field(t, i);
        json_t *orig = json_object_get(loc, f->name);
        if (!orig)
            continue;
        json_incref(orig);
        json_t *vals = wh_test_json("[null,true,false,0,-7,1.5,9223372036854775807,\"\",\"x\","
                                    "\"2025-01-01T00:00:00Z\",[],[null],[1,\"a\"],{},{\"a\":null},"
                                    "{\"name\":[]}]");
        size_t j;
        json_t *val;
        json_array_foreach(vals, j, val)
        {
            json_object_set(loc, f->name, val);
            json_t *out = NULL;
            char *msg = NULL;
            enum wh_err rc = wh_convert_object(dst, base, &out, &msg);
            CHECK(rc ? msg != NULL && out == NULL : out != NULL);
            (*runs)++;
            json_decref(out);
            free(msg);
        }
        json_decref(vals);
        json_object_set_new(loc, f->name, orig);
        json_t *inner = orig;
        const struct wh_gotype *it = f->type;
        if (wh_gotype_kind(it) == WH_GK_SLICE) {
            inner = json_array_get(orig, 0);
            it = wh_gotype_elem(it);
        } else if (wh_gotype_kind(it) == WH_GK_MAP) {
            inner = json_object_iter_value(json_object_iter(orig));
            it = wh_gotype_elem(it);
            if (wh_gotype_kind(it) == WH_GK_SLICE) {
                inner = json_array_get(inner, 0);
                it = wh_gotype_elem(it);
            }
        }
        if (json_is_object(inner) && wh_gotype_kind(it) == WH_GK_STRUCT && expanded(it))
            every_value_everywhere(dst, base, inner, it, runs);
    }
}

TEST(conversion_malformed_values_everywhere)
{
    size_t runs = 0;
    for (size_t i = 0; i < NKINDS; i++) {
        const struct wh_conv_plan *p = plan_n(i);
        for (int v = 0; v < 2; v++) {
            json_t *obj = gen_object(p, (enum wh_conv_ver)v, 1);
            char *dst = version_of(all_kinds[i], v ? WH_CONV_ALPHA : WH_CONV_BETA);
            every_value_everywhere(dst, obj, obj, wh_conv_root(p, (enum wh_conv_ver)v), &runs);
            free(dst);
            json_decref(obj);
        }
    }
    fprintf(stderr, "malformed conversions run: %zu\n", runs);
    CHECK(runs > 5000);
}

TEST(conversion_malformed_deep_and_wide)
{
    /* deep: the patch is copied by reference, never walked */
    json_t *deep = json_object();
    for (int i = 0; i < 2000; i++)
        deep = json_pack("{s:o}", "d", deep);
    json_t *ws = json_pack("{s:s,s:s,s:{s:[{s:s,s:o}]}}", "apiVersion", "apps.kruise.io/v1alpha1",
                           "kind", "WorkloadSpread", "spec", "subsets", "name", "a", "patch", deep);
    json_t *out = NULL;
    char *msg = NULL;
    CHECK(wh_convert_object("apps.kruise.io/v1beta1", ws, &out, &msg) == WH_OK);
    CHECK(wh_conv_get(json_array_get(wh_conv_get(out, "spec", "subsets", NULL), 0), "patch",
                      NULL) == deep);
    json_decref(out);
    json_decref(ws);

    /* wide: 100 000 subsets, each renamed */
    json_t *subsets = json_array();
    for (int i = 0; i < 100000; i++)
        json_array_append_new(subsets, json_pack("{s:s,s:{s:[]}}", "name", "z",
                                                 "requiredNodeSelectorTerm", "matchExpressions"));
    ws = json_pack("{s:s,s:s,s:{s:o}}", "apiVersion", "apps.kruise.io/v1alpha1", "kind",
                   "WorkloadSpread", "spec", "subsets", subsets);
    CHECK(wh_convert_object("apps.kruise.io/v1beta1", ws, &out, &msg) == WH_OK);
    const json_t *last = json_array_get(wh_conv_get(out, "spec", "subsets", NULL), 99999);
    CHECK(json_object_get(last, "requiredNodeSelector") != NULL);
    CHECK(json_object_get(last, "requiredNodeSelectorTerm") == NULL);
    CHECK(json_object_get(json_array_get(subsets, 99999), "requiredNodeSelectorTerm") != NULL);
    json_decref(out);

    /* a missing kind on a large object quotes it whole, without trouble */
    json_object_del(ws, "kind");
    CHECK(wh_convert_object("apps.kruise.io/v1beta1", ws, &out, &msg) == WH_ERR_INVALID);
    CHECK(msg && wh_str_has_prefix(msg, "Object 'Kind' is missing in '{"));
    free(msg);
    json_decref(ws);
}

/* Compiling the tables exercises their consistency checks (a bad table aborts). */
TEST(conversion_tables_compile)
{
    for (size_t i = 0; i < NKINDS; i++) {
        const struct wh_conv_plan *p = plan_n(i);
        CHECK(p != NULL);
        CHECK(wh_gotype_nfields(wh_conv_root(p, WH_CONV_ALPHA)) >= 4);
        CHECK(wh_gotype_nfields(wh_conv_root(p, WH_CONV_BETA)) >= 4);
    }
    CHECK(schema_has(plan_of("CloneSet"), WH_CONV_BETA,
                     "spec.updateStrategy.rollingUpdate.partition"));
    CHECK(!schema_has(plan_of("CloneSet"), WH_CONV_ALPHA, "spec.updateStrategy.rollingUpdate"));
    CHECK(schema_has(plan_of("WorkloadSpread"), WH_CONV_ALPHA,
                     "status.versionedSubsetStatuses.*[].conditions[].reason"));
}
