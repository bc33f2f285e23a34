import Foundation
import Testing
@testable import Calls

@Suite struct ContactListReaderTests {
    static func read(_ text: String, phoneColumn: String? = nil) throws -> (ContactListReader, [ContactListReader.Row]) {
        var reader = try ContactListReader(stream: InputStream(data: Data(text.utf8)), phoneColumn: phoneColumn)
        var rows: [ContactListReader.Row] = []
        while let row = try reader.next() { rows.append(row) }
        return (reader, rows)
    }

    @Test func quotedFieldsKoreanAndABOMAreRFC4180() throws {
        let (reader, rows) = try Self.read("\u{FEFF}name,phone,note\n\"Kim, Minsu\",010-1234-5678,\"says \"\"hi\"\"\"\n박지훈,+82 10 2222 3333,\"two\nlines\"\r\nLee,0212345678,plain\n")
        #expect(reader.header == ["name", "phone", "note"] && reader.phoneColumn == "phone")
        #expect(rows == [
            .contact(.init(line: 2, number: "01012345678", variables: ["name": "Kim, Minsu", "note": "says \"hi\""])),
            .contact(.init(line: 3, number: "+821022223333", variables: ["name": "박지훈", "note": "two\nlines"])),
            .contact(.init(line: 4, number: "0212345678", variables: ["name": "Lee", "note": "plain"])),
        ])
    }

    @Test func everyBadRowIsReportedWithItsLineAndReason() throws {
        let (_, rows) = try Self.read("phone,name\n010-1111-2222,A\n,B\n12,C\n010 1111 2222,D\n010-3333-4444\n")
        #expect(rows == [
            .contact(.init(line: 2, number: "01011112222", variables: ["name": "A"])),
            .problem(.init(line: 3, column: "phone", value: "", reason: "no phone number")),
            .problem(.init(line: 4, column: "phone", value: "12", reason: "not a phone number (3 to 20 digits, optionally starting with +)")),
            .problem(.init(line: 5, column: "phone", value: "010 1111 2222", reason: "duplicate of line 2")),
            .problem(.init(line: 6, column: "", value: "010-3333-4444", reason: "has 1 fields; the header has 2")),
        ])
    }

    @Test func thePhoneColumnIsNamedOrFoundByItsHeader() throws {
        #expect(try Self.read("고객명,휴대폰\n김,01012345678\n").0.phoneColumn == "휴대폰")
        #expect(try Self.read("Mobile,Office\n01012345678,0212345678\n", phoneColumn: "office").1 == [
            .contact(.init(line: 2, number: "0212345678", variables: ["Mobile": "01012345678"])),
        ])
        #expect(throws: ContactListReader.Failure(description: "no phone column: name one (columns: name, city)")) { try Self.read("name,city\nA,Seoul\n") }
        #expect(throws: ContactListReader.Failure(description: "there is no column 'tel2' (columns: phone)")) { try Self.read("phone\n0101234567\n", phoneColumn: "tel2") }
        #expect(throws: ContactListReader.Failure.self) { try Self.read("") }
    }
}
