import Testing
@testable import Bridge

/// What a REFER's progress (its response, then the transferee's NOTIFYs) comes to, whatever ended the wait for it.
struct SIPTransferOutcomeTests {
    static func outcome(of progress: [SIPTransferProgress], cancelled: Bool = false) async -> SIPTransferOutcome {
        let (updates, input) = AsyncStream.makeStream(of: SIPTransferProgress.self)
        for update in progress { input.yield(update) }
        if !cancelled { input.finish() }
        return await Task {
            if cancelled { withUnsafeCurrentTask { $0?.cancel() } }
            return await SIPTransferOutcome(reading: updates)
        }.value
    }

    /// A transferee may send its final NOTIFY and its BYE back to back. The BYE ends the call, which cancels the
    /// wait; the answer that came before it is still the outcome.
    @Test func aFinalStatusThatCameBeforeTheCallEndedIsTheOutcome() async {
        #expect(await Self.outcome(of: [.accepted, .status(100), .status(200)], cancelled: true) == .answered)
        #expect(await Self.outcome(of: [.accepted, .status(100), .status(486)], cancelled: true) == .failed(486))
    }

    @Test func theFirstFinalStatusDecides() async {
        #expect(await Self.outcome(of: [.accepted, .status(180), .status(200), .status(486)]) == .answered)
        #expect(await Self.outcome(of: [.accepted, .status(480)]) == .failed(480))
    }

    @Test func aRefusedReferIsRefused() async {
        #expect(await Self.outcome(of: [.refused(405)]) == .refused(405))
    }

    /// The wait ended (its deadline, or the call) with no final status: an accepted REFER did not reach the person;
    /// one never answered was not taken.
    @Test func noFinalStatusIsAFailureIfTheReferWasAcceptedElseARefusal() async {
        #expect(await Self.outcome(of: [.accepted, .status(100)]) == .failed(0))
        #expect(await Self.outcome(of: [.status(100)], cancelled: true) == .failed(0))
        #expect(await Self.outcome(of: []) == .refused(0))
        #expect(await Self.outcome(of: [], cancelled: true) == .refused(0))
    }
}
