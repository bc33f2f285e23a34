import Foundation
import Testing
import Yams
@testable import Calls

/// Review 2, finding 3: YAML from the API is bounded before Yams builds anything from it.
@Suite struct BoundedYAMLTests {
    /// ~600 bytes whose last key expands to 10^10 nodes: Yams hashed it without end.
    static let aliasBomb: String = {
        var lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
        for i in 1...9 {
            let previous = String(UnicodeScalar(96 + i)!), name = String(UnicodeScalar(97 + i)!)
            lines.append("\(name): &\(name) [" + Array(repeating: "*\(previous)", count: 10).joined(separator: ", ") + "]")
        }
        lines.append("? *j\n: boom")
        return lines.joined(separator: "\n")
    }()

    @Test func anAliasBombIsRefusedBeforeItIsBuilt() throws {
        let started = ContinuousClock.now
        #expect(throws: BoundedYAML.Refusal.self) { try BoundedYAML.check(Self.aliasBomb) }
        do {
            _ = try FlowSource.text(Self.aliasBomb).flow()
            Issue.record("the bomb was taken as a flow")
        } catch {
            #expect(error.fields.map(\.message) == ["uses an anchor (&name), which is not accepted here: write the value out"], "its first anchor is where it stops")
        }
        // Expanded, it would not finish in a lifetime; refused, it takes milliseconds.
        #expect(ContinuousClock.now - started < .seconds(10), "refused without expanding it")
        #expect(throws: BoundedYAML.Refusal(message: "uses an anchor (&name), which is not accepted here: write the value out")) {
            try BoundedYAML.check("a: &x 1\nb: 2")
        }
        #expect(throws: BoundedYAML.Refusal(message: "uses an alias (*name), which is not accepted here: write the value out")) {
            try BoundedYAML.check("- *x")
        }
    }

    @Test func sizeDepthAndCountAreBounded() throws {
        var limits = BoundedYAML.Limits()
        limits.maxDepth = 8
        limits.maxNodes = 50
        #expect(throws: BoundedYAML.Refusal.self) { try BoundedYAML.check(String(repeating: "[", count: 9) + String(repeating: "]", count: 9), limits: limits) }
        try BoundedYAML.check(String(repeating: "[", count: 8) + String(repeating: "]", count: 8), limits: limits)
        #expect(throws: BoundedYAML.Refusal.self) { try BoundedYAML.check("[" + Array(repeating: "1", count: 60).joined(separator: ",") + "]", limits: limits) }
        #expect(throws: BoundedYAML.Refusal.self) { try BoundedYAML.check(String(repeating: "a", count: 256 * 1024 + 1)) }
        // Stars and ampersands in text are text: a keypad's "*", a quoted "&".
        try BoundedYAML.check("say: \"Press * then #\"\nnote: 'R&D & sales'\nplain: 5 * 3 & more")
        // A syntax error is left to the parser that says where it is.
        try BoundedYAML.check("a: [1, 2")
    }

    /// The largest text taken is accepted; its time is printed (each byte is read once).
    @Test func theLargestTextTakenIsAccepted() throws {
        let row = "- {name: \"row\", value: 12345, note: \"plain text here\"}\n"
        let text = String(repeating: row, count: (256 * 1024) / row.utf8.count)
        let started = ContinuousClock.now
        try BoundedYAML.check(text)
        let took = ContinuousClock.now - started
        print("BoundedYAML: \(text.utf8.count) bytes checked in \(took)")
    }
}
