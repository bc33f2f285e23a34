import Foundation
import GRDB

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
        try await write { db in
            try Self.refuseTakenName(t.name, except: nil, in: db)
            try db.execute(sql: "INSERT INTO templates (id, name, version, updated_at) VALUES (?, ?, 1, ?)", arguments: [t.id, t.name, t.createdAt])
            try Self.insertVersion(t, in: db)
        }
        return t
    }

    /// Stores `template` as the next version of the template `id`; the old versions stay.
    public func updateTemplate(id: String, with template: CallTemplate) async throws -> CallTemplate {
        try await write { db in
            guard let current = try Int.fetchOne(db, sql: "SELECT version FROM templates WHERE id = ? AND deleted_at IS NULL", arguments: [id]) else {
                throw TemplateFailure.notFound(id)
            }
            try Self.refuseTakenName(template.name, except: id, in: db)
            var t = template
            t.id = id
            t.version = current + 1
            try db.execute(sql: "UPDATE templates SET name = ?, version = ?, updated_at = ? WHERE id = ?", arguments: [t.name, t.version, t.createdAt, id])
            try Self.insertVersion(t, in: db)
            return t
        }
    }

    /// The template with this id or name (not deleted): its current version, or `version`.
    public func template(_ key: String, version: Int? = nil) async throws -> CallTemplate? {
        try await read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT id, version FROM templates WHERE (id = ? OR name = ?) AND deleted_at IS NULL", arguments: [key, key]) else {
                return nil
            }
            return try Self.version(of: row["id"], version ?? row["version"], in: db)
        }
    }

    /// Every template's current version, by name.
    public func templates() async throws -> [CallTemplate] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT id, version FROM templates WHERE deleted_at IS NULL ORDER BY name")
                .compactMap { try Self.version(of: $0["id"], $0["version"], in: db) }
        }
    }

    /// One version of a template, deleted or not (a campaign runs the version it was made with).
    public func template(id: String, version: Int) async throws -> CallTemplate? {
        try await read { try Self.version(of: id, version, in: $0) }
    }

    /// Every version of one template, oldest first (deleted templates too: old calls name them).
    public func templateVersions(id: String) async throws -> [CallTemplate] {
        try await read { db in
            try String.fetchAll(db, sql: "SELECT body FROM template_versions WHERE template_id = ? ORDER BY version", arguments: [id])
                .map { try Self.templateCoder.decoder.decode(CallTemplate.self, from: Data($0.utf8)) }
        }
    }

    /// Hides the template from lists and new calls; its versions stay for the calls that ran them.
    @discardableResult
    public func deleteTemplate(id: String, now: Date = Date()) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "UPDATE templates SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL", arguments: [now, id])
            return db.changesCount > 0
        }
    }

    private static func refuseTakenName(_ name: String, except id: String?, in db: Database) throws {
        if try Bool.fetchOne(db, sql: "SELECT 1 FROM templates WHERE name = ? AND deleted_at IS NULL AND id IS NOT ?", arguments: [name, id]) == true {
            throw TemplateFailure.nameTaken(name)
        }
    }

    private static func insertVersion(_ t: CallTemplate, in db: Database) throws {
        let body = String(decoding: try templateCoder.encoder.encode(t), as: UTF8.self)
        try db.execute(sql: "INSERT INTO template_versions (template_id, version, body, created_at) VALUES (?, ?, ?, ?)",
                       arguments: [t.id, t.version, body, t.createdAt])
    }

    private static func version(of id: String, _ version: Int, in db: Database) throws -> CallTemplate? {
        try String.fetchOne(db, sql: "SELECT body FROM template_versions WHERE template_id = ? AND version = ?", arguments: [id, version])
            .map { try templateCoder.decoder.decode(CallTemplate.self, from: Data($0.utf8)) }
    }
}
