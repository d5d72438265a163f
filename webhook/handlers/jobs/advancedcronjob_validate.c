/* /validate-apps-kruise-io-advancedcronjob: upstream's AdvancedCronJob validation
 * (pkg/webhook/advancedcronjob/validating), v1alpha1 and v1beta1 (converted up): on CREATE the
 * metadata with the job name rule, on UPDATE the core metadata update rules and a spec that
 * changes only what upstream lets change; on both the schedule (robfig/cron's ParseStandard,
 * gocompat/cron.h), the one template (a Job's or a BroadcastJob's Pod template, validated as
 * written: upstream converts it without kruise's defaults; an image list pull job), the history
 * limits and deadline, the time zone (time.LoadLocation, gocompat/gozone.h). Errors are answered
 * 422, as admission.Errored(http.StatusUnprocessableEntity, ...). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gocompat/cron.h"
#include "gocompat/goequal.h"
#include "gocompat/gozone.h"
#include "handlers/jobs/jobs_int.h"
#include "handlers/kruise_object.h"
#include "k8s/imageref.h"
#include "k8s/kruise.h"
#include "k8s/podvalidation.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"

#define KIND "AdvancedCronJob"
/* MaxActiveDeadLineSeconds: a day */
#define MAX_ACTIVE_DEADLINE 86400
#define MAX_IMAGES 255
/* Go prints a non-nil pointer inside a %#v value as its address, which differs per run; this
 * stands in for it. */

static void name_rule(const char *name, bool prefix, struct wh_vmsgs *out)
{
    (void)prefix;
    wh_jobs_name(KIND, name, out);
}

/* A pointer member Go holds as non-nil: present and not null. */
static const json_t *set(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return v && !json_is_null(v) ? v : NULL;
}

/* --- the schedule and the time zone -------------------------------------------------------- */

static void schedule_rules(struct wh_field_errors *l, const json_t *spec)
{
    const json_t *s = json_object_get(spec, "schedule");
    const char *text = json_is_string(s) ? json_string_value(s) : "";
    size_t len = json_is_string(s) ? json_string_length(s) : 0;
    if (len == 0)
        wh_ferr_invalid_str(l, "spec.schedule", text,
                            "schedule cannot be empty, please provide valid cron schedule.");
    struct wh_cron_schedule sched;
    char *msg = NULL;
    enum wh_err rc = wh_cron_parse(text, len, WH_CRON_STANDARD, &sched, &msg);
    if (rc == WH_OK) {
        wh_cron_schedule_fini(&sched);
    } else if (rc == WH_ERR_INTERNAL) {
        /* robfig's parser panicked; upstream recovers it */
        char *detail = wh_str_printf("invalid cron schedule: %s", msg);
        wh_ferr_invalid_str(l, "spec.schedule", text, detail);
        free(detail);
    } else {
        wh_ferr_invalid_str(l, "spec.schedule", text, msg);
    }
    free(msg);
    if (strstr(text, "TZ") && set(spec, "timeZone"))
        wh_ferr_invalid_str(l, "spec.schedule", text,
                            "cannot use both timeZone field and TZ or CRON_TZ in schedule");
}

/* strings.EqualFold(name, "Local"): no letter of "local" folds to a non-ASCII rune (only k and
 * s do), so an ASCII comparison ignoring case is the fold. */
static bool is_local(const char *name, size_t len)
{
    static const char local[] = "local";
    if (len != 5)
        return false;
    for (size_t i = 0; i < 5; i++) {
        char c = name[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != local[i])
            return false;
    }
    return true;
}

static void time_zone_rules(struct wh_field_errors *l, const json_t *spec)
{
    const json_t *tz = set(spec, "timeZone");
    if (!tz)
        return;
    const char *name = json_string_value(tz);
    size_t len = json_string_length(tz);
    if (len == 0) {
        wh_ferr_invalid_str(l, "spec.timeZone", "", "timeZone must be nil or non-empty string");
        return;
    }
    if (is_local(name, len))
        wh_ferr_invalid_str(
            l, "spec.timeZone", name,
            "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones");
    char *msg = NULL;
    if (wh_gozone_load(name, len, &msg))
        wh_ferr_invalid_str(l, "spec.timeZone", name, msg);
    free(msg);
}

/* --- the image list pull job template (validateImageListPullJobTemplateSpec) --------------- */

/* %#v of *T inside a struct. */
static char *gosyntax_pointer(const char *type, const json_t *v)
{
    return wh_str_printf("(*%s)(%s)", type, v ? WH_GO_ADDRESS : "nil");
}

