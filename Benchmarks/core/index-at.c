/*
 * SnapCore's `index(at:)` written in C, for `make bench`'s SnapCore row: the same mapping (finite
 * check, clamp to the usable track, multiply before dividing unless that overflows, round half away
 * from zero, clamp to the indexes; the layout chosen at run time, the numeric one by binary search as
 * SizeSet does), the same 1024 pointer positions over the ordinal layout, the same calls (the best of
 * 100 rounds of 200,000: short rounds, so that some of them run without another process on the core),
 * timed the same way as Sources/snapcore-bench. It prints a line in the same format, with a checksum
 * that must equal the Swift one: the same answers, or the ratio means nothing.
 *
 * Compiled -O2 (make bench-programs). Usage: snapcore-bench-c
 */
#include <math.h>
#include <stdio.h>
#include <time.h>

enum layout { ORDINAL, NUMERIC };

struct snapper {
    const long *sizes;
    long count;
    double width, inset;
    enum layout layout;
};

/* SizeSet.nearestIndex: the first size >= value, then it or its lower neighbour (ties to the larger). */
static inline long nearest_index(const struct snapper *s, double value) {
    long low = 0, high = s->count;
    while (low < high) {
        long middle = (low + high) / 2;
        if ((double)s->sizes[middle] < value) low = middle + 1; else high = middle;
    }
    if (low == 0) return 0;
    if (low == s->count) return s->count - 1;
    double below = value - (double)s->sizes[low - 1], above = (double)s->sizes[low] - value;
    return below < above ? low - 1 : low;
}

static inline double scale(double value, double factor, double divisor) {
    double product = value * factor;
    return isfinite(product) ? product / divisor : value / divisor * factor;
}

/* -1 for a position that is not a finite number (Swift throws SnapError.nonFinite). */
static inline long index_at(const struct snapper *s, double x) {
    if (!isfinite(x)) return -1;
    long intervals = s->count - 1;
    if (intervals == 0) return 0;
    double usable = s->width - 2 * s->inset;
    double offset = x - s->inset;
    offset = offset > 0 ? offset : 0;
    offset = offset < usable ? offset : usable;
    if (s->layout == NUMERIC) {
        double first = (double)s->sizes[0], last = (double)s->sizes[intervals];
        return nearest_index(s, first + scale(offset, last - first, usable));
    }
    double position = round(scale(offset, (double)intervals, usable));
    position = position > 0 ? position : 0;
    position = position < intervals ? position : (double)intervals;
    return (long)position;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(void) {
    static double xs[1024];
    for (int i = 0; i < 1024; i++) xs[i] = (double)i * 0.37 - 20;
    /* From outside the loop, as Swift's global Snapper() is: every field read through volatile, so
     * that the compiler cannot fold the count, the track or the layout into constants and skip work
     * (the count check, the usable length, the intervals' conversion) that the Swift must do. */
    static const long standard[] = {20, 40, 60, 80, 100};
    static volatile long count = 5;
    static volatile double width = 336, inset = 12;
    static volatile enum layout configured = ORDINAL;
    struct snapper ordinal = {standard, count, width, inset, configured};
    const long iterations = 200000;
    double best = INFINITY;
    long checksum = 0;
    for (int round = 0; round < 100; round++) {
        double start = now();
        long sum = 0;
        for (long i = 0; i < iterations; i++) {
            long index = index_at(&ordinal, xs[i & 1023]);
            sum += index < 0 ? 0 : index;
        }
        double per = (now() - start) / (double)iterations;
        checksum += sum;
        if (per < best) best = per;
    }
    printf("index(at:) ordinal, 5 sizes         %.2f ns/op   (checksum %ld)\n", best, checksum);
    return 0;
}
