import Foundation
import Glibc
import Testing
@testable import Doctor

/// `voicebridge doctor` names what stops a server before it starts, with a fix, and passes a
/// machine that can serve.
@Suite struct DoctorTests {
    static func scratch() -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("doctor-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// The test environment has what `make deps` installs (make test fails on a skip otherwise),
    /// so the default configuration on free ports is ready to serve.
    @Test func aMachineThatCanServeIsReady() async {
        let folder = Self.scratch()
        let checks = await Doctor.checks(configPath: nil, environment: [
            "VOICEBRIDGE_HTTP_PORT": "0", "VOICEBRIDGE_SIP_PORT": "0", "VOICEBRIDGE_DATABASE_PATH": "\(folder)/db.sqlite",
        ])
        #expect(checks.map(\.name).starts(with: ["configuration", "engine local", "Korean offline", "http port 0", "sip port 0", "database"]))
        #expect(checks.allSatisfy { $0.verdict != .fail }, "\(checks.map(\.line))")
    }

    @Test func aBadConfigurationIsTheOneCheckAndNamesItsKey() async {
        let checks = await Doctor.checks(configPath: nil, environment: ["VOICEBRIDGE_HTTP_PORT": "eighty"])
        #expect(checks.count == 1 && checks[0].verdict == .fail && checks[0].detail.contains("http.port"), "\(checks.map(\.line))")
        #expect(checks[0].fix != nil)
    }

    @Test func aPortInUseAndADatabaseItCannotWriteFailWithAFix() async throws {
        // Hold a TCP port the way another server would.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        try #require(bound == 0 && listen(fd, 1) == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        let taken = Int(UInt16(bigEndian: address.sin_port))
        let file = Self.scratch() + "/a-file"
        try #require(FileManager.default.createFile(atPath: file, contents: Data()))
        let checks = await Doctor.checks(configPath: nil, environment: [
            "VOICEBRIDGE_HTTP_PORT": "\(taken)", "VOICEBRIDGE_SIP_PORT": "0",
            "VOICEBRIDGE_DATABASE_PATH": "\(file)/under-a-file/db.sqlite",   // a folder that cannot be made
        ])
        let http = try #require(checks.first { $0.name == "http port \(taken)" })
        #expect(http.verdict == .fail && http.detail.contains("in use") && http.fix?.contains("http.port") == true, "\(http.line)")
        let database = try #require(checks.first { $0.name == "database" })
        #expect(database.verdict == .fail && database.fix?.contains("database.path") == true, "\(database.line)")
    }

    @Test func aGatewayNoResolverKnowsFails() {
        #expect(Doctor.resolves("sip:trunk.invalid:5060").verdict == .fail)
        #expect(Doctor.resolves("sip:127.0.0.1:5060").verdict == .ok)
        #expect(Doctor.resolves("no uri at all").verdict == .fail)
    }

    @Test func aFailedCheckReadsAsOneLineWithItsFix() {
        let check = Doctor.Check("http port 8080", .fail, "cannot bind 127.0.0.1:8080/tcp: in use", fix: "set http.port")
        #expect(check.line == "FAIL  http port 8080: cannot bind 127.0.0.1:8080/tcp: in use — fix: set http.port")
        #expect(Doctor.Check("database", .ok, "opens").line == "ok    database: opens")
    }
}
