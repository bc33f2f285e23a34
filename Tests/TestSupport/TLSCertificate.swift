import Foundation

/// A self-signed certificate for 127.0.0.1 (openssl), for SIP over TLS between test peers.
public struct TLSCertificate: Sendable {
    public let folder: URL
    public var certificate: String { folder.appendingPathComponent("cert.pem").path }
    public var privateKey: String { folder.appendingPathComponent("key.pem").path }
    /// Key and certificate in one file, as baresip's `sip_certificate` wants it.
    public var combined: String { folder.appendingPathComponent("tls.pem").path }

    public static func make() throws -> TLSCertificate {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "key.pem", "-out", "cert.pem", "-days", "2",
                             "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"]
        openssl.currentDirectoryURL = folder
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        let certificate = TLSCertificate(folder: folder)
        let key = try Data(contentsOf: URL(fileURLWithPath: certificate.privateKey))
        let cert = try Data(contentsOf: URL(fileURLWithPath: certificate.certificate))
        try (key + cert).write(to: URL(fileURLWithPath: certificate.combined))
        return certificate
    }
}