/* %#v of a v1beta1.ImagePullJobNodeSelector value. */
static char *gosyntax_node_selector(const json_t *sel)
{
    char *names = wh_gosyntax_strings(json_object_get(sel, "names"));
    char *ls = wh_gosyntax_label_selector(sel);
    char *out =
        wh_str_printf("v1beta1.ImagePullJobNodeSelector{Names:%s, LabelSelector:%s}", names, ls);
    free(names);
    free(ls);
    return out;
}

/* %#v of a v1beta1.ImageListPullJobSpec value (its pointers as addresses). */
static char *gosyntax_pull_spec(const json_t *spec)
{
    const json_t *cp = wh_json_obj(spec, "completionPolicy");
    char *images = wh_gosyntax_strings(json_object_get(spec, "images"));
    char *secrets = wh_gosyntax_strings(json_object_get(spec, "pullSecrets"));
    char *sel = gosyntax_pointer("v1beta1.ImagePullJobNodeSelector", set(spec, "selector"));
    char *psel = gosyntax_pointer("v1beta1.ImagePullJobPodSelector", set(spec, "podSelector"));
    char *par = gosyntax_pointer("intstr.IntOrString", set(spec, "parallelism"));
    char *pull = gosyntax_pointer("v1beta1.PullPolicy", set(spec, "pullPolicy"));
    char *ads = gosyntax_pointer("int64", set(cp, "activeDeadlineSeconds"));
    char *ttl = gosyntax_pointer("int32", set(cp, "ttlSecondsAfterFinished"));
    char *sandbox = gosyntax_pointer("v1beta1.SandboxConfig", set(spec, "sandboxConfig"));
    char *type = wh_go_quote(wh_json_str_or_empty(cp, "type"));
    char *ipp = wh_go_quote(wh_json_str_or_empty(spec, "imagePullPolicy"));
    char *out = wh_str_printf(
        "v1beta1.ImageListPullJobSpec{Images:%s, ImagePullJobTemplate:v1beta1.ImagePullJobTemplate{"
        "PullSecrets:%s, Selector:%s, PodSelector:%s, Parallelism:%s, PullPolicy:%s, "
        "CompletionPolicy:v1beta1.CompletionPolicy{Type:%s, ActiveDeadlineSeconds:%s, "
        "TTLSecondsAfterFinished:%s}, SandboxConfig:%s, ImagePullPolicy:%s}}",
        images, secrets, sel, psel, par, pull, type, ads, ttl, sandbox, ipp);
    free(images);
    free(secrets);
    free(sel);
    free(psel);
    free(par);
    free(pull);
    free(ads);
    free(ttl);
    free(sandbox);
    free(type);
    free(ipp);
    return out;
}

static void invalid_rendered(struct wh_field_errors *l, const char *path, char *rendered,
                             const char *detail)
{
    wh_ferr_invalid_raw(l, path, rendered, detail);
    free(rendered);
}

/* metav1.LabelSelectorAsSelector of sel; false after the error at path. */
static bool selector_converts(struct wh_field_errors *l, const json_t *sel, const char *path)
{
    char *err = wh_label_selector_error(sel); /* whole: a long key or value is named in full */
    if (!err)
        return true;
    char *detail = wh_str_printf("invalid selector: %s", err);
    invalid_rendered(l, path, wh_gosyntax_label_selector(sel), detail);
    free(detail);
    free(err);
    return false;
}

static bool has_selector_terms(const json_t *sel)
{
    return set(sel, "matchLabels") || set(sel, "matchExpressions");
}

/* The i-th element of a decoded []string: a null element is Go's "". */
static const char *string_at(const json_t *arr, size_t i)
{
    const char *s = json_string_value(json_array_get(arr, i));
    return s ? s : "";
}

