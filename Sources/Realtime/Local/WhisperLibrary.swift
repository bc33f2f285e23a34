import Foundation

/// whisper.cpp's C API (1.8.5, `libwhisper.so.1` from the pywhispercpp wheel; `make deps` puts it
/// in `.deps/whisper/lib`), loaded at run time. Only entries that take and return scalars and
/// pointers are used — the low-level encode/decode calls on a per-caller state — so no header is
/// needed: `whisper_full` takes a large struct by value, which Swift cannot pass without one, and
/// the greedy decoding it would do is done by `WhisperTranscriber` instead (which also lets it bias
/// and bound the decoding).
struct WhisperLibrary: @unchecked Sendable {
    typealias Context = OpaquePointer
    typealias State = OpaquePointer

    let initFromFile: @convention(c) (UnsafePointer<CChar>) -> Context?
    let free: @convention(c) (Context) -> Void
    let initState: @convention(c) (Context) -> State?
    let freeState: @convention(c) (State) -> Void
    let pcmToMel: @convention(c) (Context, State, UnsafePointer<Float>, Int32, Int32) -> Int32
    let encode: @convention(c) (Context, State, Int32, Int32) -> Int32
    let decode: @convention(c) (Context, State, UnsafePointer<Int32>, Int32, Int32, Int32) -> Int32
    let logits: @convention(c) (State) -> UnsafeMutablePointer<Float>?
    let vocabularySize: @convention(c) (Context) -> Int32
    let tokenText: @convention(c) (Context, Int32) -> UnsafePointer<CChar>?
    let tokenize: @convention(c) (Context, UnsafePointer<CChar>, UnsafeMutablePointer<Int32>, Int32) -> Int32
    let languageID: @convention(c) (UnsafePointer<CChar>) -> Int32
    let languageToken: @convention(c) (Context, Int32) -> Int32
    /// The special tokens, by the name of their accessor (`eot`, `sot`, `prev`, `nosp`, `not`, `transcribe`).
    let special: [String: @convention(c) (Context) -> Int32]

    /// The CPU features the wheel's ggml was compiled for: without them it dies on an illegal instruction.
    static let requiredCPUFlags = ["avx2", "fma", "f16c"]

    init(path: String) throws(WhisperTranscriber.Failure) {
        let missing = Self.missingCPUFlags()
        guard missing.isEmpty else {
            throw .init(description: "this CPU lacks \(missing.joined(separator: ", ")), which the whisper.cpp that `make deps` installs needs: Whisper (Korean offline) cannot run here")
        }
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            throw .init(description: "Whisper is not installed: cannot load \(path) (\(String(cString: dlerror()))). Run `make deps`.")
        }
        func symbol<T>(_ name: String, as type: T.Type) throws(WhisperTranscriber.Failure) -> T {
            guard let address = dlsym(handle, name) else { throw .init(description: "\(path) has no \(name): not whisper.cpp 1.8") }
            return unsafeBitCast(address, to: type)
        }
        initFromFile = try symbol("whisper_init_from_file_no_state", as: (@convention(c) (UnsafePointer<CChar>) -> Context?).self)
        free = try symbol("whisper_free", as: (@convention(c) (Context) -> Void).self)
        initState = try symbol("whisper_init_state", as: (@convention(c) (Context) -> State?).self)
        freeState = try symbol("whisper_free_state", as: (@convention(c) (State) -> Void).self)
        pcmToMel = try symbol("whisper_pcm_to_mel_with_state", as: (@convention(c) (Context, State, UnsafePointer<Float>, Int32, Int32) -> Int32).self)
        encode = try symbol("whisper_encode_with_state", as: (@convention(c) (Context, State, Int32, Int32) -> Int32).self)
        decode = try symbol("whisper_decode_with_state", as: (@convention(c) (Context, State, UnsafePointer<Int32>, Int32, Int32, Int32) -> Int32).self)
        logits = try symbol("whisper_get_logits_from_state", as: (@convention(c) (State) -> UnsafeMutablePointer<Float>?).self)
        vocabularySize = try symbol("whisper_n_vocab", as: (@convention(c) (Context) -> Int32).self)
        tokenText = try symbol("whisper_token_to_str", as: (@convention(c) (Context, Int32) -> UnsafePointer<CChar>?).self)
        tokenize = try symbol("whisper_tokenize", as: (@convention(c) (Context, UnsafePointer<CChar>, UnsafeMutablePointer<Int32>, Int32) -> Int32).self)
        languageID = try symbol("whisper_lang_id", as: (@convention(c) (UnsafePointer<CChar>) -> Int32).self)
        languageToken = try symbol("whisper_token_lang", as: (@convention(c) (Context, Int32) -> Int32).self)
        var special: [String: @convention(c) (Context) -> Int32] = [:]
        for name in ["eot", "sot", "prev", "nosp", "not", "transcribe"] {
            special[name] = try symbol("whisper_token_\(name)", as: (@convention(c) (Context) -> Int32).self)
        }
        self.special = special
        // Its progress lines would go to stderr on every load and every call: silenced.
        let setLog = try symbol("whisper_log_set", as: (@convention(c) ((@convention(c) (Int32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void)?, UnsafeMutableRawPointer?) -> Void).self)
        setLog({ _, _, _ in }, nil)
    }

    /// Which of `requiredCPUFlags` /proc/cpuinfo does not list.
    static func missingCPUFlags(cpuinfo: String? = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) -> [String] {
        guard let flags = cpuinfo?.split(separator: "\n").first(where: { $0.hasPrefix("flags") }) else { return requiredCPUFlags }
        let present = Set(flags.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == ":" }).map(String.init))
        return requiredCPUFlags.filter { !present.contains($0) }
    }
}
