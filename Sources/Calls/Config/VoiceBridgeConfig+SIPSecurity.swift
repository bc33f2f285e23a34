import Bridge
import Foundation

extension VoiceBridgeConfig {
    /// `sip.transport`, the TLS files, `sip.srtp`: checked here so a wrong path stops start-up
    /// with the key named, not the first call.
    static func readSIPSecurity(_ sip: inout SIP, _ r: inout ConfigReader) throws {
        sip.transport = try r.choice("sip.transport", default: sip.transport)
        sip.srtp = try r.choice("sip.srtp", default: sip.srtp)
        sip.tlsCertificate = try r.optionalString("sip.tls_certificate")
        sip.tlsPrivateKey = try r.optionalString("sip.tls_private_key")
        sip.tlsCAFile = try r.optionalString("sip.tls_ca_file")
        for (key, path) in [("sip.tls_certificate", sip.tlsCertificate), ("sip.tls_private_key", sip.tlsPrivateKey), ("sip.tls_ca_file", sip.tlsCAFile)] {
            if let path, !FileManager.default.isReadableFile(atPath: path) {
                throw ConfigError(key: key, problem: "cannot read '\(path)'", origin: r.origin(of: key))
            }
        }
        if sip.transport == .tls {
            for (key, path) in [("sip.tls_certificate", sip.tlsCertificate), ("sip.tls_private_key", sip.tlsPrivateKey)] where path == nil {
                throw ConfigError(key: key, problem: "is required with sip.transport: tls (a PEM file)", origin: r.origin(of: "sip.transport"))
            }
        }
        if sip.transport != .udp, sip.gateway == nil {
            throw ConfigError(key: "sip.gateway", problem: "is required with sip.transport: \(sip.transport.rawValue) (the built-in simulated callee speaks UDP only)",
                              origin: r.origin(of: "sip.transport"))
        }
    }
}
