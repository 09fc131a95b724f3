// SPDX-License-Identifier: Apache-2.0
#ifndef GTKSHIM_H
#define GTKSHIM_H

#include <gtk/gtk.h>
#include "AnswerWait.h"

/*
 * What Swift cannot write itself: g_signal_connect (a macro), GObject's checked casts (macros),
 * variadic constructors and GVariant builders. Each signal has a typed callback, so Swift checks the
 * signature of every handler instead of a cast to GCallback.
 */

typedef void (*ShimVoidFn)(gpointer instance, gpointer data);
typedef gboolean (*ShimBoolFn)(gpointer instance, gpointer data);
typedef void (*ShimPointFn)(gpointer instance, double x, double y, gpointer data);
typedef void (*ShimCancelFn)(gpointer gesture, gpointer sequence, gpointer data);
typedef gboolean (*ShimKeyFn)(gpointer controller, guint keyval, guint keycode, GdkModifierType state, gpointer data);
typedef void (*ShimNotifyFn)(gpointer instance, gpointer pspec, gpointer data);
/* A screen reader wrote the track's value (AT-SPI Value.CurrentValue): TRUE if it was taken. */
typedef gboolean (*ShimSetValueFn)(gpointer track, double value, gpointer data);

/* A signal without arguments: "clicked", "unmap", "hide", "leave", "enter". */
void shim_on_void(gpointer instance, const char *signal, ShimVoidFn fn, gpointer data);
/* A signal that returns a boolean: "close-request". */
void shim_on_bool(gpointer instance, const char *signal, ShimBoolFn fn, gpointer data);
/* GtkGestureDrag's "drag-begin", "drag-update", "drag-end" (x, y or the offset). */
void shim_on_point(gpointer instance, const char *signal, ShimPointFn fn, gpointer data);
/* GtkGesture's "cancel". */
void shim_on_cancel(gpointer gesture, ShimCancelFn fn, gpointer data);
/* GtkEventControllerKey's "key-pressed". */
void shim_on_key(gpointer controller, ShimKeyFn fn, gpointer data);
/* "notify::<property>". */
void shim_on_notify(gpointer instance, const char *property, ShimNotifyFn fn, gpointer data);

static inline GtkWidget *shim_widget(gpointer p) { return GTK_WIDGET(p); }
static inline GtkWindow *shim_window(gpointer p) { return GTK_WINDOW(p); }
static inline GtkBox *shim_box(gpointer p) { return GTK_BOX(p); }
static inline GtkLabel *shim_label(gpointer p) { return GTK_LABEL(p); }
static inline GtkButton *shim_button(gpointer p) { return GTK_BUTTON(p); }
static inline GtkDrawingArea *shim_drawing_area(gpointer p) { return GTK_DRAWING_AREA(p); }
static inline GtkAccessible *shim_accessible(gpointer p) { return GTK_ACCESSIBLE(p); }
static inline GtkEventController *shim_controller(gpointer p) { return GTK_EVENT_CONTROLLER(p); }
static inline GtkGesture *shim_gesture(gpointer p) { return GTK_GESTURE(p); }
static inline GtkGestureSingle *shim_gesture_single(gpointer p) { return GTK_GESTURE_SINGLE(p); }
static inline GtkNative *shim_native(gpointer p) { return GTK_NATIVE(p); }

/* A drawing area with an accessible role (construct-only, hence g_object_new). */
GtkWidget *shim_drawing_area_new(GtkAccessibleRole role);

/* The track: a drawing area with the slider role that, on GTK 4.10 and later (found at run time), is a
   GtkAccessibleRange, so AT-SPI gets a Value for it (min, max, current, text). */
GtkWidget *shim_track_new(void);
/* Whether tracks are GtkAccessibleRanges here (the running GTK has the interface). */
gboolean shim_track_has_value(void);
/* Who takes a screen reader's write of the track's value. */
void shim_track_on_set_value(GtkWidget *track, ShimSetValueFn fn, gpointer data);
/* The range's minimum, maximum, current value and its text, in one update (one value event). */
void shim_a11y_range(GtkWidget *widget, double minimum, double maximum, double now, const char *text);

/* The accessible label and description (gtk_accessible_update_property is variadic). */
void shim_a11y_label(GtkWidget *widget, const char *label);
void shim_a11y_description(GtkWidget *widget, const char *description);

/* Tuples for method calls: (d), (u), (s), (ss). */
GVariant *shim_tuple_d(double value);
GVariant *shim_tuple_u(guint32 value);
GVariant *shim_tuple_s(const char *value);
GVariant *shim_tuple_ss(const char *first, const char *second);

/* stdout line-buffered (its trace lines are read by tests as they come); `stdout` is a C global that
   Swift 6 calls not concurrency-safe. */
void shim_line_buffered_stdout(void);

#endif /* GTKSHIM_H */
