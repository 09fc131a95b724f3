/*
 * SnapCore's `index(at:)` for the ordinal layout written in C, for `make bench`'s SnapCore row: the
 * same mapping (finite check, clamp to the usable track, multiply before dividing, round half away
 * from zero, clamp to the indexes), the same 1024 pointer positions, the same 20,000,000 calls, the
 * best of 7 rounds, timed the same way as Sources/snapcore-bench. It prints a line in the same
 * format, with a checksum that must equal the Swift one: the same answers, or the ratio means nothing.
 *
 * Compiled -O2 (make bench-programs). Usage: snapcore-bench-c
 */
#include <math.h>
#include <stdio.h>
#include <time.h>

struct snapper {
    int count;
    double width, inset;
};

/* -1 for a position that is not a finite number (Swift throws SnapError.nonFinite). */
static inline long index_at(const struct snapper *s, double x) {
    if (!isfinite(x)) return -1;
    int intervals = s->count - 1;
    if (intervals == 0) return 0;
    double usable = s->width - 2 * s->inset;
    double offset = x - s->inset;
    offset = offset > 0 ? offset : 0;
    offset = offset < usable ? offset : usable;
    double product = offset * intervals;
    double scaled = isfinite(product) ? product / usable : offset / usable * intervals;
    double position = round(scaled);
    position = position > 0 ? position : 0;
    position = position < intervals ? position : intervals;
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
    /* volatile: the snapper comes from outside the loop, as Swift's global Snapper() does. */
    static volatile struct snapper configured = {5, 336, 12};
    struct snapper ordinal = configured;
    const long iterations = 20000000;
    double best = INFINITY;
    long checksum = 0;
    for (int round = 0; round < 7; round++) {
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
