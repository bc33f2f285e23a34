import Foundation
import Synchronization
import Testing
@testable import Tools

/// The runner between the model and the operator's HTTP tool; the server's transport (egress
/// policy, a real socket) is tested in CallsTests.
@Suite struct ToolRunnerTests {
    /// Answers as told and keeps what was asked.
    final class ScriptedTransport: ToolTransport {
        let requests = Mutex<[ToolHTTPRequest]>([])
        let answer: @Sendable (ToolHTTPRequest) throws(ToolTransportFailure) -> ToolHTTPResponse
        init(_ answer: @escaping @Sendable (ToolHTTPRequest) throws(ToolTransportFailure) -> ToolHTTPResponse) { self.answer = answer }
        func send(_ request: ToolHTTPRequest, timeout: Duration, bodyLimit: Int) async throws(ToolTransportFailure) -> ToolHTTPResponse {
            requests.withLock { $0.append(request) }
            return try answer(request)
        }
    }

    static let booking = ToolDefinition(
        name: "book_slot", description: "Book an appointment slot.",
        parameters: try! JSONValue.parse(#"{"type":"object","properties":{"date":{"type":"string","pattern":"^\\d{4}-\\d{2}-\\d{2}$"},"party":{"type":"integer","minimum":1,"maximum":8}},"required":["date"],"additionalProperties":false}"#),
        url: "https://crm.example.com/slots?source=voice", method: "POST", headers: ["Authorization": "Bearer ${secret:crm_token}"])
    static let secrets = ToolSecrets(configured: ["crm_token": ToolSecret(value: "s3cr3t-token", hosts: ["crm.example.com", "127.0.0.1"])])

    @Test func validArgumentsBecomeAJSONBodyWithTheSecretFilledIn() async throws {
        let transport = ScriptedTransport { _ in ToolHTTPResponse(status: 200, body: Array(#"{"booked":true,"slot":"10:30"}"#.utf8)) }
        let seen = Mutex<[ToolCallRecord]>([])
        let runner = ToolRunner(transport: transport, secrets: Self.secrets) { record in seen.withLock { $0.append(record) } }
        let outcome = await runner.call(Self.booking, arguments: #"{"date":"2026-12-01","party":2}"#)
        #expect(outcome.answer == #"{"booked":true,"slot":"10:30"}"#)
        #expect(outcome.record.status == .ok && outcome.record.httpStatus == 200)
        let request = try #require(transport.requests.withLock { $0.first })
        #expect(request.method == "POST" && request.url == "https://crm.example.com/slots?source=voice")
        #expect(request.headers.contains { $0.name == "Authorization" && $0.value == "Bearer s3cr3t-token" })
        #expect(request.headers.contains { $0.name == "Content-Type" && $0.value == "application/json" })
        #expect(try JSONValue.parse(String(decoding: request.body ?? [], as: UTF8.self)) == JSONValue.parse(#"{"date":"2026-12-01","party":2}"#))
        #expect(seen.withLock { $0 } == [outcome.record], "every call is observed (the server counts it)")
    }

    @Test func argumentsThatBreakTheSchemaNeverLeaveAndTheModelIsToldWhy() async throws {
        let transport = ScriptedTransport { _ in ToolHTTPResponse(status: 200, body: []) }
        let runner = ToolRunner(transport: transport, secrets: Self.secrets)
        let cases: [(String, String)] = [
            (#"{"party":2}"#, "date: is required"),
            (#"{"date":"tomorrow"}"#, #"date: must match"#),
            (#"{"date":"2026-12-01","party":0}"#, "party: must be at least 1"),
            (#"{"date":"2026-12-01","party":"two"}"#, "party: must be integer, not string"),
            (#"{"date":"2026-12-01","room":"A"}"#, "room: is not a parameter of this tool"),
            (#"{"date":"2026-12-01""#, "not valid JSON"),
            (#"["2026-12-01"]"#, "arguments: must be object, not array"),
        ]
        for (arguments, why) in cases {
            let outcome = await runner.call(Self.booking, arguments: arguments)
            #expect(outcome.record.status == .invalidArguments, "\(arguments)")
            let answer = try JSONValue.parse(outcome.answer)
            #expect(answer["error"] == .string("invalid_arguments"))
            #expect(answer["message"]?.stringValue?.contains(why) == true, "\(arguments): \(outcome.answer)")
        }
        #expect(transport.requests.withLock { $0.isEmpty }, "no request was made for bad arguments")
    }

    @Test func everyWayATransportOrAToolFailsIsAClearAnswer() async throws {
        let cases: [(ToolTransportFailure?, ToolHTTPResponse?, ToolCallRecord.Status, String)] = [
            (.timeout, nil, .timeout, "did not answer within 5000 ms"),
            (.tooLarge, nil, .tooLarge, "larger than 16384 bytes"),
            (.refused("10.0.0.5 is a private address"), nil, .refused, "may not connect there"),
            (.connectionFailed, nil, .failed, "could not connect"),
            (nil, ToolHTTPResponse(status: 409, body: Array(#"{"reason":"slot taken"}"#.utf8)), .httpError, #""reason":"slot taken""#),
            (nil, ToolHTTPResponse(status: 200, body: Array("<html>ok</html>".utf8)), .invalidJSON, "not JSON"),
        ]
        for (failure, response, status, says) in cases {
            let transport = ScriptedTransport { _ throws(ToolTransportFailure) in
                if let failure { throw failure }
                return response!
            }
            let outcome = await ToolRunner(transport: transport, secrets: Self.secrets).call(Self.booking, arguments: #"{"date":"2026-12-01"}"#)
            #expect(outcome.record.status == status)
            #expect(outcome.answer.contains(says), "\(status): \(outcome.answer)")
            #expect((try? JSONValue.parse(outcome.answer)) != nil, "the model always gets JSON: \(outcome.answer)")
        }
    }

    @Test func getSendsTheArgumentsAsAnEncodedQuery() async throws {
        let transport = ScriptedTransport { _ in ToolHTTPResponse(status: 200, body: Array(#"{"status":"shipped"}"#.utf8)) }
        var lookup = ToolDefinition(name: "order_status", description: "Look up an order.",
                                    parameters: try JSONValue.parse(#"{"type":"object","properties":{"order":{"type":"string"},"name":{"type":"string"},"express":{"type":"boolean"}}}"#),
                                    url: "http://127.0.0.1:8080/orders?v=1", method: "GET")
        lookup.headers = ["X-Api-Key": "${secret:crm_token}"]
        _ = await ToolRunner(transport: transport, secrets: Self.secrets).call(lookup, arguments: #"{"order":"A+1 &2","name":"김민수","express":true}"#)
        let request = try #require(transport.requests.withLock { $0.first })
        #expect(request.body == nil)
        #expect(request.url == "http://127.0.0.1:8080/orders?v=1&express=true&name=%EA%B9%80%EB%AF%BC%EC%88%98&order=A%2B1%20%262")
    }

    @Test func secretsAreMaskedInTheRecordAndTheAnswer() async throws {
        // A tool that echoes its header back, and a model that repeats the secret it should not know.
        let transport = ScriptedTransport { request in
            ToolHTTPResponse(status: 200, body: Array(#"{"echo":"\#(request.headers.first { $0.name == "Authorization" }!.value)"}"#.utf8))
        }
        let outcome = await ToolRunner(transport: transport, secrets: Self.secrets).call(Self.booking, arguments: #"{"date":"2026-12-01","note":"s3cr3t-token"}"#)
        #expect(!outcome.record.arguments.contains("s3cr3t-token") && outcome.record.arguments.contains("***"))
        let ok = await ToolRunner(transport: transport, secrets: Self.secrets).call(Self.booking, arguments: #"{"date":"2026-12-01"}"#)
        #expect(ok.answer == #"{"echo":"Bearer ***"}"#)
        #expect(!ok.record.transcriptLine.contains("s3cr3t"))
    }

    @Test func aMissingSecretFailsTheCallNotTheServer() async throws {
        let transport = ScriptedTransport { _ in ToolHTTPResponse(status: 200, body: []) }
        let outcome = await ToolRunner(transport: transport, secrets: ToolSecrets()).call(Self.booking, arguments: #"{"date":"2026-12-01"}"#)
        #expect(outcome.record.status == .failed)
        #expect(outcome.record.error == "the secret 'crm_token' is not configured")
        #expect(transport.requests.withLock { $0.isEmpty })
    }
}
