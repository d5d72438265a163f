/* The rules and answers the job webhooks share (jobs_int.h). */
#include "handlers/jobs/jobs_int.h"

#include <stdlib.h>
#include <string.h>

#define NAME_FMT "^[a-zA-Z0-9\\-]+$"
#define NAME_MAX_LEN 63

void wh_jobs_name(const char *kind, const char *name, struct wh_vmsgs *out)
{
    bool ok = *name != '\0';
    for (const char *p = name; *p && ok; p++)
        ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
             *p == '-';
    if (!ok)
        wh_vmsg_add(out,
                    "%s name must consist of alphanumeric characters or '-' (e.g. 'example-com', "
                    "regex used for validation is '" NAME_FMT "')",
                    kind);
    if (strlen(name) > NAME_MAX_LEN)
        wh_vmsg_add(out, "must be no more than %d characters", NAME_MAX_LEN);
}

void wh_jobs_answer(struct wh_admission_response *resp, const struct wh_field_errors *l, int code,
                    const char *message)
{
    char *agg = wh_ferrs_aggregate(l);
    if (agg)
        wh_admission_deny(resp, code, "%s", agg);
    else if (message)
        wh_admission_allow(resp, "%s", message);
    else
        wh_admission_allow(resp, NULL);
    free(agg);
}
