internal import CMalloc

/// Gives the heap's free pages back to the kernel (glibc's `malloc_trim(0)`): after a burst (a
/// backlog of messages, say) free() alone keeps the pages between live blocks resident.
public func returnFreeMemory() {
    _ = malloc_trim(0)
}