/* Returns at its first error, as upstream's does. P is the template's path. */
#define P "spec.template.imageListPullJobTemplate.spec"
static void pull_template_rules(struct wh_field_errors *l, const json_t *ilp)
{
    const json_t *spec = wh_json_obj(ilp, "spec");
    const json_t *sel = set(spec, "selector"), *psel = set(spec, "podSelector");
    const json_t *names = set(sel, "names");
    if (sel) {
        if (has_selector_terms(sel)) {
            if (names) {
                invalid_rendered(l, P ".selector", gosyntax_node_selector(sel),
                                 "can not set both names and labelSelector in this spec.selector");
                return;
            }
            if (!selector_converts(l, sel, P ".selector.labelSelector"))
                return;
        }
        if (names && wh_json_strings_repeat(names)) {
            invalid_rendered(l, P ".selector.names", wh_gosyntax_strings(names),
                             "duplicated name in selector names");
            return;
        }
    }
    if (psel) {
        if (sel) {
            invalid_rendered(l, P, gosyntax_pull_spec(spec),
                             "can not set both selector and podSelector");
            return;
        }
        if (!selector_converts(l, psel, P ".podSelector.labelSelector"))
            return;
    }
    const json_t *images = json_object_get(spec, "images");
    size_t n = json_array_size(images);
    const char *bad = NULL;
    if (n == 0)
        bad = "image can not be empty";
    else if (n > MAX_IMAGES)
        bad = "the maximum number of images cannot > 255";
    else if (wh_json_strings_repeat(images))
        bad = "images cannot have duplicate values";
    if (bad) {
        invalid_rendered(l, P ".images", wh_gosyntax_strings(images), bad);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const char *image = string_at(images, i);
        char buf[512];
        const char *why = wh_imageref_normalize_error(image, buf, sizeof(buf));
        if (why) {
            char *detail = wh_str_printf("invalid image %s: %s", image, why);
            invalid_rendered(l, P ".images", wh_gosyntax_strings(images), detail);
            free(detail);
            return;
        }
    }
    const json_t *cp = wh_json_obj(spec, "completionPolicy");
    const char *type = wh_json_str_or_empty(cp, "type");
    if (strcmp(type, "Always") != 0) {
        char *detail =
            wh_str_printf("completionPolicy should be Always, but current value is: %s", type);
        wh_ferr_invalid_str(l, P ".completionPolicy.type", type, detail);
        free(detail);
        return;
    }
    const json_t *ads = set(cp, "activeDeadlineSeconds");
    const json_t *timeout = set(wh_json_obj(spec, "pullPolicy"), "timeoutSeconds");
    if (ads && json_integer_value(ads) > MAX_ACTIVE_DEADLINE) {
        char *detail = wh_str_printf("activeDeadlineSeconds must be less than %d, current value "
                                     "is: %" JSON_INTEGER_FORMAT,
                                     MAX_ACTIVE_DEADLINE, json_integer_value(ads));
        wh_ferr_invalid_int(l, P ".completionPolicy.activeDeadlineSeconds", json_integer_value(ads),
                            detail);
        free(detail);
        return;
    }
    if (ads && timeout && json_integer_value(timeout) > json_integer_value(ads)) {
        char *detail = wh_str_printf("completionPolicy.activeDeadlineSeconds must be greater than "
                                     "pullPolicy.timeoutSeconds(%" JSON_INTEGER_FORMAT ")",
                                     json_integer_value(timeout));
        wh_ferr_invalid_int(l, P ".completionPolicy.activeDeadlineSeconds", json_integer_value(ads),
                            detail);
        free(detail);
        return;
    }
    const json_t *ttl = set(cp, "ttlSecondsAfterFinished");
    if (ttl)
        wh_ferr_invalid_int(l, P ".completionPolicy.ttlSecondsAfterFinished",
                            json_integer_value(ttl),
                            "ttlSecondsAfterFinished is not supported in advancedCronJob");
}
#undef P

/* --- the spec ------------------------------------------------------------------------------ */

static void template_rules(struct wh_field_errors *l, const json_t *spec)
{
    const json_t *templates = wh_json_obj(spec, "template");
    int count = 0;
    /* a Job's and a BroadcastJob's Pod template, both validated at spec.template */
    static const char *const with_pods[] = {"jobTemplate", "broadcastJobTemplate"};
    for (size_t i = 0; i < 2; i++) {
        const json_t *t = set(templates, with_pods[i]);
        if (!t)
            continue;
        count++;
        wh_validate_pod_template_spec_as_written(l, wh_json_obj(wh_json_obj(t, "spec"), "template"),
                                                 "spec.template");
    }
    const json_t *ilp = set(templates, "imageListPullJobTemplate");
    if (ilp) {
        count++;
        const char *cp = wh_json_str_or_empty(spec, "concurrencyPolicy");
        if (strcmp(cp, "Replace") != 0 && strcmp(cp, "Forbid") != 0) {
            char *detail = wh_str_printf(
                "concurrencyPolicy should be Replace or Forbid, but current value is: %s", cp);
            wh_ferr_invalid_str(l, "spec.spec.concurrencyPolicy", cp, detail);
            free(detail);
        }
        pull_template_rules(l, ilp);
    }
    if (count == 0)
        wh_ferr_forbidden(l, "spec.template",
                          "spec must have one template, either JobTemplate or "
                          "BroadcastJobTemplate or ImageListPullJobTemplate should be provided");
    else if (count > 1)
        wh_ferr_forbidden(l, "spec.template",
                          "spec can have only one template, either JobTemplate or "
                          "BroadcastJobTemplate or ImageListPullJobTemplate should be provided");
}

