/* The control for the crowd fault (issue 33): a D-Bus service that does nothing but answer every call
 * at once with an empty method return, as fast as libdbus lets it. What a crowd of silent clients does
 * to the well-behaved client of this service is what the bus itself costs; see crowd-control.py.
 * Usage: responder ADDRESS NAME (prints "ready" once NAME is owned). */
#include <dbus/dbus.h>
#include <stdio.h>

int main(int argc, char **argv) {
    DBusError error;
    dbus_error_init(&error);
    if (argc != 3) {
        fprintf(stderr, "usage: responder ADDRESS NAME\n");
        return 2;
    }
    DBusConnection *bus = dbus_connection_open_private(argv[1], &error);
    if (bus == NULL || !dbus_bus_register(bus, &error)
        || dbus_bus_request_name(bus, argv[2], 0, &error) != DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER) {
        fprintf(stderr, "responder: %s\n", dbus_error_is_set(&error) ? error.message : "name taken");
        return 1;
    }
    printf("ready\n");
    fflush(stdout);
    while (dbus_connection_read_write(bus, -1)) {
        DBusMessage *call;
        while ((call = dbus_connection_pop_message(bus)) != NULL) {
            if (dbus_message_get_type(call) == DBUS_MESSAGE_TYPE_METHOD_CALL && !dbus_message_get_no_reply(call)) {
                DBusMessage *reply = dbus_message_new_method_return(call);
                if (reply != NULL) {
                    dbus_connection_send(bus, reply, NULL);
                    dbus_message_unref(reply);
                }
            }
            dbus_message_unref(call);
        }
    }
    return 0;
}
