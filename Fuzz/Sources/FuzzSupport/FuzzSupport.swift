#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A broken promise: written to stderr with the harness's name, then a trap, which libFuzzer
/// records as a crash and saves the input that caused it.
public func fuzzFailure(_ harness: String, _ message: String) -> Never {
    var line = "\(harness): property violated: \(message)\n"
    line.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
    abort()
}

/// The input as a byte array (libFuzzer hands over a pointer and a size; size 0 may come with a
/// null-like pointer, so it is not dereferenced then).
public func fuzzBytes(_ data: UnsafePointer<UInt8>, _ size: Int) -> [UInt8] {
    size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
}

/// The non-whitespace scalars of a text: what a reader sees, independent of how an exporter
/// spaces blocks and wraps lines.
public func visibleScalars(_ text: String) -> [Unicode.Scalar] {
    text.unicodeScalars.filter { !$0.properties.isWhitespace }
}
