#ifndef CPOSIX_SHIM_H
#define CPOSIX_SHIM_H

/* The POSIX values and calls that Swift's Glibc overlay defines in Swift (errno, environ, the
 * variadic open, fcntl and ioctl, the file type bits, SIG_DFL), each as one line of inline C. A
 * program that uses any of the overlay's own definitions links the overlay's whole code section,
 * its math wrappers included, and with it their libc and libm symbols for the dynamic loader to look
 * up at every start of snapsizectl (docs/PERFORMANCE.md). The C functions the Glibc module
 * imports as they are (read, poll, stat...) cost nothing of the kind. No logic. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

static inline int cposix_errno(void) { return errno; }
static inline void cposix_set_errno(int value) { errno = value; }
static inline char **cposix_environ(void) {
    extern char **environ;
    return environ;
}
static inline int cposix_open(const char *path, int flags, mode_t mode) { return open(path, flags, mode); }
static inline int cposix_openat(int folder, const char *path, int flags) { return openat(folder, path, flags); }
static inline int cposix_fcntl(int fd, int command, int argument) { return fcntl(fd, command, argument); }
static inline int cposix_window_size(int fd, struct winsize *size) { return ioctl(fd, TIOCGWINSZ, size); }
static inline bool cposix_is_socket(mode_t mode) { return S_ISSOCK(mode); }
static inline bool cposix_is_directory(mode_t mode) { return S_ISDIR(mode); }
static inline void cposix_set_default_handler(struct sigaction *action) { action->sa_handler = SIG_DFL; }

#endif /* CPOSIX_SHIM_H */
