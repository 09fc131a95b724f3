/*
 * The accessibility-side probe for `make bench`: a libatspi client, as a screen reader is, that
 * listens for object:property-change:accessible-value and writes one line per event,
 * "<CLOCK_MONOTONIC seconds>.<nanoseconds>\n", to the file descriptor it is given.
 *
 * The timestamp is taken inside the callback, so the time the benchmark needs to read the pipe
 * is not part of the figure. It prints "ready" once the listener is registered with the registry.
 *
 * Usage: snapsize-a11y-listener FD   (AT_SPI_BUS_ADDRESS or the session bus tell libatspi where to go)
 */
#include <atspi/atspi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int out_fd = 1;

static void write_line(const char *text) {
    size_t length = strlen(text);
    while (length > 0) {
        ssize_t n = write(out_fd, text, length);
        if (n <= 0) exit(0);  /* the benchmark went away */
        text += n;
        length -= (size_t)n;
    }
}

static void on_value_changed(const AtspiEvent *event) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    (void)event;
    char line[64];
    snprintf(line, sizeof line, "%lld.%09ld\n", (long long)now.tv_sec, now.tv_nsec);
    write_line(line);
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: snapsize-a11y-listener FD\n"); return 64; }
    out_fd = atoi(argv[1]);
    if (atspi_init() < 0) { fprintf(stderr, "snapsize-a11y-listener: atspi_init failed\n"); return 69; }
    AtspiEventListener *listener = atspi_event_listener_new_simple(on_value_changed, NULL);
    GError *error = NULL;
    if (!atspi_event_listener_register(listener, "object:property-change:accessible-value", &error)) {
        fprintf(stderr, "snapsize-a11y-listener: %s\n", error ? error->message : "cannot register");
        return 69;
    }
    write_line("ready\n");
    atspi_event_main();
    return 0;
}
