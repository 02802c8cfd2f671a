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
    ModuleRow(name: "QuireModel", dependencies: [.product(name: "HashTreeCollections", package: "swift-collections")], testDependencies: ["QuireTestSupport"]),
    ModuleRow(name: "QuireConfig", dependencies: ["QuireModel", "CYAML"]),
    ModuleRow(name: "QuirePositionIndex", dependencies: [], testDependencies: ["QuireTestSupport"]),
    ModuleRow(name: "QuireTextStorage", dependencies: []),
    ModuleRow(name: "QuireReconciler", dependencies: ["QuireModel", "QuirePositionIndex", "QuireTextStorage"]),
    ModuleRow(name: "QuireSelection", dependencies: ["QuireModel", "QuirePositionIndex"], testDependencies: ["QuireReconciler"]),
    ModuleRow(name: "QuireEditor", dependencies: ["QuireModel", "QuirePositionIndex", "QuireTextStorage", "QuireReconciler", "QuireSelection"], testDependencies: ["QuireTestSupport"]),
    ModuleRow(name: "QuireCRDT", dependencies: ["CLZ4", "CXXHash"], testDependencies: ["QuireTestSupport"]),
    ModuleRow(name: "QuireTestSupport", dependencies: ["QuireModel"], hasTests: false),
    ModuleRow(name: "QuireMarkup", dependencies: ["QuireModel", "QuireTextStorage"], testDependencies: ["QuireModel", "QuireTextStorage", "QuireTestSupport"]),
]

/// Node-type and markup plugins live in `Plugins/<name>`; SwiftPM reserves `Plugins/` for its own
/// package plugins, so every target here names its path explicitly.
struct PluginRow {
    var name: String
    var directory: String
    var dependencies: [Target.Dependency]
}

let plugins: [PluginRow] = [
    PluginRow(name: "QuireHeading", directory: "Heading", dependencies: ["QuireModel", "QuireMarkup", "QuireEditor", "QuireReconciler", "QuireTextStorage"]),
    PluginRow(name: "QuireQuote", directory: "Quote", dependencies: ["QuireModel", "QuireMarkup", "QuireEditor", "QuireReconciler", "QuireTextStorage"]),
    PluginRow(name: "QuireList", directory: "List", dependencies: ["QuireModel", "QuireMarkup", "QuireEditor", "QuireReconciler", "QuireTextStorage"]),
    PluginRow(name: "QuireCode", directory: "Code", dependencies: ["QuireModel", "QuireMarkup", "QuireEditor", "QuireReconciler", "QuireTextStorage"]),
    PluginRow(name: "QuireLink", directory: "Link", dependencies: ["QuireModel", "QuireMarkup", "QuireEditor", "QuireReconciler", "QuireTextStorage"]),
    PluginRow(name: "QuireTable", directory: "Table", dependencies: ["QuireModel", "QuireMarkup", "QuireEditor", "QuireReconciler", "QuireTextStorage"]),
    PluginRow(name: "QuireHorizontalRule", directory: "HorizontalRule", dependencies: ["QuireModel", "QuireMarkup", "QuireEditor", "QuireReconciler", "QuireTextStorage"]),
    PluginRow(name: "QuireImage", directory: "Image", dependencies: ["QuireModel", "QuireMarkup"]),
    PluginRow(name: "QuireMarkdown", directory: "Markdown", dependencies: ["QuireModel", "QuireMarkup", "CCmarkGFM"]),
    PluginRow(name: "QuireCatalog", directory: "Catalog", dependencies: [
        "QuireModel", "QuireHeading", "QuireQuote", "QuireList", "QuireCode", "QuireLink", "QuireTable",
        "QuireHorizontalRule", "QuireImage", "QuireMarkdown",
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
    .testTarget(
        name: "QuireMarkdownTests",
        dependencies: ["QuireMarkdown", "QuireMarkup", "QuireCatalog", "QuireConfig", "QuireModel"],
        path: "Tests/QuireMarkdownTests",
        resources: [],
        swiftSettings: strictSettings
    ),
    .executableTarget(
        name: "quire",
        dependencies: [
            "QuireModel", "QuireConfig", "QuireCatalog", "QuireEditor", "QuireTextStorage", "QuireCRDT", "QuireMarkup", "QuireMarkdown",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ],
        path: "Examples/quire",
        swiftSettings: strictSettings
    ),
    .testTarget(
        name: "QuireCLITests",
        dependencies: ["quire"],
        path: "Tests/QuireCLITests",
        swiftSettings: strictSettings
    ),
    // The README's worked plugin example, compiled and tested so that it cannot rot.
    .target(
        name: "QuireCalloutExample",
        dependencies: ["QuireModel", "QuireEditor", "QuireReconciler", "QuireTextStorage"],
        path: "Examples/Callout",
        swiftSettings: strictSettings
    ),
    .testTarget(
        name: "QuireCalloutExampleTests",
        dependencies: ["QuireCalloutExample", "QuireCatalog", "QuireConfig", "QuireEditor", "QuireTestSupport"],
        path: "Tests/QuireCalloutExampleTests",
        swiftSettings: strictSettings
    ),
    .testTarget(
        name: "QuirePluginsTests",
        dependencies: [
            "QuireCatalog", "QuireHeading", "QuireQuote", "QuireList", "QuireCode", "QuireConfig", "QuireTestSupport",
            "QuireModel", "QuireEditor", "QuireReconciler", "QuireTextStorage",
            "QuireTable", "QuireLink", "QuireHorizontalRule", "QuireSelection",
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
    ],
    targets: targets,
    swiftLanguageModes: [.v6]
)
