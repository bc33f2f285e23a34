import Foundation

/// Turns an `Encodable` record into the columns an INSERT or UPDATE writes, as GRDB's Codable
/// records did: property `outboundId` → column `outbound_id`, plain values as themselves, enums
/// through their raw value, anything else (an array of questions) as JSON text. A nil optional is
/// written as NULL, so an update clears the column (Swift's default encoding would leave it out).
struct SQLRowEncoder {
    static func columns<T: Encodable>(of record: T) throws -> [(column: String, value: SQLValue)] {
        let storage = Storage()
        try record.encode(to: RowEncoder(storage: storage))
        return storage.columns
    }

    private final class Storage {
        var columns: [(column: String, value: SQLValue)] = []
    }

    private struct RowEncoder: Encoder {
        let storage: Storage
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            KeyedEncodingContainer(Columns<Key>(storage: storage))
        }
        func unkeyedContainer() -> any UnkeyedEncodingContainer { fatalError("a record encodes as keyed columns") }
        func singleValueContainer() -> any SingleValueEncodingContainer { fatalError("a record encodes as keyed columns") }
    }

    private struct Columns<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let storage: Storage
        var codingPath: [any CodingKey] { [] }

        func put(_ value: SQLValue, _ key: Key) {
            storage.columns.append((SQLRowDecoder.column(for: key.stringValue), value))
        }
        mutating func encodeNil(forKey key: Key) throws { put(.null, key) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { put(try SQLRowEncoder.value(of: value), key) }
        mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
            put(try value.map { try SQLRowEncoder.value(of: $0) } ?? .null, key)
        }
        // Swift calls these for optionals of plain types; each writes NULL for nil, like the generic one.
        mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { put(value.sqlValue, key) }
        mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { put(value.sqlValue, key) }
        mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { put(value.sqlValue, key) }
        mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { put(value.sqlValue, key) }
        mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { put(value.sqlValue, key) }
        mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { put(value.map { .real(Double($0)) } ?? .null, key) }
        mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { put(value.map { .integer(Int64($0)) } ?? .null, key) }
        mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { put(value.map { .integer(Int64($0)) } ?? .null, key) }
        mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { put(value.map { .integer(Int64($0)) } ?? .null, key) }
        mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { put(value.map { .integer(Int64($0)) } ?? .null, key) }
        mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { put(value.map { .integer(Int64($0)) } ?? .null, key) }
        mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { put(value.map { .integer(Int64($0)) } ?? .null, key) }
        mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { put(value.map { .integer(Int64($0)) } ?? .null, key) }
        mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { put(value.map { .integer(Int64($0)) } ?? .null, key) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            fatalError("nested records are stored as JSON text: encode them as a value")
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            fatalError("arrays are stored as JSON text: encode them as a value")
        }
        mutating func superEncoder() -> any Encoder { RowEncoder(storage: storage) }
        mutating func superEncoder(forKey key: Key) -> any Encoder { RowEncoder(storage: storage) }
    }

    /// One property's column value: a plain type as itself, a raw-value enum as its raw value,
    /// anything else as JSON text.
    static func value<T: Encodable>(of value: T) throws -> SQLValue {
        if let plain = value as? any SQLValueConvertible { return plain.sqlValue }
        if let integer = value as? any BinaryInteger { return .integer(Int64(integer)) }
        if let float = value as? Float { return .real(Double(float)) }
        if let raw = value as? any RawRepresentable, let plain = raw.rawValue as? any SQLValueConvertible { return plain.sqlValue }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return .text(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}
