// The process's own argv, as glibc hands it to the program's initialisers, for processArguments()
// and for the standard library's CommandLine.arguments.
//
// The Swift runtime's own way on Linux (its CommandLine.cpp) runs at every start a static initialiser
// that reads /proc/self/maps to find the stack and walks back from `environ` to argv: most of the
// runtime's own start-up, and nothing found where /proc is not mounted. Defining here the two
// functions the standard library calls for CommandLine keeps that object out of a static link (a
// symbol an object file defines is never looked for in an archive), so its initialiser never runs.
// If a later runtime also needed that object for another symbol, the link would fail on the
// duplicate definitions rather than run two grabbers.
#include "arguments.h"

#include <stddef.h>

static int saved_argc;
static char **saved_argv;
static char *no_arguments[] = {NULL};

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

char **_swift_stdlib_getUnsafeArgvArgc(int *outArgLen) {
    if (saved_argv == NULL) {
        *outArgLen = 0;
        return no_arguments;
    }
    *outArgLen = saved_argc;
    return saved_argv;
}

void _swift_stdlib_overrideUnsafeArgvArgc(char **argv, int argc) {
    saved_argv = argv;
    saved_argc = argc;
}
