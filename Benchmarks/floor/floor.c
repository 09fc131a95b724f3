/*
 * The floor for `make bench`: the least work the org.snapsize.SizeSelector1 contract requires of an
 * Increment/Decrement, written directly against libdbus with a blocking dispatch loop.
 *
 * It owns a bus name, serves /org/snapsize/SizeSelector1, persists the committed size durably
 * (temporary file, fsync, rename, fsync of the folder) BEFORE replying, emits the same
 * PropertiesChanged (SelectedIndex, SelectedSize, ShownIndex, ShownSize, ValueText) and Committed
 * signals as snapsized, and replies (u index, i size, b atLimit). `--bare` skips persistence and
 * emits only Committed, to show what durability and the property signal cost.
 *
 * Every distinct message is built once and copied for each send, as snapsized does (DBusKit's
 * MessageTemplates): with libdbus, appending each argument rewrites the header's signature field,
 * so building an AT-SPI event of five arguments took 7.8 us here and dbus_message_copy of a built
 * one 0.08 us. A floor that rebuilt every message would not be the least work; this one is.
 *
 * Like snapsized it restores the saved size at start-up (reading the state file is part of the
 * contract: an acknowledged change survives a restart), so "exec -> name owned" compares like with like.
 *
 * Usage: snapsize-floor --name BUS.NAME --state PATH [--bare]
 */
#include <dbus/dbus.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const int sizes[] = {20, 40, 60, 80, 100};
static const int count = 5;
static int committed = 2;
static int bare = 0;
static const char *state_path = NULL;
static char temp_path[4096];
static char folder_path[4096];

static const char *path = "/org/snapsize/SizeSelector1";
static const char *interface = "org.snapsize.SizeSelector1";

/* Built on first use, then copied: the signals per committed index, the replies per (index, at limit). */
static DBusMessage *changed_templates[5], *committed_templates[5], *reply_templates[5][2];

