import Testing
@testable import Calls

@Suite struct CallStateTests {
    @Test func theHappyPathIsAllowed() {
        let path: [CallState] = [.queued, .dialing, .ringing, .connected, .completed]
        for i in 0..<path.count - 1 {
            #expect(path[i].canTransition(to: path[i + 1]), "\(path[i]) → \(path[i + 1])")
        }
    }

    @Test func outcomesBeforeAnswerAreAllowedButCompletedIsNot() {
        for start in [CallState.dialing, .ringing] {
            for end in [CallState.noAnswer, .busy, .rejected, .failed, .cancelled] {
                #expect(start.canTransition(to: end))
            }
            #expect(!start.canTransition(to: .completed))
        }
    }

    @Test func endedCallsOnlyGoBackToTheQueue() {
        for end in CallState.allCases where end.isTerminal {
            #expect(end.canTransition(to: .queued))
            for next in CallState.allCases where next != .queued {
                #expect(!end.canTransition(to: next), "\(end) → \(next)")
            }
        }
    }

    @Test func liveAndTerminalPartitionTheStates() {
        #expect(CallState.allCases.filter(\.isLive) == [.dialing, .ringing, .connected])
        #expect(!CallState.queued.isLive && !CallState.queued.isTerminal)
        #expect(!CallState.queued.canTransition(to: .connected))
    }
}
