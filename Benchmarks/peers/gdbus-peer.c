/*
 * A peer for `make bench`: the org.snapsize.SizeSelector1 contract's Increment/Decrement written in C
 * on GDBus, the way GNOME writes its daemons (gnome-settings-daemon's plugins): g_bus_own_name, the
 * interface parsed from introspection XML and registered with g_dbus_connection_register_object, a
 * method-call and a get-property handler, g_dbus_connection_emit_signal for PropertiesChanged and
 * Committed, a GMainLoop. Nothing is cached or pre-built: this is what a person would write, neither
 * slowed down nor tuned.
 *
 * It restores the saved size at start (g_file_get_contents) and persists the new size durably BEFORE
 * replying with GLib's own call, g_file_set_contents_full(CONSISTENT | DURABLE, 0600): a temporary
 * file in the same folder, written, fsynced and renamed over the old one.
 *
 * Usage: snapsize-gdbus-peer --name BUS.NAME --state PATH
 */
#include <gio/gio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PATH "/org/snapsize/SizeSelector1"
#define INTERFACE "org.snapsize.SizeSelector1"

static const char introspection_xml[] =
    "<node>"
    "  <interface name='org.snapsize.SizeSelector1'>"
    "    <method name='Increment'>"
    "      <arg name='index' type='u' direction='out'/>"
    "      <arg name='size' type='i' direction='out'/>"
    "      <arg name='atLimit' type='b' direction='out'/>"
    "    </method>"
    "    <method name='Decrement'>"
    "      <arg name='index' type='u' direction='out'/>"
    "      <arg name='size' type='i' direction='out'/>"
    "      <arg name='atLimit' type='b' direction='out'/>"
    "    </method>"
    "    <signal name='Committed'>"
    "      <arg name='index' type='u'/>"
    "      <arg name='size' type='i'/>"
    "    </signal>"
    "    <property name='Sizes' type='ai' access='read'/>"
    "    <property name='SelectedIndex' type='u' access='read'/>"
    "    <property name='SelectedSize' type='i' access='read'/>"
    "    <property name='ShownIndex' type='u' access='read'/>"
    "    <property name='ShownSize' type='i' access='read'/>"
    "    <property name='Previewing' type='b' access='read'/>"
    "    <property name='ValueText' type='s' access='read'/>"
    "    <property name='Label' type='s' access='read'/>"
    "    <property name='TrackWidth' type='d' access='read'/>"
    "    <property name='TrackInset' type='d' access='read'/>"
    "    <property name='Layout' type='s' access='read'/>"
    "  </interface>"
    "</node>";

static const gint32 sizes[] = {20, 40, 60, 80, 100};
static const guint count = 5;
static guint committed = 2;
static const char *state_path;
static GDBusNodeInfo *introspection;
static GMainLoop *loop;

/* The saved size, snapped to the nearest allowed one (ties to the larger); no file keeps the initial index. */
static void load(void) {
    gchar *text = NULL;
    if (!g_file_get_contents(state_path, &text, NULL, NULL)) return;
    int size;
    int parsed = sscanf(text, "size=%d", &size);
    g_free(text);
    if (parsed != 1) return;
    guint best = 0;
    for (guint i = 1; i < count; i++)
        if (abs(sizes[i] - size) <= abs(sizes[best] - size)) best = i;
    committed = best;
}

static GVariant *value_text(void) {
    gchar *text = g_strdup_printf("%d points", sizes[committed]);
    GVariant *value = g_variant_new_take_string(text);
    return value;
}

static void emit_changes(GDBusConnection *connection) {
    GVariantBuilder changed;
    g_variant_builder_init(&changed, G_VARIANT_TYPE("a{sv}"));
    g_variant_builder_add(&changed, "{sv}", "SelectedIndex", g_variant_new_uint32(committed));
    g_variant_builder_add(&changed, "{sv}", "SelectedSize", g_variant_new_int32(sizes[committed]));
    g_variant_builder_add(&changed, "{sv}", "ShownIndex", g_variant_new_uint32(committed));
    g_variant_builder_add(&changed, "{sv}", "ShownSize", g_variant_new_int32(sizes[committed]));
    g_variant_builder_add(&changed, "{sv}", "ValueText", value_text());
    g_dbus_connection_emit_signal(connection, NULL, PATH, "org.freedesktop.DBus.Properties", "PropertiesChanged",
                                  g_variant_new("(sa{sv}as)", INTERFACE, &changed, NULL), NULL);
    g_dbus_connection_emit_signal(connection, NULL, PATH, INTERFACE, "Committed",
                                  g_variant_new("(ui)", committed, sizes[committed]), NULL);
}

