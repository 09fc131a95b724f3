/*
 * A peer for `make bench`: the org.snapsize.SizeSelector1 contract's Increment/Decrement written in C
 * on sd-bus, the way systemd writes its small bus daemons (timedated, hostnamed, localed): an
 * sd_bus_vtable with the methods, the properties (flagged EMITS_CHANGE or CONST as in
 * dbus/org.snapsize.SizeSelector1.xml) and the signal; sd_bus_emit_properties_changed and
 * sd_bus_emit_signal after a change; an sd_event loop. Nothing is cached or pre-built beyond what
 * sd-bus itself does: this is what a person would write, neither slowed down nor tuned.
 *
 * It restores the saved size at start and persists the new size durably BEFORE replying, the way
 * systemd does it (write_string_file_atomic with WRITE_STRING_FILE_SYNC, which libsystemd does not
 * export, so its steps are written out here): a temporary file ".#state<random>" in the same folder,
 * fputs, fflush, fsync of the file and of its folder, fchmod 0600, rename over the old file, fsync of
 * the folder again.
 *
 * Usage: snapsize-sdbus-peer --name BUS.NAME --state PATH
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#define PATH "/org/snapsize/SizeSelector1"
#define INTERFACE "org.snapsize.SizeSelector1"

static const int32_t sizes[] = {20, 40, 60, 80, 100};
static const unsigned count = 5;
static unsigned committed = 2;
static const char *state_path;

/* systemd's fsync_directory_of_file(): open the folder, fsync it. */
static int fsync_folder(const char *path) {
    char folder[4096];
    snprintf(folder, sizeof folder, "%s", path);
    char *slash = strrchr(folder, '/');
    if (slash) *slash = 0; else strcpy(folder, ".");
    int fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -errno;
    int r = fsync(fd) < 0 ? -errno : 0;
    close(fd);
    return r;
}

/* write_string_file_atomic(path, line, WRITE_STRING_FILE_SYNC), step by step (systemd's fileio.c). */
static int write_string_file_atomic(const char *path, const char *line) {
    char temporary[4096];
    const char *slash = strrchr(path, '/');
    int prefix = slash ? (int)(slash - path + 1) : 0;
    snprintf(temporary, sizeof temporary, "%.*s.#%s%08lx%08lx", prefix, path, path + prefix,
             (unsigned long)random(), (unsigned long)random());
    int fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return -errno;
    FILE *f = fdopen(fd, "w");
    if (!f) { int r = -errno; close(fd); unlink(temporary); return r; }
    int r = 0;
    if (fputs(line, f) == EOF || fflush(f) != 0 || fsync(fileno(f)) < 0) r = -errno;
    if (r == 0) r = fsync_folder(temporary);
    if (r == 0 && fchmod(fileno(f), 0600) < 0) r = -errno;
    if (r == 0 && rename(temporary, path) < 0) r = -errno;
    if (r == 0) r = fsync_folder(path);
    fclose(f);
    if (r < 0) unlink(temporary);
    return r;
}

/* The saved size, snapped to the nearest allowed one (ties to the larger); no file keeps the initial index. */
static void load(void) {
    FILE *f = fopen(state_path, "re");
    if (!f) return;
    int size;
    int parsed = fscanf(f, "size=%d", &size);
    fclose(f);
    if (parsed != 1) return;
    unsigned best = 0;
    for (unsigned i = 1; i < count; i++)
        if (abs(sizes[i] - size) <= abs(sizes[best] - size)) best = i;
    committed = best;
}

static int step(sd_bus_message *m, int direction, sd_bus_error *error) {
    int target = (int)committed + direction;
    int at_limit = target < 0 || target >= (int)count;
    if (!at_limit) {
        char line[32];
        snprintf(line, sizeof line, "size=%d\n", sizes[target]);
        int r = write_string_file_atomic(state_path, line);
        if (r < 0) return sd_bus_error_set_errnof(error, r, "Cannot save the state: %m");
        committed = (unsigned)target;
        sd_bus *bus = sd_bus_message_get_bus(m);
        sd_bus_emit_properties_changed(bus, PATH, INTERFACE, "SelectedIndex", "SelectedSize", "ShownIndex",
                                       "ShownSize", "ValueText", NULL);
        sd_bus_emit_signal(bus, PATH, INTERFACE, "Committed", "ui", (uint32_t)committed, sizes[committed]);
    }
    return sd_bus_reply_method_return(m, "uib", (uint32_t)committed, sizes[committed], at_limit);
}

