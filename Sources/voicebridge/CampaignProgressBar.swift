import ArgumentParser
import Calls
import Foundation

/// Follows a campaign (`GET /api/campaigns/{id}` once a second) and draws its progress: contacts
/// done of all, outcomes so far, ETA from the pace so far. On a terminal one line is redrawn in
/// place; otherwise a line is printed whenever the count moves (logs stay readable).
struct CampaignProgressBar {
    let client: APIClient
    let id: String
    var width = 30

    static let ended = CallState.allCases.filter(\.isTerminal).map(\.rawValue)

    func follow() async throws {
        let terminal = isatty(STDOUT_FILENO) == 1
        let started = Date()
        var shown = ""
        while true {
            let campaign = try await client.expect(200, "GET", "/api/campaigns/\(id)", refusing: "the progress request")
            let state = campaign["state"] as? String ?? ""
            let line = Self.line(campaign, width: width, elapsed: Date().timeIntervalSince(started))
            if line != shown {
                // Unbuffered writes: the line shows now, not when a buffer fills.
                FileHandle.standardOutput.write(Data((terminal ? "\r\u{1B}[2K" + line : line + "\n").utf8))
                shown = line
            }
            if state == "completed" || state == "cancelled" {
                FileHandle.standardOutput.write(Data(((terminal ? "\n" : "") + "campaign \(id) \(state). Results: voicebridge campaign export \(id) -o results.csv\n").utf8))
                if state != "completed" { throw ExitCode(1) }
                return
            }
            try await Task.sleep(for: .seconds(1))
        }
    }

    /// `[#########---------] 6/12  completed 5 · busy 1  ETA 0:42`
    static func line(_ campaign: [String: Any], width: Int, elapsed: TimeInterval) -> String {
        let total = campaign["contacts"] as? Int ?? 0
        let progress = campaign["progress"] as? [String: Any] ?? [:]
        let calls = progress["calls"] as? [String: Int] ?? [:]
        let skipped = progress["skipped_at_dial"] as? Int ?? 0
        let done = ended.reduce(skipped) { $0 + (calls[$1] ?? 0) }
        let filled = total == 0 ? 0 : min(width, done * width / total)
        var line = "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] \(done)/\(total)"
        let outcomes = ended.compactMap { state in calls[state].map { "\(state.replacingOccurrences(of: "_", with: " ")) \($0)" } }
            + (skipped > 0 ? ["skipped \(skipped)"] : [])
        if !outcomes.isEmpty { line += "  " + outcomes.joined(separator: " · ") }
        let live = CallState.allCases.filter(\.isLive).reduce(0) { $0 + (calls[$1.rawValue] ?? 0) }
        if live > 0 { line += "  (\(live) live)" }
        if done > 0, done < total {
            let remaining = Int(elapsed / Double(done) * Double(total - done))
            line += String(format: "  ETA %d:%02d", remaining / 60, remaining % 60)
        }
        return line
    }
}
