import Foundation

/// Whisper's log-mel features as Smart Turn v3 takes them (PROTOCOLS-3 §1): 8 s of 16 kHz audio,
/// normalised to zero mean and unit variance, a centred (reflect-padded) short-time Fourier
/// transform — n_fft 400, hop 160, periodic Hann window — its power through 80 Slaney mel filters
/// (0–8 kHz, Slaney area normalisation), log10 floored at 1e-10, the last frame dropped, clamped to
/// 8 below the maximum, then (x + 4) / 4. Out: 80 × 800 floats, mel-major.
///
/// n_fft 400 is not a power of two: the transform is a mixed-radix Cooley–Tukey FFT over its
/// factors 4·4·5·5, ~7,200 complex multiply-adds a frame instead of the 80,400 of a direct DFT.
public struct WhisperLogMel: Sendable {
    public static let sampleRate = 16_000
    public static let samples = 128_000
    public static let fftSize = 400
    public static let hop = 160
    public static let melBins = 80
    public static let frames = 800
    static let bins = fftSize / 2 + 1

    /// The periodic Hann window.
    private let window: [Double]
    /// Each mel filter's non-zero run over the FFT bins: first bin and weights.
    private let filters: [(first: Int, weights: [Double])]
    /// e^(−2πik/400) for k in 0..<400.
    private let twiddleRe: [Double], twiddleIm: [Double]

