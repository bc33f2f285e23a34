import Analysis
import Foundation

/// A campaign's results, one row per contact: its columns, the call's final state, attempts,
/// duration, each question's status and answer (a flow's template: the outcome and each field,
/// `fields.<name>`, typed in JSON Lines), the languages spoken (a template whose calls may switch
/// language: the call's own first, space-separated in CSV, a list in JSON Lines), the summary and
/// the recording's URL. CSV (with a UTF-8
/// BOM, so spreadsheet software reads Korean right) or JSON Lines, written a page at a time.
public struct CampaignExport: Sendable {
    public enum Format: String, Sendable {
        case csv, jsonl

        public var contentType: String { self == .csv ? "text/csv; charset=utf-8" : "application/x-ndjson; charset=utf-8" }
    }

    public let campaign: Campaign
    public let questions: [String]
    /// A flow template's fields, in the order its steps ask them (empty: plain questions).
    public let fields: [String]
    /// The template asks for post-call analysis: its columns (`analysis.*`; nested in JSON Lines).
    public let analysed: Bool
    /// The template lists languages its calls may switch to: a `languages_spoken` column.
    public let languages: Bool
    public let format: Format

    public init(campaign: Campaign, questions: [String], fields: [String] = [], analysed: Bool = false, languages: Bool = false, format: Format) {
        self.campaign = campaign
        self.questions = questions
        self.fields = fields
        self.analysed = analysed
        self.languages = languages
        self.format = format
    }

    static let analysisColumns = ["analysis.success", "analysis.category", "analysis.sentiment", "analysis.reason", "analysis.data"]

    var header: [String] {
        ["line", "number"] + campaign.columns + ["state", "last_outcome", "attempts", "duration_seconds"]
            + (fields.isEmpty ? questions.indices.flatMap { ["q\($0 + 1)_status", "q\($0 + 1)_answer"] } : ["outcome"] + fields.map { "fields.\($0)" })
            + (analysed ? Self.analysisColumns : []) + (languages ? ["languages_spoken"] : []) + ["summary", "recording_url", "outbound_id", "skip_reason"]
    }

    /// What opens the file: the BOM and the header line (CSV); nothing for JSON Lines.
    public func opening() -> Data {
        guard format == .csv else { return Data() }
        return Data([0xEF, 0xBB, 0xBF]) + csv([header])
    }

    public func page(_ rows: [CampaignStore.ResultRow]) -> Data {
        switch format {
        case .csv: return csv(rows.map { fields($0) })
        case .jsonl:
            var data = Data()
            for row in rows {
                var object: [String: Any] = [:]
                for (key, value) in zip(header, fields(row)) where !value.isEmpty { object[key] = value }
                object["line"] = row.contact.line
                object["attempts"] = row.call?.attemptCount ?? 0
                if let seconds = row.call?.durationSeconds { object["duration_seconds"] = seconds }
                object["variables"] = row.contact.variables
                for key in campaign.columns { object.removeValue(forKey: key) }
                for key in Self.analysisColumns { object.removeValue(forKey: key) }
                if analysed, let analysis = analysis(row), let data = try? JSONEncoder().encode(analysis) {
                    object["analysis"] = try? JSONSerialization.jsonObject(with: data)
                }
                if languages { object["languages_spoken"] = row.call?.languagesSpoken }
                if !fields.isEmpty {
                    for name in fields { object.removeValue(forKey: "fields.\(name)") }
                    let typed = flowResult(row)?.typedFields ?? [:]
                    object["fields"] = Dictionary(uniqueKeysWithValues: fields.compactMap { name in
                        typed[name].flatMap { try? JSONSerialization.jsonObject(with: Data($0.serialized.utf8), options: .fragmentsAllowed) }.map { (name, $0) }
                    })
                }
                data += (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
                data += Data("\n".utf8)
            }
            return data
        }
    }

    func fields(_ row: CampaignStore.ResultRow) -> [String] {
        let call = row.call
        var fields = ["\(row.contact.line)", row.contact.number] + campaign.columns.map { row.contact.variables[$0] ?? "" }
        fields += [call?.state.rawValue ?? (row.skipReason == nil ? "waiting" : "skipped"), call?.lastOutcome ?? "",
                   "\(call?.attemptCount ?? 0)", call?.durationSeconds.map(String.init) ?? ""]
        if self.fields.isEmpty {
            for index in questions.indices {
                let answer = row.answers.first { $0.questionID == "q\(index + 1)" }
                fields += [answer?.status.rawValue ?? (call == nil ? "" : "not_asked"), answer?.answerSummary ?? answer?.answerText ?? ""]
            }
        } else {
            let typed = flowResult(row)?.typedFields ?? [:]
            fields += [call?.outcome ?? ""] + self.fields.map { name in
                switch typed[name] {
                case .string(let text)?: text
                case nil, .null?: ""
                case let value?: value.serialized
                }
            }
        }
        if analysed {
            let analysis = analysis(row)
            fields += [analysis.map { $0.success ? "true" : "false" } ?? "", analysis?.category ?? "", analysis?.sentiment?.rawValue ?? "", analysis?.reason ?? "",
                       analysis?.data.serialized ?? ""]
        }
        if languages { fields.append(call?.languagesSpoken?.joined(separator: " ") ?? "") }
        fields += [call?.summary ?? "", row.hasRecording ? "/api/outbound/\(call?.outboundId ?? "")/recording" : "", call?.outboundId ?? "", row.skipReason ?? ""]
        return fields
    }

    func analysis(_ row: CampaignStore.ResultRow) -> CallAnalysis? {
        row.call?.analysis.flatMap { try? JSONDecoder().decode(CallAnalysis.self, from: Data($0.utf8)) }
    }

    func flowResult(_ row: CampaignStore.ResultRow) -> CallFlowResult? {
        (try? CallFlowResult(stored: row.call?.flowResult)) ?? nil
    }

    /// RFC 4180 lines, each ended by CRLF, every cell spreadsheet-safe.
    func csv(_ rows: [[String]]) -> Data {
        CSVLines.data(rows.map { $0.map(Self.spreadsheetSafe) })
    }

    /// A cell a spreadsheet will show as text, not run as a formula (OWASP "CSV injection"): one
    /// that begins with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'`. Plain
    /// numbers (`+821012345678`, `-3`, `2.5`) are left as they are: a spreadsheet reads them as
    /// numbers, and a phone number keeps its form.
    static func spreadsheetSafe(_ cell: String) -> String {
        guard let first = cell.first, "=+-@\t\r".contains(first) else { return cell }
        if cell.wholeMatch(of: /[+-]?[0-9]+(\.[0-9]+)?/) != nil { return cell }
        return "'" + cell
    }
}
