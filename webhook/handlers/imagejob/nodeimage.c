/* /mutate-apps-kruise-io-nodeimage and /validate-apps-kruise-io-nodeimage: the NodeImage webhooks
 * (pkg/webhook/nodeimage), at v1alpha1 and v1beta1. */
#include <stdlib.h>
#include <string.h>

#include "gocompat/gosort.h"
#include "gocompat/gotime.h"
#include "handlers/handler.h"
#include "handlers/kruise_object.h"
#include "k8s/kruise.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"
#include "util/time.h"

#define KIND "NodeImage"
#define MAX_IMAGES 256 /* defaultMaxImagesPerNode */

static const json_t *member(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return v && !json_is_null(v) ? v : NULL;
}

/* --- defaulting ---------------------------------------------------------------------------- */

/* sort.Slice(tags, func(i, j) bool { return tags[i].Tag <= tags[j].Tag }) with Go's own
 * algorithm: "<=" is no strict order, so where equal tags end is Go's doing. */
struct tags {
    json_t **items;
};

static int cmp_tag(const json_t *a, const json_t *b)
{
    const json_t *x = json_object_get(a, "tag"), *y = json_object_get(b, "tag");
    size_t nx = json_string_length(x), ny = json_string_length(y);
    int c = memcmp(json_is_string(x) ? json_string_value(x) : "",
                   json_is_string(y) ? json_string_value(y) : "", nx < ny ? nx : ny);
    return c ? c : (nx > ny) - (nx < ny);
}

static bool tag_le(void *ctx, size_t i, size_t j)
{
    struct tags *t = ctx;
    return cmp_tag(t->items[i], t->items[j]) <= 0;
}

static void tag_swap(void *ctx, size_t i, size_t j)
{
    struct tags *t = ctx;
    json_t *x = t->items[i];
    t->items[i] = t->items[j];
    t->items[j] = x;
}

static void sort_tags(json_t *image)
{
    json_t *arr = json_object_get(image, "tags");
    size_t n = json_array_size(arr);
    if (n < 2)
        return;
    struct tags t = {wh_xmalloc(n * sizeof(json_t *))};
    for (size_t i = 0; i < n; i++)
        t.items[i] = json_incref(json_array_get(arr, i));
    struct wh_go_sorter s = {tag_le, tag_swap, &t};
    wh_go_sort_slice(&s, n);
    json_array_clear(arr);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(arr, t.items[i]);
    free(t.items);
}

static void default_int(json_t *o, const char *key, json_int_t v)
{
    if (!member(o, key))
        json_object_set_new(o, key, json_integer(v));
}

/* SetDefaultsNodeImage(V1beta1), then the tags of spec and status sorted. */
static void defaults(json_t *obj, const struct wh_kobj_defaulting *how)
{
    (void)how;
    char now[WH_GOTIME_MAX];
    wh_gotime_format(wh_gotime_from_ns(wh_time_wall_ns()), WH_GOTIME_RFC3339, now, sizeof(now));
    const char *name;
    json_t *image;
    json_object_foreach(json_object_get(json_object_get(obj, "spec"), "images"), name, image)
    {
        size_t i;
        json_t *tag;
        json_array_foreach(json_object_get(image, "tags"), i, tag)
        {
            if (!member(tag, "createdAt"))
                json_object_set_new(tag, "createdAt", json_string(now));
            json_t *policy = wh_json_obj_ensure(tag, "pullPolicy");
            default_int(policy, "timeoutSeconds", 600);
            default_int(policy, "backoffLimit", 3);
        }
        sort_tags(image);
    }
    json_object_foreach(json_object_get(json_object_get(obj, "status"), "imageStatuses"), name,
                        image)
        sort_tags(image);
}

static const struct wh_kobj_mutator mutator = {
    .kind = KIND,
    .defaults = defaults,
    .go_value = true,
};

static enum wh_err mutate(const struct wh_handler_ctx *ctx, const struct wh_admission_request *req,
                          struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    return wh_kobj_mutate(&mutator, ctx, req, resp, eb);
}

/* --- validation ---------------------------------------------------------------------------- */

/* The index of the first tag whose name an earlier tag has (where sets.String's Has first
 * answers true), or n; sorted, so that a long list costs n log n. */
struct tag_ref {
    const json_t *tag;
    size_t index;
};

