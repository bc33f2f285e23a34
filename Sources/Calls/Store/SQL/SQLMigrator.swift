/// One schema change: a name, recorded once it is applied, and its statements in either dialect.
public struct SQLMigration: Sendable {
    public let name: String
    public let statements: @Sendable (SQLDialect) -> [String]

    public init(_ name: String, _ statements: @escaping @Sendable (SQLDialect) -> [String]) {
        self.name = name
        self.statements = statements
    }
}

/// Applies the migrations a database has not had yet, in order, inside the caller's transaction,
/// and records each by name. The record is the table GRDB's migrator kept (`grdb_migrations`), so
/// a SQLite file migrated before the store left GRDB's migrator carries on where it stopped;
/// PostgreSQL keeps the same table. On PostgreSQL the store's writing transaction holds the
/// write lock, so two nodes starting together migrate one after the other, the second finding nothing to do.
public struct SQLMigrator: Sendable {
    public static let table = "grdb_migrations"
    public let migrations: [SQLMigration]

    public init(_ migrations: [SQLMigration]) {
        self.migrations = migrations
    }

    /// Names of the migrations applied, in the order they are listed.
    public func applied(in sql: any SQLConnection) throws -> [String] {
        let names = Set(try sql.column(String.self, "SELECT identifier FROM \(Self.table)"))
        return migrations.map(\.name).filter(names.contains)
    }

    /// Applies every migration not yet applied, up to and including `last` when given.
    public func migrate(in sql: any SQLConnection, upTo last: String? = nil) throws {
        try sql.execute("CREATE TABLE IF NOT EXISTS \(Self.table) (identifier TEXT NOT NULL PRIMARY KEY)")
        let done = Set(try applied(in: sql))
        for migration in migrations {
            if !done.contains(migration.name) {
                for statement in migration.statements(sql.dialect) { try sql.execute(statement) }
                try sql.execute("INSERT INTO \(Self.table) (identifier) VALUES (?)", migration.name)
            }
            if migration.name == last { return }
        }
    }
}
