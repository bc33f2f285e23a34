import Testing
@testable import Realtime

@Suite struct TaskStateTagTests {
    @Test func separatesSpokenTextFromTheReport() {
        let text = #"Thank you! [TASK_STATE]{"q1":"answered"}[/TASK_STATE] Next question."#
        let (spoken, reports) = TaskStateTag.extract(from: text)
        #expect(spoken == "Thank you!  Next question.")
        #expect(reports == [#"{"q1":"answered"}"#])
    }

    @Test func aTagSplitAcrossEveryPossibleChunkBoundaryIsNeverSpoken() {
        let text = #"Great. [TASK_STATE] {"done":true} [/TASK_STATE]Bye."#
        for cut in 1..<text.count {
            var scanner = TaskStateTag.Scanner()
            let head = scanner.feed(String(text.prefix(cut)))
            let tail = scanner.feed(String(text.dropFirst(cut)))
            let spoken = head.spoken + tail.spoken + scanner.finish()
            #expect(spoken == "Great. Bye.", "cut at \(cut)")
            #expect(head.reports + tail.reports == [#"{"done":true}"#])
        }
    }

    @Test func anUnterminatedTagIsDropped() {
        var scanner = TaskStateTag.Scanner()
        let out = scanner.feed("Okay [TASK_STATE]{\"q1\":")
        #expect(out.spoken == "Okay ")
        #expect(scanner.finish() == "")
    }

    @Test func textThatOnlyLooksLikeATagStartIsSpokenAtTheEnd() {
        var scanner = TaskStateTag.Scanner()
        let out = scanner.feed("Price is [TASK")
        #expect(out.spoken == "Price is ")
        #expect(scanner.finish() == "[TASK")
    }
}
