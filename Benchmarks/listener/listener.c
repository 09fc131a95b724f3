/*
 * The accessibility-side probe for `make bench`: a libatspi client, as a screen reader is, that
 * listens for object:property-change:accessible-value and for what a screen reader speaks while the
 * slider is not focused (object:announcement, and the status bar's notification showing), and
 * writes one line per event, "value <CLOCK_MONOTONIC seconds>.<nanoseconds>\n" or "speech …", to
 * the file descriptor it is given. Registering object:announcement makes snapsized announce, as it
 * does for Orca 45 and later.
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

static void stamp(const char *kind) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    char line[64];
    snprintf(line, sizeof line, "%s %lld.%09ld\n", kind, (long long)now.tv_sec, now.tv_nsec);
    write_line(line);
}

static void on_event(const AtspiEvent *event) {
    if (strcmp(event->type, "object:property-change:accessible-value") == 0) {
        stamp("value");
    } else if (strcmp(event->type, "object:announcement") == 0
               || (strncmp(event->type, "object:state-changed:showing", 28) == 0 && event->detail1 == 1)) {
        stamp("speech");
    }
}

static int listen_for(AtspiEventListener *listener, const char *type) {
    GError *error = NULL;
    if (atspi_event_listener_register(listener, type, &error)) return 1;
    fprintf(stderr, "snapsize-a11y-listener: %s: %s\n", type, error ? error->message : "cannot register");
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: snapsize-a11y-listener FD\n"); return 64; }
    out_fd = atoi(argv[1]);
    if (atspi_init() < 0) { fprintf(stderr, "snapsize-a11y-listener: atspi_init failed\n"); return 69; }
    AtspiEventListener *listener = atspi_event_listener_new_simple(on_event, NULL);
    if (!listen_for(listener, "object:property-change:accessible-value") || !listen_for(listener, "object:announcement")
        || !listen_for(listener, "object:state-changed:showing")) {
        return 69;
    }
    write_line("ready\n");
    atspi_event_main();
    return 0;
}