static void handle_method_call(GDBusConnection *connection, const gchar *sender, const gchar *object_path,
                               const gchar *interface_name, const gchar *method_name, GVariant *parameters,
                               GDBusMethodInvocation *invocation, gpointer user_data) {
    (void)sender; (void)object_path; (void)interface_name; (void)parameters; (void)user_data;
    int target = (int)committed + (g_strcmp0(method_name, "Increment") == 0 ? 1 : -1);
    gboolean at_limit = target < 0 || target >= (int)count;
    if (!at_limit) {
        GError *error = NULL;
        gchar *line = g_strdup_printf("size=%d\n", sizes[target]);
        gboolean saved = g_file_set_contents_full(state_path, line, -1,
                                                  G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE,
                                                  0600, &error);
        g_free(line);
        if (!saved) {
            g_dbus_method_invocation_return_gerror(invocation, error);
            g_error_free(error);
            return;
        }
        committed = (guint)target;
        emit_changes(connection);
    }
    g_dbus_method_invocation_return_value(invocation,
                                          g_variant_new("(uib)", committed, sizes[committed], at_limit));
}

static GVariant *handle_get_property(GDBusConnection *connection, const gchar *sender, const gchar *object_path,
                                     const gchar *interface_name, const gchar *property_name, GError **error,
                                     gpointer user_data) {
    (void)connection; (void)sender; (void)object_path; (void)interface_name; (void)error; (void)user_data;
    if (!g_strcmp0(property_name, "Sizes"))
        return g_variant_new_fixed_array(G_VARIANT_TYPE_INT32, sizes, count, sizeof sizes[0]);
    if (!g_strcmp0(property_name, "SelectedIndex") || !g_strcmp0(property_name, "ShownIndex"))
        return g_variant_new_uint32(committed);
    if (!g_strcmp0(property_name, "SelectedSize") || !g_strcmp0(property_name, "ShownSize"))
        return g_variant_new_int32(sizes[committed]);
    if (!g_strcmp0(property_name, "Previewing")) return g_variant_new_boolean(FALSE);
    if (!g_strcmp0(property_name, "ValueText")) return value_text();
    if (!g_strcmp0(property_name, "Label")) return g_variant_new_string("Circle size");
    if (!g_strcmp0(property_name, "TrackWidth")) return g_variant_new_double(336.0);
    if (!g_strcmp0(property_name, "TrackInset")) return g_variant_new_double(12.0);
    return g_variant_new_string("ordinal");
}

static const GDBusInterfaceVTable interface_vtable = {handle_method_call, handle_get_property, NULL, {0}};

static void on_bus_acquired(GDBusConnection *connection, const gchar *name, gpointer user_data) {
    (void)name; (void)user_data;
    GError *error = NULL;
    if (!g_dbus_connection_register_object(connection, PATH, introspection->interfaces[0], &interface_vtable,
                                           NULL, NULL, &error)) {
        g_printerr("snapsize-gdbus-peer: %s\n", error->message);
        exit(69);
    }
}

static void on_name_lost(GDBusConnection *connection, const gchar *name, gpointer user_data) {
    (void)connection; (void)user_data;
    g_printerr("snapsize-gdbus-peer: cannot own %s\n", name);
    exit(69);
}

static int usage(void) {
    fprintf(stderr, "usage: snapsize-gdbus-peer --name NAME --state PATH\n");
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
    load();
    introspection = g_dbus_node_info_new_for_xml(introspection_xml, NULL);
    g_bus_own_name(G_BUS_TYPE_SESSION, name, G_BUS_NAME_OWNER_FLAGS_NONE, on_bus_acquired, NULL, on_name_lost,
                   NULL, NULL);
    loop = g_main_loop_new(NULL, FALSE);
    g_main_loop_run(loop);
    return 0;
}
