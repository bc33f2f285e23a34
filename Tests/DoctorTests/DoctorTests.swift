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
        #expect(checks.map(\.name).starts(with: ["configuration", "engine local", "models", "Korean offline", "http port 0", "sip port 0", "database"]))
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

    /// `make deps` lists every model with its SHA-256 as installed; a file changed, cut short or gone
    /// since fails, named, with what to delete. (The digests are SHA-256's published test vectors:
    /// "abc" and the empty input.)
    @Test func aModelThatIsNotTheOneMakeDepsInstalledFailsNamingIt() throws {
        let deps = Self.scratch()
        try FileManager.default.createDirectory(atPath: deps + "/voice", withIntermediateDirectories: true)
        try Data("abc".utf8).write(to: URL(fileURLWithPath: deps + "/voice/model.onnx"))
        try Data().write(to: URL(fileURLWithPath: deps + "/tokens.bin"))
        let manifest = """
            ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  voice/model.onnx
            e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 *tokens.bin

            """
        try manifest.write(toFile: deps + "/models.sha256", atomically: true, encoding: .utf8)
        let intact = try #require(ModelChecksums.check(deps: deps, required: true))
        #expect(intact.verdict == .ok && intact.detail.hasPrefix("2 files"), "\(intact.line)")

        try Data("abd".utf8).write(to: URL(fileURLWithPath: deps + "/voice/model.onnx"))
        try FileManager.default.removeItem(atPath: deps + "/tokens.bin")
        let broken = try #require(ModelChecksums.check(deps: deps, required: false))
        #expect(broken.verdict == .fail, "\(broken.line)")
        #expect(broken.detail == "tokens.bin is missing; voice/model.onnx is not the file make deps installed", "\(broken.line)")
        #expect(broken.fix == "delete \(deps)/tokens.bin, \(deps)/voice/model.onnx and run `make deps`", "\(broken.line)")

        try "ba7816bf  voice/model.onnx\n".write(toFile: deps + "/models.sha256", atomically: true, encoding: .utf8)
        let malformed = try #require(ModelChecksums.check(deps: deps, required: true))
        #expect(malformed.verdict == .fail && malformed.detail.hasSuffix("line 1 is not `<64 hex digits>  <path>`"), "\(malformed.line)")

        try FileManager.default.removeItem(atPath: deps + "/models.sha256")
        #expect(ModelChecksums.check(deps: deps, required: true)?.verdict == .warn, "the local engine loads models: no list is a warning")
        #expect(ModelChecksums.check(deps: deps, required: false) == nil, "a cloud engine needs no make deps: no line")
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
