// libFuzzer's entry point; nothing else may run at the top level (TESTING-2 §5). Which parser
// is fuzzed is `FUZZ_TARGET` (see FuzzTarget); `make fuzz` runs each one from its seed corpus.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzTarget.selected.run(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
