import Calls
import Foundation
import Hummingbird

/// A WAV recording, whole or one byte range (RFC 9110 §14), so browsers can seek in `<audio>`;
/// streamed from disk a block at a time (`RecordingReader`), sealed or not.
enum RecordingResponse {
    static func make(_ recording: RecordingReader, range: String?) throws -> Response {
        let size = recording.size
        var headers: HTTPFields = [.contentType: "audio/wav", .acceptRanges: "bytes"]
        var status = HTTPResponse.Status.ok
        var bounds = 0..<size
        if let range {
            guard let asked = parse(range, size: size) else {
                headers[.contentRange] = "bytes */\(size)"
                throw HTTPError(.rangeNotSatisfiable, headers: headers, message: "range \(range) is not satisfiable for \(size) bytes")
            }
            bounds = asked
            status = .partialContent
            headers[.contentRange] = "bytes \(bounds.lowerBound)-\(bounds.upperBound - 1)/\(size)"
        }
        headers[.contentLength] = "\(bounds.count)"
        let sent = bounds
        let body = ResponseBody(contentLength: sent.count) { writer in
            try await recording.read(sent) { try await writer.write(ByteBuffer(bytes: $0)) }
            try await writer.finish(nil)
        }
        return Response(status: status, headers: headers, body: body)
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
