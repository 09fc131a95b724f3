// SPDX-License-Identifier: Apache-2.0
#include "GtkShim.h"
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