static int method_increment(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)userdata;
    return step(m, 1, error);
}

static int method_decrement(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)userdata;
    return step(m, -1, error);
}

static int property_sizes(sd_bus *bus, const char *path, const char *interface, const char *property,
                          sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    (void)bus; (void)path; (void)interface; (void)property; (void)userdata; (void)error;
    return sd_bus_message_append_array(reply, 'i', sizes, sizeof sizes);
}

static int property_index(sd_bus *bus, const char *path, const char *interface, const char *property,
                          sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    (void)bus; (void)path; (void)interface; (void)property; (void)userdata; (void)error;
    return sd_bus_message_append(reply, "u", (uint32_t)committed);
}

static int property_size(sd_bus *bus, const char *path, const char *interface, const char *property,
                         sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    (void)bus; (void)path; (void)interface; (void)property; (void)userdata; (void)error;
    return sd_bus_message_append(reply, "i", sizes[committed]);
}

static int property_value_text(sd_bus *bus, const char *path, const char *interface, const char *property,
                               sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    (void)bus; (void)path; (void)interface; (void)property; (void)userdata; (void)error;
    char text[32];
    snprintf(text, sizeof text, "%d points", sizes[committed]);
    return sd_bus_message_append(reply, "s", text);
}

static int property_constant(sd_bus *bus, const char *path, const char *interface, const char *property,
                             sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    (void)bus; (void)path; (void)interface; (void)userdata; (void)error;
    if (!strcmp(property, "Previewing")) return sd_bus_message_append(reply, "b", 0);
    if (!strcmp(property, "Label")) return sd_bus_message_append(reply, "s", "Circle size");
    if (!strcmp(property, "TrackWidth")) return sd_bus_message_append(reply, "d", 336.0);
    if (!strcmp(property, "TrackInset")) return sd_bus_message_append(reply, "d", 12.0);
    return sd_bus_message_append(reply, "s", "ordinal");
}

static const sd_bus_vtable selector_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD_WITH_NAMES("Increment", "", , "uib", SD_BUS_PARAM(index) SD_BUS_PARAM(size) SD_BUS_PARAM(atLimit),
                             method_increment, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("Decrement", "", , "uib", SD_BUS_PARAM(index) SD_BUS_PARAM(size) SD_BUS_PARAM(atLimit),
                             method_decrement, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_SIGNAL_WITH_NAMES("Committed", "ui", SD_BUS_PARAM(index) SD_BUS_PARAM(size), 0),
    SD_BUS_PROPERTY("Sizes", "ai", property_sizes, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("SelectedIndex", "u", property_index, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("SelectedSize", "i", property_size, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("ShownIndex", "u", property_index, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("ShownSize", "i", property_size, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("Previewing", "b", property_constant, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("ValueText", "s", property_value_text, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("Label", "s", property_constant, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("TrackWidth", "d", property_constant, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("TrackInset", "d", property_constant, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Layout", "s", property_constant, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_VTABLE_END
};

static int usage(void) {
    fprintf(stderr, "usage: snapsize-sdbus-peer --name NAME --state PATH\n");
    return 64;
}

int main(int argc, char **argv) {
    const char *name = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--name") && i + 1 < argc) name = argv[++i];
        else if (!strcmp(argv[i], "--state") && i + 1 < argc) state_path = argv[++i];
        else return usage();
    }
    if (!name || !state_path) return usage();
    srandom((unsigned)getpid());
    load();

    sd_event *event = NULL;
    sd_bus *bus = NULL;
    int r = sd_event_default(&event);
    if (r >= 0) r = sd_bus_default_user(&bus);
    if (r >= 0) r = sd_bus_add_object_vtable(bus, NULL, PATH, INTERFACE, selector_vtable, NULL);
    if (r >= 0) r = sd_bus_request_name(bus, name, 0);
    if (r >= 0) r = sd_bus_attach_event(bus, event, SD_EVENT_PRIORITY_NORMAL);
    if (r < 0) {
        fprintf(stderr, "snapsize-sdbus-peer: %s\n", strerror(-r));
        return 69;
    }
    r = sd_event_loop(event);
    sd_bus_flush_close_unref(bus);
    sd_event_unref(event);
    return r < 0 ? 1 : 0;
}
