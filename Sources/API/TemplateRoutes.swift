import Analysis
import Flows
import Calls
import Dialogue
import Tools
import Foundation
import Hummingbird

/// `/api/templates`: reusable purpose + questions (seed 000 §12). Editing makes a new version;
/// `GET /api/templates/{id}/versions` lists them all, and every call names the version it ran.
extension VoiceBridgeServer {
    func addTemplateRoutes(to api: RouterGroup<BasicRequestContext>) {
        let templates = api.group("templates")
        templates.get { _, _ -> TemplateList in
            TemplateList(items: try await self.store.templates())
        }
        templates.post { request, _ -> EditedResponse<CallTemplate> in
            let template = try await self.manager().acceptable(try await Self.decodeJSONBody(request, as: TemplateBody.self).template())
            let stored = try await Self.storing { try await self.store.createTemplate(template) }
            return EditedResponse(status: .created, headers: [.location: "/api/templates/\(stored.id)"], response: stored)
        }
        templates.get(":id") { request, context -> CallTemplate in
            let key = context.parameters.get("id") ?? ""
            let version = try request.uri.queryParameters.get("version").map { raw in
                guard let v = Int(raw), v > 0 else { throw ProblemDetails(.unprocessableContent, detail: "version must be a whole number, 1 or more") }
                return v
            }
            guard let template = try await self.store.template(key, version: version) else {
                throw ProblemDetails(.notFound, detail: version.map { "template \(key) has no version \($0)" } ?? "no template \(key)")
            }
            return template
        }
        templates.put(":id") { request, context -> CallTemplate in
            let id = context.parameters.get("id") ?? ""
            let template = try await self.manager().acceptable(try await Self.decodeJSONBody(request, as: TemplateBody.self).template())
            return try await Self.storing { try await self.store.updateTemplate(id: id, with: template) }
        }
        templates.get(":id/versions") { _, context -> TemplateList in
            let id = context.parameters.get("id") ?? ""
            let versions = try await self.store.templateVersions(id: id)
            guard !versions.isEmpty else { throw ProblemDetails(.notFound, detail: "no template \(id)") }
            return TemplateList(items: versions)
        }
        templates.delete(":id") { _, context -> Response in
            let id = context.parameters.get("id") ?? ""
            guard try await self.store.deleteTemplate(id: id) else { throw ProblemDetails(.notFound, detail: "no template \(id)") }
            return Response(status: .noContent)
        }
    }

    /// The store's template failures as problems: a taken name is a conflict, a missing one 404.
    static func storing(_ body: () async throws -> CallTemplate) async throws -> CallTemplate {
        do {
            return try await body()
        } catch let failure as CallStore.TemplateFailure {
            switch failure {
            case .nameTaken: throw ProblemDetails(.conflict, detail: failure.description)
            case .notFound: throw ProblemDetails(.notFound, detail: failure.description)
            }
        }
    }
}

/// `POST`/`PUT /api/templates` body; missing fields are reported by validation, all at once.
struct TemplateBody: Decodable {
    var name: String?
    var purpose: String?
    var questions: [String]?
    var greeting: String?
    var closing: String?
    var language: String?
    var voice: String?
    var engineMode: String?
    var botURL: String?
    var keypad: [String: String]?
    var machineDetection: String?
    var voicemailMessage: String?
    var transferTo: String?
    var menuPath: [MenuPathStep]?
    var languages: [String]?
    var translations: [String: ConversationTranslation]?
    var noiseSuppression: Bool?
    var maxDuration: Int?
    var retryOnNoAnswer: Bool?
    var maxRetries: Int?
    var variables: [String: String]?
    var tools: [ToolDefinition]?
    var mcpServers: [MCPServerDeclaration]?
    var knowledge: [String]?
    /// The object, or YAML / JSON text (the dashboard's editor).
    var flow: FlowSource?
    var analysis: AnalysisSpec?

    enum CodingKeys: String, CodingKey {
        case name, purpose, questions, greeting, closing, language, voice, variables, tools, mcpServers = "mcp_servers", knowledge, flow, analysis
        case engineMode = "engine_mode", botURL = "bot_url", keypad, maxDuration = "max_duration", retryOnNoAnswer = "retry_on_no_answer", maxRetries = "max_retries"
        case machineDetection = "machine_detection", voicemailMessage = "voicemail_message", transferTo = "transfer_to"
        case noiseSuppression = "noise_suppression", menuPath = "menu_path", languages, translations
    }

    func template() throws(ValidationError) -> CallTemplate {
        var t = CallTemplate(name: name ?? "", purpose: purpose ?? "", questions: questions ?? [], greeting: greeting, closing: closing, language: language,
                             voice: voice, engineMode: engineMode, botURL: botURL, keypad: keypad, maxDuration: maxDuration, retryOnNoAnswer: retryOnNoAnswer,
                             maxRetries: maxRetries, variables: variables ?? [:])
        t.machineDetection = machineDetection
        t.voicemailMessage = voicemailMessage
        t.transferTo = transferTo
        t.menuPath = menuPath
        t.languages = languages
        t.translations = translations
        t.noiseSuppression = noiseSuppression
        t.tools = tools
        t.mcpServers = mcpServers
        t.knowledge = knowledge
        t.flow = try flow?.flow()
        t.analysis = analysis
        return t
    }
}

struct TemplateList: ResponseEncodable {
    var items: [CallTemplate]
}

extension CallTemplate: ResponseEncodable {}
