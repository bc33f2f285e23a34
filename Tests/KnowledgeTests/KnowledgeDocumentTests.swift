import Foundation
import Knowledge
import Testing

@Suite struct KnowledgeDocumentTests {
    func parse(_ name: String, _ text: String) throws(KnowledgeFileError) -> KnowledgeDocument {
        try KnowledgeDocument.parse(name: name, bytes: Array(text.utf8), sha256: "x")
    }

    func error(_ name: String, _ bytes: [UInt8]) -> KnowledgeFileError? {
        do { _ = try KnowledgeDocument.parse(name: name, bytes: bytes, sha256: "x"); return nil } catch { return error }
    }

    @Test func aFAQFileIsARowAChunkWithItsLine() throws {
        let doc = try parse("clinic.csv", """
            question,answer,owner
            When are you open?,"Monday to Friday, 9 to 6.",desk
            "Do you have
            parking?",Yes: 20 spaces behind the building.,desk

            주차비는 얼마인가요?,처음 한 시간은 무료입니다.,desk
            """)
        #expect(doc.kind == .faq)
        #expect(doc.chunks.map(\.title) == ["When are you open?", "Do you have\nparking?", "주차비는 얼마인가요?"])
        #expect(doc.chunks.map(\.text) == ["Monday to Friday, 9 to 6.", "Yes: 20 spaces behind the building.", "처음 한 시간은 무료입니다."])
        #expect(doc.chunks.map(\.line) == [2, 3, 6])
        #expect(doc.chunks.filter { !$0.isFAQ }.isEmpty)
    }

    @Test func aFAQFileWithoutItsColumnsOrWithABadRowIsNamedByFileAndLine() {
        #expect(error("faq.csv", Array("title,body\nx,y\n".utf8)) == KnowledgeFileError(file: "faq.csv", line: 1,
            "a FAQ file needs a question column and an answer column (found: title, body)"))
        #expect(error("faq.csv", Array("question,answer\nA?,a\nB?\n".utf8)) == KnowledgeFileError(file: "faq.csv", line: 3, "the row has 1 fields; the header has 2"))
        #expect(error("faq.csv", Array("질문,답변\nA?,\n".utf8)) == KnowledgeFileError(file: "faq.csv", line: 2, "the answer is empty"))
    }

    @Test func badFilesAreRefusedWithTheirName() {
        #expect(error("empty.md", []) == KnowledgeFileError(file: "empty.md", "the file is empty"))
        #expect(error("blank.txt", Array("  \n\n".utf8)) == KnowledgeFileError(file: "blank.txt", "the file has no text"))
        #expect(error("latin1.txt", Array("first line\nsecond\ncaf".utf8) + [0xE9, 0x0A]) ==
                KnowledgeFileError(file: "latin1.txt", line: 3, "the file is not UTF-8 text (save it as UTF-8)"))
        #expect(error("big.txt", [UInt8](repeating: 0x61, count: KnowledgeDocument.maximumBytes + 1))?.message.contains("the limit is") == true)
        #expect(error("slides.pdf", Array("x".utf8))?.message.hasPrefix("unsupported file type") == true)
        #expect(error("a/b.txt", Array("x".utf8))?.message == "the name may not contain slashes or control characters")
    }

    @Test func markdownIsCutUnderItsHeadings() throws {
        let doc = try parse("guide.md", """
            # Clinic
            Welcome to the **Seoul** clinic.

            ## Parking
            - 20 spaces behind the building.
            - The first hour is free.

            ```
            # not a heading
            ```
            ## Hours
            Weekdays 9 to 6. Saturdays 9 to 1.
            """)
        #expect(doc.chunks.map(\.title) == ["Clinic", "Clinic › Parking", "Clinic › Hours"])
        #expect(doc.chunks[0].text == "Welcome to the Seoul clinic.")
        #expect(doc.chunks[1].text == "20 spaces behind the building. The first hour is free.\n\n# not a heading")   // a fence's lines are text
        #expect(doc.chunks.map(\.line) == [2, 5, 12])
    }

    @Test func longTextIsCutAtSentenceEnds() throws {
        let sentence = "The quick brown fox jumps over the lazy dog near the river bank today. "
        let doc = try parse("long.txt", String(repeating: sentence, count: 40))
        #expect(doc.chunks.count > 3)
        #expect(doc.chunks.allSatisfy { $0.text.count <= 1200 && $0.text.hasSuffix(".") })
    }
}

@Suite struct KnowledgeTermsTests {
    @Test func englishWordsAreStemmedAndFunctionWordsDropped() {
        #expect(KnowledgeTerms.terms(of: "Where do I park? Parking hours!") == ["park", "park", "hour"])
        #expect(KnowledgeTerms.queryTerms(of: "What are the opening hours on Saturdays?") == ["open", "hour", "saturday"])
    }

    @Test func koreanIsIndexedAsSyllablePairsSoParticlesDoNotHideTheWord() {
        #expect(KnowledgeTerms.terms(of: "주차는") == ["주차", "차는"])
        let indexed = Set(KnowledgeTerms.terms(of: "주차장이 어디에 있나요?"))
        #expect(indexed.contains("주차") && indexed.contains("차장"))
        #expect(KnowledgeTerms.terms(of: "3층에서") == ["3", "층에", "에서"])
    }

    @Test func questionsAreToldFromAnswers() {
        for question in ["When are you open?", "what time do you close on saturday", "Is there parking", "I'd like to know the price",
                         "주차 가능한가요", "진료 시간이 어떻게 되나요", "예약은 언제 할 수 있죠"] {
            #expect(KnowledgeAnswerPolicy.isQuestion(question), "\(question)")
        }
        for answer in ["Yes, I can attend.", "No, thank you.", "네, 참석할 수 있어요.", "Thursday morning works."] {
            #expect(!KnowledgeAnswerPolicy.isQuestion(answer), "\(answer)")
        }
    }
}
