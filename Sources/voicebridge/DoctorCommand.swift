import ArgumentParser
import Doctor

/// `voicebridge doctor`: checks what `serve` needs before it starts, a line each, with a fix for
/// each failure; exit status 1 on any failure (a warning is not one). `make run` runs it first.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check what the server needs before it starts: configuration, models and keys, ports, database."
    )

    @Option(name: .long, help: "YAML configuration file (see config/voicebridge.example.yaml).")
    var config: String?

    func run() async throws {
        let checks = await Doctor.checks(configPath: config)
        for check in checks { print(check.line) }
        let failed = checks.filter { $0.verdict == .fail }.count
        let warned = checks.filter { $0.verdict == .warn }.count
        print(failed == 0 ? "doctor: ready to serve" + (warned > 0 ? " (\(warned) warning\(warned == 1 ? "" : "s"))" : "")
                          : "doctor: \(failed) problem\(failed == 1 ? "" : "s") to fix before `voicebridge serve`")
        if failed > 0 { throw ExitCode(1) }
    }
}
