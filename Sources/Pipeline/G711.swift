/// ITU-T G.711 companding, table-driven in both directions.
///
/// Decoding is one lookup in a 256-entry table. Encoding is one lookup in a table indexed by the
/// sample's top 14 (μ-law) or 13 (A-law) bits — exactly the precision G.711 defines, so the tables
/// give the same codes as the reference segment search, without branches on the hot path.
public enum G711 {
    public enum Law: String, Sendable, CaseIterable {
        case muLaw = "PCMU"
        case aLaw = "PCMA"
    }

    // MARK: μ-law

    public static func encodeMuLaw(_ sample: Int16) -> UInt8 {
        muLawEncodeTable[Int(sample >> 2) + 8192]
    }

    public static func decodeMuLaw(_ code: UInt8) -> Int16 {
        muLawDecodeTable[Int(code)]
    }

    // MARK: A-law

    public static func encodeALaw(_ sample: Int16) -> UInt8 {
        aLawEncodeTable[Int(sample >> 3) + 4096]
    }

    public static func decodeALaw(_ code: UInt8) -> Int16 {
        aLawDecodeTable[Int(code)]
    }

    // MARK: Buffers

    /// One table lookup per sample over contiguous memory (this runs for every 20 ms frame of
    /// every call, so it avoids per-element bounds checks and generic dispatch).
    public static func encode(_ samples: [Int16], law: Law) -> [UInt8] {
        let (table, shift, offset) = law == .muLaw ? (muLawEncodeTable, 2, 8192) : (aLawEncodeTable, 3, 4096)
        return [UInt8](unsafeUninitializedCapacity: samples.count) { out, count in
            table.withUnsafeBufferPointer { t in
                samples.withUnsafeBufferPointer { input in
                    for i in 0..<input.count { out[i] = t[Int(input[i] >> shift) &+ offset] }
                }
            }
            count = samples.count
        }
    }

    public static func decode(_ codes: [UInt8], law: Law) -> [Int16] {
        codes.withUnsafeBufferPointer { decode(buffer: $0, law: law) }
    }

    public static func decode<C: Collection>(_ codes: C, law: Law) -> [Int16] where C.Element == UInt8 {
        codes.withContiguousStorageIfAvailable { decode(buffer: $0, law: law) } ?? decode(Array(codes), law: law)
    }

    static func decode(buffer codes: UnsafeBufferPointer<UInt8>, law: Law) -> [Int16] {
        let table = law == .muLaw ? muLawDecodeTable : aLawDecodeTable
        return [Int16](unsafeUninitializedCapacity: codes.count) { out, count in
            table.withUnsafeBufferPointer { t in
                for i in 0..<codes.count { out[i] = t[Int(codes[i])] }
            }
            count = codes.count
        }
    }

    // MARK: Tables, built once from the G.711 segment definitions

    static let muLawDecodeTable: [Int16] = (0...255).map { muLawDecodeReference(UInt8($0)) }
    static let aLawDecodeTable: [Int16] = (0...255).map { aLawDecodeReference(UInt8($0)) }
    static let muLawEncodeTable: [UInt8] = (0..<16384).map { muLawEncodeReference(Int16(($0 - 8192) << 2)) }
    static let aLawEncodeTable: [UInt8] = (0..<8192).map { aLawEncodeReference(Int16(($0 - 4096) << 3)) }

    private static let muLawBias = 0x84
    private static let muLawClip = 8159

    /// G.711 μ-law: 14-bit magnitude, bias 33 (0x84 >> 2), eight segments, sign bit, inverted.
    static func muLawEncodeReference(_ sample: Int16) -> UInt8 {
        var value = Int(sample) >> 2
        let mask: Int
        if value < 0 { value = -value; mask = 0x7F } else { mask = 0xFF }
        value = min(value, muLawClip) + (muLawBias >> 2)
        let segment = segmentIndex(value, ends: [0x3F, 0x7F, 0xFF, 0x1FF, 0x3FF, 0x7FF, 0xFFF, 0x1FFF])
        guard segment < 8 else { return UInt8(0x7F ^ mask) }
        let code = (segment << 4) | ((value >> (segment + 1)) & 0x0F)
        return UInt8(code ^ mask)
    }

    static func muLawDecodeReference(_ code: UInt8) -> Int16 {
        let u = Int(~code)
        var t = ((u & 0x0F) << 3) + muLawBias
        t <<= (u & 0x70) >> 4
        return Int16((u & 0x80) != 0 ? muLawBias - t : t - muLawBias)
    }

    /// G.711 A-law: 13-bit magnitude, eight segments, even bits inverted (XOR 0x55).
    static func aLawEncodeReference(_ sample: Int16) -> UInt8 {
        var value = Int(sample) >> 3
        let mask: Int
        if value >= 0 { mask = 0xD5 } else { mask = 0x55; value = -value - 1 }
        let segment = segmentIndex(value, ends: [0x1F, 0x3F, 0x7F, 0xFF, 0x1FF, 0x3FF, 0x7FF, 0xFFF])
        guard segment < 8 else { return UInt8(0x7F ^ mask) }
        var code = segment << 4
        code |= segment < 2 ? (value >> 1) & 0x0F : (value >> segment) & 0x0F
        return UInt8(code ^ mask)
    }

    static func aLawDecodeReference(_ code: UInt8) -> Int16 {
        let a = Int(code ^ 0x55)
        var t = (a & 0x0F) << 4
        let segment = (a & 0x70) >> 4
        switch segment {
        case 0: t += 8
        case 1: t += 0x108
        default: t = (t + 0x108) << (segment - 1)
        }
        return Int16((a & 0x80) != 0 ? t : -t)
    }

    private static func segmentIndex(_ value: Int, ends: [Int]) -> Int {
        ends.firstIndex { value <= $0 } ?? ends.count
    }
}
