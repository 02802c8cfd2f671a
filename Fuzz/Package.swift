// swift-tools-version: 6.2
// libFuzzer harnesses, a package of their own so that `swift test` on Quire never builds them and
// the sanitized build instruments only the engine modules the harnesses reach (no server stack).
// Build and run them with `make fuzz` (see the README's "Fuzzing" section); each harness is one
// executable whose `LLVMFuzzerTestOneInput` feeds the bytes to a library entry point and traps
// when a property the engine promises does not hold.
import PackageDescription

struct HarnessRow {
    var name: String
    var dependencies: [String]
    var support: [Target.Dependency] = []
}

let harnesses: [HarnessRow] = [
    HarnessRow(name: "LexicalJSONFuzz", dependencies: ["QuireModel", "QuireConfig", "QuireCatalog"]),
    HarnessRow(name: "MarkdownFuzz", dependencies: ["QuireModel", "QuireConfig", "QuireCatalog", "QuireMarkup"]),
    HarnessRow(name: "ConfigFuzz", dependencies: ["QuireConfig", "QuireCatalog"]),
    HarnessRow(name: "CRDTBinaryFuzz", dependencies: ["QuireCRDT"], support: ["CRDTFuzzSupport"]),
    HarnessRow(name: "LoroJSONFuzz", dependencies: ["QuireCRDT"], support: ["CRDTFuzzSupport"]),
    HarnessRow(name: "TraceFuzz", dependencies: ["QuireCRDT"]),
    HarnessRow(name: "EditScriptFuzz", dependencies: ["QuireEditScript", "QuireEditor", "QuireModel", "QuireConfig", "QuireCatalog"]),
]

let package = Package(
    name: "QuireFuzz",
    platforms: [.macOS(.v15)],
    products: [],
    dependencies: [.package(name: "Quire", path: "..")],
    targets: [
        .target(name: "FuzzSupport", path: "Sources/FuzzSupport"),
        .target(name: "CRDTFuzzSupport", dependencies: ["FuzzSupport", .product(name: "QuireCRDT", package: "Quire")], path: "Sources/CRDTFuzzSupport"),
    ] + harnesses.map { row in
        .executableTarget(
            name: row.name,
            dependencies: ["FuzzSupport"] + row.support + row.dependencies.map { .product(name: $0, package: "Quire") },
            path: "Sources/\(row.name)",
            // libFuzzer supplies `main`; the harness is a library-style file without top-level code.
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        )
    },
    swiftLanguageModes: [.v6]
)
