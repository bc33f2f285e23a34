extension Duration {
    /// The whole duration in nanoseconds (saturating far beyond any call's length).
    public var totalNanoseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
    }

    public var totalSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    public var totalMilliseconds: Double { totalSeconds * 1000 }

    /// Seconds rounded to the hundredth: the resolution of transcript and timeline times.
    public var hundredthsOfSeconds: Double { (totalSeconds * 100).rounded() / 100 }
}
