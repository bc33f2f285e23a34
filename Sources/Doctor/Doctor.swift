import Bridge
import Calls
import Foundation
import Logging
import Synchronization

/// `voicebridge doctor`: what a server needs before it starts, checked one by one — the
/// configuration, what the configured engine loads (models, libraries, keys), the models against
/// what `make deps` installed, Korean offline, the ports, the data directory, the database, the
/// SIP gateway. Each check says what it found and, when it fails or warns, what to do. A check
/// that needs the configuration is skipped when the configuration does not load.
public enum Doctor {
    public struct Check: Sendable, Equatable {
        public enum Verdict: String, Sendable { case ok, warn, fail }
        public var name: String
        public var verdict: Verdict
        public var detail: String
        /// What to do about a warning or a failure.
        public var fix: String?

        public init(_ name: String, _ verdict: Verdict, _ detail: String, fix: String? = nil) {
            self.name = name
            self.verdict = verdict
            self.detail = detail
            self.fix = fix
        }

        /// "ok    engine local: …", "FAIL  http port 8080: in use — fix: …".
        public var line: String {
            let label = verdict == .ok ? "ok  " : verdict.rawValue.uppercased()
            return "\(label)  \(name): \(detail)" + (fix.map { " — fix: \($0)" } ?? "")
        }
    }

    /// Every check for the configuration at `path` (nil: the defaults) with `environment`'s overrides.
    public static func checks(configPath: String?, environment: [String: String] = ProcessInfo.processInfo.environment) async -> [Check] {
        let config: VoiceBridgeConfig
        do {
            config = try VoiceBridgeConfig.load(path: configPath, environment: environment)
        } catch {
            return [Check("configuration", .fail, "\(error)", fix: "correct the key named (config/voicebridge.example.yaml shows every key)")]
        }
        var found = [Check("configuration", .ok, "\(configPath ?? "the defaults"); engine \(config.engine.mode.rawValue), carrier \(config.carrier.rawValue)")]
        found.append(engine(config))
        if let models = ModelChecksums.check(deps: config.engine.local.depsPath, required: config.engine.mode == .local) { found.append(models) }
        found += korean(config)
        found.append(port("http port", host: config.http.host, port: config.http.port, udp: false,
                          fix: "stop what listens there, or set http.port (VOICEBRIDGE_HTTP_PORT)"))
        found.append(port("sip port", host: config.sip.bind, port: config.sip.port, udp: config.sip.transport == .udp,
                          fix: "stop what listens there, or set sip.port (VOICEBRIDGE_SIP_PORT)"))
        found.append(await database(config))
        if let gateway = config.sip.gateway { found.append(resolves(gateway)) }
        return found
    }

    /// The engine's models, voices and keys, loaded as `serve` loads them; what it warns about is a warning here.
    static func engine(_ config: VoiceBridgeConfig) -> Check {
        let warnings = WarningCollector.Said()
        let logger = Logger(label: "voicebridge.doctor") { _ in WarningCollector(said: warnings) }
        let name = "engine \(config.engine.mode.rawValue)"
        do {
            try CallSystem.loadWhatStartLoads(config: config, logger: logger)
        } catch {
            return Check(name, .fail, "\(error)", fix: "run `make deps` for a missing model or library; set the key named for a provider")
        }
        let said = warnings.lines.withLock { $0 }
        guard said.isEmpty else { return Check(name, .warn, said.joined(separator: "; "), fix: "run `make deps`, or choose the fallback in the configuration") }
        return Check(name, .ok, "its models, voices and keys load")
    }

    /// Korean calls: a failure when calls are Korean unless they say otherwise, else a warning.
    static func korean(_ config: VoiceBridgeConfig) -> [Check] {
        guard config.engine.mode == .local else { return [] }
        guard let problem = CallSystem.offlineKoreanProblem(config) else { return [Check("Korean offline", .ok, "Whisper loads")] }
        let korean = config.engine.language == "ko"
        return [Check("Korean offline", korean ? .fail : .warn, problem + (korean ? "" : "; calls with language ko will fail"),
                      fix: "run `make deps` on a CPU with AVX2 and FMA")]
    }

    static func database(_ config: VoiceBridgeConfig) async -> Check {
        let name = "database"
        do {
            let store = try await CallStore.open(config.database.location, cipher: config.storage.cipher, numbers: config.numbers)
            try await store.close()
            return Check(name, .ok, "\(config.database.displayName) opens and is writable")
        } catch {
            let fix = config.database.url == nil
                ? "make the folder of database.path writable, or point database.path elsewhere"
                : "check database.url: the server, the user's password and that the database exists"
            return Check(name, .fail, "\(config.database.displayName): \(error)", fix: fix)
        }
    }

    static func port(_ name: String, host: String, port: Int, udp: Bool, fix: String) -> Check {
        let label = "\(name) \(port)"
        guard port != 0 else { return Check(label, .ok, "the system picks one") }
        if let problem = PortProbe.bindProblem(host: host, port: port, udp: udp) {
            return Check(label, .fail, "cannot bind \(host):\(port)/\(udp ? "udp" : "tcp"): \(problem)", fix: fix)
        }
        return Check(label, .ok, "\(host):\(port)/\(udp ? "udp" : "tcp") is free")
    }

    /// The SIP gateway's host resolves (a name no resolver knows fails every outbound call).
    static func resolves(_ gateway: String) -> Check {
        guard let host = SIPURI(gateway)?.host else {
            return Check("sip gateway", .fail, "'\(gateway)' is not a SIP URI", fix: "write sip.gateway as sip:host[:port]")
        }
        if PortProbe.resolves(host) { return Check("sip gateway", .ok, "\(host) resolves") }
        return Check("sip gateway", .fail, "\(host) does not resolve", fix: "check sip.gateway's host name and this machine's DNS")
    }
}

/// A log handler that keeps the warnings it is given, for the doctor to show.
struct WarningCollector: LogHandler {
    final class Said: Sendable {
        let lines = Mutex<[String]>([])
    }
    let said: Said
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .warning

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        guard event.level >= .warning else { return }
        let detail = event.metadata?["error"].map { " (\($0))" } ?? ""
        said.lines.withLock { $0.append("\(event.message)\(detail)") }
    }
}
