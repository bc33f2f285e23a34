/// Texts said before, with their audio: an agent says its greeting, its questions and "Thank you."
/// call after call, and each is synthesized once. At most `capacity` samples are kept, the oldest
/// dropped first. It also makes a voice say a text the same way every time in a process: Piper
/// draws noise, and espeak-ng 1.51 carries its pitch flutter and filter state from one synthesis
/// to the next (state its API cannot reset) — so the same call in virtual time is the same call.
struct SpeechCache {
    let capacity: Int
    private var order: [String] = []
    private var audio: [String: [Int16]] = [:]
    private var samples = 0

    init(capacity: Int) { self.capacity = capacity }

    subscript(key: String) -> [Int16]? { audio[key] }

    mutating func keep(_ speech: [Int16], for key: String) {
        guard audio[key] == nil, speech.count <= capacity else { return }
        audio[key] = speech
        order.append(key)
        samples += speech.count
        while samples > capacity, !order.isEmpty {
            samples -= audio.removeValue(forKey: order.removeFirst())?.count ?? 0
        }
    }
}
