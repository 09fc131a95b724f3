// SPDX-License-Identifier: Apache-2.0
#include "AnswerWait.h"
#include <string.h>

struct ShimAnswerWait {
    GMutex mutex;
    GCond answered;
    /* The object path whose PropertiesChanged is kept. */
    char *path;
    /* Set by arm, cleared by the wait: the member whose next call is waited for. */
    char *member;
    /* The serial of that call once the filter saw it go out; 0 before. */
    guint32 serial;
    gboolean done;
    /* The newest PropertiesChanged on `path` read while armed (its parameters), and its sender. */
    GVariant *change;
    char *change_sender;
};

static GDBusMessage *filter(GDBusConnection *connection, GDBusMessage *message, gboolean incoming, gpointer data) {
    (void)connection;
    ShimAnswerWait *wait = data;
    g_mutex_lock(&wait->mutex);
    if (wait->member != NULL && !wait->done) {
        GDBusMessageType type = g_dbus_message_get_message_type(message);
        const char *member = g_dbus_message_get_member(message);
        if (!incoming) {
            if (wait->serial == 0 && type == G_DBUS_MESSAGE_TYPE_METHOD_CALL && g_strcmp0(member, wait->member) == 0)
                wait->serial = g_dbus_message_get_serial(message);
        } else if (type == G_DBUS_MESSAGE_TYPE_SIGNAL && g_strcmp0(member, "PropertiesChanged") == 0
                   && g_strcmp0(g_dbus_message_get_path(message), wait->path) == 0
                   && g_strcmp0(g_dbus_message_get_interface(message), "org.freedesktop.DBus.Properties") == 0
                   && g_dbus_message_get_body(message) != NULL) {
            g_clear_pointer(&wait->change, g_variant_unref);
            g_free(wait->change_sender);
            wait->change = g_variant_ref(g_dbus_message_get_body(message));
            wait->change_sender = g_strdup(g_dbus_message_get_sender(message));
        } else if (wait->serial != 0
                   && (type == G_DBUS_MESSAGE_TYPE_METHOD_RETURN || type == G_DBUS_MESSAGE_TYPE_ERROR)
                   && g_dbus_message_get_reply_serial(message) == wait->serial) {
            /* Only the daemon's own signal: the one that answered the call. */
            if (g_strcmp0(wait->change_sender, g_dbus_message_get_sender(message)) != 0)
                g_clear_pointer(&wait->change, g_variant_unref);
            wait->done = TRUE;
            g_cond_signal(&wait->answered);
        }
    }
    g_mutex_unlock(&wait->mutex);
    return message;
}

ShimAnswerWait *shim_answer_wait_new(GDBusConnection *connection, const char *path) {
    ShimAnswerWait *wait = g_new0(ShimAnswerWait, 1);
    g_mutex_init(&wait->mutex);
    g_cond_init(&wait->answered);
    wait->path = g_strdup(path);
    g_dbus_connection_add_filter(connection, filter, wait, NULL);
    return wait;
}

void shim_answer_wait_arm(ShimAnswerWait *wait, const char *member) {
    g_mutex_lock(&wait->mutex);
    g_free(wait->member);
    wait->member = g_strdup(member);
    wait->serial = 0;
    wait->done = FALSE;
    g_clear_pointer(&wait->change, g_variant_unref);
    g_clear_pointer(&wait->change_sender, g_free);
    g_mutex_unlock(&wait->mutex);
}

gboolean shim_answer_wait(ShimAnswerWait *wait, gint64 timeout_us, GVariant **change) {
    gint64 deadline = g_get_monotonic_time() + timeout_us;
    g_mutex_lock(&wait->mutex);
    while (!wait->done && g_cond_wait_until(&wait->answered, &wait->mutex, deadline)) {
    }
    gboolean done = wait->done;
    *change = done ? g_steal_pointer(&wait->change) : NULL;
    g_clear_pointer(&wait->change, g_variant_unref);
    g_clear_pointer(&wait->change_sender, g_free);
    g_clear_pointer(&wait->member, g_free);
    g_mutex_unlock(&wait->mutex);
    return done;
}
