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

    @Test func everyCellOfAnExportIsNeutralised() {
        let export = CampaignExport(campaign: Campaign(name: "c", callerNumber: "0701234567"), questions: [], format: .csv)
        let text = String(decoding: export.csv([["=1+1", "@x", "plain"]]), as: UTF8.self)
        #expect(text == "'=1+1,'@x,plain\r\n")
    }
}
