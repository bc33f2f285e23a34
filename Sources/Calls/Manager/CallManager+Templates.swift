import Realtime
import Tools

extension CallManager {
    /// A template checked against this server: stored it must be valid, and what it asks of the
    /// engine (mode, language, voice) must be what this server runs — a template written for one
    /// engine is refused rather than run on another.
    public func acceptable(_ template: CallTemplate) throws(ValidationError) -> CallTemplate {
        let t = try template.validated(engineModes: VoiceBridgeConfig.EngineMode.allCases.map(\.rawValue))
        var problems: [ValidationError.Field] = []
        if let mode = t.engineMode, mode != settings.engineMode {
            problems.append(.init(name: "engine_mode", message: "is \(mode), but this server runs engine.mode \(settings.engineMode)"))
        }
        if let language = t.language, language != settings.language, let problem = settings.languageProblem(language) {
            problems.append(.init(name: "language", message: problem))
        }
        for code in t.languages ?? [] where code != (t.language ?? settings.language) && t.botURL == nil {
            if let problem = settings.languageProblem(code) { problems.append(.init(name: "languages", message: problem)) }
        }
        let conversing: Set<VoiceBridgeConfig.EngineMode> = [.local, .realtime, .cascade]
        if t.flow != nil, t.botURL == nil, !conversing.contains(where: { $0.rawValue == settings.engineMode }) {
            problems.append(.init(name: "flow", message: "flows run on the local, realtime and cascade engines; this server runs \(settings.engineMode)"))
        }
        if let voice = t.voice, t.botURL == nil, let problem = voiceProblem(voice) { problems.append(.init(name: "voice", message: problem)) }
        if let target = t.transferTo, let problem = transferTargetRefusal(target) { problems.append(.init(name: "transfer_to", message: problem)) }
        if t.noiseSuppression == true, let problem = noiseSuppressionProblem { problems.append(.init(name: "noise_suppression", message: problem)) }
        problems += ToolDefinition.problems(in: t.tools ?? [], secrets: settings.toolSecrets).map { .init(name: $0.field, message: $0.message) }
        problems += MCPServerDeclaration.problems(in: t.mcpServers ?? [], secrets: settings.toolSecrets).map { .init(name: $0.field, message: $0.message) }
        guard problems.isEmpty else { throw ValidationError(fields: problems) }
        return t
    }

    /// Why a call here cannot ask for noise suppression, if it cannot.
    nonisolated var noiseSuppressionProblem: String? {
        settings.noiseSuppression == nil ? "noise suppression is not installed on this server (make deps installs DeepFilterNet3)" : nil
    }

    /// Why this server will not hand callers to `target` (see `TransferTargetPolicy`).
    nonisolated func transferTargetRefusal(_ target: String) -> String? {
        settings.transferTargets.refusal(target, gatewayHost: settings.carrier == nil ? settings.gateway.host : nil)
    }

    /// The stored template a call names (id or name), checked against this server.
    func runnableTemplate(_ key: String) async throws -> CallTemplate {
        guard let template = try await store.template(key) else { throw ValidationError(fields: [.init(name: "template", message: "no template '\(key)'")]) }
        do {
            return try acceptable(template)
        } catch {
            throw ValidationError(fields: error.fields.map { .init(name: "template.\($0.name)", message: $0.message) })
        }
    }

    /// Why `voice` cannot speak on this server's engine, if it cannot (only the local engine's
    /// voices are known here; a provider's are its own to refuse).
    nonisolated func voiceProblem(_ voice: String) -> String? {
        guard settings.engineMode == VoiceBridgeConfig.EngineMode.local.rawValue else { return nil }
        return (try? EspeakSynthesizer(voice: voice)) == nil ? "espeak-ng has no voice '\(voice)'" : nil
    }
}
