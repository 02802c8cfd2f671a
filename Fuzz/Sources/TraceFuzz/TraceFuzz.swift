import FuzzSupport
import QuireCRDT

// Editing traces: any bytes are a typed error, or a trace that replays (sequentially or, for a
// concurrent trace, per agent) or fails with a typed error; never a trap or an allocation sized
// by a count the bytes do not back.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    do {
        let trace = try EditingTrace(json: fuzzBytes(data, size))
        if trace.isConcurrent {
            _ = try TraceReplay.replayConcurrent(trace)
        } else {
            _ = try TraceReplay.replaySequential(trace)
        }
    } catch {
        return 0
    }
    return 0
}
