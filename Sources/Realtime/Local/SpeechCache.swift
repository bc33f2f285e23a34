/// Texts said before, with their audio: an agent says its greeting, its questions and "Thank you."
/// call after call, and each is synthesized once. At most `capacity` samples are kept, the oldest
/// dropped first. (Both voices say a text the same way every time without it: espeak-ng runs in
/// a process of its own each time, Piper's noise is fixed — docs/virtual-time.md.)
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
