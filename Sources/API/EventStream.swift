import Calls
import Foundation
import HummingbirdWebSocket
import Logging

/// `GET /api/events`: seed 000 §6.3's events and transcript lines as they happen, read from the
/// append-only events table (every node's, when nodes share a database) — events are stored before they are announced, so a client that
/// reconnects with `?since=<last id it saw>` gets exactly what it missed, in order.
struct EventStream: Sendable {
    let store: CallStore
    let logger: Logger
    /// How often the table is read for new events while nothing is pending. This node's events
    /// wake the reader at once, and on PostgreSQL every node's (a notification); on SQLite another
    /// process sharing the file rings no bell, so it is read often.
    var pollInterval: Duration { store.announcesEvents ? .seconds(2) : .milliseconds(150) }

    /// One message per stored event: `{id, type, outbound_id, created_at, data}`.
    struct Message: Encodable {
        var id: Int64
        var type: String
        var outboundId: String
        var createdAt: Date
        var data: [String: AnyEncodable]

        enum CodingKeys: String, CodingKey {
            case id, type, data
            case outboundId = "outbound_id", createdAt = "created_at"
        }
    }

    func run(since: Int64?, outbound: WebSocketOutboundWriter, inbound: WebSocketInboundStream) async throws {
        let start: Int64
        if let since { start = since } else { start = try await store.latestEventID() }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        try await withThrowingTaskGroup(of: Void.self) { group in
            // The client's side: when it closes (or sends anything odd), the stream ends.
            group.addTask { for try await _ in inbound.messages(maxSize: 4096) {} }
            group.addTask {
                var last = start
                while !Task.isCancelled {
                    let events = try await store.events(after: last, limit: 500)
                    for event in events {
                        last = event.id ?? last
                        let message = try await message(for: event)
                        try await outbound.write(.text(String(decoding: try encoder.encode(message), as: UTF8.self)))
                    }
                    if events.count < 500 {
                        await store.waitForEvents(timeout: pollInterval)
                        try Task.checkCancellation()
                    }
                }
            }
            try await group.next()
            group.cancelAll()
        }
    }

    /// Seed §6.3 names and payloads; the call row fills in what the stored event does not carry.
    func message(for event: CallEvent) async throws -> Message {
        let payload = (try? JSONSerialization.jsonObject(with: Data(event.payload.utf8))) as? [String: String] ?? [:]
        var data: [String: AnyEncodable] = ["outbound_id": .string(event.outboundId)]
        let type = Self.wireType(of: event.type, payload: payload)
        // Read by the state changes that carry the row's fields, where they need it: a transcript
        // line or a progress count (most of a call's events) is sent without reading it.
        let row = { try await store.call(id: event.outboundId) }
        switch type {
        case "outbound_queued", "inbound_connected":
            let call = try await row()
            data["callee_number"] = .string(call.map { CallView.mask($0.calleeNumber) } ?? "")
            data["purpose"] = .string(call?.purpose ?? "")
            data["direction"] = .string(call?.direction.rawValue ?? "outbound")
        case "outbound_dialing":
            let call = try await row()
            data["attempt"] = .int(Int(payload["attempt_count"] ?? "") ?? call?.attemptCount ?? 1)
        case "outbound_connected":
            let call = try await row()
            data["answered_at"] = .date(call?.answeredAt ?? event.createdAt)
        case "outbound_progress":
            data["progress"] = .object(["total": .int(Int(payload["total"] ?? "") ?? 0), "completed": .int(Int(payload["answered"] ?? "") ?? 0)])
        case "outbound_completed", "outbound_ended":
            let call = try await row()
            data["task_completed"] = call?.taskCompleted.map { .bool($0) } ?? .null
            data["summary"] = .string(call?.summary ?? "")
            data["direction"] = .string(call?.direction.rawValue ?? "outbound")
        case "outbound_failed":
            data["state"] = .string(String(event.type.split(separator: "_", maxSplits: 1)[1]))
            data["reason"] = .string(payload["reason"] ?? String(event.type.dropFirst("outbound_".count)))
        case "transcript":
            data["speaker"] = .string(payload["speaker"] ?? "")
            data["text"] = .string(payload["text"] ?? "")
            data["timestamp"] = .double(Double(payload["timestamp"] ?? "") ?? 0)
        default:
            for (key, value) in payload { data[key] = .string(value) }
        }
        if let state = VoiceBridgeServer.state(ofEventType: event.type) { data["state"] = data["state"] ?? .string(state.rawValue) }
        return Message(id: event.id ?? 0, type: type, outboundId: event.outboundId, createdAt: event.createdAt, data: data)
    }

    /// The type a stored event is sent as: seed §6.3's names, where a call's end is
    /// `outbound_completed` (`outbound_ended` when the callee hung up) or `outbound_failed` (the
    /// state in its data) whichever the direction; every other type as it was stored.
    /// openapi.yaml's `Event.type` lists what this gives (`EventsAndDocumentTests`).
    static func wireType(of stored: String, payload: [String: String]) -> String {
        switch stored {
        case "outbound_completed", "inbound_completed": ["remote_hangup", "media_timeout"].contains(payload["reason"]) ? "outbound_ended" : "outbound_completed"
        case "outbound_no_answer", "outbound_busy", "outbound_rejected", "outbound_failed", "inbound_failed": "outbound_failed"
        default: stored
        }
    }
}

/// The few JSON shapes event data holds.
indirect enum AnyEncodable: Encodable {
    case string(String), int(Int), double(Double), bool(Bool), date(Date), object([String: AnyEncodable]), null

    func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let v): try container.encode(v)
        case .int(let v): try container.encode(v)
        case .double(let v): try container.encode(v)
        case .bool(let v): try container.encode(v)
        case .date(let v): try container.encode(v)
        case .object(let v): try container.encode(v)
        case .null: try container.encodeNil()
        }
    }
}