static int cmp_tag_ref(const void *a, const void *b)
{
    const struct tag_ref *x = a, *y = b;
    int c = cmp_tag(x->tag, y->tag);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

static size_t first_repeat(const json_t *tags)
{
    size_t n = json_array_size(tags), first = n;
    if (n < 2)
        return n;
    struct tag_ref *refs = wh_xmalloc(n * sizeof(*refs));
    for (size_t i = 0; i < n; i++)
        refs[i] = (struct tag_ref){json_array_get(tags, i), i};
    qsort(refs, n, sizeof(*refs), cmp_tag_ref);
    for (size_t i = 1; i < n; i++)
        if (cmp_tag(refs[i - 1].tag, refs[i].tag) == 0 && refs[i].index < first)
            first = refs[i].index;
    free(refs);
    return first;
}

/* The rules of one image's tags, in upstream's order, or NULL. */
static char *check_tags(const char *name, const json_t *tags)
{
    size_t i, repeat = first_repeat(tags);
    const json_t *tag;
    json_array_foreach(tags, i, tag)
    {
        const char *t = wh_json_str_or_empty(tag, "tag");
        if (!*t)
            return wh_str_printf("tag for image %s can not be empty", name);
        if (i == repeat)
            return wh_str_printf("duplicated tag %s for image %s", t, name);
        const json_t *policy = member(tag, "pullPolicy");
        const json_t *version = json_object_get(tag, "version");
        if (!member(tag, "createdAt"))
            return wh_str_printf("createAt field for %s/%s can not be empty", name, t);
        if (json_is_integer(version) && json_integer_value(version) < 0)
            return wh_str_printf("version for %s/%s can not be less than 0", name, t);
        if (!policy)
            return wh_str_printf("pullPolicy field for %s/%s must set", name, t);
        if (!member(policy, "ttlSecondsAfterFinished"))
            return wh_str_printf("pullPolicy.ttlSecondsAfterFinished for %s/%s must set", name, t);
    }
    return NULL;
}

/* validate / validateV1beta1: the first rule that fails, or NULL. Upstream ranges over the
 * images map, whose order Go randomises; here the images are taken in key order. */
static char *check(const json_t *obj)
{
    const json_t *images = json_object_get(json_object_get(obj, "spec"), "images");
    if (json_object_size(images) > MAX_IMAGES)
        return wh_str_printf("spec images length %zu can not be more than %d",
                             json_object_size(images), MAX_IMAGES);
    size_t n;
    const char **names = wh_json_sorted_keys(images, &n);
    char *err = NULL;
    for (size_t i = 0; i < n && !err; i++) {
        if (!*names[i])
            err = wh_xstrdup("image name can not be empty");
        else
            err = check_tags(names[i], json_object_get(json_object_get(images, names[i]), "tags"));
    }
    free(names);
    return err;
}

static enum wh_err validate(const struct wh_handler_ctx *ctx, const struct wh_admission_request *req,
                            struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    (void)eb;
    json_t *obj = NULL;
    if (WH_KOBJ_GATE_OFF(resp, ctx->cfg, KruiseDaemon))
        return WH_OK;
    enum wh_kobj_version v;
    if (!wh_kobj_version_or_deny(req, resp, &v))
        return WH_OK;
    if (!wh_kobj_decode_or_deny(req->object, KIND, v, &obj, resp))
        return WH_OK;
    char *err = check(obj);
    if (err)
        wh_admission_deny(resp, 400, "%s", err);
    else
        wh_admission_allow(resp, "allowed");
    free(err);
    json_decref(obj);
    return WH_OK;
}

const struct wh_route wh_nodeimage_mutate_route = {
    .path = "/mutate-apps-kruise-io-nodeimage",
    .kind = WH_ROUTE_MUTATE,
    .admit = mutate,
    .entries = {{.name = "mnodeimage.kb.io",
                 .group = WH_KRUISE_APPS,
                 .versions = {"v1alpha1", "v1beta1"},
                 .resource = "nodeimages",
                 .operations = WH_WEBHOOK_CREATE | WH_WEBHOOK_UPDATE}},
};

const struct wh_route wh_nodeimage_validate_route = {
    .path = "/validate-apps-kruise-io-nodeimage",
    .kind = WH_ROUTE_VALIDATE,
    .admit = validate,
    .entries = {{.name = "vnodeimage.kb.io",
                 .group = WH_KRUISE_APPS,
                 .versions = {"v1alpha1", "v1beta1"},
                 .resource = "nodeimages",
                 .operations = WH_WEBHOOK_CREATE | WH_WEBHOOK_UPDATE}},
};
