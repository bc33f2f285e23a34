import Foundation
import Hummingbird

/// A WAV recording, whole or one byte range (RFC 9110 §14), so browsers can seek in `<audio>`.
/// The store hands it over opened (a sealed recording is opened whole, then ranged).
enum RecordingResponse {
    static func make(wav: Data, range: String?) throws -> Response {
        let size = wav.count
        var headers: HTTPFields = [.contentType: "audio/wav", .acceptRanges: "bytes"]
        guard let range else {
            headers[.contentLength] = "\(size)"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: wav)))
        }
        guard let bounds = parse(range, size: size) else {
            headers[.contentRange] = "bytes */\(size)"
            throw HTTPError(.rangeNotSatisfiable, headers: headers, message: "range \(range) is not satisfiable for \(size) bytes")
        }
        let data = wav[wav.startIndex + bounds.lowerBound ..< wav.startIndex + bounds.upperBound]
        headers[.contentRange] = "bytes \(bounds.lowerBound)-\(bounds.upperBound - 1)/\(size)"
        headers[.contentLength] = "\(data.count)"
        return Response(status: .partialContent, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// One range of `bytes=a-b`, `bytes=a-` or `bytes=-n`, clamped to the file; nil when unsatisfiable.
    static func parse(_ header: String, size: Int) -> Range<Int>? {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let spec = header.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard spec.count == 2 else { return nil }
        if spec[0].isEmpty {
            guard let suffix = Int(spec[1]), suffix > 0, size > 0 else { return nil }
            return max(0, size - suffix)..<size
        }
        guard let start = Int(spec[0]), start >= 0, start < size else { return nil }
        let end = spec[1].isEmpty ? size - 1 : min(Int(spec[1]) ?? -1, size - 1)
        guard end >= start else { return nil }
        return start..<(end + 1)
    }
}
