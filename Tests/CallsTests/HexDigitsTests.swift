import Testing
import Calls

/// One spelling of a digest, as `sha256sum` and the stored key ids write it.
@Suite struct HexDigitsTests {
    @Test func bytesAreTwoLowercaseDigitsEach() {
        #expect([UInt8]([0x00, 0x0F, 0xA5, 0xFF]).hexDigits == "000fa5ff")
        #expect([UInt8]().hexDigits == "")
        #expect([UInt8](0...255).hexDigits.count == 512)
        #expect([UInt8]([0xBA, 0x78, 0x16, 0xBF, 0x8F]).prefix(4).hexDigits == "ba7816bf", "a digest's first bytes, as a key id is written")
    }
}
