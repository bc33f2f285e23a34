/// A file that cannot be indexed, said so the operator can find it: the file and, where one
/// line is at fault, its line.
public struct KnowledgeFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var message: String

    public init(file: String, line: Int? = nil, _ message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String {
        if let line { return "\(file), line \(line): \(message)" }
        return "\(file): \(message)"
    }
}
