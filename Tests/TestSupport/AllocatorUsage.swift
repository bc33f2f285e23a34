import Foundation

/// What glibc's allocator has handed out and not had back — the measure of the memory tests.
public enum AllocatorUsage {
    /// Bytes in use over all arenas: `malloc_info`'s totals (what the arenas hold from the system,
    /// less their free chunks, plus mmapped blocks). Not resident memory, which arenas keep after frees.
    /// The arenas are trimmed first: an arena's free top is in no bin, so it would count as in use.
    public static func bytesInUse() -> Int {
        typealias MallocTrim = @convention(c) (Int) -> Int32
        _ = unsafeBitCast(dlsym(nil, "malloc_trim")!, to: MallocTrim.self)(0)
        typealias MallocInfo = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32
        let mallocInfo = unsafeBitCast(dlsym(nil, "malloc_info")!, to: MallocInfo.self)
        var text: UnsafeMutablePointer<CChar>?
        var length = 0
        let stream = open_memstream(&text, &length)
        _ = mallocInfo(0, stream)
        fclose(stream)
        defer { free(text) }
        let xml = String(cString: text!)
        let totals = xml[xml.range(of: "</heap>", options: .backwards)!.upperBound...]   // after the last arena
        func size(_ element: String) -> Int {
            let start = totals.range(of: element)!.upperBound
            let value = totals[totals.range(of: "size=\"", range: start..<totals.endIndex)!.upperBound...].prefix { $0.isNumber }
            return Int(value)!
        }
        return size(#"<system type="current""#) - size(#"<total type="fast""#) - size(#"<total type="rest""#) + size(#"<total type="mmap""#)
    }
}
