@preconcurrency import CSV
import Foundation

/// RFC 4180 text, each line ended by CRLF (CSV.swift quotes what needs quoting): what the server
/// writes as CSV — campaign exports, and the FAQ file of answered questions.
enum CSVLines {
    static func data(_ rows: [[String]]) -> Data {
        let stream = OutputStream(toMemory: ())
        guard let writer = try? CSVWriter(stream: stream, newline: .crlf) else { return Data() }
        for row in rows { try? writer.write(row: row) }
        writer.stream.close()
        let data = stream.property(forKey: .dataWrittenToMemoryStreamKey) as? Data ?? Data()
        return data.isEmpty ? data : data + Data("\r\n".utf8)   // the writer separates rows; the last line ends too
    }
}
