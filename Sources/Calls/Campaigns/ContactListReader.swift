@preconcurrency import CSV
import Foundation

/// Reads a contact list — CSV as RFC 4180 has it, UTF-8 with or without a BOM, Korean headers and
/// values — one row at a time, so a list of 100,000 rows never sits in memory whole.
///
/// The phone column is the one named, or else the first whose header looks like one (`phone`,
/// `전화번호`, …); every other column becomes a variable named by its header. Each row either gives
/// a contact (number normalized) or a problem naming its line, column and reason: a bad number, a
/// duplicate of an earlier row, a row with the wrong number of fields. Nothing is dropped silently.
public struct ContactListReader {
    public struct Contact: Sendable, Equatable {
        /// The row's line in the file (the header is line 1; a quoted field spanning lines counts once).
        public var line: Int
        public var number: String
        public var variables: [String: String]
    }

    public struct Problem: Sendable, Equatable, Codable {
        public var line: Int
        public var column: String
        public var value: String
        public var reason: String
    }

    /// The file as a whole cannot be read: no header, no phone column, not CSV.
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// Headers taken for the phone column when none is named, compared case-insensitively.
    public static let phoneHeaders = ["phone", "phone_number", "phonenumber", "number", "callee_number", "mobile", "tel", "telephone",
                                      "전화번호", "휴대폰", "휴대폰번호", "핸드폰", "연락처", "번호"]

    public private(set) var header: [String] = []
    public private(set) var phoneColumn = ""
    private let reader: CSVReader
    private var line = 1
    private var seen: [String: Int] = [:]

    /// Opens the list and reads its header; throws `Failure` when there is no usable one.
    public init(stream: InputStream, phoneColumn wanted: String? = nil) throws {
        do {
            reader = try CSVReader(stream: stream, hasHeaderRow: true, trimFields: true)
        } catch {
            throw Failure(description: "the file is not readable CSV: \(error)")
        }
        guard let header = reader.headerRow, header.contains(where: { !$0.isEmpty }) else {
            throw Failure(description: reader.error.map { "the file is not UTF-8 CSV: \($0)" } ?? "the file is empty: the first line must name the columns")
        }
        self.header = header.map { $0.trimmingCharacters(in: .whitespaces) }
        let lowered = self.header.map { $0.lowercased() }
        if let wanted, !wanted.isEmpty {
            guard let index = lowered.firstIndex(of: wanted.lowercased()) else {
                throw Failure(description: "there is no column '\(wanted)' (columns: \(self.header.joined(separator: ", ")))")
            }
            phoneColumn = self.header[index]
        } else if let index = lowered.firstIndex(where: Self.phoneHeaders.contains) {
            phoneColumn = self.header[index]
        } else {
            throw Failure(description: "no phone column: name one (columns: \(self.header.joined(separator: ", ")))")
        }
    }

    public enum Row: Sendable, Equatable {
        case contact(Contact)
        case problem(Problem)
    }

    /// The next row, or nil at the end; throws when the bytes stop being UTF-8 CSV midway.
    public mutating func next() throws -> Row? {
        while let fields = reader.next() {
            line += 1
            if fields.allSatisfy(\.isEmpty) { continue }   // blank lines
            guard fields.count == header.count else {
                return .problem(Problem(line: line, column: "", value: fields.joined(separator: ","),
                                        reason: "has \(fields.count) fields; the header has \(header.count)"))
            }
            var variables: [String: String] = [:]
            var raw = ""
            for (name, value) in zip(header, fields) {
                if name == phoneColumn { raw = value } else if !name.isEmpty { variables[name] = value }
            }
            guard let number = OutboundCallRequest.normalize(number: raw) else {
                return .problem(Problem(line: line, column: phoneColumn, value: raw,
                                        reason: raw.isEmpty ? "no phone number" : "not a phone number (3 to 20 digits, optionally starting with +)"))
            }
            if let first = seen[number] {
                return .problem(Problem(line: line, column: phoneColumn, value: raw, reason: "duplicate of line \(first)"))
            }
            seen[number] = line
            return .contact(Contact(line: line, number: number, variables: variables))
        }
        if let error = reader.error { throw Failure(description: "line \(line + 1) is not UTF-8 CSV: \(error)") }
        return nil
    }
}
