#include "gocompat/gosort.h"

#include <stdint.h>

/* Go's names and structure (sort/zsortfunc.go), with ints as in Go: indexes are signed there,
 * and j-- may pass below a. */

enum hint { UNKNOWN_HINT, INCREASING_HINT, DECREASING_HINT };

static bool less(const struct wh_go_sorter *s, long i, long j)
{
    return s->less(s->ctx, (size_t)i, (size_t)j);
}

static void swap(const struct wh_go_sorter *s, long i, long j)
{
    s->swap(s->ctx, (size_t)i, (size_t)j);
}

static int bits_len(uint64_t x)
{
    int n = 0;
    while (x) {
        n++;
        x >>= 1;
    }
    return n;
}

static void insertion_sort(const struct wh_go_sorter *s, long a, long b)
{
    for (long i = a + 1; i < b; i++)
        for (long j = i; j > a && less(s, j, j - 1); j--)
            swap(s, j, j - 1);
}

static void sift_down(const struct wh_go_sorter *s, long lo, long hi, long first)
{
    long root = lo;
    for (;;) {
        long child = 2 * root + 1;
        if (child >= hi)
            return;
        if (child + 1 < hi && less(s, first + child, first + child + 1))
            child++;
        if (!less(s, first + root, first + child))
            return;
        swap(s, first + root, first + child);
        root = child;
    }
}

static void heap_sort(const struct wh_go_sorter *s, long a, long b)
{
    long first = a, lo = 0, hi = b - a;
    for (long i = (hi - 1) / 2; i >= 0; i--)
        sift_down(s, i, hi, first);
    for (long i = hi - 1; i >= 0; i--) {
        swap(s, first, first + i);
        sift_down(s, lo, i, first);
    }
}

static long partition(const struct wh_go_sorter *s, long a, long b, long pivot, bool *already)
{
    swap(s, a, pivot);
    long i = a + 1, j = b - 1;
    while (i <= j && less(s, i, a))
        i++;
    while (i <= j && !less(s, j, a))
        j--;
    if (i > j) {
        swap(s, j, a);
        *already = true;
        return j;
    }
    swap(s, i, j);
    i++;
    j--;
    for (;;) {
        while (i <= j && less(s, i, a))
            i++;
        while (i <= j && !less(s, j, a))
            j--;
        if (i > j)
            break;
        swap(s, i, j);
        i++;
        j--;
    }
    swap(s, j, a);
    *already = false;
    return j;
}

static long partition_equal(const struct wh_go_sorter *s, long a, long b, long pivot)
{
    swap(s, a, pivot);
    long i = a + 1, j = b - 1;
    for (;;) {
        while (i <= j && !less(s, a, i))
            i++;
        while (i <= j && less(s, a, j))
            j--;
        if (i > j)
            break;
        swap(s, i, j);
        i++;
        j--;
    }
    return i;
}

static bool partial_insertion_sort(const struct wh_go_sorter *s, long a, long b)
{
    enum { MAX_STEPS = 5, SHORTEST_SHIFTING = 50 };
    long i = a + 1;
    for (int step = 0; step < MAX_STEPS; step++) {
        while (i < b && !less(s, i, i - 1))
            i++;
        if (i == b)
            return true;
        if (b - a < SHORTEST_SHIFTING)
            return false;
        swap(s, i, i - 1);
        if (i - a >= 2) {
            for (long j = i - 1; j >= 1; j--) {
                if (!less(s, j, j - 1))
                    break;
                swap(s, j, j - 1);
            }
        }
        if (b - i >= 2) {
            for (long j = i + 1; j < b; j++) {
                if (!less(s, j, j - 1))
                    break;
                swap(s, j, j - 1);
            }
        }
    }
    return false;
}

static void break_patterns(const struct wh_go_sorter *s, long a, long b)
{
    long length = b - a;
    if (length < 8)
        return;
    uint64_t random = (uint64_t)length; /* xorshift seeded with the length */
    uint64_t modulus = (uint64_t)1 << bits_len((uint64_t)length);
    for (long idx = a + (length / 4) * 2 - 1; idx <= a + (length / 4) * 2 + 1; idx++) {
        random ^= random << 13;
        random ^= random >> 7;
        random ^= random << 17;
        long other = (long)(random & (modulus - 1));
        if (other >= length)
            other -= length;
        swap(s, idx, a + other);
    }
}

static void order2(const struct wh_go_sorter *s, long *a, long *b, int *swaps)
{
    if (less(s, *b, *a)) {
        (*swaps)++;
        long t = *a;
        *a = *b;
        *b = t;
    }
}

static long median(const struct wh_go_sorter *s, long a, long b, long c, int *swaps)
{
    order2(s, &a, &b, swaps);
    order2(s, &b, &c, swaps);
    order2(s, &a, &b, swaps);
    return b;
}

static long median_adjacent(const struct wh_go_sorter *s, long a, int *swaps)
{
    return median(s, a - 1, a, a + 1, swaps);
}

static long choose_pivot(const struct wh_go_sorter *s, long a, long b, enum hint *hint)
{
    enum { SHORTEST_NINTHER = 50, MAX_SWAPS = 4 * 3 };
    long l = b - a;
    int swaps = 0;
    long i = a + l / 4 * 1, j = a + l / 4 * 2, k = a + l / 4 * 3;
    if (l >= 8) {
        if (l >= SHORTEST_NINTHER) {
            i = median_adjacent(s, i, &swaps);
            j = median_adjacent(s, j, &swaps);
            k = median_adjacent(s, k, &swaps);
        }
        j = median(s, i, j, k, &swaps);
    }
    *hint = swaps == 0 ? INCREASING_HINT : swaps == MAX_SWAPS ? DECREASING_HINT : UNKNOWN_HINT;
    return j;
}

static void reverse_range(const struct wh_go_sorter *s, long a, long b)
{
    for (long i = a, j = b - 1; i < j; i++, j--)
        swap(s, i, j);
}

static void pdqsort(const struct wh_go_sorter *s, long a, long b, int limit)
{
    enum { MAX_INSERTION = 12 };
    bool was_balanced = true, was_partitioned = true;
    for (;;) {
        long length = b - a;
        if (length <= MAX_INSERTION) {
            insertion_sort(s, a, b);
            return;
        }
        if (limit == 0) {
            heap_sort(s, a, b);
            return;
        }
        if (!was_balanced) {
            break_patterns(s, a, b);
            limit--;
        }
        enum hint hint;
        long pivot = choose_pivot(s, a, b, &hint);
        if (hint == DECREASING_HINT) {
            reverse_range(s, a, b);
            pivot = (b - 1) - (pivot - a);
            hint = INCREASING_HINT;
        }
        if (was_balanced && was_partitioned && hint == INCREASING_HINT &&
            partial_insertion_sort(s, a, b))
            return;
        if (a > 0 && !less(s, a - 1, pivot)) {
            a = partition_equal(s, a, b, pivot);
            continue;
        }
        bool already;
        long mid = partition(s, a, b, pivot, &already);
        was_partitioned = already;
        long left = mid - a, right = b - mid, threshold = length / 8;
        if (left < right) {
            was_balanced = left >= threshold;
            pdqsort(s, a, mid, limit);
            a = mid + 1;
        } else {
            was_balanced = right >= threshold;
            pdqsort(s, mid + 1, b, limit);
            b = mid;
        }
    }
}

void wh_go_sort_slice(const struct wh_go_sorter *s, size_t n)
{
    pdqsort(s, 0, (long)n, bits_len((uint64_t)n));
}
