#include "handlers/imagejob/template.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/fielderr.h"
#include "k8s/imageref.h"
#include "k8s/validation.h"
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

void wh_imagejob_template_defaults(json_t *spec)
{
    json_t *completion = wh_json_obj_ensure(spec, "completionPolicy");
    if (!*wh_json_str_or_empty(completion, "type"))
        json_object_set_new(completion, "type", json_string("Always"));
    json_t *pull = wh_json_obj_ensure(spec, "pullPolicy");
    default_int(pull, "timeoutSeconds", DEFAULT_TIMEOUT_SECONDS);
    default_int(pull, "backoffLimit", DEFAULT_BACKOFF_LIMIT);
}

static char *selector_error(const char *what, const json_t *sel)
{
    char err[1024];
    if (wh_label_selector_as_selector(sel, err, sizeof(err)))
        return NULL;
    return wh_str_printf("invalid %s: %s", what, err);
}

char *wh_imagejob_check_selectors(const json_t *spec)
{
    const json_t *sel = member(spec, "selector"), *pods = member(spec, "podSelector");
    if (sel) {
        const json_t *names = member(sel, "names");
        if (member(sel, "matchLabels") || member(sel, "matchExpressions")) {
            if (names)
                return wh_xstrdup("can not set both names and labelSelector in this spec.selector");
            char *err = selector_error("selector", sel);
            if (err)
                return err;
        }
        if (wh_json_strings_repeat(names))
            return wh_xstrdup("duplicated name in selector names");
    }
    if (pods) {
        if (sel)
            return wh_xstrdup("can not set both selector and podSelector");
        return selector_error("podSelector", pods);
    }
    return NULL;
}

char *wh_imagejob_check_image(const json_t *image)
{
    const char *s = json_string_value(image);
    size_t n = json_string_length(image);
    struct wh_imageref r;
    struct wh_errbuf eb = {{0}};
    char *out = NULL;
    if (wh_imageref_parse_docker_ref(WH_IMAGEREF_DOCKER, s ? s : "", s ? n : 0, &r, &eb) != WH_OK)
        out = wh_str_printf("invalid image %s: %s", s ? s : "", eb.msg);
    wh_imageref_fini(&r);
    return out;
}

/* Go's %s of a CompletionPolicyType. */
static char *unknown_completion(const json_t *type)
{
    return wh_str_printf("unknown type of completionPolicy: %s",
                         json_string_value(type) ? json_string_value(type) : "");
}

char *wh_imagejob_check_parallelism_completion(const json_t *spec, bool check_timeout)
{
    const json_t *par = member(spec, "parallelism");
    if (json_is_string(par)) {
        const char *s = json_string_value(par);
        size_t n = json_string_length(par);
        if (n && s[n - 1] == '%')
            return wh_xstrdup("parallelism does not support percentage value");
        long long v;
        const char *why = wh_str_go_parse_int(s, n, 32, &v);
        if (why) {
            char *q = wh_go_quote(s);
            char *out = wh_str_printf(
                "parallelism must be a valid integer: strconv.ParseInt: parsing %s: %s", q, why);
            free(q);
            return out;
        }
        if (v < 0)
            return wh_xstrdup("parallelism must be non-negative");
    } else if (json_is_integer(par) && json_integer_value(par) < 0) {
        return wh_xstrdup("parallelism must be non-negative");
    }
    const json_t *completion = json_object_get(spec, "completionPolicy");
    const json_t *type = json_object_get(completion, "type");
    const json_t *deadline = member(completion, "activeDeadlineSeconds");
    const char *t = json_string_value(type) ? json_string_value(type) : "";
    if (strcmp(t, "Always") == 0) {
        if (!check_timeout || !deadline)
            return NULL;
        const json_t *timeout = member(member(spec, "pullPolicy"), "timeoutSeconds");
        json_int_t limit = timeout ? json_integer_value(timeout) : DEFAULT_TIMEOUT_SECONDS;
        if (limit > json_integer_value(deadline))
            return wh_xstrdup("completionPolicy.activeDeadlineSeconds must be greater than "
                              "pullPolicy.timeoutSeconds(default 600)");
        return NULL;
    }
    if (strcmp(t, "Never") == 0) {
        if (deadline || member(completion, "ttlSecondsAfterFinished"))
            return wh_xstrdup("activeDeadlineSeconds and ttlSecondsAfterFinished can only work "
                              "with Always CompletionPolicyType");
        return NULL;
    }
    return unknown_completion(type);
}
