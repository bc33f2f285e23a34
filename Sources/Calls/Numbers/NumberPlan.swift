/// Phone numbers in one canonical form, E.164 (`+821012345678`), for every comparison the server
/// makes — the do-not-call list, one open call per number, allowed caller IDs, inbound routes —
/// so that `010-1234-5678`, `01012345678`, `821012345678`, `+82 10 1234 5678` and
/// `+82 010 1234 5678` are one number. Numbers are kept as they were given for dialling (trunks
/// differ in the form they want); only comparisons go through here.
///
/// No libphonenumber port resolves in this project's package mirror, so this is the small table
/// of the countries the product documents, with each one's calling code, trunk prefix and
/// international prefixes; a number in any other country is understood when written with `+`.
public struct NumberPlan: Sendable, Equatable {
    public struct Country: Sendable, Equatable {
        public let iso: String
        public let callingCode: String
        /// Dialled before a national number inside the country and dropped in E.164 (`0`).
        public let trunkPrefix: String?
        /// Dialled before a country code to call abroad (`00`, `001`, `011`).
        public let internationalPrefixes: [String]
    }

    public static let countries: [Country] = [
        Country(iso: "KR", callingCode: "82", trunkPrefix: "0", internationalPrefixes: ["003xx", "007xx", "001", "002", "005", "006", "008", "00"]),
        Country(iso: "US", callingCode: "1", trunkPrefix: "1", internationalPrefixes: ["011"]),
        Country(iso: "CA", callingCode: "1", trunkPrefix: "1", internationalPrefixes: ["011"]),
        Country(iso: "JP", callingCode: "81", trunkPrefix: "0", internationalPrefixes: ["010"]),
        Country(iso: "CN", callingCode: "86", trunkPrefix: "0", internationalPrefixes: ["00"]),
        Country(iso: "GB", callingCode: "44", trunkPrefix: "0", internationalPrefixes: ["00"]),
        Country(iso: "DE", callingCode: "49", trunkPrefix: "0", internationalPrefixes: ["00"]),
        Country(iso: "FR", callingCode: "33", trunkPrefix: "0", internationalPrefixes: ["00"]),
        Country(iso: "AU", callingCode: "61", trunkPrefix: "0", internationalPrefixes: ["0011"]),
        Country(iso: "IN", callingCode: "91", trunkPrefix: "0", internationalPrefixes: ["00"]),
        Country(iso: "SG", callingCode: "65", trunkPrefix: nil, internationalPrefixes: ["000", "001"]),
    ]

    /// Numbers written without `+` are this country's (`numbers.default_country`).
    public let country: Country

    public init?(defaultCountry iso: String) {
        guard let country = Self.countries.first(where: { $0.iso == iso.uppercased() }) else { return nil }
        self.country = country
    }

    /// Seed 000's users are in Korea.
    public static let korea = NumberPlan(defaultCountry: "KR")!

    /// What the store compares a number by (a call's callee, a contact, a do-not-call entry): its
    /// E.164 form, or the number as given when it has none.
    public func storedKey(_ number: String) -> String {
        canonical(number) ?? number
    }

    /// `number` in E.164, or nil when it is not a phone number (3 to 20 digits with optional
    /// separators `space - . ( )` and a leading `+`).
    public func canonical(_ number: String) -> String? {
        var text = Substring(number.trimmingCharacters(in: .whitespaces))
        var international = text.first == "+"
        if international { text = text.dropFirst() }
        guard text.allSatisfy({ ($0.isASCII && $0.isNumber) || " -.()".contains($0) }) else { return nil }
        var digits = text.filter { $0.isNumber }
        guard (3...20).contains(digits.count) else { return nil }
        // No country code starts with 0: after a `+`, or written alone, a leading 0… that is an
        // international prefix (`+0082 …`, `00 82 …`, a carrier's `008 82 …`) is dialled as one.
        if let prefix = internationalPrefix(of: digits, afterPlus: international) {
            digits.removeFirst(prefix)
            international = true
        }
        // The country code without its `+` (821012345678, 82 010 …): national numbers here start
        // with the trunk prefix, so one that starts with the calling code and is long enough is international.
        if !international, country.trunkPrefix == "0", digits.hasPrefix(country.callingCode), digits.count >= country.callingCode.count + 8 {
            international = true
        }
        if international {
            // A trunk prefix written after the country code (+82 010 …, +44 (0)20 …) is not part of the number.
            if let abroad = Self.countries.first(where: { digits.hasPrefix($0.callingCode) && $0.trunkPrefix == "0" }),
               digits.dropFirst(abroad.callingCode.count).hasPrefix("0") {
                digits.remove(at: digits.index(digits.startIndex, offsetBy: abroad.callingCode.count))
            }
            return "+" + digits
        }
        if let trunk = country.trunkPrefix, digits.hasPrefix(trunk), digits.count > trunk.count + 2 {
            return "+" + country.callingCode + digits.dropFirst(trunk.count)
        }
        return "+" + country.callingCode + digits
    }

    /// How many leading digits of `digits` are an international prefix: one of the country's (its
    /// carriers' access codes included; an `x` stands for any digit, as in Korea's 003xx and 007xx),
    /// or after a `+` any run of zeros. Where two fit (Korea's `008` and `00` before `82`), the one
    /// followed by a known calling code wins, then the longer.
    private func internationalPrefix(of digits: String, afterPlus: Bool) -> Int? {
        let fitting = country.internationalPrefixes
            .filter { Self.matches(digits, pattern: $0) && digits.count > $0.count + 6 }
            .map(\.count).sorted(by: >)
        let known = fitting.first { length in Self.countries.contains { digits.dropFirst(length).hasPrefix($0.callingCode) } }
        if let length = known ?? fitting.first { return length }
        if afterPlus, digits.hasPrefix("0") { return digits.prefix(while: { $0 == "0" }).count }
        return nil
    }

    private static func matches(_ digits: String, pattern: String) -> Bool {
        guard digits.count >= pattern.count else { return false }
        return zip(digits, pattern).allSatisfy { d, p in p == "x" || d == p }
    }}
