// SPDX-License-Identifier: Apache-2.0
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "GtkShim.h"
#include <dlfcn.h>
#include <stdio.h>

void shim_on_void(gpointer instance, const char *signal, ShimVoidFn fn, gpointer data) {
    g_signal_connect(instance, signal, G_CALLBACK(fn), data);
}

void shim_on_bool(gpointer instance, const char *signal, ShimBoolFn fn, gpointer data) {
    g_signal_connect(instance, signal, G_CALLBACK(fn), data);
}

void shim_on_point(gpointer instance, const char *signal, ShimPointFn fn, gpointer data) {
    g_signal_connect(instance, signal, G_CALLBACK(fn), data);
}

void shim_on_cancel(gpointer gesture, ShimCancelFn fn, gpointer data) {
    g_signal_connect(gesture, "cancel", G_CALLBACK(fn), data);
}

void shim_on_key(gpointer controller, ShimKeyFn fn, gpointer data) {
    g_signal_connect(controller, "key-pressed", G_CALLBACK(fn), data);
}

void shim_on_notify(gpointer instance, const char *property, ShimNotifyFn fn, gpointer data) {
    char *signal = g_strconcat("notify::", property, NULL);
    g_signal_connect(instance, signal, G_CALLBACK(fn), data);
    g_free(signal);
}

GtkWidget *shim_drawing_area_new(GtkAccessibleRole role) {
    return GTK_WIDGET(g_object_new(GTK_TYPE_DRAWING_AREA, "accessible-role", role, NULL));
}

/* GtkAccessibleRangeInterface as GTK 4.10 and later declare it (gtkaccessiblerange.h); GTK 4.8, which the
   panel is built against, has no such type. */
typedef struct {
    GTypeInterface g_iface;
    gboolean (*set_current_value)(GtkAccessible *self, double value);
} ShimRangeInterface;

typedef struct {
    ShimSetValueFn fn;
    gpointer data;
} ShimSetValue;

static const char *const set_value_key = "snapsize-set-value";
static gboolean track_has_value = FALSE;

static gboolean track_set_current_value(GtkAccessible *self, double value) {
    ShimSetValue *handler = g_object_get_data(G_OBJECT(self), set_value_key);
    return handler ? handler->fn(self, value, handler->data) : FALSE;
}

static void track_range_init(gpointer iface, gpointer data) {
    (void)data;
    ((ShimRangeInterface *)iface)->set_current_value = track_set_current_value;
}

/* A GtkDrawingArea subclass (same class and instance layout) that is a GtkAccessibleRange when the GTK
   it runs on has that interface: looked up at run time, so one binary serves GTK 4.8 and 4.10+. */
static GType shim_track_get_type(void) {
    static gsize type = 0;
    if (g_once_init_enter(&type)) {
        GTypeQuery query;
        g_type_query(GTK_TYPE_DRAWING_AREA, &query);
        GType track = g_type_register_static_simple(
            GTK_TYPE_DRAWING_AREA, g_intern_static_string("SnapsizeTrack"), query.class_size, NULL,
            query.instance_size, NULL, 0);
        GType (*range_type)(void) = (GType(*)(void))dlsym(RTLD_DEFAULT, "gtk_accessible_range_get_type");
        if (range_type != NULL) {
            const GInterfaceInfo info = {track_range_init, NULL, NULL};
            g_type_add_interface_static(track, range_type(), &info);
            track_has_value = TRUE;
        }
        g_once_init_leave(&type, track);
    }
    return type;
}

GtkWidget *shim_track_new(void) {
    return GTK_WIDGET(g_object_new(shim_track_get_type(), "accessible-role", GTK_ACCESSIBLE_ROLE_SLIDER, NULL));
}

gboolean shim_track_has_value(void) {
    (void)shim_track_get_type();
    return track_has_value;
}

void shim_track_on_set_value(GtkWidget *track, ShimSetValueFn fn, gpointer data) {
    ShimSetValue *handler = g_new(ShimSetValue, 1);
    handler->fn = fn;
    handler->data = data;
    g_object_set_data_full(G_OBJECT(track), set_value_key, handler, g_free);
}

void shim_a11y_range(GtkWidget *widget, double minimum, double maximum, double now, const char *text) {
    gtk_accessible_update_property(
        GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_VALUE_MIN, minimum, GTK_ACCESSIBLE_PROPERTY_VALUE_MAX,
        maximum, GTK_ACCESSIBLE_PROPERTY_VALUE_TEXT, text, GTK_ACCESSIBLE_PROPERTY_VALUE_NOW, now, -1);
}

void shim_a11y_label(GtkWidget *widget, const char *label) {
    gtk_accessible_update_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
}

void shim_a11y_description(GtkWidget *widget, const char *description) {
    gtk_accessible_update_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description, -1);
}

GVariant *shim_tuple_d(double value) { return g_variant_new("(d)", value); }
GVariant *shim_tuple_u(guint32 value) { return g_variant_new("(u)", value); }
GVariant *shim_tuple_s(const char *value) { return g_variant_new("(s)", value); }
GVariant *shim_tuple_ss(const char *first, const char *second) { return g_variant_new("(ss)", first, second); }

void shim_line_buffered_stdout(void) { setvbuf(stdout, NULL, _IOLBF, 0); }
