import Prometheus

extension MetricNameDescriptor {
    /// A metric whose whole name is `name` (it carries its unit, if any, already: `…_total`,
    /// `…_seconds_total`) and whose `# HELP` line is `help`.
    public static func whole(_ name: String, help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }
}
