// swift-tools-version: 6.2
import PackageDescription
import Foundation

// Warnings become errors only when CI asks for it (QUIRE_WARNINGS_AS_ERRORS=1). Doing it
// unconditionally would break every app that depends on Quire whenever a new compiler adds a warning.
let warningsAsErrors = ProcessInfo.processInfo.environment["QUIRE_WARNINGS_AS_ERRORS"] == "1"
let strictSettings: [SwiftSetting] = warningsAsErrors ? [.treatAllWarnings(as: .error)] : []

/// One row per engine module: a target in `Modules/<name>` and a library product of the same name.
struct ModuleRow {
    var name: String
    var dependencies: [Target.Dependency]
    var testDependencies: [Target.Dependency] = []
    var hasTests = true
}

let modules: [ModuleRow] = [
    ModuleRow(name: "QuireAlgorithms", dependencies: []),
    ModuleRow(name: "QuireJSON", dependencies: [], testDependencies: ["QuireTestSupport"]),
    ModuleRow(name: "QuireModel", dependencies: ["QuireAlgorithms", "QuireJSON", .product(name: "HashTreeCollections", package: "swift-collections")], testDependencies: ["QuireAlgorithms", "QuireTestSupport"]),
    ModuleRow(name: "QuireConfig", dependencies: ["QuireModel", "CYAML"], testDependencies: ["QuireModel"]),
    ModuleRow(name: "QuirePositionIndex", dependencies: ["QuireAlgorithms"], testDependencies: ["QuireAlgorithms"]),
    ModuleRow(name: "QuireTextStorage", dependencies: ["QuireAlgorithms", "QuireJSON"], testDependencies: ["QuireAlgorithms"]),
    ModuleRow(name: "QuireStyle", dependencies: ["QuireModel", "QuireTextStorage"], testDependencies: ["QuireModel", "QuireTextStorage"]),
    ModuleRow(name: "QuireReconciler", dependencies: ["QuireModel", "QuirePositionIndex", "QuireTextStorage", "QuireStyle"], testDependencies: ["QuireAlgorithms", "QuireModel", "QuireTextStorage", "QuireStyle"]),
    ModuleRow(name: "QuireSelection", dependencies: ["QuireModel", "QuirePositionIndex"], testDependencies: ["QuireModel", "QuirePositionIndex", "QuireReconciler"]),
    ModuleRow(name: "QuireEditor", dependencies: ["QuireModel", "QuirePositionIndex", "QuireTextStorage", "QuireStyle", "QuireReconciler", "QuireSelection"], testDependencies: ["QuireAlgorithms", "QuireModel", "QuireReconciler", "QuireTextStorage", "QuireTestSupport", "QuireStyle"]),
    ModuleRow(name: "QuireCRDT", dependencies: ["QuireAlgorithms", "QuireJSON", "CLZ4", "CXXHash"], testDependencies: ["QuireAlgorithms", "QuireTestSupport", "QuireJSON", "QuireConfig", "QuireTextStorage"]),
    ModuleRow(name: "QuireTestSupport", dependencies: ["QuireAlgorithms", "QuireModel", "QuireEditor"], hasTests: false),
    ModuleRow(name: "QuireBridge", dependencies: ["QuireAlgorithms", "QuireModel", "QuireEditor", "QuireCRDT", "QuirePositionIndex", "QuireSelection", "QuireTextStorage"], testDependencies: [
        "QuireAlgorithms", "QuireModel", "QuireEditor", "QuireCRDT", "QuireTestSupport", "QuireTextStorage", "QuireReconciler", "QuireStyle", "QuireCatalog", "QuireConfig",
    ]),
    ModuleRow(name: "QuireMarkup", dependencies: ["QuireAlgorithms", "QuireModel", "QuireTextStorage", "QuireStyle"], testDependencies: ["QuireAlgorithms", "QuireModel", "QuireTextStorage"]),
    ModuleRow(name: "QuireInteraction", dependencies: [
        "QuireModel", "QuireEditor", "QuireTextStorage", "QuireMarkup", "QuireReconciler", "QuireSelection", "QuirePositionIndex",
    ], testDependencies: ["QuireAlgorithms", "QuireModel", "QuireEditor", "QuireTextStorage", "QuireMarkup", "QuireReconciler", "QuireSelection", "QuireTestSupport"]),
    // The edit-script format (JSON Lines of text-view edits and interaction steps): replayed by the
    // CLI's edit-script and collab-script, driven by tests, fed arbitrary bytes by the fuzzers.
    ModuleRow(name: "QuireEditScript", dependencies: [
        "QuireJSON", "QuireModel", "QuireEditor", "QuireInteraction", "QuireMarkup", "QuireStyle", "QuireTextStorage",
    ], testDependencies: ["QuireJSON", "QuireModel", "QuireEditor", "QuireCatalog", "QuireConfig"]),
    // The sync server and client. Their networking and database packages are needed only by these
    // rows, their test targets and the `quire` CLI, so nothing else builds them.
    ModuleRow(name: "QuireSyncProtocol", dependencies: ["QuireCRDT"], testDependencies: ["QuireAlgorithms", "QuireCRDT", "QuireTestSupport"]),
    ModuleRow(name: "QuireServer", dependencies: [
        "QuireCRDT", "QuireSyncProtocol",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "UnixSignals", package: "swift-service-lifecycle"),
        .product(name: "NIOCore", package: "swift-nio"),
    ], testDependencies: [
        // One test target for the whole sync stack: server, PostgreSQL storage, client, `quire serve`.
        "QuireCRDT", "QuireSyncProtocol", "QuireSyncClient", "QuirePostgresStorage", "QuireBridge", "QuireEditor", "QuireTextStorage", "quire",
        .product(name: "Logging", package: "swift-log"),
    ]),
    ModuleRow(name: "QuirePostgresStorage", dependencies: [
        "QuireServer", "QuireSyncProtocol",
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
    ], hasTests: false),
    ModuleRow(name: "QuireSyncClient", dependencies: [
        "QuireCRDT", "QuireSyncProtocol", "QuireBridge", "QuireEditor",
        .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
    ], hasTests: false),
]

