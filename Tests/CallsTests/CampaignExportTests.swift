import Foundation
import Testing
@testable import Calls

/// CSV written for spreadsheet software: a cell never reaches it as a formula.
@Suite struct CampaignExportTests {
    @Test(arguments: [
        ("=HYPERLINK(\"http://evil.example\",\"click\")", "'=HYPERLINK(\"http://evil.example\",\"click\")"),
        ("+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1:A2)", "'@SUM(A1:A2)"),
        ("\t=1", "'\t=1"),
        ("+821012345678", "+821012345678"),
        ("-3", "-3"),
        ("2.5", "2.5"),
        ("김민수", "김민수"),
        ("", ""),
    ])
    func formulaLeadingCellsAreNeutralised(cell: String, written: String) {
        #expect(CampaignExport.spreadsheetSafe(cell) == written)
    }

    /// A template whose calls may switch language exports the languages each caller spoke (the
    /// call's own first): space-separated in CSV, a list in JSON Lines; other templates have no such column.
    @Test func theLanguagesSpokenAreExportedWhenTheTemplateListsLanguages() throws {
        let campaign = Campaign(name: "c", callerNumber: "0701234567")
        var call = CallRecord(outboundId: "ob-00000001", callerNumber: "0701234567", calleeNumber: "01012345678", purpose: "p", questions: ["q?"])
        call.languagesSpoken = ["ko", "en"]
        let row = CampaignStore.ResultRow(contact: .init(line: 2, number: "01012345678", variables: [:]), skipReason: nil, call: call, answers: [], hasRecording: false)
        let csv = CampaignExport(campaign: campaign, questions: ["q?"], languages: true, format: .csv)
        let column = try #require(csv.header.firstIndex(of: "languages_spoken"))
        #expect(csv.fields(row)[column] == "ko en" && csv.header[column + 1] == "summary")
        let jsonl = CampaignExport(campaign: campaign, questions: ["q?"], languages: true, format: .jsonl)
        let object = try JSONSerialization.jsonObject(with: jsonl.page([row])) as? [String: Any]
        #expect(object?["languages_spoken"] as? [String] == ["ko", "en"])
        var stayed = row
        stayed.call?.languagesSpoken = nil
        let none = try JSONSerialization.jsonObject(with: jsonl.page([stayed])) as? [String: Any]
        #expect(none?["languages_spoken"] == nil && csv.fields(stayed)[column] == "", "a call that stayed in its language")
        #expect(!CampaignExport(campaign: campaign, questions: ["q?"], format: .csv).header.contains("languages_spoken"))
    }

    @Test func everyCellOfAnExportIsNeutralised() {
        let export = CampaignExport(campaign: Campaign(name: "c", callerNumber: "0701234567"), questions: [], format: .csv)
        let text = String(decoding: export.csv([["=1+1", "@x", "plain"]]), as: UTF8.self)
        #expect(text == "'=1+1,'@x,plain\r\n")
    }
}
