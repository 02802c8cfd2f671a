// swift-tools-version: 6.2
// The benchmarks are their own package so that `swift test` on Quire never builds them.
// Each benchmark is an executable that measures Quire next to a baseline in the same run and
// prints ratios; run them in release mode: `swift run -c release --package-path Benchmarks NAME`.
import PackageDescription

struct BenchmarkRow {
    var name: String
    var dependencies: [Target.Dependency]
}

let benchmarks: [BenchmarkRow] = [
    BenchmarkRow(name: "ModelBenchmark", dependencies: [
        .product(name: "QuireAlgorithms", package: "Quire"), .product(name: "QuireModel", package: "Quire"),
    ]),
    BenchmarkRow(name: "EditorBenchmark", dependencies: [
        .product(name: "QuireEditor", package: "Quire"), .product(name: "QuireModel", package: "Quire"),
        .product(name: "QuirePositionIndex", package: "Quire"), .product(name: "QuireReconciler", package: "Quire"),
        .product(name: "QuireTextStorage", package: "Quire"),
    ]),
    BenchmarkRow(name: "TableBenchmark", dependencies: [
        .product(name: "QuireEditor", package: "Quire"), .product(name: "QuireModel", package: "Quire"),
        .product(name: "QuireReconciler", package: "Quire"), .product(name: "QuireSelection", package: "Quire"),
        .product(name: "QuireTextStorage", package: "Quire"), .product(name: "QuireTable", package: "Quire"),
        .product(name: "QuireStyle", package: "Quire"),
    ]),
    BenchmarkRow(name: "ListBenchmark", dependencies: [
        .product(name: "QuireEditor", package: "Quire"), .product(name: "QuireModel", package: "Quire"),
        .product(name: "QuireReconciler", package: "Quire"), .product(name: "QuireTextStorage", package: "Quire"),
        .product(name: "QuireList", package: "Quire"), .product(name: "QuireStyle", package: "Quire"),
    ]),
    BenchmarkRow(name: "TextStorageBenchmark", dependencies: [
        .product(name: "QuireAlgorithms", package: "Quire"), .product(name: "QuireTextStorage", package: "Quire"),
    ]),
    BenchmarkRow(name: "CRDTBenchmark", dependencies: [.product(name: "QuireCRDT", package: "Quire")]),
    BenchmarkRow(name: "BridgeBenchmark", dependencies: [
        .product(name: "QuireBridge", package: "Quire"), .product(name: "QuireCRDT", package: "Quire"),
        .product(name: "QuireEditor", package: "Quire"), .product(name: "QuireModel", package: "Quire"),
        .product(name: "QuireAlgorithms", package: "Quire"), .product(name: "QuireTextStorage", package: "Quire"),
    ]),
    BenchmarkRow(name: "HTMLBenchmark", dependencies: [
        .product(name: "QuireHTML", package: "Quire"), .product(name: "QuireMarkup", package: "Quire"),
        .product(name: "QuireMarkdown", package: "Quire"), .product(name: "QuireCatalog", package: "Quire"),
        .product(name: "QuireConfig", package: "Quire"), .product(name: "QuireModel", package: "Quire"),
    ]),
    BenchmarkRow(name: "MarkupBenchmark", dependencies: [
        .product(name: "QuireMarkup", package: "Quire"), .product(name: "QuireMarkdown", package: "Quire"),
        .product(name: "QuireCatalog", package: "Quire"), .product(name: "QuireConfig", package: "Quire"),
        .product(name: "QuireModel", package: "Quire"),
    ]),
]

let package = Package(
    name: "QuireBenchmarks",
    platforms: [.macOS(.v15)],
    products: [],
    dependencies: [.package(name: "Quire", path: "..")],
    targets: [
        .target(name: "BenchSupport", dependencies: [.product(name: "QuireAlgorithms", package: "Quire")], path: "Sources/BenchSupport"),
    ] + benchmarks.map { row in
        .executableTarget(
            name: row.name,
            dependencies: ["BenchSupport"] + row.dependencies,
            path: "Sources/\(row.name)"
        )
    },
    swiftLanguageModes: [.v6]
)
