import ArgumentParser
import Calls
import Foundation

/// Rewrites what older keys sealed (and what was stored before encryption was turned on) under
/// the current storage key. Run it after restarting the servers with the new key as
/// `storage.encryption_key` and the old one in `storage.previous_encryption_keys`; once it reports
/// the old key retired, the old key can be removed from the configuration.
struct RekeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rekey",
        abstract: "Re-encrypt stored transcripts, answers, summaries, metadata and recordings under the current storage key (resumable)."
    )

    @Option(name: .long, help: "YAML configuration file (the one the server runs with).")
    var config: String?

    @Option(name: .long, help: "Rows rewritten per transaction.")
    var batchSize = 500

    func run() async throws {
        let settings = try CommandSetup.configuration(path: config)
        guard let cipher = settings.storage.cipher else {
            FileHandle.standardError.write(Data("voicebridge rekey: \(StorageCipher.Failure.noKey)\n".utf8))
            throw ExitCode(2)
        }
        let store = try await CommandSetup.store(settings)
        // Progress rewrites its line in place; everything goes out unbuffered, in order.
        func say(_ text: String) { FileHandle.standardOutput.write(Data(text.utf8)) }
        say("rekeying \(settings.database.displayName) to storage key \(cipher.currentKeyID)\n")
        var last = ""
        let report = try await store.rekey(batchSize: max(1, batchSize)) { step in
            // One line per column, rewritten in place as it goes.
            if step.what != last, !last.isEmpty { say("\n") }
            last = step.what
            say("\r  \(step.what): \(step.done)/\(step.total)")
        }
        if !last.isEmpty { say("\n") }
        say("rewrote \(report.values) values and \(report.recordings) recordings"
              + (report.missingRecordings > 0 ? " (\(report.missingRecordings) recording files named in the database are missing)" : "") + "\n")
        let remaining = try await store.storageKeyIDs().filter { $0 != cipher.currentKeyID }
        if !report.retiredKeys.isEmpty { say("retired storage keys: \(report.retiredKeys.joined(separator: ", ")) (they can be removed from the configuration)\n") }
        if !remaining.isEmpty { say("still in use: \(remaining.joined(separator: ", ")) (run rekey again)\n") }
    }
}
