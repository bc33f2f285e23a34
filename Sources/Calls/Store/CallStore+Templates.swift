import Foundation

/// Call templates, every version kept: `templates` holds each one's current version (and whether
/// it was deleted), `template_versions` the whole text of every version as JSON.
extension CallStore {
    public enum TemplateFailure: Error, Equatable, CustomStringConvertible {
        case nameTaken(String)
        case notFound(String)

        public var description: String {
            switch self {
            case .nameTaken(let name): "a template named '\(name)' exists already"
            case .notFound(let key): "no template '\(key)'"
            }
        }
    }

    static let templateCoder = (encoder: { let e = JSONEncoder(); e.dateEncodingStrategy = .iso8601; e.outputFormatting = .sortedKeys; return e }(),
                                decoder: { let d = JSONDecoder(); d.dateDecodingStrategy = .iso8601; return d }())

    /// Stores a new template as version 1.
    public func createTemplate(_ template: CallTemplate) async throws -> CallTemplate {
        var first = template
        first.version = 1
        let t = first
        try await sqlWrite { sql in
            try Self.refuseTakenName(t.name, except: nil, in: sql)
            try sql.execute("INSERT INTO templates (id, name, version, updated_at) VALUES (?, ?, 1, ?)", t.id, t.name, t.createdAt)
            try Self.insertVersion(t, in: sql)
        }
        return t
    }

    /// Stores `template` as the next version of the template `id`; the old versions stay.
    public func updateTemplate(id: String, with template: CallTemplate) async throws -> CallTemplate {
        try await sqlWrite { sql in
            guard let current = try sql.scalar(Int.self, "SELECT version FROM templates WHERE id = ? AND deleted_at IS NULL", [.text(id)]) else {
                throw TemplateFailure.notFound(id)
            }
            try Self.refuseTakenName(template.name, except: id, in: sql)
            var t = template
            t.id = id
            t.version = current + 1
            try sql.execute("UPDATE templates SET name = ?, version = ?, updated_at = ? WHERE id = ?", t.name, t.version, t.createdAt, id)
            try Self.insertVersion(t, in: sql)
            return t
        }
    }

    /// The template with this id or name (not deleted): its current version, or `version`.
    public func template(_ key: String, version: Int? = nil) async throws -> CallTemplate? {
        try await sqlRead { sql in
            guard let row = try sql.rows("SELECT id, version FROM templates WHERE (id = ? OR name = ?) AND deleted_at IS NULL", key, key).first else {
                return nil
            }
            return try Self.templateVersion(of: try row.get("id"), try version ?? row.get("version"), in: sql)
        }
    }

    /// Every template's current version, by name.
    public func templates() async throws -> [CallTemplate] {
        try await sqlRead { sql in
            try sql.rows("SELECT id, version FROM templates WHERE deleted_at IS NULL ORDER BY name", [])
                .compactMap { try Self.templateVersion(of: try $0.get("id"), try $0.get("version"), in: sql) }
        }
    }

    /// One version of a template, deleted or not (a campaign runs the version it was made with).
    public func template(id: String, version: Int) async throws -> CallTemplate? {
        try await sqlRead { try Self.templateVersion(of: id, version, in: $0) }
    }

    /// Every version of one template, oldest first (deleted templates too: old calls name them).
    public func templateVersions(id: String) async throws -> [CallTemplate] {
        try await sqlRead { sql in
            try sql.column(String.self, "SELECT body FROM template_versions WHERE template_id = ? ORDER BY version", [.text(id)])
                .map { try Self.templateCoder.decoder.decode(CallTemplate.self, from: Data($0.utf8)) }
        }
    }

    /// Hides the template from lists and new calls; its versions stay for the calls that ran them.
    @discardableResult
    public func deleteTemplate(id: String, now: Date = Date()) async throws -> Bool {
        try await sqlWrite { try $0.execute("UPDATE templates SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL", now, id) > 0 }
    }

    private static func refuseTakenName(_ name: String, except id: String?, in sql: any SQLConnection) throws {
        // IS DISTINCT FROM: true against NULL too (a new template has no id to except).
        if try sql.scalar(Int.self, "SELECT 1 FROM templates WHERE name = ? AND deleted_at IS NULL AND id IS DISTINCT FROM ?", [.text(name), id.sqlValue]) != nil {
            throw TemplateFailure.nameTaken(name)
        }
    }

    private static func insertVersion(_ t: CallTemplate, in sql: any SQLConnection) throws {
        let body = String(decoding: try templateCoder.encoder.encode(t), as: UTF8.self)
        try sql.execute("INSERT INTO template_versions (template_id, version, body, created_at) VALUES (?, ?, ?, ?)", t.id, t.version, body, t.createdAt)
    }

    static func templateVersion(of id: String, _ version: Int, in sql: any SQLConnection) throws -> CallTemplate? {
        try sql.scalar(String.self, "SELECT body FROM template_versions WHERE template_id = ? AND version = ?", [.text(id), .integer(Int64(version))])
            .map { try templateCoder.decoder.decode(CallTemplate.self, from: Data($0.utf8)) }
    }
}