/// Node-type and markup plugins live in `Plugins/<name>`; SwiftPM reserves `Plugins/` for its own
/// package plugins, so every target here names its path explicitly.
struct PluginRow {
    var name: String
    var directory: String
    var dependencies: [Target.Dependency]
}

let plugins: [PluginRow] = [
    PluginRow(name: "QuireHeading", directory: "Heading", dependencies: ["QuireModel", "QuireMarkup", "QuireEditor", "QuireStyle", "QuireTextStorage"]),
    PluginRow(name: "QuireQuote", directory: "Quote", dependencies: ["QuireModel", "QuireMarkup", "QuireEditor", "QuireStyle", "QuireTextStorage"]),
    PluginRow(name: "QuireList", directory: "List", dependencies: ["QuireModel", "QuireMarkup", "QuireEditor", "QuireStyle", "QuireTextStorage"]),
    PluginRow(name: "QuireCode", directory: "Code", dependencies: ["QuireModel", "QuireMarkup", "QuireEditor", "QuireStyle", "QuireTextStorage"]),
    PluginRow(name: "QuireLink", directory: "Link", dependencies: ["QuireModel", "QuireMarkup", "QuireEditor", "QuireStyle", "QuireTextStorage"]),
    PluginRow(name: "QuireTable", directory: "Table", dependencies: ["QuireModel", "QuireMarkup", "QuireEditor", "QuireStyle", "QuireTextStorage"]),
    PluginRow(name: "QuireHorizontalRule", directory: "HorizontalRule", dependencies: ["QuireModel", "QuireMarkup", "QuireEditor", "QuireStyle", "QuireTextStorage"]),
    PluginRow(name: "QuireImage", directory: "Image", dependencies: ["QuireModel", "QuireMarkup", "QuireEditor", "QuireStyle", "QuireTextStorage"]),
    PluginRow(name: "QuireMarkdown", directory: "Markdown", dependencies: ["QuireAlgorithms", "QuireModel", "QuireMarkup", "QuireEditor", "CCmarkGFM"]),
    PluginRow(name: "QuirePlainText", directory: "PlainText", dependencies: ["QuireModel", "QuireMarkup"]),
    PluginRow(name: "QuireHTML", directory: "HTML", dependencies: ["QuireModel", "QuireMarkup", "QuireEditor", "CGumbo"]),
    PluginRow(name: "QuireCatalog", directory: "Catalog", dependencies: [
        "QuireModel", "QuireHeading", "QuireQuote", "QuireList", "QuireCode", "QuireLink", "QuireTable",
        "QuireHorizontalRule", "QuireImage", "QuireMarkdown", "QuirePlainText", "QuireHTML", "QuireEditor", "QuireStyle", "QuireMarkup",
    ]),
]

