#if canImport(Glibc)
    import Glibc
#endif

/// glibc's allocator, tuned once per process for what fetchd does: build a large request's
/// tree of small values, then free it all at once. Freed small blocks wait in "fast bins",
/// and freeing a large block afterwards makes glibc walk every one of them to merge them;
/// with hundreds of thousands waiting, that walk is repeated for each large block and cost
/// more than the parse itself (Benchmarks/README.md, "Measurements behind the code"). Without
/// them, small blocks still come from the per-thread cache,
/// and a freed block is merged with its neighbours once, when it is freed.
enum MallocTuning {
    static func apply() {
        #if canImport(Glibc)
            // M_MXFAST (malloc.h, which the Glibc module leaves out): the largest fast-bin size.
            _ = glibcMallopt(1, 0)
        #endif
    }
}

#if canImport(Glibc)
    /// glibc's `int mallopt(int param, int value)`.
    @_silgen_name("mallopt")
    private func glibcMallopt(_ param: Int32, _ value: Int32) -> Int32
#endif
