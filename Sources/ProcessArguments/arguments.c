// CommandLine.arguments from the process's own argv, as glibc hands it to the program's
// initialisers, instead of the Swift runtime's way on Linux: its CommandLine.cpp runs at every start
// a static initialiser that reads /proc/self/maps (some 100 lines through sscanf, most of the
// runtime's own start-up) to find the stack and walks back from `environ` to argv, and finds
// nothing where /proc is not mounted. Defining the two functions the standard library calls keeps
// that object out of the link (a symbol an object file defines is never looked for in an archive),
// so its initialiser never runs. If a later runtime also needed that object for another symbol, the
// link would fail on the duplicate definitions rather than run two grabbers.
#include "ProcessArguments.h"

static int savedArgc;
static char **savedArgv;
static char *noArguments[] = {0};

// glibc calls the main program's initialisers with (argc, argv, envp).
static void capture(int argc, char **argv, char **envp) {
    (void)envp;
    savedArgc = argc;
    savedArgv = argv;
}

__attribute__((section(".init_array"), used)) static void (*const captureAtStart)(int, char **, char **) = capture;

char **_swift_stdlib_getUnsafeArgvArgc(int *outArgLen) {
    if (savedArgv == 0) {
        *outArgLen = 0;
        return noArguments;
    }
    *outArgLen = savedArgc;
    return savedArgv;
}

void _swift_stdlib_overrideUnsafeArgvArgc(char **argv, int argc) {
    savedArgv = argv;
    savedArgc = argc;
}
