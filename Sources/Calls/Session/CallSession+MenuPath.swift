import Dialogue

extension CallSession {
    /// A known phone menu (a template's `menu_path`): each step's keys after its wait, counted from
    /// the answer and then from the previous keys. They go through the engine's own queue, so they
    /// are pressed as the engine's presses are (RFC 4733 or tones, in the transcript and report)
    /// and never in the middle of something the agent says.
    func pressMenuPath() async {
        for step in context.menuPath {
            try? await clock.sleep(for: .milliseconds(Int((step.waitSeconds * 1000).rounded())))
            guard !Task.isCancelled else { return }
            guard await engine.events.send(.sendKeys(step.keys)) else { return }
        }
    }
}
