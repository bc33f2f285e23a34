import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes every thread of this process to a file descriptor, for a process that is stuck: each
/// thread's name, scheduler state and kernel wait channel, the instruction it is blocked at, and
/// the C functions its stack passes through.
///
/// No signal is involved: dispatch's worker threads (Swift's cooperative pool among them) block
/// every signal, so a signal-driven `backtrace()` never runs on the threads that matter. Instead a
/// blocked thread's stack pointer and program counter come from /proc (`task/TID/syscall`), and its
/// stack — this process's own memory, mapped and not moving while the thread waits — is scanned for
/// words that point into executable code, each named through the dynamic symbol tables (`dladdr`).
/// A scan, not an unwind: it can list a stale return address, but it cannot miss a live frame, and
/// the frames of C libraries (`soxr_create`, `omp_set_lock`, …) come out by name. Swift frames show
/// as an offset in the executable (`addr2line -e voicebridge` names them).
enum ThreadStacks {
    private struct Mapping {
        let start: UInt
        let end: UInt
        let executable: Bool
    }

    /// How far up a stack the scan reads, and how many code addresses it lists per thread.
    private static let scanBytes: UInt = 32 * 1024
    private static let framesPerThread = 24
    /// A thread that polls (`while busy { usleep(…) }`) is runnable, with no stack to read, whenever
    /// it has woken and waits for a core — on a loaded machine, often. Such a thread is read again,
    /// 5 ms apart, until it blocks; all of it within this budget for the whole dump.
    private static let retryBudget = Duration.milliseconds(500)

    static func write(to fd: Int32) {
        let mappings = readMappings()
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"))?.split(separator: "/").last.map(String.init)
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        let retriesEnd = ContinuousClock.now + retryBudget
        for tid in tasks.compactMap(Int.init).sorted() {
            let task = "/proc/self/task/\(tid)", isWatchdog = "\(tid)" == me
            var syscall = read("\(task)/syscall")
            while !isWatchdog, syscall.hasPrefix("running"), ContinuousClock.now < retriesEnd {
                usleep(5_000)
                syscall = read("\(task)/syscall")
            }
            let name = read("\(task)/comm")
            let state = read("\(task)/stat").split(separator: ")").last?.split(separator: " ").first.map(String.init) ?? "?"
            let wchan = read("\(task)/wchan")
            var text = "--- thread \(tid) \"\(name)\" state \(state) wchan \(wchan.isEmpty || wchan == "0" ? "-" : wchan)\n"
            if isWatchdog {
                text += "    (the watchdog itself)\n"
            } else if let (sp, pc) = blockedAt(syscall) {
                text += "    at \(describe(pc))\n"
                for address in scan(from: sp, mappings: mappings) { text += "    \(describe(address))\n" }
            }
            put(text, fd)
        }
    }

    /// Stack pointer and program counter of a thread in a system call: the last two fields of
    /// `syscall` ("202 0x… … 0x7ffd… 0x7f…"); nil when it is running.
    private static func blockedAt(_ syscall: String) -> (UInt, UInt)? {
        let fields = syscall.split(separator: " ")
        guard fields.count >= 3, fields[0] != "running",
              let sp = UInt(fields[fields.count - 2].dropFirst(2), radix: 16),
              let pc = UInt(fields[fields.count - 1].dropFirst(2), radix: 16) else { return nil }
        return (sp, pc)
    }

    /// Words on the stack above `sp` that point into executable mappings, in stack order.
    private static func scan(from sp: UInt, mappings: [Mapping]) -> [UInt] {
        guard let stack = mappings.first(where: { $0.start <= sp && sp < $0.end && !$0.executable }) else { return [] }
        let end = min(stack.end, sp + scanBytes)
        var found: [UInt] = []
        var address = sp & ~UInt(7)
        while address + 8 <= end, found.count < framesPerThread {
            let word = UnsafePointer<UInt>(bitPattern: address)!.pointee
            if word != 0, mappings.contains(where: { $0.executable && $0.start <= word && word < $0.end }) { found.append(word) }
            address += 8
        }
        return found
    }

    /// glibc's `dladdr`, which the Glibc module does not declare (it is a GNU extension). It fills
    /// a `Dl_info`: four pointers — file name, file base, symbol name, symbol address.
    private typealias LookUpAddress = @convention(c) (UnsafeRawPointer?, UnsafeMutablePointer<UnsafeRawPointer?>) -> Int32
    private static let lookUp = dlsym(nil, "dladdr").map { unsafeBitCast($0, to: LookUpAddress.self) }

    /// `symbol+0xoffset (library)` or `library+0xoffset`.
    private static func describe(_ address: UInt) -> String {
        let info = UnsafeMutablePointer<UnsafeRawPointer?>.allocate(capacity: 4)
        defer { info.deallocate() }
        info.initialize(repeating: nil, count: 4)
        guard let lookUp, lookUp(UnsafeRawPointer(bitPattern: address), info) != 0, let file = info[0] else {
            return "0x" + String(address, radix: 16)
        }
        let library = String(cString: file.assumingMemoryBound(to: CChar.self)).split(separator: "/").last.map(String.init) ?? "?"
        if let symbol = info[2], let start = info[3] {
            return "\(String(cString: symbol.assumingMemoryBound(to: CChar.self)))+0x\(String(address - UInt(bitPattern: start), radix: 16)) (\(library))"
        }
        return "\(library)+0x\(String(address - (info[1].map { UInt(bitPattern: $0) } ?? 0), radix: 16))"
    }

    private static func readMappings() -> [Mapping] {
        read("/proc/self/maps").split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 5)
            guard fields.count >= 2 else { return nil }
            let range = fields[0].split(separator: "-")
            guard range.count == 2, let start = UInt(range[0], radix: 16), let end = UInt(range[1], radix: 16),
                  fields[1].hasPrefix("r") else { return nil }   // only what can be read
            return Mapping(start: start, end: end, executable: fields[1].contains("x"))
        }
    }

    /// A /proc file read to its end (they report size 0, and `String(contentsOfFile:)` can stop short).
    private static func read(_ path: String) -> String {
        guard let file = FileHandle(forReadingAtPath: path) else { return "" }
        defer { try? file.close() }
        let data = (try? file.readToEnd()) ?? Data()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func put(_ text: String, _ fd: Int32) {
        var text = text
        text.withUTF8 { bytes in _ = Glibc.write(fd, bytes.baseAddress, bytes.count) }
    }
}
