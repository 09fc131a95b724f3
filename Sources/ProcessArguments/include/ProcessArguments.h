// The Swift runtime's two entry points for `CommandLine`, defined here from the arguments the
// process was started with (see arguments.c). Nothing includes this from Swift: linking the target
// is what takes effect.
#ifndef PROCESS_ARGUMENTS_H
#define PROCESS_ARGUMENTS_H

char **_swift_stdlib_getUnsafeArgvArgc(int *outArgLen);
void _swift_stdlib_overrideUnsafeArgvArgc(char **argv, int argc);

#endif
