/// What the local engine hears with: speech at 16 kHz in, its words out — steered toward the words
/// the question expects (`bias`: how strongly; 0 not at all) where the recognizer can be.
/// Moonshine base-en hears English; Whisper base (`WhisperTranscriber.listening(in:)`) Korean.
/// The transcript carries the model's confidence, which the dialogue weighs before it stores an answer.
public protocol SpeechRecognizer: Sendable {
    func transcribe(pcm16k samples: [Int16], expecting words: [String], bias: Float) async throws -> Transcript
    /// The same, given up (`CancellationError`) as soon as `wanted` says the words are no longer
    /// wanted — the caller spoke again while the words up to a pause were being heard. A
    /// recognizer that cannot stop part-way hears them whole.
    func transcribe(pcm16k samples: [Int16], expecting words: [String], bias: Float, while wanted: @escaping @Sendable () -> Bool) async throws -> Transcript
    /// This ear taking `language` for the one being spoken, where it tells several apart (the
    /// caller switched to it); itself otherwise.
    func hearing(_ language: String) -> any SpeechRecognizer
}

extension SpeechRecognizer {
    public func hearing(_ language: String) -> any SpeechRecognizer { self }

    public func transcribe(pcm16k samples: [Int16], expecting words: [String], bias: Float, while wanted: @escaping @Sendable () -> Bool) async throws -> Transcript {
        try await transcribe(pcm16k: samples, expecting: words, bias: bias)
    }
}

extension MoonshineTranscriber: SpeechRecognizer {
    public func transcribe(pcm16k samples: [Int16], expecting words: [String], bias: Float) async throws -> Transcript {
        try await transcribe(pcm16k: samples, expecting: words, bias: bias) { true }
    }

    public func transcribe(pcm16k samples: [Int16], expecting words: [String], bias: Float, while wanted: @escaping @Sendable () -> Bool) async throws -> Transcript {
        try await transcript(pcm16k: samples, bias: words.isEmpty || bias <= 0 ? nil : self.bias(toward: words, bonus: bias), while: wanted)
    }
}

extension WhisperTranscriber {
    /// Whisper bound to one language, prompted with the answers the question expects (as if said
    /// before: Whisper's "previous text"); `bias` 0 turns the prompt off. With `others`, the
    /// languages the caller may switch to, each utterance is heard in the one it sounds like
    /// (`Transcript.language`), unprompted: a prompt in one language steers Whisper toward it.
    /// On unclear audio Whisper says the prompt back ("네, 아니요." for a "아니요" it could not make
    /// out — a no stored as a yes): two or more of the expected answers in a row are taken for that
    /// echo and dropped, so the dialogue asks again rather than store a guess.
    public struct Listener: SpeechRecognizer {
        public let whisper: WhisperTranscriber
        public let language: String
        public var others: [String] = []
        /// Writes the words of an utterance Whisper heard as English: Moonshine hears English
        /// better (in `LanguageSwitchCallTests` Whisper wrote "Two of us." as "to the map."; the
        /// personas' figures are Moonshine's); nil: Whisper writes them.
        public var english: MoonshineTranscriber?

        public func transcribe(pcm16k samples: [Int16], expecting words: [String], bias: Float) async throws -> Transcript {
            try await transcribe(pcm16k: samples, expecting: words, bias: bias) { true }
        }

        public func transcribe(pcm16k samples: [Int16], expecting words: [String], bias: Float,
                               while wanted: @escaping @Sendable () -> Bool) async throws -> Transcript {
            if !others.isEmpty {
                let naming: Set<String> = english == nil ? [] : ["en"]
                let heard = try await whisper.transcript(pcm16k: samples, language: language, others: others, namingOnly: naming)
                guard let english, heard.language == "en" else { return heard }
                var written = try await english.transcribe(pcm16k: samples, expecting: words, bias: bias, while: wanted)
                written.language = "en"
                return written
            }
            guard bias > 0, let prompt = Self.prompt(words) else { return try await whisper.transcript(pcm16k: samples, language: language) }
            var heard = try await whisper.transcript(pcm16k: samples, language: language, prompt: prompt)
            heard.text = Self.withoutEcho(heard.text, of: words)
            return heard
        }

        /// `text` without runs of two or more different `words` said one after the other as the
        /// prompt lists them ("아, 네, 아니요." → "아").
        public static func withoutEcho(_ text: String, of words: [String]) -> String {
            let phrases = text.split(whereSeparator: { ",.?!".contains($0) }).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            var keep = [Bool](repeating: true, count: phrases.count)
            var start = 0
            while start < phrases.count {
                var end = start
                while end < phrases.count, words.contains(phrases[end]) { end += 1 }
                if Set(phrases[start..<end]).count >= 2 { for i in start..<end { keep[i] = false } }
                start = max(end, start + 1)
            }
            guard keep.contains(false) else { return text }
            return phrases.indices.filter { keep[$0] }.map { phrases[$0] }.joined(separator: ", ")
        }

        /// "네, 아니요." — nil for no words.
        public static func prompt(_ words: [String]) -> String? {
            words.isEmpty ? nil : words.joined(separator: ", ") + "."
        }

        public func hearing(_ spoken: String) -> any SpeechRecognizer {
            Listener(whisper: whisper, language: spoken, others: ([language] + others).filter { $0 != spoken }, english: english)
        }
    }

    /// `others`: the languages the caller may switch to; `english`: writes what is heard as English.
    public func listening(in language: String, others: [String] = [], english: MoonshineTranscriber? = nil) -> Listener {
        Listener(whisper: self, language: language, others: others.filter { $0 != language }, english: english)
    }
}
