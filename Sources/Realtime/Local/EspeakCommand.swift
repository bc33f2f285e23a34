import Foundation
import Pipeline
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One synthesis by espeak-ng's own command (`espeak-ng --stdout`), in a process of its own.
///
/// Why a process and not the library in this one: libespeak-ng keeps its wave generator's state
/// in statics no call resets — the pitch flutter's position, the gain control, the cycle count,
/// the noise generator (libc's `rand`) — so the same text in the same voice came out different
/// after other texts (39,010 samples, then 39,021; 35,117 of them different). The simulated
/// callee's words were then heard differently depending on which calls had spoken before it in
/// the process: a virtual-time call under load heard "Yes, I can offend the me being." (30 Nov).
/// A fresh process is the library from its start every time (~10 ms a sentence here), so a text
/// in a voice is always the same audio.
struct EspeakCommand: Sendable {
    let path: String

    /// The command on `PATH` (Debian's `espeak-ng` package, which `make deps` installs).
    static func installed() throws -> EspeakCommand {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        for folder in folders + ["/usr/bin"] {
            let path = "\(folder)/espeak-ng"
            if FileManager.default.isExecutableFile(atPath: path) { return EspeakCommand(path: path) }
        }
        throw EspeakSynthesizer.Failure(description: "espeak-ng's command is not installed (the espeak-ng package); run `make deps`")
    }

    /// The arguments that say `text` in `voice` at `wordsPerMinute`, as 22.05 kHz WAV on standard
    /// output, without the pause the command adds after the text (the library call had none).
    /// The text is one argument after `--`, so no text is read as an option; the command reads
    /// `[[…]]` as phonemes, so a text's `[[` is written `[ [`, and a NUL (which would end it) goes.
    static func arguments(for text: String, voice: String, wordsPerMinute: Int) -> [String] {
        var said = text.replacingOccurrences(of: "\0", with: "")
        while said.contains("[[") { said = said.replacingOccurrences(of: "[[", with: "[ [") }   // "[[[" leaves "[ [[" once
        return ["-v", voice, "-s", String(wordsPerMinute), "-z", "--stdout", "--", said]
    }

    /// Runs the command and returns its samples; throws when it fails or writes no WAV.
    func synthesize(_ text: String, voice: String, wordsPerMinute: Int) throws -> [Int16] {
        let output = try run(Self.arguments(for: text, voice: voice, wordsPerMinute: wordsPerMinute))
        return try Self.samples(ofWAV: output)
    }

    /// The 16-bit mono samples of the WAV the command writes to a pipe (`WAVFile`, streamed: its
    /// sizes say "to the end of the stream").
    static func samples(ofWAV bytes: [UInt8]) throws -> [Int16] {
        let wav: WAVFile
        do { wav = try WAVFile.parse(bytes, streamed: true) } catch {
            throw EspeakSynthesizer.Failure(description: "espeak-ng wrote no WAV (\(bytes.count) bytes): \(error)")
        }
        guard wav.format == 1, wav.channels == 1, wav.bitsPerSample == 16, wav.sampleRate == EspeakSynthesizer.sampleRate else {
            throw EspeakSynthesizer.Failure(description: "espeak-ng wrote format \(wav.format), \(wav.channels) channels, \(wav.bitsPerSample) bits at \(wav.sampleRate) Hz")
        }
        return wav.samples
    }

    /// Spawns the command with `arguments` (standard input and error on /dev/null) and returns
    /// what it wrote to standard output once it has exited with status 0.
    private func run(_ arguments: [String]) throws -> [UInt8] {
        var pipe: [Int32] = [0, 0]
        // Made close-on-exec, and spawned, under one lock: a command another lane spawns meanwhile
        // must not inherit this pipe's write end (the read below would never see its end).
        // (`pipe2(O_CLOEXEC)` is not imported: Glibc's module is built without _GNU_SOURCE.)
        let spawned = try Self.spawning.withLock { _ throws -> (Int32, pid_t) in
            guard Glibc.pipe(&pipe) == 0 else { throw failure("pipe") }
            for end in pipe { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            return spawn(arguments, output: pipe[1])
        }
        close(pipe[1])
        let child = spawned.1
        guard spawned.0 == 0 else {
            close(pipe[0])
            throw EspeakSynthesizer.Failure(description: "espeak-ng could not be started: \(String(cString: strerror(spawned.0)))")
        }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(pipe[0], $0.baseAddress, $0.count) }
            if count > 0 { output.append(contentsOf: buffer[0..<count]); continue }
            if count < 0, errno == EINTR { continue }
            break
        }
        close(pipe[0])
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0, errno == EINTR {}
        // WIFEXITED / WEXITSTATUS, which Swift does not import.
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            throw EspeakSynthesizer.Failure(description: "espeak-ng failed (wait status \(status)) saying \(arguments.last?.count ?? 0) characters")
        }
        return output
    }

    private static let spawning = Mutex(())

    /// Starts the command writing to `output`; returns posix_spawn's result and the child.
    private func spawn(_ arguments: [String], output: Int32) -> (Int32, pid_t) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, path, &actions, nil, argv, environ)
        return (result, child)
    }

    private func failure(_ what: String) -> EspeakSynthesizer.Failure {
        EspeakSynthesizer.Failure(description: "espeak-ng: \(what) failed: \(String(cString: strerror(errno)))")
    }
}
