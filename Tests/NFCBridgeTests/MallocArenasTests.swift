import CMalloc
import POSIXThreads
import Testing

/// `MallocArenas.useOne()` (issue 25: one malloc arena for the agent's threads) calls glibc's
/// `mallopt` with `M_ARENA_MAX` from <malloc.h> through the `CMalloc` module, not a number written
/// in and a symbol looked up by name. Sets this test process to one arena for new threads, as the
/// agent runs.
@Suite struct MallocArenasTests {
    @Test func oneArenaIsAskedWithMallocHsConstant() {
        #expect(M_ARENA_MAX == -8)  // glibc's malloc.h, the value the dlsym version had written in
        #expect(MallocArenas.useOne())
    }
}
