import Calls
import Foundation
import HummingbirdWebSocket
import NIOCore

/// `GET /api/outbound/{id}/listen?side=mixed|caller|agent` (WebSocket, authenticated like the
/// API): a supervisor hears a live call — the recording as it is written, one binary message a
/// second of mono 16-bit little-endian PCM at 8 kHz. Read-only: anything the page sends is
/// ignored. Who listened, to which side and when, goes into the call's events.
extension VoiceBridgeServer {
    func serveListener(callID: String, side: ListenSide, who: String, manager: CallManager,
                       inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async {
        guard let blocks = await manager.listen(to: callID) else {
            try? await outbound.close(.policyViolation, reason: "the call is not live on this node, or not recorded")
            return
        }
        try? await store.appendEvent(callID: callID, type: "listening_started", payload: ["by": who, "side": side.rawValue])
        logger.info("listening to a call", metadata: ["call": "\(callID)", "by": "\(who)", "side": "\(side.rawValue)"])
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await block in blocks {
                    do { try await outbound.write(.binary(ByteBuffer(bytes: CallRecorder.mono(block, side: side)))) } catch { return }
                }
                try? await outbound.close(.normalClosure, reason: "the call ended")
            }
            group.addTask {
                // The page's side: only its close matters.
                do { for try await _ in inbound.messages(maxSize: 4096) {} } catch {}
            }
            await group.next()
            group.cancelAll()
        }
        try? await store.appendEvent(callID: callID, type: "listening_stopped", payload: ["by": who, "side": side.rawValue])
    }
}