static int save(int size) {
    char text[32];
    int length = snprintf(text, sizeof text, "size=%d\n", size);
    int fd = open(temp_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return -1;
    if (write(fd, text, (size_t)length) != length || fsync(fd) != 0) { close(fd); return -1; }
    close(fd);
    if (rename(temp_path, state_path) != 0) return -1;
    int dir = open(folder_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) { fsync(dir); close(dir); }
    return 0;
}

/* The saved size, snapped to the nearest allowed one (ties to the larger); no file keeps the initial index. */
static void load(void) {
    char text[64] = {0};
    int fd = open(state_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return;
    ssize_t length = read(fd, text, sizeof text - 1);
    close(fd);
    int size;
    if (length <= 0 || sscanf(text, "size=%d", &size) != 1) return;
    int best = 0;
    for (int i = 1; i < count; i++)
        if (abs(sizes[i] - size) <= abs(sizes[best] - size)) best = i;
    committed = best;
}

static void append_entry(DBusMessageIter *dict, const char *key, int type, const void *value) {
    DBusMessageIter entry, variant;
    char signature[2] = {(char)type, 0};
    dbus_message_iter_open_container(dict, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
    dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &key);
    dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, signature, &variant);
    dbus_message_iter_append_basic(&variant, type, value);
    dbus_message_iter_close_container(&entry, &variant);
    dbus_message_iter_close_container(dict, &entry);
}

static DBusMessage *build_properties_changed(void) {
    dbus_uint32_t index = (dbus_uint32_t)committed;
    dbus_int32_t size = sizes[committed];
    DBusMessage *signal = dbus_message_new_signal(path, "org.freedesktop.DBus.Properties", "PropertiesChanged");
    DBusMessageIter args, dict, invalidated;
    char text[32];
    snprintf(text, sizeof text, "%d points", size);
    const char *value_text = text;
    dbus_message_iter_init_append(signal, &args);
    dbus_message_iter_append_basic(&args, DBUS_TYPE_STRING, &interface);
    dbus_message_iter_open_container(&args, DBUS_TYPE_ARRAY, "{sv}", &dict);
    append_entry(&dict, "SelectedIndex", DBUS_TYPE_UINT32, &index);
    append_entry(&dict, "SelectedSize", DBUS_TYPE_INT32, &size);
    append_entry(&dict, "ShownIndex", DBUS_TYPE_UINT32, &index);
    append_entry(&dict, "ShownSize", DBUS_TYPE_INT32, &size);
    append_entry(&dict, "ValueText", DBUS_TYPE_STRING, &value_text);
    dbus_message_iter_close_container(&args, &dict);
    dbus_message_iter_open_container(&args, DBUS_TYPE_ARRAY, "s", &invalidated);
    dbus_message_iter_close_container(&args, &invalidated);
    return signal;
}

static DBusMessage *build_committed(void) {
    dbus_uint32_t index = (dbus_uint32_t)committed;
    dbus_int32_t size = sizes[committed];
    DBusMessage *signal = dbus_message_new_signal(path, interface, "Committed");
    dbus_message_append_args(signal, DBUS_TYPE_UINT32, &index, DBUS_TYPE_INT32, &size, DBUS_TYPE_INVALID);
    return signal;
}

/* Sends a copy of the template (a fresh message: libdbus gives it its own serial). */
static void send_copy(DBusConnection *connection, DBusMessage *template) {
    DBusMessage *message = dbus_message_copy(template);
    dbus_connection_send(connection, message, NULL);
    dbus_message_unref(message);
}

static void emit_changes(DBusConnection *connection) {
    if (!bare) {
        if (!changed_templates[committed]) changed_templates[committed] = build_properties_changed();
        send_copy(connection, changed_templates[committed]);
    }
    if (!committed_templates[committed]) committed_templates[committed] = build_committed();
    send_copy(connection, committed_templates[committed]);
}

/* A copy of the (index, at limit) reply, addressed as dbus_message_new_method_return would. */
static DBusMessage *reply_for(DBusMessage *call, dbus_bool_t at_limit) {
    DBusMessage **template = &reply_templates[committed][at_limit ? 1 : 0];
    if (!*template) {
        dbus_uint32_t index = (dbus_uint32_t)committed;
        dbus_int32_t size = sizes[committed];
        *template = dbus_message_new(DBUS_MESSAGE_TYPE_METHOD_RETURN);
        dbus_message_set_no_reply(*template, TRUE);
        dbus_message_append_args(*template, DBUS_TYPE_UINT32, &index, DBUS_TYPE_INT32, &size,
                                 DBUS_TYPE_BOOLEAN, &at_limit, DBUS_TYPE_INVALID);
    }
    DBusMessage *reply = dbus_message_copy(*template);
    dbus_message_set_reply_serial(reply, dbus_message_get_serial(call));
    if (dbus_message_get_sender(call)) dbus_message_set_destination(reply, dbus_message_get_sender(call));
    return reply;
}

static DBusHandlerResult handle(DBusConnection *connection, DBusMessage *message, void *data) {
    (void)data;
    int step;
    if (dbus_message_is_method_call(message, interface, "Increment")) step = 1;
    else if (dbus_message_is_method_call(message, interface, "Decrement")) step = -1;
    else return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
    if (strcmp(dbus_message_get_signature(message), "") != 0) {
        DBusMessage *error = dbus_message_new_error(message, DBUS_ERROR_INVALID_ARGS, "expected no arguments");
        dbus_connection_send(connection, error, NULL);
        dbus_message_unref(error);
        return DBUS_HANDLER_RESULT_HANDLED;
    }
    int target = committed + step;
    dbus_bool_t at_limit = target < 0 || target >= count;
    if (!at_limit) {
        if (!bare && save(sizes[target]) != 0) {
            DBusMessage *error = dbus_message_new_error(message, DBUS_ERROR_FAILED, "cannot save");
            dbus_connection_send(connection, error, NULL);
            dbus_message_unref(error);
            return DBUS_HANDLER_RESULT_HANDLED;
        }
        committed = target;
        emit_changes(connection);
    }
    DBusMessage *reply = reply_for(message, at_limit);
    dbus_connection_send(connection, reply, NULL);
    dbus_message_unref(reply);
    return DBUS_HANDLER_RESULT_HANDLED;
}

int main(int argc, char **argv) {
    const char *name = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--name") && i + 1 < argc) name = argv[++i];
        else if (!strcmp(argv[i], "--state") && i + 1 < argc) state_path = argv[++i];
        else if (!strcmp(argv[i], "--bare")) bare = 1;
        else { fprintf(stderr, "usage: snapsize-floor --name NAME --state PATH [--bare]\n"); return 64; }
    }
    if (!name || !state_path) { fprintf(stderr, "usage: snapsize-floor --name NAME --state PATH [--bare]\n"); return 64; }
    snprintf(temp_path, sizeof temp_path, "%s.tmp-%d", state_path, (int)getpid());
    snprintf(folder_path, sizeof folder_path, "%s", state_path);
    char *slash = strrchr(folder_path, '/');
    if (slash) *slash = 0; else strcpy(folder_path, ".");

    if (!bare) load();

    DBusError error;
    dbus_error_init(&error);
    DBusConnection *connection = dbus_bus_get_private(DBUS_BUS_SESSION, &error);
    if (!connection) { fprintf(stderr, "snapsize-floor: %s\n", error.message); return 69; }
    dbus_connection_set_exit_on_disconnect(connection, 0);
    DBusObjectPathVTable table = {.message_function = handle};
    dbus_connection_register_object_path(connection, path, &table, NULL);
    if (dbus_bus_request_name(connection, name, DBUS_NAME_FLAG_DO_NOT_QUEUE, &error) !=
        DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER) {
        fprintf(stderr, "snapsize-floor: cannot own %s\n", name);
        return 69;
    }
    while (dbus_connection_read_write_dispatch(connection, -1)) {}
    return 0;
}
