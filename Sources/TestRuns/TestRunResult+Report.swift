import Calls
import Foundation

/// A test run as people and CI systems read it: a pass/fail table (each failure as expected vs got,
/// with the call's page) and JUnit XML.
extension TestRunResult {
    /// `callLink`: the call page's address for a call id (nil: the id alone).
    public func table(callLink: (String) -> String = { $0 }) -> String {
        var lines = ["Test suite \"\(suite)\" against template \"\(template)\"" + (line.map { " over a line with \($0)" } ?? "")
                     + ": \(personas.filter(\.passed).count) of \(personas.count) passed", ""]
        let width = max(7, personas.map { TerminalColumns.count($0.name) }.max() ?? 0)
        lines.append("  " + TerminalColumns.padded("persona", to: width) + "  result  state        seconds  call")
        for p in personas {
            let state = p.state.padding(toLength: 11, withPad: " ", startingAt: 0)
            let seconds = String(format: "%7.1f", p.seconds)
            lines.append("  " + TerminalColumns.padded(p.name, to: width) + "  " + (p.passed ? "PASS  " : "FAIL  ") + "  "
                         + state + "  " + seconds + "  " + (p.callID.map(callLink) ?? "-"))
            for f in p.failures { lines.append("      ✗ \(f.what): expected \(f.expected), got \(f.got)") }
        }
        if let timing { lines += ["", timing.summary] }
        return lines.joined(separator: "\n") + "\n"
    }

    /// JUnit XML (one test suite, one test case per persona, a failure element per missed expectation).
    public func junitXML(callLink: (String) -> String = { $0 }) -> String {
        let e = XMLText.escaped
        let failed = personas.filter { !$0.passed }.count
        let total = personas.reduce(0) { $0 + $1.seconds }
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        xml += #"<testsuites name="voicebridge" tests="\#(personas.count)" failures="\#(failed)" time="\#(String(format: "%.1f", total))">"# + "\n"
        xml += #"  <testsuite name="\#(e(suite))" tests="\#(personas.count)" failures="\#(failed)" errors="0" time="\#(String(format: "%.1f", total))">"# + "\n"
        for p in personas {
            xml += #"    <testcase classname="\#(e(suite)).\#(e(template))" name="\#(e(p.name))" time="\#(String(format: "%.1f", p.seconds))">"# + "\n"
            if !p.passed {
                let message = p.failures.map { "\($0.what): expected \($0.expected), got \($0.got)" }.joined(separator: "; ")
                xml += #"      <failure message="\#(e(message))" type="expectation">\#(e(message + (p.callID.map { "\ncall: " + callLink($0) } ?? "")))</failure>"# + "\n"
            }
            if let id = p.callID { xml += #"      <system-out>\#(e("call " + callLink(id) + ", state " + p.state))</system-out>"# + "\n" }
            xml += "    </testcase>\n"
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }
}

extension TestRunResult.Timing {
    /// "Ran in virtual time: 84.2 s on the calls' clock in 9.6 s, 8.8× real time", or "Ran in real time: 84.2 s".
    public var summary: String {
        time == "virtual"
            ? String(format: "Ran in virtual time: %.1f s on the calls' clock in %.1f s, %.1f× real time", callSeconds, realSeconds, speedUp)
            : String(format: "Ran in real time: %.1f s", realSeconds)
    }
}
