#include "arguments.h"

#include <stddef.h>

static int saved_argc;
static char *const *saved_argv;

// Called by glibc before main with (argc, argv, envp), as it calls every .init_array entry of the
// executable. Another C library might pass nothing: then the count stays 0 and argv NULL.
__attribute__((constructor)) static void snapsize_save_arguments(int argc, char **argv, char **envp) {
    (void)envp;
    if (argc > 0 && argv != NULL) {
        saved_argc = argc;
        saved_argv = argv;
    }
}

int snapsize_argc(void) { return saved_argc; }

char *const *snapsize_argv(void) { return saved_argv; }
