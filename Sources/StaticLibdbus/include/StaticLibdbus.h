// SPDX-License-Identifier: Apache-2.0
// What linking libdbus statically into snapsizectl needs besides the archive (Package.swift): the two
// libsystemd calls that libdbus's socket code names, for a server started by socket activation.
#ifndef SNAPSIZE_STATIC_LIBDBUS_H
#define SNAPSIZE_STATIC_LIBDBUS_H
int sd_listen_fds(int unset_environment);
int sd_is_socket(int fd, int family, int type, int listening);
#endif
