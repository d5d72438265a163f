#ifndef WH_GOCOMPAT_GOSORT_H
#define WH_GOCOMPAT_GOSORT_H

/* Go's sort.Slice (pattern-defeating quicksort, Go 1.19 and later) step for step, for answers
 * that depend on where an unstable sort leaves equal elements, or on what it does with a less
 * function that is not a strict order (upstream sorts NodeImage tags with "a.Tag <= b.Tag").
 * The same comparisons and swaps in the same order give the same result as Go.
 * Thread rule: pure (everything goes through the callbacks). */

#include <stdbool.h>
#include <stddef.h>

struct wh_go_sorter {
    bool (*less)(void *ctx, size_t i, size_t j);
    void (*swap)(void *ctx, size_t i, size_t j);
    void *ctx;
};

/* sort.Slice over the n elements the sorter reaches. */
void wh_go_sort_slice(const struct wh_go_sorter *s, size_t n);

#endif
