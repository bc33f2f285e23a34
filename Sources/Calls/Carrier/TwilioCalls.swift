import AsyncHTTPClient
import Egress
import Foundation
import NIOCore
import Pipeline

/// Twilio's Calls REST API (2010-04-01): create an outbound call whose TwiML connects its media
/// stream back here, and end or cancel it. Form-encoded, HTTP Basic auth (the account SID and
/// auth token, or an API key and secret). A 429 or 5xx is retried with backoff (Twilio did nothing
/// then); a timeout on create is not, since the call may exist (PROTOCOLS-2 §1.6).
public struct TwilioCalls: Sendable {
    public struct Settings: Sendable, Equatable {
        public var accountSID: String
        /// `AC…:token` or `SK…:secret`.
        public var username: String
        public var password: String
        public var baseURL = "https://api.twilio.com"
        /// Waits before the 2nd and later tries of a request Twilio refused for load.
        public var backoff: [Duration] = [.milliseconds(500), .seconds(1), .seconds(2)]
        /// `twilio.api_base_url` is checked like every other destination.
        public var egress = EgressPolicy()

        public init(accountSID: String, username: String, password: String) {
            self.accountSID = accountSID
            self.username = username
            self.password = password
        }
    }

    /// Twilio's error body: `{"code":21211,"message":"…","more_info":"…","status":400}`.
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public var status: Int
        public var code: Int?
        public var message: String

        public var description: String { "twilio_error \(code.map(String.init) ?? "http \(status)"): \(message)" }
        /// Nothing was done: safe to send again.
        var isRetryable: Bool { status == 429 || status >= 500 }
    }

    /// One outbound call as Twilio is asked to place it.
    public struct NewCall: Sendable, Equatable {
        public var to: String
        public var from: String
        public var twiml: String
        public var statusCallback: String
        public var timeoutSeconds: Int
        /// Asynchronous answering-machine detection, its verdict POSTed here.
        public var machineDetectionCallback: String?
    }

    public let settings: Settings

    public init(settings: Settings) { self.settings = settings }

    var callsURL: String { "\(settings.baseURL)/2010-04-01/Accounts/\(settings.accountSID)/Calls" }

    /// Places the call; returns its `CA…` SID.
    public func create(_ call: NewCall) async throws -> String {
        var form = [("To", call.to), ("From", call.from), ("Twiml", call.twiml), ("StatusCallback", call.statusCallback),
                    ("StatusCallbackMethod", "POST"), ("Timeout", String(call.timeoutSeconds))]
        form += ["initiated", "ringing", "answered", "completed"].map { ("StatusCallbackEvent", $0) }
        if let amd = call.machineDetectionCallback {
            form += [("MachineDetection", "Enable"), ("AsyncAmd", "true"), ("AsyncAmdStatusCallback", amd), ("AsyncAmdStatusCallbackMethod", "POST")]
        }
        let body = try await post(url: callsURL + ".json", form: form, expecting: 201)
        guard let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any], let sid = object["sid"] as? String else {
            throw Failure(status: 201, code: nil, message: "the create-call answer has no sid: \(body.prefix(200))")
        }
        return sid
    }

    /// `canceled` ends a queued or ringing call; `completed` hangs up an answered one.
    public func update(sid: String, status: String) async throws {
        _ = try await post(url: "\(callsURL)/\(sid).json", form: [("Status", status)], expecting: 200)
    }

    /// Replaces the call's running TwiML (its `<Connect><Stream>` ends) with `twiml`.
    public func redirect(sid: String, twiml: String) async throws {
        _ = try await post(url: "\(callsURL)/\(sid).json", form: [("Twiml", twiml)], expecting: 200)
    }

    private func post(url: String, form: [(String, String)], expecting: Int) async throws -> String {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        let credentials = Data("\(settings.username):\(settings.password)".utf8).base64EncodedString()
        request.headers.add(name: "Authorization", value: "Basic \(credentials)")
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: Self.formEncoded(form)))
        var tries = 0
        while true {
            let response = try await EgressHTTPClient(policy: settings.egress).send(request, timeout: .seconds(15))
            let text = String(buffer: response.body)
            let status = response.status
            if status == expecting || (200..<300).contains(status) { return text }
            let failure = Self.failure(status: status, body: text)
            guard failure.isRetryable, tries < settings.backoff.count else { throw failure }
            let jitter = Double.random(in: 0.8...1.2)
            try await TaskClock().sleep(for: settings.backoff[tries] * jitter)
            tries += 1
        }
    }

    static func failure(status: Int, body: String) -> Failure {
        let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
        return Failure(status: status, code: (object?["code"] as? NSNumber)?.intValue,
                       message: object?["message"] as? String ?? "HTTP \(status): \(body.prefix(200))")
    }

    /// `application/x-www-form-urlencoded`, repeated names kept (`StatusCallbackEvent`).
    public static func formEncoded(_ pairs: [(String, String)]) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._*")
        return pairs.map { name, value in
            let encode = { (s: String) in (s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s) }
            return "\(encode(name))=\(encode(value))"
        }.joined(separator: "&")
    }
}
