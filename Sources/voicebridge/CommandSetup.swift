import ArgumentParser
import Calls
import Foundation

/// What `serve` and `rekey` both start with: the configuration, and the store it names.
enum CommandSetup {
    /// A bad configuration ends the command with exit code 2 and the key named.
    static func configuration(path: String?) throws -> VoiceBridgeConfig {
        try exitingOnConfigError { try VoiceBridgeConfig.load(path: path) }
    }

    private static func exitingOnConfigError<T>(_ read: () throws -> T) throws -> T {
        do {
            return try read()
        } catch let error as ConfigError {
            FileHandle.standardError.write(Data("voicebridge: invalid configuration: \(error)\n".utf8))
            throw ExitCode(2)
        }
    }

    /// `serve --list-keys`: every key the server reads, a JSON object a line.
    static func printKeyDefinitions(path: String?) throws {
        let definitions = try exitingOnConfigError {
            try VoiceBridgeConfig.keyDefinitions(source: ConfigSource.load(path: path, environment: [:]))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for definition in definitions {
            print(String(decoding: try encoder.encode(definition), as: UTF8.self))
        }
    }

    /// A database that cannot be opened — a storage key it needs and was not given among the
    /// reasons — ends the command with exit code 1, saying why.
    static func store(_ settings: VoiceBridgeConfig) async throws -> CallStore {
        do {
            return try await CallStore.open(settings.database.location, cipher: settings.storage.cipher, numbers: settings.numbers)
        } catch {
            FileHandle.standardError.write(Data("voicebridge: cannot open database \(settings.database.displayName): \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
