#ifndef WH_HANDLERS_IMAGEJOB_TEMPLATE_H
#define WH_HANDLERS_IMAGEJOB_TEMPLATE_H

/* What ImagePullJob and ImageListPullJob share, the ImagePullJobTemplate of their specs
 * (apis/apps/{v1alpha1,v1beta1}): its defaults (apis/apps/defaults) and the rules of
 * upstream's validating webhooks around the images (pkg/webhook/{imagepulljob,
 * imagelistpulljob}/validating), which are the same in both versions. spec is the decoded
 * spec (wh_kobj_decode_or_deny). Thread rule: pure functions. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "handlers/kruise_object.h"
#include "util/buf.h"

/* completionPolicy.type Always, pullPolicy with timeoutSeconds 600 and backoffLimit 3. */
void wh_imagejob_template_defaults(json_t *spec);

/* The defaults upstream's own change test does not see (a wh_kobj_mutator's shared_defaults):
 * v1beta1's ImagePullJob and ImageListPullJob have a hand-written DeepCopy that copies spec
 * shallowly (apis/apps/v1beta1/imagepulljob_types.go, imagelistpulljob_types.go), so the copy
 * the mutating handler compares with shares spec.pullPolicy, and the timeout and backoff the
 * defaults write into a pullPolicy that is there are in both: an object whose only default is
 * one of those is allowed without a patch (and stored without them). v1alpha1's DeepCopy is
 * generated and deep. obj is the decoded object in version v. */
void wh_imagejob_shared_defaults(json_t *obj, enum wh_kobj_version v);

/* The rules below answer true when one fails, with its message appended to why (a buffer of
 * WH_IMAGEJOB_MESSAGE_CAP): Go's words, a string it prints with %s as its bytes, NUL bytes and
 * all (wh_admission_deny_text). */
#define WH_IMAGEJOB_MESSAGE_CAP (64u << 20) /* above any body the server reads */

/* The first rule of spec.selector and spec.podSelector that fails: names beside a label
 * selector, an invalid selector, duplicated names, both selectors. */
bool wh_imagejob_check_selectors(const json_t *spec, struct wh_buf *why);

/* The image rule: fails unless image parses as the daemon's NormalizeImageRef reads it, with
 * "invalid image <image>: <reference's error>". */
bool wh_imagejob_check_image(const json_t *image, struct wh_buf *why);

/* spec.parallelism (an integer, never a percentage) and spec.completionPolicy: the first rule
 * that fails. check_timeout: ImagePullJob's rule that an activeDeadlineSeconds of Always is not
 * below pullPolicy.timeoutSeconds (600 when unset). */
bool wh_imagejob_check_parallelism_completion(const json_t *spec, bool check_timeout,
                                              struct wh_buf *why);

#endif
