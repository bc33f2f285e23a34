import Foundation

/// glibc's allocator gives each thread that allocates its own arena, up to eight per core.
///
/// Why the server limits them: under call churn the database's serial queues bring Dispatch
/// threads up one by one (one per busy reader or writer connection), each allocates in an arena of
/// its own, and each new arena adds its working set to resident memory for good — the 10-minute
/// 200 + 200 soak grew 140 → 177 MB as threads went 13 → 17, and stayed flat at 139 MB in a run
/// whose threads stopped at 15. With one arena per core, a new thread shares one. An operator's
/// `MALLOC_ARENA_MAX` is left as it is.
enum MallocArenas {
    static func limitToOnePerCore() {
        guard ProcessInfo.processInfo.environment["MALLOC_ARENA_MAX"] == nil,
              let mallopt = dlsym(nil, "mallopt") else { return }
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        let arenaMax: Int32 = -8   // M_ARENA_MAX in <malloc.h>
        _ = unsafeBitCast(mallopt, to: Mallopt.self)(arenaMax, Int32(max(1, ProcessInfo.processInfo.activeProcessorCount)))
    }
}
