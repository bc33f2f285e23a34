import Dialogue
import Knowledge

extension LocalEngine {
    /// A phone menu's options weighed by meaning before the dialogue chooses among them: how close
    /// each option's words are to the call's purpose and questions (sentence embeddings, `E5Embedder`),
    /// for the options word overlap cannot tell apart ("change an appointment" for "move our dental
    /// check-up"). Without the model, or when it fails, the dialogue chooses by words alone.
    func weighMenu(_ reply: String) async {
        guard let meaning else { return }
        let (options, goal, known) = state.withLock { s in (s.dialogue.menuOptionsToWeigh(reply), s.dialogue.menuGoal, s.menuGoalVector) }
        guard !options.isEmpty else { return }
        do {
            let goalVector: [Float]
            if let known { goalVector = known } else { goalVector = try await meaning.query(goal) }
            let vectors = try await meaning.passages(options)
            let closeness = zip(options, vectors).map { words, vector in (words, E5Embedder.closeness(goalVector, vector)) }
            state.withLock { s in
                s.menuGoalVector = goalVector
                s.dialogue.noteMenuMeaning(closeness)
            }
        } catch {
            await events.emit(.error(message: "weighing a phone menu's options by meaning: \(error)", fatal: false))
        }
    }
}
