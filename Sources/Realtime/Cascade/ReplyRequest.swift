import Foundation
import Pipeline
import Synchronization

/// One streamed chat completion and the turn that reads it, decoupled: `run()` talks to the
/// model and buffers what it writes; `read(_:)` hands the pieces to the turn as they arrive. A
/// turn's usual request runs beside the turn that reads it; an early one (`heard` set) starts on
/// a stable interim transcript, before the recognizer has called the turn over, and the turn for
/// those words takes it — or it is dropped, its audio never made. Tokens are metered as the model
/// writes them, so a dropped request's cost still shows in the call's usage.
final class ReplyRequest: Sendable {
    typealias Output = ChatCompletionStream.Output

    struct Overflow: Error, CustomStringConvertible {
        var description: String { "the reply was longer than \(ReplyRequest.bufferedPieces) pieces" }
    }

    /// Pieces buffered between the model and the turn; an agent's reply is a few hundred.
    static let bufferedPieces = 4096

    /// The caller's words this request answers ahead of the final transcript; nil for a turn's own.
    let heard: String?
    /// `CascadeEngine.State.revision` when the messages were taken: the history it was asked on.
    let revision: Int
    private let messages: [[String: any Sendable]]
    private let outputs: AsyncThrowingStream<Output, Error>
    private let sink: AsyncThrowingStream<Output, Error>.Continuation
    private let dropSignal: AsyncStream<Void>
    private let dropSink: AsyncStream<Void>.Continuation
    private let timing = Mutex<(started: ContinuousClock.Instant?, firstPiece: ContinuousClock.Instant?)>((nil, nil))
    private let dropped = Mutex(false)

    init(messages: [[String: any Sendable]], heard: String? = nil, revision: Int) {
        self.messages = messages
        self.heard = heard
        self.revision = revision
        (outputs, sink) = AsyncThrowingStream.makeStream(of: Output.self, bufferingPolicy: .bufferingOldest(Self.bufferedPieces))
        (dropSignal, dropSink) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// The model's time to its first piece, once it has written one.
    var firstPieceDelay: Duration? {
        timing.withLock { t in t.started.flatMap { start in t.firstPiece.map { start.duration(to: $0) } } }
    }

    /// Talks to the model until it has finished writing, the request is dropped, or the calling
    /// task is cancelled.
    /// `tools`: the call's tools in the chat-completions form (made where the request is sent).
    func run(chat: ChatCompletionStream, tools: @escaping @Sendable () -> [[String: Any]], meter: UsageMeter) async {
        if dropped.withLock({ $0 }) { return }   // superseded before its turn to run: never sent
        let promptCharacters = messages.reduce(0) { $0 + "\($1["content"] ?? "")".count }
        meter.add { $0.llmInputTokens += EngineUsage.estimatedTokens(characters: promptCharacters); $0.llmTokensEstimated = true }
        timing.withLock { $0.started = VirtualTimeExecutor.now }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    try await chat.run(messages: self.messages, tools: tools()) { output in
                        if case .text(let text) = output {
                            self.timing.withLock { if $0.firstPiece == nil { $0.firstPiece = VirtualTimeExecutor.now } }
                            meter.add { $0.llmOutputTokens += EngineUsage.estimatedTokens(characters: text.count) }
                        }
                        guard case .enqueued = self.sink.yield(output) else { throw Overflow() }
                    }
                    self.sink.finish()
                } catch {
                    self.sink.finish(throwing: error)
                }
            }
            group.addTask { [dropSignal] in for await _ in dropSignal { return } }
            await group.next()
            group.cancelAll()
        }
        sink.finish(throwing: CancellationError())   // dropped mid-request: the reader sees it ended
    }

    /// Ends the request where it is: `run()` returns, and a reader sees the stream end.
    func drop() {
        dropped.withLock { $0 = true }
        dropSink.yield()
        dropSink.finish()
        sink.finish(throwing: CancellationError())
    }

    /// Hands each piece to `handle` as the model writes it (those written before, at once).
    /// Cancelling the reading task drops the request.
    func read(_ handle: (Output) async throws -> Void) async throws {
        try await withTaskCancellationHandler {
            for try await output in outputs { try await handle(output) }
            try Task.checkCancellation()
        } onCancel: {
            drop()
        }
    }
}
