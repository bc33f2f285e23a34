import Flows

extension TaskTracker {
    /// The call's questions: a flow's asks (ids = their fields, the call's filled-in wording)
    /// with the flow's walker, or the plain list as `q1`, `q2`, ….
    public init(context: ConversationContext) {
        guard let flow = context.flow else {
            self.init(questions: context.questions)
            return
        }
        let asks = flow.asks
        let questions = context.questions.count == asks.count ? context.questions : asks.map { $0.ask ?? "" }
        self.init(questions: questions, ids: asks.map { $0.field ?? $0.id })
        self.flow = FlowWalker(flow: flow)
    }
}
