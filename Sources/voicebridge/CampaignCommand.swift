import ArgumentParser
import Foundation
import NIOCore

/// `voicebridge campaign create|export`: a campaign from the command line, through a running
/// server's REST API. `create --start --wait` draws a progress bar (done/total, outcomes so far,
/// ETA) until the campaign ends; exit 0 when it completed, 1 when it ended otherwise, 2 when the
/// server refused.
struct CampaignCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "campaign",
        abstract: "Run a campaign (a template called for every contact of a CSV list) on a running VoiceBridge server.",
        subcommands: [Create.self, Export.self]
    )

    struct Connection: ParsableArguments {
        @Option(name: .long, help: "Server base URL.") var server = "http://127.0.0.1:8080"
        @Option(name: .long, help: "API bearer token (default: $VOICEBRIDGE_API_TOKEN).") var token: String?

        var client: APIClient {
            APIClient(base: server.hasSuffix("/") ? String(server.dropLast()) : server, token: token ?? ProcessInfo.processInfo.environment["VOICEBRIDGE_API_TOKEN"])
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a campaign from a template and a CSV contact list.",
            discussion: """
                Example:
                  voicebridge campaign create --template reminder --csv contacts.csv --from 070-1234-5678 \\
                    --time-zone Asia/Seoul --days 1-5 --hours 09:00-18:00 --calls-per-minute 10 --start --wait
                """
        )

        @OptionGroup var connection: Connection
        @Option(name: .long, help: "Template id or name.") var template: String
        @Option(name: .long, help: "Contact list: CSV with a header line.") var csv: String
        @Option(name: .long, help: "Caller number.") var from: String
        @Option(name: .long, help: "Campaign name (default: the CSV file's name).") var name: String?
        @Option(name: .long, help: "Caller display name.") var displayName: String?
        @Option(name: .long, help: "Header of the phone column (default: found by name: phone, 전화번호, …).") var phoneColumn: String?
        @Option(name: .long, help: "Calls started per minute.") var callsPerMinute = 10
        @Option(name: .long, help: "Calls of this campaign at once.") var maxConcurrent = 1
        @Option(name: .long, help: "Calling window time zone (IANA, e.g. Asia/Seoul); without it, any time.") var timeZone: String?
        @Option(name: .long, help: "Calling window weekdays, 1 = Monday: 1-5 or 1,3,5.") var days = "1-5"
        @Option(name: .long, help: "Calling window hours, HH:mm-HH:mm.") var hours = "09:00-18:00"
        @Flag(name: .long, help: "Start it once the contacts are in.") var start = false
        @Flag(name: .long, help: "Show its progress until it ends (implies --start).") var wait = false

        func run() async throws {
            let client = connection.client
            guard let list = FileManager.default.contents(atPath: csv) else {
                FileHandle.standardError.write(Data("voicebridge: cannot read \(csv)\n".utf8))
                throw ExitCode(2)
            }
            var body: [String: Any] = ["name": name ?? URL(fileURLWithPath: csv).deletingPathExtension().lastPathComponent, "template": template,
                                       "caller_number": from, "calls_per_minute": callsPerMinute, "max_concurrent_calls": maxConcurrent]
            if let displayName { body["caller_display_name"] = displayName }
            if let timeZone {
                let window = hours.split(separator: "-").map(String.init)
                body["window"] = ["time_zone": timeZone, "days": Self.weekdays(days), "start": window.first ?? "", "end": window.last ?? ""]
            }
            let campaign = try await client.expect(201, "POST", "/api/campaigns", json: body, refusing: "the campaign")
            let id = campaign["id"] as? String ?? ""
            let query = phoneColumn.map { "?phone_column=\($0.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? $0)" } ?? ""
            let report = try await client.expect(200, "POST", "/api/campaigns/\(id)/contacts\(query)", body: list, contentType: "text/csv", refusing: "the contact list")
            var lines = ["\(id): \(report["accepted"] as? Int ?? 0) contacts accepted, \(report["skipped"] as? Int ?? 0) rows skipped"]
            let skipped = report["skipped_rows"] as? [[String: Any]] ?? []
            lines += skipped.prefix(20).map { "  line \($0["line"] ?? "?"): \($0["reason"] ?? "") (\($0["value"] ?? ""))" }
            if skipped.count > 20 { lines.append("  … \(skipped.count - 20) more: GET /api/campaigns/\(id)") }
            FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
            guard start || wait else { return }
            _ = try await client.expect(200, "POST", "/api/campaigns/\(id)/start", refusing: "the start")
            guard wait else { return }
            try await CampaignProgressBar(client: client, id: id).follow()
        }

        /// "1-5" or "1,3,5" → [1, 2, 3, 4, 5] / [1, 3, 5].
        static func weekdays(_ text: String) -> [Int] {
            text.split(separator: ",").flatMap { part -> [Int] in
                let bounds = part.split(separator: "-").compactMap { Int($0) }
                return bounds.count == 2 && bounds[0] <= bounds[1] ? Array(bounds[0]...bounds[1]) : bounds
            }
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Write a campaign's results (one row per contact) to a file or stdout.")

        @OptionGroup var connection: Connection
        @Argument(help: "Campaign id (cp-…).") var id: String
        @Option(name: .long, help: "csv (UTF-8 with BOM) or jsonl.") var format = "csv"
        @Option(name: .shortAndLong, help: "Output file (default: stdout).") var output: String?

        func run() async throws {
            guard ["csv", "jsonl"].contains(format) else { throw ValidationError("--format must be csv or jsonl") }
            let response = try await connection.client.execute("GET", "/api/campaigns/\(id)/results.\(format)")
            guard response.status.code == 200 else {
                let detail = (try? await response.body.collect(upTo: 1 << 16)).map { String(buffer: $0) } ?? ""
                FileHandle.standardError.write(Data("voicebridge: export failed (\(response.status.code)): \(detail)\n".utf8))
                throw ExitCode(2)
            }
            // Streamed to the file as it arrives: a 100,000-row export never sits in memory.
            if let output { _ = FileManager.default.createFile(atPath: output, contents: nil) }
            guard let handle = output.map({ FileHandle(forWritingAtPath: $0) }) ?? FileHandle.standardOutput else {
                throw ValidationError("cannot write \(output ?? "")")
            }
            var bytes = 0
            for try await chunk in response.body {
                handle.write(Data(chunk.readableBytesView))
                bytes += chunk.readableBytes
            }
            if let output { FileHandle.standardError.write(Data("wrote \(output) (\(bytes) bytes)\n".utf8)) }
        }
    }
}