    public init() {
        let n = Self.fftSize
        window = (0..<n).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(n)) }
        twiddleRe = (0..<n).map { cos(-2 * Double.pi * Double($0) / Double(n)) }
        twiddleIm = (0..<n).map { sin(-2 * Double.pi * Double($0) / Double(n)) }
        filters = Self.melFilters()
    }

    static func hertzToMel(_ f: Double) -> Double {
        f < 1000 ? 3 * f / 200 : 15 + log(f / 1000) * 27 / log(6.4)
    }

    static func melToHertz(_ m: Double) -> Double {
        m < 15 ? 200 * m / 3 : 1000 * exp(log(6.4) / 27 * (m - 15))
    }

    /// Triangular filters between mel-spaced edges, each scaled by 2 / (its width in hertz).
    static func melFilters() -> [(first: Int, weights: [Double])] {
        let low = hertzToMel(0), high = hertzToMel(Double(sampleRate) / 2)
        let edges = (0..<(melBins + 2)).map { melToHertz(low + (high - low) * Double($0) / Double(melBins + 1)) }
        let fftHertz = (0..<bins).map { Double(sampleRate / 2) * Double($0) / Double(bins - 1) }
        return (0..<melBins).map { m in
            let norm = 2 / (edges[m + 2] - edges[m])
            let weights = fftHertz.map { f in
                max(0, min((f - edges[m]) / (edges[m + 1] - edges[m]), (edges[m + 2] - f) / (edges[m + 2] - edges[m + 1]))) * norm
            }
            let first = weights.firstIndex { $0 > 0 } ?? 0
            let last = weights.lastIndex { $0 > 0 } ?? 0
            return (first, Array(weights[first...max(first, last)]))
        }
    }

    /// The features of the last 8 s of `audio` (16 kHz, −1…1); shorter audio is padded with
    /// silence in front, as Smart Turn's reference does.
    public func features(_ audio: [Float]) -> [Float] {
        var x = [Float](repeating: 0, count: Self.samples)
        let tail = audio.suffix(Self.samples)
        x.replaceSubrange((Self.samples - tail.count)..<Self.samples, with: tail)
        // Zero mean, unit variance, in float as the reference does it.
        let mean = x.reduce(0, +) / Float(x.count)
        let variance = x.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Float(x.count)
        let scale = 1 / (variance + 1e-7).squareRoot()
        let n = Self.fftSize, pad = n / 2, count = Self.samples
        let normalised = x.map { Double(($0 - mean) * scale) }
        // Reflect padding: x[pad]…x[1] in front, x[count−2]… behind.
        func sample(_ i: Int) -> Double {
            let j = i - pad
            if j < 0 { return normalised[-j] }
            if j >= count { return normalised[2 * count - 2 - j] }
            return normalised[j]
        }
        var logMel = [Double](repeating: 0, count: Self.melBins * Self.frames)
        var re = [Double](repeating: 0, count: n), im = [Double](repeating: 0, count: n)
        var outRe = [Double](repeating: 0, count: n), outIm = [Double](repeating: 0, count: n)
        var power = [Double](repeating: 0, count: Self.bins)
        var column = [Double](repeating: 0, count: Self.melBins)
        var maximum = -Double.infinity
        // A turn is mostly shorter than 8 s: the frames wholly inside the silence padded in front
        // (and its reflection) see one constant value, so they are all the first one's column.
        let padded = Self.samples - tail.count
        var paddingColumn: [Double]?
        for frame in 0..<Self.frames {   // the 801st frame is dropped: not computed
            let start = frame * Self.hop
            let inPadding = padded > pad && start - pad + n <= padded
            if inPadding, let paddingColumn {
                column = paddingColumn
            } else {
                for i in 0..<n {
                    re[i] = sample(start + i) * window[i]
                    im[i] = 0
                }
                fft(&re, &im, &outRe, &outIm)
                for k in 0..<Self.bins { power[k] = outRe[k] * outRe[k] + outIm[k] * outIm[k] }
                for (m, filter) in filters.enumerated() {
                    var sum = 0.0
                    for (offset, weight) in filter.weights.enumerated() { sum += weight * power[filter.first + offset] }
                    column[m] = log10(max(1e-10, sum))
                }
                if inPadding { paddingColumn = column }
            }
            for m in 0..<Self.melBins {
                logMel[m * Self.frames + frame] = column[m]
                maximum = max(maximum, column[m])
            }
        }
        return logMel.map { Float((max($0, maximum - 8) + 4) / 4) }
    }

    /// The 400-point DFT of (re, im) into (outRe, outIm).
    private func fft(_ re: inout [Double], _ im: inout [Double], _ outRe: inout [Double], _ outIm: inout [Double]) {
        re.withUnsafeBufferPointer { inRe in
            im.withUnsafeBufferPointer { inIm in
                outRe.withUnsafeMutableBufferPointer { oRe in
                    outIm.withUnsafeMutableBufferPointer { oIm in
                        transform(inRe.baseAddress!, inIm.baseAddress!, stride: 1, n: Self.fftSize, oRe.baseAddress!, oIm.baseAddress!)
                    }
                }
            }
        }
    }

    /// Decimation in time: `n` inputs `stride` apart → `n` outputs in place at `outRe/outIm`.
    /// n = r·m: r transforms of size m over every r-th input, then r-point butterflies.
    private func transform(_ inRe: UnsafePointer<Double>, _ inIm: UnsafePointer<Double>, stride: Int, n: Int,
                           _ outRe: UnsafeMutablePointer<Double>, _ outIm: UnsafeMutablePointer<Double>) {
        if n == 1 {
            outRe[0] = inRe[0]
            outIm[0] = inIm[0]
            return
        }
        let r = n % 4 == 0 ? 4 : (n % 5 == 0 ? 5 : (n % 2 == 0 ? 2 : n))
        let m = n / r
        for j in 0..<r {
            transform(inRe + j * stride, inIm + j * stride, stride: stride * r, n: m, outRe + j * m, outIm + j * m)
        }
        // X[k + q·m] = Σ_j W_n^(j·(k + q·m)) · Y_j[k]; W_n^e = W_400^(e·400/n).
        let step = Self.fftSize / n
        var yRe = (0.0, 0.0, 0.0, 0.0, 0.0), yIm = (0.0, 0.0, 0.0, 0.0, 0.0)
        for k in 0..<m {
            withUnsafeMutableBytes(of: &yRe) { yr in
                withUnsafeMutableBytes(of: &yIm) { yi in
                    let yr = yr.bindMemory(to: Double.self), yi = yi.bindMemory(to: Double.self)
                    for j in 0..<r {
                        yr[j] = outRe[j * m + k]
                        yi[j] = outIm[j * m + k]
                    }
                    for q in 0..<r {
                        let index = k + q * m
                        var sumRe = 0.0, sumIm = 0.0
                        for j in 0..<r {
                            let e = (j * index * step) % Self.fftSize
                            let wr = twiddleRe[e], wi = twiddleIm[e]
                            sumRe += yr[j] * wr - yi[j] * wi
                            sumIm += yr[j] * wi + yi[j] * wr
                        }
                        outRe[index] = sumRe
                        outIm[index] = sumIm
                    }
                }
            }
        }
    }
}
