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

/* completionPolicy.type Always, pullPolicy with timeoutSeconds 600 and backoffLimit 3. */
void wh_imagejob_template_defaults(json_t *spec);

/* The first rule of spec.selector and spec.podSelector that fails, as a new string (caller
 * frees), or NULL: names beside a label selector, an invalid selector, duplicated names, both
 * selectors. */
char *wh_imagejob_check_selectors(const json_t *spec);

/* The image rule: NULL when image parses as the daemon's NormalizeImageRef reads it, else
 * "invalid image <image>: <reference's error>" (new string). */
char *wh_imagejob_check_image(const json_t *image);

/* spec.parallelism (an integer, never a percentage) and spec.completionPolicy: the first rule
 * that fails, as a new string, or NULL. check_timeout: ImagePullJob's rule that an
 * activeDeadlineSeconds of Always is not below pullPolicy.timeoutSeconds (600 when unset). */
char *wh_imagejob_check_parallelism_completion(const json_t *spec, bool check_timeout);

#endif
