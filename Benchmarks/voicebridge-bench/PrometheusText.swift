import Foundation

/// The counters of a Prometheus text page (`/metrics`), by name and labels.
struct PrometheusText {
    private var samples: [String: [([String: String], Double)]] = [:]

    init(_ text: String) {
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            let series = line[..<space]
            let name: Substring, labels: [String: String]
            if let brace = series.firstIndex(of: "{"), series.hasSuffix("}") {
                name = series[..<brace]
                labels = Dictionary(series[series.index(after: brace)..<series.index(before: series.endIndex)].split(separator: ",").compactMap { pair in
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    return parts.count == 2 ? (String(parts[0]), String(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")))) : nil
                }, uniquingKeysWith: { first, _ in first })
            } else {
                name = series
                labels = [:]
            }
            samples[String(name), default: []].append((labels, value))
        }
    }

    func values(_ name: String) -> [([String: String], Double)] { samples[name] ?? [] }

    func value(_ name: String, _ labels: [String: String]) -> Double? { values(name).first { $0.0 == labels }?.1 }

    /// Every series of `name` summed, whatever its labels.
    func sum(_ name: String) -> Double { values(name).map(\.1).reduce(0, +) }

    /// The largest series of `name`.
    func max(_ name: String) -> Double { values(name).map(\.1).max() ?? 0 }

    /// How much each series of the counter `name` grew since `before`, summed by its `label`.
    func increases(_ name: String, by label: String, since before: PrometheusText) -> [String: Double] {
        values(name).reduce(into: [:]) { grown, series in
            grown[series.0[label] ?? "?", default: 0] += series.1 - (before.value(name, series.0) ?? 0)
        }
    }
}
