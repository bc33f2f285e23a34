import Foundation
import Testing
import TestSupport
@testable import Pipeline

@Suite struct G711Tests {
    @Test func everyMuLawCodeRoundTrips() {
        for code in UInt8.min...UInt8.max {
            let sample = G711.decodeMuLaw(code)
            // 0x7F is μ-law's "negative zero": it decodes to 0, which encodes as 0xFF.
            let expected: UInt8 = code == 0x7F ? 0xFF : code
            #expect(G711.encodeMuLaw(sample) == expected, "code \(code)")
        }
    }

    @Test func everyALawCodeRoundTrips() {
        for code in UInt8.min...UInt8.max {
            #expect(G711.encodeALaw(G711.decodeALaw(code)) == code, "code \(code)")
        }
    }

    @Test func knownValuesFromTheStandard() {
        #expect(G711.decodeMuLaw(0xFF) == 0)
        #expect(G711.decodeMuLaw(0x00) == -32124)
        #expect(G711.decodeMuLaw(0x80) == 32124)
        #expect(G711.encodeMuLaw(0) == 0xFF)
        #expect(G711.encodeMuLaw(.max) == 0x80)
        #expect(G711.encodeMuLaw(.min) == 0x00)
        #expect(G711.decodeALaw(0xD5) == 8)
        #expect(G711.decodeALaw(0x55) == -8)
        #expect(G711.decodeALaw(0xAA) == 32256)
        #expect(G711.encodeALaw(0) == 0xD5)
        #expect(G711.encodeALaw(.min) == 0x2A)
    }

    @Test func tablesMatchTheSegmentSearchForEverySample() {
        for value in Int(Int16.min)...Int(Int16.max) {
            let sample = Int16(value)
            #expect(G711.encodeMuLaw(sample) == G711.muLawEncodeReference(sample))
            #expect(G711.encodeALaw(sample) == G711.aLawEncodeReference(sample))
        }
    }

    @Test func quantisationErrorStaysWithinHalfAnInterval() {
        // Decoded values sit mid-interval, so the error is at most half the interval of the code.
        for value in stride(from: -32000, through: 32000, by: 3) {
            let sample = Int16(value)
            let muCode = G711.encodeMuLaw(sample), aCode = G711.encodeALaw(sample)
            let mu = G711.decodeMuLaw(muCode), a = G711.decodeALaw(aCode)
            #expect(abs(Int(mu) - value) <= G711.muLawMaxError(code: muCode), "μ-law \(value) → \(mu)")
            #expect(abs(Int(a) - value) <= G711.aLawMaxError(code: aCode), "A-law \(value) → \(a)")
        }
    }

    @Test(arguments: ["en_greeting", "en_yes_attend", "en_no_change", "en_unclear", "en_refuse", "en_thanks", "ko_yes_attend", "ko_no_change"])
    func decodingSoxFixturesMatchesTheirPCMOriginals(name: String) throws {
        let ulaw = try WAVFile.read(Fixtures.audio("\(name).ulaw.wav"))
        let pcm = try WAVFile.read(Fixtures.audio("\(name).wav"))
        #expect(ulaw.format == 7 && ulaw.bitsPerSample == 8)
        #expect(pcm.format == 1 && pcm.bitsPerSample == 16)
        #expect(ulaw.data.count == pcm.data.count / 2)
        let decoded = G711.decode(ulaw.data, law: .muLaw)
        let original = pcm.samples
        var worst = 0
        var outside = 0
        for ((d, o), code) in zip(zip(decoded, original), ulaw.data) {
            // sox dithers (TPDF, ±1 LSB at μ-law's 14-bit precision = ±4) before it encodes, so a
            // decoded sample sits within its code's quantisation error plus the dither.
            let error = abs(Int(d) - Int(o))
            if error > G711.muLawMaxError(code: code) + 4 { outside += 1 }
            worst = max(worst, error)
        }
        #expect(outside == 0, "\(outside) samples outside the quantisation step")
        #expect(worst > 0, "the comparison must actually see quantisation")
        // Our encoder picks sox's code except where its dither moved the sample across a boundary.
        let ours = G711.encode(original, law: .muLaw)
        let same = zip(ours, ulaw.data).filter { $0 == $1 }.count
        #expect(Double(same) / Double(ours.count) >= 0.85, "\(same) of \(ours.count) codes equal sox's")
    }
}

extension G711 {
    /// The largest error decoding can show for `code`: half its quantisation interval, which
    /// doubles with each segment, plus (μ-law) the 3 lost by keeping 14 of 16 bits.
    static func muLawMaxError(code: UInt8) -> Int {
        let segment = Int((~code & 0x70) >> 4)
        return (4 << segment) + 3
    }

    static func aLawMaxError(code: UInt8) -> Int {
        let segment = Int(((code ^ 0x55) & 0x70) >> 4)
        return segment == 0 ? 8 : 8 << (segment - 1)
    }
}
