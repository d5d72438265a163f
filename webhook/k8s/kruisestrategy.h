#ifndef WH_K8S_KRUISESTRATEGY_H
#define WH_K8S_KRUISESTRATEGY_H

/* The checks OpenKruise's API types make of their own update strategies (apis/apps/pub and the
 * kinds' scatter strategies), which the SidecarSet, CloneSet and Advanced StatefulSet webhooks
 * report: one home for them and their messages.
 * Thread rule: thread-safe (no state); values are only read. */

#include <jansson.h>

/* pub.UpdatePriorityStrategy.FieldsValidation of ps (a JSON object, or NULL for a nil
 * strategy): NULL when it passes, else the error text, whole (new string, caller frees). */
char *wh_kruise_priority_strategy_problem(const json_t *ps);

/* UpdateScatterStrategy.FieldsValidation of terms (a JSON array of {key, value}, or NULL):
 * NULL when it passes, else the error text, whole (new string, caller frees). */
char *wh_kruise_scatter_strategy_problem(const json_t *terms);

#endif
