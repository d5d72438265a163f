#include "handlers/imagejob/template.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/fielderr.h"
#include "k8s/imageref.h"
#include "k8s/validation.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"

#define DEFAULT_TIMEOUT_SECONDS 600
#define DEFAULT_BACKOFF_LIMIT 3

/* A Go pointer, slice or map that is not nil: present and not null. */
static const json_t *member(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return v && !json_is_null(v) ? v : NULL;
}

static void default_int(json_t *o, const char *key, json_int_t v)
{
    if (!member(o, key))
        json_object_set_new(o, key, json_integer(v));
}

static void pull_policy_defaults(json_t *pull)
{
    default_int(pull, "timeoutSeconds", DEFAULT_TIMEOUT_SECONDS);
    default_int(pull, "backoffLimit", DEFAULT_BACKOFF_LIMIT);
}

void wh_imagejob_template_defaults(json_t *spec)
{
    json_t *completion = wh_json_obj_ensure(spec, "completionPolicy");
    if (!json_string_length(json_object_get(completion, "type")))
        json_object_set_new(completion, "type", json_string("Always"));
    pull_policy_defaults(wh_json_obj_ensure(spec, "pullPolicy"));
}

void wh_imagejob_shared_defaults(json_t *obj, enum wh_kobj_version v)
{
    if (v != WH_KOBJ_V1BETA1)
        return;
    json_t *pull = json_object_get(json_object_get(obj, "spec"), "pullPolicy");
    if (json_is_object(pull))
        pull_policy_defaults(pull);
}

static bool selector_error(const char *what, const json_t *sel, struct wh_buf *why)
{
    char *err = wh_label_selector_error(sel);
    bool failed = err != NULL;
    if (failed)
        wh_buf_put(why, "invalid %s: %s", what, err);
    free(err);
    return failed;
}

static bool fail(struct wh_buf *why, const char *msg)
{
    wh_buf_put(why, "%s", msg);
    return true;
}

/* A Go string printed with %s: its bytes, NUL bytes and all (a member that is not a string
 * is Go's zero value, ""). */
static void put_go_string(struct wh_buf *why, const json_t *s)
{
    enum wh_err rc = wh_buf_add(why, json_is_string(s) ? json_string_value(s) : "",
                                json_is_string(s) ? json_string_length(s) : 0);
    (void)rc; /* cut at the cap, far above any body the server reads: what fitted is kept */
}

bool wh_imagejob_check_selectors(const json_t *spec, struct wh_buf *why)
{
    const json_t *sel = member(spec, "selector"), *pods = member(spec, "podSelector");
    if (sel) {
        const json_t *names = member(sel, "names");
        if (member(sel, "matchLabels") || member(sel, "matchExpressions")) {
            if (names)
                return fail(why, "can not set both names and labelSelector in this spec.selector");
            if (selector_error("selector", sel, why))
                return true;
        }
        if (wh_json_strings_repeat(names))
            return fail(why, "duplicated name in selector names");
    }
    if (pods) {
        if (sel)
            return fail(why, "can not set both selector and podSelector");
        return selector_error("podSelector", pods, why);
    }
    return false;
}

bool wh_imagejob_check_image(const json_t *image, struct wh_buf *why)
{
    const char *s = json_string_value(image);
    size_t n = json_string_length(image);
    struct wh_imageref r;
    struct wh_errbuf eb = {{0}};
    bool failed =
        wh_imageref_parse_docker_ref(WH_IMAGEREF_DOCKER, s ? s : "", s ? n : 0, &r, &eb) != WH_OK;
    wh_imageref_fini(&r);
    if (failed) {
        wh_buf_put(why, "invalid image ");
        put_go_string(why, image);
        wh_buf_put(why, ": %s", eb.msg);
    }
    return failed;
}

bool wh_imagejob_check_parallelism_completion(const json_t *spec, bool check_timeout,
                                              struct wh_buf *why)
{
    const json_t *par = member(spec, "parallelism");
    if (json_is_string(par)) {
        const char *s = json_string_value(par);
        size_t n = json_string_length(par);
        if (n && s[n - 1] == '%')
            return fail(why, "parallelism does not support percentage value");
        long long v;
        const char *bad = wh_str_go_parse_int(s, n, 32, &v);
        if (bad) {
            char *q = wh_go_quoten(s, n);
            wh_buf_put(why, "parallelism must be a valid integer: strconv.ParseInt: parsing %s: %s",
                       q, bad);
            free(q);
            return true;
        }
        if (v < 0)
            return fail(why, "parallelism must be non-negative");
    } else if (json_is_integer(par) && json_integer_value(par) < 0) {
        return fail(why, "parallelism must be non-negative");
    }
    const json_t *completion = json_object_get(spec, "completionPolicy");
    const json_t *type = json_object_get(completion, "type");
    const json_t *deadline = member(completion, "activeDeadlineSeconds");
    const char *t = json_string_value(type) ? json_string_value(type) : "";
    if (strcmp(t, "Always") == 0 && json_string_length(type) == strlen(t)) {
        if (!check_timeout || !deadline)
            return false;
        const json_t *timeout = member(member(spec, "pullPolicy"), "timeoutSeconds");
        json_int_t limit = timeout ? json_integer_value(timeout) : DEFAULT_TIMEOUT_SECONDS;
        if (limit > json_integer_value(deadline))
            return fail(why, "completionPolicy.activeDeadlineSeconds must be greater than "
                             "pullPolicy.timeoutSeconds(default 600)");
        return false;
    }
    if (strcmp(t, "Never") == 0 && json_string_length(type) == strlen(t)) {
        if (deadline || member(completion, "ttlSecondsAfterFinished"))
            return fail(why, "activeDeadlineSeconds and ttlSecondsAfterFinished can only work "
                             "with Always CompletionPolicyType");
        return false;
    }
    /* Go's %s of a CompletionPolicyType */
    wh_buf_put(why, "unknown type of completionPolicy: ");
    put_go_string(why, type);
    return true;
}
