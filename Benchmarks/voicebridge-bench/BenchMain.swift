import Pipeline

@main
struct BenchMain {
    static func main() {
        print("voicebridge-bench: pipeline benchmarks arrive with the pipeline issue")
    }
}