var targets: [Target] = [
    .systemLibrary(
        name: "CYAML",
        path: "Modules/CYAML",
        pkgConfig: "yaml-0.1",
        providers: [.apt(["libyaml-dev"])]
    ),
    .systemLibrary(
        name: "CCmarkGFM",
        path: "Modules/CCmarkGFM",
        pkgConfig: "libcmark-gfm",
        providers: [.apt(["libcmark-gfm-dev", "libcmark-gfm-extensions-dev"])]
    ),
    // Loro's binary formats: LZ4 frames and xxHash32 checksums through Debian's reference libraries.
    .systemLibrary(
        name: "CLZ4",
        path: "Modules/CLZ4",
        pkgConfig: "liblz4",
        providers: [.apt(["liblz4-dev"])]
    ),
    .systemLibrary(
        name: "CXXHash",
        path: "Modules/CXXHash",
        pkgConfig: "libxxhash",
        providers: [.apt(["libxxhash-dev"])]
    ),
    .systemLibrary(
        name: "CGumbo",
        path: "Modules/CGumbo",
        pkgConfig: "gumbo",
        providers: [.apt(["libgumbo-dev"])]
    ),
    .testTarget(
        name: "QuireHTMLTests",
        dependencies: ["QuireHTML", "QuireMarkup", "QuireMarkdown", "QuireCatalog", "QuireConfig", "QuireModel", "QuireEditor", "QuireTextStorage", "QuireStyle"],
        path: "Tests/QuireHTMLTests",
        swiftSettings: strictSettings
    ),
    .testTarget(
        name: "QuireMarkdownTests",
        dependencies: ["QuireAlgorithms", "QuireMarkdown", "QuireMarkup", "QuireCatalog", "QuireConfig", "QuireModel", "QuireEditor", "QuireTextStorage", "QuireStyle"],
        path: "Tests/QuireMarkdownTests",
        resources: [],
        swiftSettings: strictSettings
    ),
    .executableTarget(
        name: "quire",
        dependencies: [
            "QuireAlgorithms", "QuireModel", "QuireConfig", "QuireCatalog", "QuireEditor", "QuireTextStorage", "QuireStyle", "QuireCRDT", "QuireMarkup", "QuireMarkdown", "QuirePlainText", "QuireLink",
            "QuireInteraction", "QuireEditScript", "QuireBridge", "QuireSyncProtocol", "QuireServer", "QuirePostgresStorage", "QuireSyncClient", "QuireSelection",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ],
        path: "Examples/quire",
        swiftSettings: strictSettings
    ),
    .testTarget(
        name: "QuireCLITests",
        dependencies: ["quire", "QuireAlgorithms", "QuireJSON", "QuireMarkup", "QuireCRDT"],
        path: "Tests/QuireCLITests",
        swiftSettings: strictSettings
    ),
    // The README's worked plugin example, compiled and tested so that it cannot rot.
    .target(
        name: "QuireCalloutExample",
        dependencies: ["QuireModel", "QuireEditor", "QuireStyle", "QuireTextStorage", "QuireMarkup"],
        path: "Examples/Callout",
        swiftSettings: strictSettings
    ),
    .testTarget(
        name: "QuireCalloutExampleTests",
        dependencies: [
            "QuireCalloutExample", "QuireCatalog", "QuireConfig", "QuireEditor", "QuireStyle", "QuireTestSupport", "QuireModel",
            "QuireTextStorage", "QuireHTML", "QuireMarkup",
        ],
        path: "Tests/QuireCalloutExampleTests",
        swiftSettings: strictSettings
    ),
    .testTarget(
        name: "QuirePluginsTests",
        dependencies: [
            "QuireCatalog", "QuireHeading", "QuireQuote", "QuireList", "QuireCode", "QuireConfig", "QuireTestSupport",
            "QuireModel", "QuireEditor", "QuireReconciler", "QuireStyle", "QuireTextStorage",
            "QuireTable", "QuireLink", "QuireHorizontalRule", "QuireAlgorithms", "QuireImage", "QuirePlainText", "QuireMarkup",
        ],
        path: "Tests/QuirePluginsTests",
        swiftSettings: strictSettings
    ),
]
var products: [Product] = [.executable(name: "quire", targets: ["quire"])]

for module in modules {
    targets.append(.target(
        name: module.name,
        dependencies: module.dependencies,
        path: "Modules/\(module.name)",
        swiftSettings: strictSettings
    ))
    products.append(.library(name: module.name, targets: [module.name]))
    if module.hasTests {
        targets.append(.testTarget(
            name: "\(module.name)Tests",
            dependencies: [.target(name: module.name)] + module.testDependencies,
            path: "Tests/\(module.name)Tests",
            swiftSettings: strictSettings
        ))
    }
}
for plugin in plugins {
    targets.append(.target(
        name: plugin.name,
        dependencies: plugin.dependencies,
        path: "Plugins/\(plugin.directory)",
        swiftSettings: strictSettings
    ))
    products.append(.library(name: plugin.name, targets: [plugin.name]))
}

let package = Package(
    name: "Quire",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: products,
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: targets,
    swiftLanguageModes: [.v6]
)
