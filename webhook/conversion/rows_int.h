#ifndef WH_CONVERSION_ROWS_INT_H
#define WH_CONVERSION_ROWS_INT_H

/* Short names for writing the per-kind tables (see convert_int.h for what a row means). Only the
 * per-kind files include this; the names are deliberately plain words so that a table reads as
 * the spec's mapping table does:
 *
 *     RENAME("spec.subsets[].requiredNodeSelectorTerm", "spec.subsets[].requiredNodeSelector"),
 *     BETA_ONLY("spec.reserveOrdinals"),
 *
 * A field copied unchanged needs no row: the Go types of both versions are the model's. */

#include "conversion/convert_int.h"

/* The tables read best one row per line: clang-format would break these macros apart. */
/* clang-format off */

#define WH_ROWS(rows) (rows), (sizeof(rows) / sizeof((rows)[0]))

#define RENAME(a, b) {.alpha = (a), .beta = (b)}
#define MOVE_IF(pred, a, b) {.alpha = (a), .beta = (b), .when = (pred)}
#define ALPHA_ONLY(path) {.alpha = (path), .rule = WH_CONV_ALPHA_ONLY}
#define BETA_ONLY(path) {.beta = (path), .rule = WH_CONV_BETA_ONLY}
#define INVERT(a, b) {.alpha = (a), .beta = (b), .rule = WH_CONV_INVERT}
#define ENUM_MAP(path, m) {.alpha = (path), .beta = (path), .rule = WH_CONV_ENUM, .map = (m)}
#define NO_NULLS(path) {.alpha = (path), .beta = (path), .rule = WH_CONV_NO_NULLS}
/* beta bool = (label == "true"); going down the bool is lost (no label written). */
#define LABEL_TRUE(k, b)                                                                           \
    {.beta = (b), .rule = WH_CONV_META_TRUE, .meta = WH_META_LABEL, .key = (k)}
/* beta bool = (annotation == "true"); going down a true bool writes the annotation "true". */
#define ANNOTATION_TRUE(k, b)                                                                      \
    {.beta = (b), .rule = WH_CONV_META_TRUE, .meta = WH_META_ANNOTATION, .key = (k),               \
     .write_back = true}
#define LABEL_MOVE(k, b) {.beta = (b), .rule = WH_CONV_META_MOVE, .meta = WH_META_LABEL, .key = (k)}
#define REJECT_DOWN(b, message) {.beta = (b), .rule = WH_CONV_REJECT, .key = (message)}
#define CUSTOM(a, b, f) {.alpha = (a), .beta = (b), .rule = WH_CONV_CUSTOM, .fn = (f)}
/* Written by the CUSTOM row above it (either path may be NULL). */
#define DERIVED(a, b) {.alpha = (a), .beta = (b), .rule = WH_CONV_DERIVED}
/* An annotation (the alpha side) that a CUSTOM row reads or writes, with texts it may hold. */
#define ANNOTATION_DERIVED(k, texts)                                                               \
    {.rule = WH_CONV_DERIVED, .meta = WH_META_ANNOTATION, .key = (k), .examples = (texts)}

/* clang-format on */

#endif
