// The process's own argument vector, as the C runtime handed it over.
//
// Swift's CommandLine.arguments finds argv on Linux by reading /proc/self/maps (the runtime walks
// back from `environ` within the stack it finds there); without /proc (a chroot, a bare container)
// it is empty and both programs would ignore their arguments. glibc passes argc and argv to every
// constructor of the executable (ELF .init_array), so arguments.c keeps them from there.
#ifndef SNAPSIZE_ARGUMENTS_H
#define SNAPSIZE_ARGUMENTS_H

int snapsize_argc(void);
char *const *snapsize_argv(void);

// The Swift runtime's two entry points for CommandLine, defined from the same argv (arguments.c).
char **_swift_stdlib_getUnsafeArgvArgc(int *outArgLen);
void _swift_stdlib_overrideUnsafeArgvArgc(char **argv, int argc);

#endif
