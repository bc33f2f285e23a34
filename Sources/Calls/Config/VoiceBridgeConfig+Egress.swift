import Egress
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

    /// `secrets.<name>: {value: …, hosts: [crm.example.com]}`. Every secret names the hosts it may
    /// be sent to; a plain `secrets.<name>: "…"` (the form before hosts were required) is refused
    /// with the form to write, since a secret bound to nowhere would go wherever a tool declared
    /// over the API points. The value may instead come from `VOICEBRIDGE_SECRET_<NAME>`.
    static func readSecrets(_ c: inout VoiceBridgeConfig, _ r: inout ConfigReader) throws {
        for name in r.childNames(of: "secrets") {
            let key = "secrets.\(name)"
            guard name.wholeMatch(of: /[A-Za-z0-9_]{1,64}/) != nil else {
                throw ConfigError(key: key, problem: "a secret's name is 1 to 64 letters, digits or _", origin: r.origin(of: key))
            }
            if r.origin(of: key) != nil {
                throw ConfigError(key: key, problem: "a secret names the hosts it may be sent to: write \(key): {value: \"…\", hosts: [crm.example.com]}", origin: r.origin(of: key))
            }
            let hosts = try r.list("\(key).hosts", default: [])
            guard !hosts.isEmpty else {
                throw ConfigError(key: "\(key).hosts", problem: "list the hosts this secret may be sent to (crm.example.com, *.example.com): tools and MCP servers elsewhere do not get it",
                                  origin: r.origin(of: "\(key).value"))
            }
            if let bad = hosts.lazy.compactMap(ToolSecret.hostProblem).first {
                throw ConfigError(key: "\(key).hosts", problem: bad, origin: r.origin(of: "\(key).hosts"))
            }
            let value = try r.optionalString("\(key).value")
            if let value, value.count < ToolSecrets.shortestMasked {
                throw ConfigError(key: "\(key).value", problem: "is shorter than \(ToolSecrets.shortestMasked) characters: too short to be a secret, and too short to mask in records",
                                  origin: r.origin(of: "\(key).value"))
            }
            c.secrets[name] = ToolSecret(value: value, hosts: hosts)
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
            guard let host = VoiceBridgeConfig.sipTarget(target)?.host, let gatewayHost, host.lowercased() == gatewayHost.lowercased() else {
                return "a sip: target must be on the SIP gateway's host unless transfer.allowed_targets lists it"
            }
            return nil
        }
        return rules.contains { $0.matches(target) } ? nil : "is not in transfer.allowed_targets"
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
            guard VoiceBridgeConfig.sipTarget(text) != nil else { return nil }
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
            guard let uri = VoiceBridgeConfig.sipTarget(target) else { return false }
            return uri.host.lowercased() == host
        case .sipURI(let uri): return target == uri
        case .number(let number): return OutboundCallRequest.normalize(number: target) == number
        case .numberPrefix(let prefix):
            guard !target.hasPrefix("sip:"), let number = OutboundCallRequest.normalize(number: target) else { return false }
            return number.hasPrefix(prefix)
        }
    }

}
