/// How long each free-text field may be, in characters — one table for the API's checks and
/// OpenAPI's `maxLength`. Everything a call says is synthesized and every text is stored per call:
/// a 60 KB greeting is one synthesis holding the speech engine's lane for seconds and megabytes
/// in every row that copies it.
public enum TextLimits {
    public static let purpose = 1000
    public static let question = 500
    public static let greeting = 1000
    public static let closing = 1000
    public static let voicemailMessage = 1000
    public static let voice = 100
    public static let url = 2048
    public static let transferTarget = 256
    public static let keypadMeaning = 100
    public static let variableValue = 1000
    public static let metadata = 16 * 1024
    public static let webhookDescription = 500

    /// A problem for each field longer than its limit (nil texts are not there).
    static func problems(_ fields: [(name: String, text: String?, limit: Int)]) -> [ValidationError.Field] {
        fields.compactMap { field in
            guard let text = field.text, text.count > field.limit else { return nil }
            return ValidationError.Field(name: field.name, message: "must be at most \(field.limit) characters (got \(text.count))")
        }
    }
}
