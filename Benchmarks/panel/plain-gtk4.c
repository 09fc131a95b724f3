// SPDX-License-Identifier: Apache-2.0
// The anchor of `make bench`'s panel rows: a plain GTK 4 window (a label and two buttons, no D-Bus),
// what any GTK 4 application costs, measured beside snapsize-panel in the same run.
#include <gtk/gtk.h>

static gboolean quit(GtkWindow *window, gpointer loop) {
    (void)window;
    g_main_loop_quit(loop);
    return FALSE;
}

int main(void) {
    g_set_prgname("snapsize-plain-gtk4");
    gtk_init();
    GMainLoop *loop = g_main_loop_new(NULL, FALSE);
    GtkWidget *window = gtk_window_new();
    gtk_window_set_title(GTK_WINDOW(window), "plain GTK 4 window");
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 10);
    gtk_box_append(GTK_BOX(box), gtk_label_new("Circle size"));
    gtk_box_append(GTK_BOX(box), gtk_button_new_with_label("Smaller"));
    gtk_box_append(GTK_BOX(box), gtk_button_new_with_label("Larger"));
    gtk_window_set_child(GTK_WINDOW(window), box);
    g_signal_connect(window, "close-request", G_CALLBACK(quit), loop);
    gtk_window_present(GTK_WINDOW(window));
    g_main_loop_run(loop);
    return 0;
}