static void spec_rules(struct wh_field_errors *l, const json_t *spec)
{
    schedule_rules(l, spec);
    template_rules(l, spec);
    static const char *const counts[] = {"startingDeadlineSeconds", "successfulJobsHistoryLimit",
                                         "failedJobsHistoryLimit"};
    for (size_t i = 0; i < 3; i++) {
        const json_t *v = set(spec, counts[i]);
        char path[64];
        snprintf(path, sizeof(path), "spec.%s", counts[i]);
        if (v)
            wh_validate_nonnegative(l, json_integer_value(v), path);
    }
    time_zone_rules(l, spec);
}

/* validateAdvancedCronJobUpdate's spec rule: the new spec with what may change taken from the
 * old one must equal the old one (equality.Semantic). */
static void update_rules(struct wh_field_errors *l, const json_t *obj, const json_t *old)
{
    static const char *const may_change[] = {"schedule",
                                             "concurrencyPolicy",
                                             "successfulJobsHistoryLimit",
                                             "failedJobsHistoryLimit",
                                             "startingDeadlineSeconds",
                                             "paused",
                                             "timeZone"};
    const json_t *old_spec = wh_json_obj(old, "spec");
    const json_t *new_spec = wh_json_obj(obj, "spec");
    json_t *spec = new_spec ? wh_json_copy(new_spec) : json_object();
    for (size_t i = 0; i < sizeof(may_change) / sizeof(may_change[0]); i++) {
        const json_t *v = json_object_get(old_spec, may_change[i]);
        if (v)
            json_object_set_new(spec, may_change[i], wh_json_copy(v));
        else
            json_object_del(spec, may_change[i]);
    }
    const json_t *old_ilp = set(wh_json_obj(old_spec, "template"), "imageListPullJobTemplate");
    if (old_ilp)
        json_object_set_new(wh_json_obj_ensure(spec, "template"), "imageListPullJobTemplate",
                            wh_json_copy(old_ilp));
    const struct wh_gofield *f = wh_gotype_member(wh_kobj_type(KIND, WH_KOBJ_V1BETA1), "spec");
    if (!wh_go_deep_equal(spec, old_spec, f->type, WH_GOEQ_SEMANTIC))
        wh_ferr_forbidden(l, "spec",
                          "updates to advancedcronjob spec for fields other than "
                          "'imageListPullJobTemplate', 'schedule', 'concurrencyPolicy', "
                          "'successfulJobsHistoryLimit', 'failedJobsHistoryLimit', "
                          "'startingDeadlineSeconds', 'timeZone' and 'paused' are forbidden");
    json_decref(spec);
}

static enum wh_err admit(const struct wh_handler_ctx *ctx, const struct wh_admission_request *req,
                         struct wh_admission_response *resp, struct wh_errbuf *eb)
{
    json_t *obj = NULL, *old = NULL;
    char *msg = NULL;
    enum wh_kobj_version v = wh_kobj_version_of(req);
    struct wh_field_errors errs;
    (void)ctx;
    (void)eb;
    wh_ferrs_init(&errs);
    if (wh_kobj_decode(req->object, KIND, v, true, &obj, &msg))
        goto bad_request;
    if (strcmp(req->operation, "CREATE") == 0) {
        wh_validate_object_meta(&errs, wh_json_obj(obj, "metadata"), true, name_rule, "metadata");
        spec_rules(&errs, wh_json_obj(obj, "spec"));
    } else if (strcmp(req->operation, "UPDATE") == 0) {
        /* decodeAdvancedCronJobFromRaw has a default case */
        if (v == WH_KOBJ_OTHER) {
            msg = wh_str_printf("unsupported version: %s", req->resource.version);
            goto bad_request;
        }
        if (wh_kobj_decode(req->old_object, KIND, v, true, &old, &msg))
            goto bad_request;
        wh_validate_object_meta_update(&errs, wh_json_obj(obj, "metadata"),
                                       wh_json_obj(old, "metadata"), "metadata");
        spec_rules(&errs, wh_json_obj(obj, "spec"));
        update_rules(&errs, obj, old);
    }
    wh_jobs_answer(resp, &errs, 422, NULL);
    goto out;
bad_request:
    wh_admission_deny(resp, 400, "%s", msg ? msg : "");
out:
    free(msg);
    wh_ferrs_fini(&errs);
    json_decref(obj);
    json_decref(old);
    return WH_OK;
}

const struct wh_route wh_advancedcronjob_validate_route = {
    .path = "/validate-apps-kruise-io-advancedcronjob",
    .kind = WH_ROUTE_VALIDATE,
    .admit = admit,
    .entries = {{.name = "vadvancedcronjob.kb.io",
                 .group = WH_KRUISE_APPS,
                 .versions = {"v1alpha1", "v1beta1"},
                 .resource = "advancedcronjobs",
                 .operations = WH_WEBHOOK_CREATE | WH_WEBHOOK_UPDATE}},
};
