import Bridge
import Foundation
import Realtime
import Testing
import TestSupport
@testable import Calls

/// A line that goes dead: sipp answers and then sends nothing, neither RTP nor RTCP. After
/// `sip.media_timeout` we hang up (sipp gets our BYE), and the call is stored as ended by the line,
/// `media_timeout` — not as a callee who hung up (`remote_hangup`), which an operator reads otherwise.
@Suite(.serialized, .enabled(if: Sipp.isInstalled)) struct MediaTimeoutCallTests {
    @Test func aDeadLineEndsTheCallAsMediaTimeout() async throws {
        let sipPort = freeSippPort()
        let sipp = try Sipp(arguments: ["-sn", "uas", "-i", "127.0.0.1", "-p", "\(sipPort)", "-mp", "\(freeSippMediaPort())"], seconds: 60)
        try await sipp.listening(on: sipPort)
        try await CallHarness.run(tweak: { settings in
            settings.gateway = SIPURI("sip:127.0.0.1:\(sipPort)")!
            settings.simulatedCallee = false
        }, userAgent: { $0.mediaTimeoutSeconds = 2 }, engines: { _ in EchoEngine() }) { manager, store, _ in
            let created = try await manager.create(CallHarness.seedRequest())
            let call = try await CallHarness.waitFor(store, created.outboundId) { $0.state.isTerminal }
            #expect(call.state == .completed && call.failureReason == "media_timeout", "\(call.state) \(call.failureReason ?? "")")
        }
        let result = await sipp.wait()
        #expect(result.status == 0, "sipp got our BYE: \(result.output.suffix(1000))")
    }
}
