import Foundation

/// Reads a `Decodable` record from a row, as GRDB's Codable records did: a property `outboundId`
/// reads column `outbound_id` (or `outboundId` when the row has that), a plain value from its
/// column, anything else (an array of questions) from the JSON text stored in its column.
struct SQLRowDecoder {
    static func decode<T: Decodable>(_ type: T.Type, from row: SQLRow) throws -> T {
        try T(from: RowDecoder(row: row))
    }

    /// `outboundId` → `outbound_id`: the column a property is stored in.
    static func column(for key: String) -> String {
        var column = ""
        for character in key {
            if character.isUppercase, !column.isEmpty { column.append("_") }
            column.append(contentsOf: character.lowercased())
        }
        return column
    }

    private struct RowDecoder: Decoder {
        let row: SQLRow
        var codingPath: [any CodingKey] = []
        var userInfo: [CodingUserInfoKey: Any] = [:]

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            KeyedDecodingContainer(Columns<Key>(row: row))
        }
        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            throw DecodingError.typeMismatch([Any].self, .init(codingPath: [], debugDescription: "a row decodes as a keyed record"))
        }
        func singleValueContainer() throws -> any SingleValueDecodingContainer {
            guard row.values.count == 1 else {
                throw DecodingError.typeMismatch(Any.self, .init(codingPath: [], debugDescription: "a single value needs a one-column row"))
            }
            return Cell(value: row.values[0], codingPath: [])
        }
    }

    private struct Columns<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let row: SQLRow
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { row.columns.compactMap { Key(stringValue: $0) } }

        func value(_ key: Key) -> SQLValue? {
            row.value(key.stringValue) ?? row.value(SQLRowDecoder.column(for: key.stringValue))
        }
        func contains(_ key: Key) -> Bool { value(key) != nil }
        func decodeNil(forKey key: Key) throws -> Bool { value(key) == nil || value(key) == .null }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            guard let value = value(key) else {
                throw DecodingError.keyNotFound(key, .init(codingPath: [key], debugDescription: "no column \(SQLRowDecoder.column(for: key.stringValue))"))
            }
            return try Cell(value: value, codingPath: [key]).decode(T.self)
        }
        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            throw DecodingError.typeMismatch(type, .init(codingPath: [key], debugDescription: "nested records are stored as JSON text"))
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw DecodingError.typeMismatch([Any].self, .init(codingPath: [key], debugDescription: "arrays are stored as JSON text"))
        }
        func superDecoder() throws -> any Decoder { RowDecoder(row: row) }
        func superDecoder(forKey key: Key) throws -> any Decoder { RowDecoder(row: row) }
    }

    /// One column's value: a plain type directly, a `RawRepresentable` enum through its raw value
    /// (its `init(from:)` asks a single-value container), anything else from JSON text.
    private struct Cell: Decoder, SingleValueDecodingContainer {
        let value: SQLValue
        var codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func decodeNil() -> Bool { value == .null }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            if let plain = type as? any SQLValueConvertible.Type {
                guard let read = plain.init(sqlValue: value) as? T else { throw mismatch(type) }
                return read
            }
            if let integer = try integerType(type) { return integer }
            if T.self == Float.self {
                guard let real = Double(sqlValue: value) else { throw mismatch(type) }
                return Float(real) as! T
            }
            do {
                return try T(from: self)
            } catch is NeedsJSON {
                guard case .text(let text) = value else { throw mismatch(type) }
                return try JSONDecoder().decode(T.self, from: Data(text.utf8))
            }
        }

        /// Int32, UInt8 and the like, which no column type names on its own.
        private func integerType<T>(_ type: T.Type) throws -> T? {
            guard let integer = type as? any BinaryInteger.Type else { return nil }
            guard let stored = Int64(sqlValue: value), let read = integer.init(exactly: stored) as? T else { throw mismatch(type) }
            return read
        }

        private func mismatch(_ type: Any.Type) -> DecodingError {
            .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "column holds \(value), not \(type)"))
        }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> { throw NeedsJSON() }
        func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw NeedsJSON() }
        func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

        // The typed requirements, each through the generic one.
        func decode(_ type: Bool.Type) throws -> Bool { try decodeGeneric(type) }
        func decode(_ type: String.Type) throws -> String { try decodeGeneric(type) }
        func decode(_ type: Double.Type) throws -> Double { try decodeGeneric(type) }
        func decode(_ type: Float.Type) throws -> Float { try decodeGeneric(type) }
        func decode(_ type: Int.Type) throws -> Int { try decodeGeneric(type) }
        func decode(_ type: Int8.Type) throws -> Int8 { try decodeGeneric(type) }
        func decode(_ type: Int16.Type) throws -> Int16 { try decodeGeneric(type) }
        func decode(_ type: Int32.Type) throws -> Int32 { try decodeGeneric(type) }
        func decode(_ type: Int64.Type) throws -> Int64 { try decodeGeneric(type) }
        func decode(_ type: UInt.Type) throws -> UInt { try decodeGeneric(type) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeGeneric(type) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeGeneric(type) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeGeneric(type) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeGeneric(type) }
        private func decodeGeneric<T: Decodable>(_ type: T.Type) throws -> T { try decode(type) }
    }

    /// Thrown by a cell asked for a container: the value is a nested record or array, stored as JSON.
    private struct NeedsJSON: Error {}
}
