#ifndef CGTK_SHIM_H
#define CGTK_SHIM_H

/* GTK 4 (with GLib, GIO and cairo) as one system library for Swift. No logic. */
#include <gtk/gtk.h>

#endif /* CGTK_SHIM_H */
