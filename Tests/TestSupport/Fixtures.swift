import Foundation
import Pipeline

/// Paths to the repository's test fixtures (`Tests/Fixtures`, made by its `make-fixtures.sh`) and to
/// what `make deps` installs, found from this source file so tests run from any directory.
public enum Fixtures {
    /// The repository's root folder.
    public static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Where `make deps` installs Moonshine.
    public static var moonshine: String { repository.appendingPathComponent(".deps/moonshine").path }

    /// Where `make deps` installs whisper.cpp and Whisper base.
    public static var whisper: String { repository.appendingPathComponent(".deps/whisper").path }

    /// Where `make deps` installs the onnx models beside Moonshine (Piper's voice, Smart Turn).
    public static var deps: String { repository.appendingPathComponent(".deps").path }

    public static func audio(_ name: String) -> URL {
        repository.appendingPathComponent("Tests/Fixtures/audio").appendingPathComponent(name)
    }
}

/// The production reader (`Pipeline.WAVFile`), as the tests have always named it.
public typealias WAVFile = Pipeline.WAVFile

/// Normalised cross-correlation of `b` against `a` at the best lag in -maxLag...maxLag.
/// Coarse to fine: the lag is found on signals decimated by 4, then refined at full rate.
public func bestCorrelation(_ a: [Int16], _ b: [Int16], maxLag: Int) -> (value: Double, lag: Int) {
    let da = stride(from: 0, to: a.count, by: 4).map { a[$0] }
    let db = stride(from: 0, to: b.count, by: 4).map { b[$0] }
    let coarse = correlationSearch(da, db, lags: Array(-(maxLag / 4)...(maxLag / 4)))
    return correlationSearch(a, b, lags: Array((coarse.lag * 4 - 8)...(coarse.lag * 4 + 8)))
}

func correlationSearch(_ a: [Int16], _ b: [Int16], lags: [Int]) -> (value: Double, lag: Int) {
    var best = (value: -1.0, lag: 0)
    for lag in lags {
        var sab = 0.0, saa = 0.0, sbb = 0.0
        let start = max(0, -lag), end = min(a.count, b.count - lag)
        guard start < end else { continue }
        for i in start..<end {
            let x = Double(a[i]), y = Double(b[i + lag])
            sab += x * y; saa += x * x; sbb += y * y
        }
        guard saa > 0, sbb > 0 else { continue }
        let r = sab / (saa.squareRoot() * sbb.squareRoot())
        if r > best.value { best = (r, lag) }
    }
    return best
}
