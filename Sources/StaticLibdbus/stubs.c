// SPDX-License-Identifier: Apache-2.0
#include "StaticLibdbus.h"

// libdbus calls these only to take over listening sockets that systemd passed to a bus or server it
// started (_dbus_listen_systemd_sockets); snapsizectl is a client and never listens. Loading
// libsystemd (and the six libraries it needs) for them is what linking libdbus statically saves.
// Were they ever called, "no sockets were passed" is the true answer.
int sd_listen_fds(int unset_environment) {
    (void)unset_environment;
    return 0;
}

int sd_is_socket(int fd, int family, int type, int listening) {
    (void)fd;
    (void)family;
    (void)type;
    (void)listening;
    return 0;
}
