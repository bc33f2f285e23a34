import Foundation
import Tools

extension VoiceBridgeConfig {
    /// `egress.allow` and `transfer.allowed_targets`.
    static func readEgress(_ c: inout VoiceBridgeConfig, _ r: inout ConfigReader) throws {
        c.egress.allow = try r.list("egress.allow", default: []).map { text in
            guard let network = IPNetwork(text) else {
                throw ConfigError(key: "egress.allow", problem: "'\(text)' is not an address or address/length block (10.0.0.0/8, fd00::/8)", origin: r.origin(of: "egress.allow"))
            }
            return network
        }
        let country = try r.string("numbers.default_country", default: c.numbers.country.iso)
        guard let plan = NumberPlan(defaultCountry: country) else {
            throw ConfigError(key: "numbers.default_country", problem: "'\(country)' is not one of \(NumberPlan.countries.map(\.iso).joined(separator: ", ")) (numbers in other countries work when written with +)",
                              origin: r.origin(of: "numbers.default_country"))
        }
        c.numbers = plan
        c.transfer.allowedTargets = try r.list("transfer.allowed_targets", default: [])
        if let bad = c.transfer.allowedTargets.first(where: { TransferTargetRule($0) == nil }) {
            throw ConfigError(key: "transfer.allowed_targets", problem: "'\(bad)' is not a number, a number prefix ending in * (+8210*), sip:user@host or sip:*@host",
                              origin: r.origin(of: "transfer.allowed_targets"))
        }
    }

    /// The egress policy this configuration gives: its allowed blocks, and loopback when the
    /// server has no API token (it then listens on loopback only, for local set-ups).
    public var egressPolicy: EgressPolicy {
        EgressPolicy(allowed: egress.allow, allowsLoopback: api.tokens.isEmpty)
    }

    /// Where transfers may go: `transfer.allowed_targets`, the configured target, the gateway's host.
    public var transferTargetPolicy: TransferTargetPolicy {
        TransferTargetPolicy(rules: transfer.allowedTargets.compactMap(TransferTargetRule.init), configuredTarget: transfer.target)
    }

    /// The secrets tools may name: `secrets.*`, then `VOICEBRIDGE_SECRET_<NAME>` in the environment.
    public var toolSecrets: ToolSecrets {
        ToolSecrets(configured: secrets, environment: ProcessInfo.processInfo.environment)
    }
}

/// Which `transfer_to` values a call or template may hold beyond their syntax (see
/// `VoiceBridgeConfig.transferTargetProblem`): one matching `transfer.allowed_targets`, or, with no
/// list, a number or a `sip:` URI on the gateway's host — callers and the trunk's credentials go
/// nowhere else.
public struct TransferTargetPolicy: Sendable, Equatable {
    public var rules: [TransferTargetRule] = []
    public var configuredTarget: String?

    public init(rules: [TransferTargetRule] = [], configuredTarget: String? = nil) {
        self.rules = rules
        self.configuredTarget = configuredTarget
    }

    /// Why `target` is refused, or nil; `gatewayHost` is the host outbound calls go to.
    public func refusal(_ target: String, gatewayHost: String?) -> String? {
        if target == configuredTarget { return nil }
        if rules.isEmpty {
            guard target.hasPrefix("sip:") else { return nil }
            guard let host = SIPTargetParts(target)?.host, let gatewayHost, host.lowercased() == gatewayHost.lowercased() else {
                return "a sip: target must be on the SIP gateway's host unless transfer.allowed_targets lists it"
            }
            return nil
        }
        return rules.contains { $0.matches(target) } ? nil : "is not in transfer.allowed_targets"
    }
}

/// The user and host of `sip:user@host[:port]`.
struct SIPTargetParts {
    let user: String?
    let host: String

    init?(_ text: String) {
        guard text.hasPrefix("sip:") else { return nil }
        let rest = text.dropFirst(4)
        let at = rest.lastIndex(of: "@")
        user = at.map { String(rest[..<$0]) }
        let hostPort = at.map { rest[rest.index(after: $0)...] } ?? rest[...]
        guard let host = hostPort.split(separator: ":").first, !host.isEmpty else { return nil }
        self.host = String(host)
    }
}

/// One entry of `transfer.allowed_targets`: a number (`+821012345678`), a number prefix
/// (`+8210*`), a SIP URI (`sip:desk@pbx.example.com`) or every user on a SIP host (`sip:*@pbx.example.com`).
public enum TransferTargetRule: Sendable, Equatable {
    case number(String)
    case numberPrefix(String)
    case sipURI(String)
    case sipHost(String)

    public init?(_ text: String) {
        if text.hasPrefix("sip:*@") {
            let host = String(text.dropFirst(6))
            guard !host.isEmpty, !host.contains("@") else { return nil }
            self = .sipHost(host.lowercased())
        } else if text.hasPrefix("sip:") {
            guard VoiceBridgeConfig.isSIPURI(text) else { return nil }
            self = .sipURI(text)
        } else if text.hasSuffix("*") {
            let digits = String(text.dropLast())
            guard !digits.isEmpty, digits.allSatisfy({ $0.isNumber || $0 == "+" }) else { return nil }
            self = .numberPrefix(digits)
        } else {
            guard let number = OutboundCallRequest.normalize(number: text) else { return nil }
            self = .number(number)
        }
    }

    public func matches(_ target: String) -> Bool {
        switch self {
        case .sipHost(let host):
            guard let parts = SIPTargetParts(target) else { return false }
            return parts.host.lowercased() == host
        case .sipURI(let uri): return target == uri
        case .number(let number): return OutboundCallRequest.normalize(number: target) == number
        case .numberPrefix(let prefix):
            guard !target.hasPrefix("sip:"), let number = OutboundCallRequest.normalize(number: target) else { return false }
            return number.hasPrefix(prefix)
        }
    }

}
