import CMalloc
import Glibc
import SnapService
import SystemCalls

// Thin entry point: everything lives in SnapService so tests can reach it.
// No Foundation here (see processEnvironment).

// Logging must never kill the daemon: with SIGPIPE ignored, a line written to a stderr pipe whose
// reader is gone fails with EPIPE (and is dropped) instead of ending the process.
signal(SIGPIPE, SIG_IGN)
// SIGTERM, SIGINT and SIGHUP wait, blocked, until the event loop's handlers are installed (it
// unblocks them when it runs): one that arrives while snapsized starts, say systemd's reload right
// after D-Bus activation, is then handled as usual instead of ending the process by its default action.
var handledLater = sigset_t()
sigemptyset(&handledLater)
for signo in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&handledLater, signo) }
pthread_sigmask(SIG_BLOCK, &handledLater, nil)
// glibc's mmap threshold, fixed at its default (below). Left dynamic, it rises to the size of the
// first big block freed (say a refused oversized message), after which blocks that big come from the heap
// and stay resident when freed: RSS stayed that much higher for good. Fixed, such blocks are mmapped and
// returned when freed. The daemon's own allocations are far smaller, so calls cost the same.
_ = mallopt(M_MMAP_THRESHOLD, 128 * 1024)

exit(Daemon.main(arguments: processArguments(), environment: processEnvironment()))
