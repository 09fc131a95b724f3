// SPDX-License-Identifier: Apache-2.0
// The anchor of `make bench`'s panel rows: a plain GTK 4 window (a label, a GtkScale with the panel's
// five sizes and track width, two buttons; no D-Bus), what any GTK 4 application costs, measured beside
// snapsize-panel in the same run. With --trace it prints what snapsize-panel's --trace prints for the
// bench: "track X Y WIDTH HEIGHT" (the scale in the window), "motion EVENT_MS MICROSECONDS" for each
// pointer motion with the button held, and "frame VALUE MICROSECONDS" at the end of each frame that shows a new
// value, so that the bench drives and times the scale as it does the panel's track.
#include <gtk/gtk.h>
#include <stdio.h>
#include <string.h>

static GtkWidget *window, *scale;
static gboolean tracing;
static int shownValue = -1;
static char reportedTrack[64];

static gboolean quit(GtkWindow *w, gpointer loop) {
    (void)w;
    g_main_loop_quit(loop);
    return FALSE;
}

static void frameEnded(GdkFrameClock *clock, gpointer data) {
    (void)clock, (void)data;
    double x = 0, y = 0, surfaceX = 0, surfaceY = 0;
    gtk_widget_translate_coordinates(scale, window, 0, 0, &x, &y);
    gtk_native_get_surface_transform(GTK_NATIVE(window), &surfaceX, &surfaceY);
    char track[64];
    snprintf(track, sizeof track, "track %d %d %d %d", (int)(x + surfaceX), (int)(y + surfaceY),
             gtk_widget_get_width(scale), gtk_widget_get_height(scale));
    if (strcmp(track, reportedTrack) != 0) {
        printf("%s\n", track);
        strcpy(reportedTrack, track);
    }
    int value = (int)gtk_range_get_value(GTK_RANGE(scale));
    if (value != shownValue) printf("frame %d %" G_GINT64_FORMAT "\n", value, g_get_monotonic_time());
    shownValue = value;
}

static void realized(GtkWidget *widget, gpointer data) {
    (void)data;
    g_signal_connect(gtk_widget_get_frame_clock(widget), "after-paint", G_CALLBACK(frameEnded), NULL);
}

static void moved(GtkEventControllerMotion *motion, double x, double y, gpointer data) {
    (void)x, (void)y, (void)data;
    GtkEventController *controller = GTK_EVENT_CONTROLLER(motion);
    if (gtk_event_controller_get_current_event_state(controller) & GDK_BUTTON1_MASK)
        printf("motion %u %" G_GINT64_FORMAT "\n", gtk_event_controller_get_current_event_time(controller),
               g_get_monotonic_time());
}

int main(int argc, char **argv) {
    tracing = argc > 1 && strcmp(argv[1], "--trace") == 0;
    if (tracing) setvbuf(stdout, NULL, _IOLBF, 0);
    g_set_prgname("snapsize-plain-gtk4");
    gtk_init();
    GMainLoop *loop = g_main_loop_new(NULL, FALSE);
    window = gtk_window_new();
    gtk_window_set_title(GTK_WINDOW(window), "plain GTK 4 window");
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 10);
    gtk_box_append(GTK_BOX(box), gtk_label_new("Circle size"));
    scale = gtk_scale_new_with_range(GTK_ORIENTATION_HORIZONTAL, 0, 4, 1);
    gtk_scale_set_draw_value(GTK_SCALE(scale), FALSE);
    gtk_range_set_round_digits(GTK_RANGE(scale), 0);
    gtk_range_set_value(GTK_RANGE(scale), 2);
    gtk_widget_set_size_request(scale, 336, -1);
    gtk_box_append(GTK_BOX(box), scale);
    gtk_box_append(GTK_BOX(box), gtk_button_new_with_label("Smaller"));
    gtk_box_append(GTK_BOX(box), gtk_button_new_with_label("Larger"));
    gtk_window_set_child(GTK_WINDOW(window), box);
    if (tracing) {
        GtkEventController *motion = gtk_event_controller_motion_new();
        gtk_event_controller_set_propagation_phase(motion, GTK_PHASE_CAPTURE);
        g_signal_connect(motion, "motion", G_CALLBACK(moved), NULL);
        gtk_widget_add_controller(scale, motion);
        g_signal_connect(window, "realize", G_CALLBACK(realized), NULL);
    }
    g_signal_connect(window, "close-request", G_CALLBACK(quit), loop);
    gtk_window_present(GTK_WINDOW(window));
    g_main_loop_run(loop);
    return 0;
}
