// SPDX-License-Identifier: Apache-2.0
#ifndef GTKSHIM_ANSWER_WAIT_H
#define GTKSHIM_ANSWER_WAIT_H

#include <gio/gio.h>

/*
 * Waits on the main thread, for a bounded time, until GDBus's worker thread has read the reply to one
 * call: the next method call named `member` sent on the connection after shim_answer_wait_arm. A
 * filter on the connection (GDBus runs filters in its worker thread) sees the call go out, which gives
 * its serial, then the reply or error that names that serial. It also keeps the newest
 * PropertiesChanged of `path` read before that reply from the same sender (the daemon emits it before
 * its reply), so that the caller can show it at once. Everything is still delivered as usual by the
 * main loop afterwards.
 */
typedef struct ShimAnswerWait ShimAnswerWait;

/* Adds the filter to `connection`; lives as long as the connection. */
ShimAnswerWait *shim_answer_wait_new(GDBusConnection *connection, const char *path);
/* From now on, the next outgoing call of `member` is the one waited for. */
void shim_answer_wait_arm(ShimAnswerWait *wait, const char *member);
/* Blocks until that call's reply has been read or `timeout_us` has passed, then disarms; TRUE if read.
   `change`: the PropertiesChanged parameters (sa{sv}as) read before the reply, or NULL (transfer full). */
gboolean shim_answer_wait(ShimAnswerWait *wait, gint64 timeout_us, GVariant **change);

#endif /* GTKSHIM_ANSWER_WAIT_H */
