/*
 * A new client's first call, servers side by side (scripts/first-call-ab.sh starts them): for each of
 * ROUNDS rounds, for each bus in turn (the first one rotating), a fresh private connection (its Hello
 * not timed), then one Increment or Decrement timed from send to reply, as `snapsizectl inc` waits for
 * it. Prints each server's p50 and p90, and for every server after the first the median of the
 * per-round ratios to the first (a pair of calls made a moment apart shares the machine's moment, so
 * this ratio scatters less than one of two medians) and the ratio of the p50s.
 *
 * Usage: snapsize-first-call ROUNDS ADDRESS...   (GAP_US: microseconds of sleep between calls, default 0)
 */
#include <dbus/dbus.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int ascending(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A fresh connection's first call to `address`, in microseconds; negative when it failed. */
static double first_call(const char *address, int round) {
    DBusError error;
    dbus_error_init(&error);
    DBusConnection *connection = dbus_connection_open_private(address, &error);
    if (!connection || !dbus_bus_register(connection, &error)) {
        fprintf(stderr, "cannot connect to %s: %s\n", address, error.message);
        return -1;
    }
    DBusMessage *call = dbus_message_new_method_call(
        "org.snapsize.SizeSelector1", "/org/snapsize/SizeSelector1", "org.snapsize.SizeSelector1",
        round % 2 ? "Decrement" : "Increment");
    double start = now_us();
    DBusMessage *reply = dbus_connection_send_with_reply_and_block(connection, call, 5000, &error);
    double elapsed = now_us() - start;
    dbus_message_unref(call);
    if (reply) dbus_message_unref(reply);
    dbus_connection_close(connection);
    dbus_connection_unref(connection);
    if (!reply) {
        fprintf(stderr, "call to %s failed: %s\n", address, error.message);
        return -1;
    }
    return elapsed;
}

int main(int argc, char **argv) {
    if (argc < 3 || atoi(argv[1]) < 1) {
        fprintf(stderr, "usage: snapsize-first-call ROUNDS ADDRESS...\n");
        return 64;
    }
    int rounds = atoi(argv[1]), servers = argc - 2;
    const char *gap_text = getenv("GAP_US");
    long gap_us = gap_text ? atol(gap_text) : 0;
    if (gap_us < 0) gap_us = 0;
    struct timespec gap = {gap_us / 1000000, gap_us % 1000000 * 1000L};
    double *times = calloc((size_t)rounds * servers, sizeof *times);
    double *sorted = calloc((size_t)rounds, sizeof *sorted);
    if (!times || !sorted) return 1;
    for (int round = 0; round < rounds; round++) {
        for (int turn = 0; turn < servers; turn++) {
            int server = (turn + round) % servers;
            double elapsed = first_call(argv[2 + server], round);
            if (elapsed < 0) return 1;
            times[server * rounds + round] = elapsed;
            if (gap_us > 0) nanosleep(&gap, NULL);
        }
    }
    double first_p50 = 0;
    for (int server = 0; server < servers; server++) {
        double *own = times + server * rounds;
        for (int round = 0; round < rounds; round++) sorted[round] = own[round];
        qsort(sorted, rounds, sizeof *sorted, ascending);
        double p50 = sorted[rounds / 2], p90 = sorted[rounds * 9 / 10];
        if (server == 0) first_p50 = p50;
        printf("%d: first call p50 %.1f us, p90 %.1f us", server, p50, p90);
        if (server > 0) {
            for (int round = 0; round < rounds; round++) sorted[round] = own[round] / times[round];
            qsort(sorted, rounds, sizeof *sorted, ascending);
            printf("; to 0: median of pairs %.3fx, p50s %.3fx", sorted[rounds / 2], p50 / first_p50);
        }
        printf("\n");
    }
    free(times);
    free(sorted);
    return 0;
}
