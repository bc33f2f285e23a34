import Calls
import Crypto
import Foundation

/// The installed models against what `make deps` installed: it writes `<deps>/models.sha256`
/// (`sha256sum`'s format, paths under the folder) once every model is in place, and the doctor
/// reads each file again. A file changed or cut short since — a disk that filled mid-copy, a file
/// replaced by hand — fails here, named, rather than as a model that will not load or, worse, one
/// that loads and hears wrong.
enum ModelChecksums {
    static let manifestName = "models.sha256"

    struct Entry: Equatable {
        var digest: String
        var path: String
    }

    struct Malformed: Error, CustomStringConvertible {
        var line: Int
        var description: String { "line \(line) is not `<64 hex digits>  <path>`" }
    }

    /// `sha256sum`'s lines: 64 lowercase hex digits, a space, a space or `*` (binary mode), a path.
    static func parse(_ text: String) throws -> [Entry] {
        var entries: [Entry] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
            let characters = Array(line)
            guard characters.count > 66, characters[64] == " ", characters[65] == " " || characters[65] == "*",
                  characters[..<64].allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else { throw Malformed(line: number + 1) }
            entries.append(Entry(digest: String(characters[..<64]), path: String(characters[66...])))
        }
        return entries
    }

    /// The SHA-256 of the file at `path`, read 1 MB at a time.
    static func digest(ofFileAt path: String) throws -> String {
        guard let file = FileHandle(forReadingAtPath: path) else { throw CocoaError(.fileNoSuchFile) }
        defer { try? file.close() }
        var hash = SHA256()
        while let chunk = try file.read(upToCount: 1 << 20), !chunk.isEmpty { hash.update(data: chunk) }
        return hash.finalize().hexDigits
    }

    /// The doctor's line for the models under `deps`; nil when there is no manifest and the
    /// configured engine loads no model (`required` false: a cloud engine needs no `make deps`).
    static func check(deps: String, required: Bool) -> Doctor.Check? {
        let name = "models"
        let manifest = (deps as NSString).appendingPathComponent(manifestName)
        guard let text = try? String(contentsOfFile: manifest, encoding: .utf8) else {
            guard required else { return nil }
            return Doctor.Check(name, .warn, "\(manifest) is missing: the models cannot be checked", fix: "run `make deps` (it writes the list once every model is in place)")
        }
        let entries: [Entry]
        do {
            entries = try parse(text)
        } catch {
            return Doctor.Check(name, .fail, "\(manifest): \(error)", fix: "delete \(manifest) and run `make deps`")
        }
        var missing: [String] = [], changed: [String] = []
        for entry in entries {
            let path = (deps as NSString).appendingPathComponent(entry.path)
            guard let digest = try? digest(ofFileAt: path) else { missing.append(entry.path); continue }
            if digest != entry.digest { changed.append(entry.path) }
        }
        if !missing.isEmpty || !changed.isEmpty {
            let problems = missing.map { "\($0) is missing" } + changed.map { "\($0) is not the file make deps installed" }
            return Doctor.Check(name, .fail, problems.joined(separator: "; "),
                                fix: "delete \((missing + changed).map { (deps as NSString).appendingPathComponent($0) }.joined(separator: ", ")) and run `make deps`")
        }
        return Doctor.Check(name, .ok, "\(entries.count) files under \(deps) are the ones make deps installed")
    }
}
