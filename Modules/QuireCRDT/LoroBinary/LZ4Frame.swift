import CLZ4
import CXXHash

// LZ4 frames as Loro stores SSTable block bodies (loro-dev/loro `docs/encoding-lz4.md`): the
// frame layer is written and checked here, each data block is compressed and decompressed by
// Debian's liblz4 (the reference implementation).

enum LZ4Frame {
    static let magic: UInt32 = 0x184D_2204

    /// The maximum data-block size for a BD byte's size code (4 → 64 KiB … 7 → 4 MiB).
    static func blockMax(code: UInt8) -> Int { 1 << (8 + 2 * Int(code)) }

    /// One frame for `raw` in Loro's canonical profile: independent blocks, no checksums, no
    /// content size, the block maximum chosen from the input length, each data block stored
    /// compressed only when that is strictly smaller.
    /// - Complexity: O(n).
    static func compress(_ raw: [UInt8]) -> [UInt8] {
        let code: UInt8 = raw.count <= 64 << 10 ? 4 : (raw.count <= 256 << 10 ? 5 : 7)
        let blockSize = blockMax(code: code)
        var w = ByteWriter()
        w.bytes.reserveCapacity(raw.count / 2 + 16)
        w.u32(magic)
        let flg: UInt8 = 0x60, bd = code << 4
        w.u8(flg)
        w.u8(bd)
        w.u8(headerChecksum([flg, bd]))
        var scratch = [UInt8](repeating: 0, count: Int(LZ4_compressBound(Int32(min(blockSize, max(raw.count, 1))))))
        var start = 0
        while start < raw.count {
            let n = min(blockSize, raw.count - start)
            let written: Int32 = raw.withUnsafeBufferPointer { src in
                scratch.withUnsafeMutableBufferPointer { dst in
                    src.baseAddress!.advanced(by: start).withMemoryRebound(to: CChar.self, capacity: n) { s in
                        dst.baseAddress!.withMemoryRebound(to: CChar.self, capacity: dst.count) { d in
                            LZ4_compress_default(s, d, Int32(n), Int32(dst.count))
                        }
                    }
                }
            }
            if written > 0, Int(written) < n {
                w.u32(UInt32(written))
                w.bytes.append(contentsOf: scratch[0..<Int(written)])
            } else {
                w.u32(UInt32(n) | 0x8000_0000)
                w.bytes.append(contentsOf: raw[start..<start + n])
            }
            start += n
        }
        w.u32(0)
        return w.bytes
    }

    /// LZ4's one-byte header checksum: the second byte of xxHash32 (seed 0) of the descriptor.
    static func headerChecksum(_ descriptor: [UInt8]) -> UInt8 {
        UInt8((XXHash32.hash(descriptor, 0..<descriptor.count, seed: 0) >> 8) & 0xFF)
    }

    /// Decodes one frame occupying the whole reader. Accepts the optional frame features a
    /// standard encoder may add (content size, block and content checksums, which are checked)
    /// but not dictionaries or linked blocks; the frame must end exactly at the reader's end.
    /// - Complexity: O(n + output).
    static func decompress(_ input: ByteReader) throws(CRDTError) -> [UInt8] {
        var r = input
        let start = r.offset
        guard try r.u32() == magic else { throw CRDTError.malformedBytes(offset: start, reason: "LZ4 frame: bad magic") }
        let flgAt = r.offset
        let flg = try r.u8()
        let bd = try r.u8()
        guard flg >> 6 == 1 else { throw CRDTError.malformedBytes(offset: flgAt, reason: "LZ4 frame: version \(flg >> 6) is not 1") }
        guard flg & 0x02 == 0, bd & 0x8F == 0 else { throw CRDTError.malformedBytes(offset: flgAt, reason: "LZ4 frame: reserved bits set") }
        guard flg & 0x20 != 0 else { throw CRDTError.malformedBytes(offset: flgAt, reason: "LZ4 frame: linked blocks are not supported") }
        guard flg & 0x01 == 0 else { throw CRDTError.malformedBytes(offset: flgAt, reason: "LZ4 frame: dictionaries are not supported") }
        let code = bd >> 4
        guard code >= 4 else { throw CRDTError.malformedBytes(offset: flgAt + 1, reason: "LZ4 frame: block size code \(code)") }
        let hasBlockChecksum = flg & 0x10 != 0, hasContentSize = flg & 0x08 != 0, hasContentChecksum = flg & 0x04 != 0
        var contentSize: UInt64?
        if hasContentSize {
            var v: UInt64 = 0
            for i in 0..<8 { v |= UInt64(try r.u8()) << (8 * UInt64(i)) }
            contentSize = v
        }
        let hcAt = r.offset
        let hc = try r.u8()
        let descriptor = Array(input.bytes[flgAt..<hcAt])
        guard hc == headerChecksum(descriptor) else { throw CRDTError.malformedBytes(offset: hcAt, reason: "LZ4 frame: header checksum mismatch") }
        let blockSize = blockMax(code: code)
        var out: [UInt8] = []
        if let contentSize, contentSize <= UInt64(r.remaining) * 255 { out.reserveCapacity(Int(contentSize)) }
        while true {
            let infoAt = r.offset
            let info = try r.u32()
            if info == 0 { break }
            let size = Int(info & 0x7FFF_FFFF)
            guard size <= blockSize, size <= r.remaining else {
                throw CRDTError.malformedBytes(offset: infoAt, reason: "LZ4 frame: data block of \(size) bytes (maximum \(blockSize), \(r.remaining) left)")
            }
            let dataAt = r.offset
            let data = try r.sub(size, "LZ4 data block")
            if hasBlockChecksum {
                let sumAt = r.offset
                guard try r.u32() == XXHash32.hash(input.bytes, dataAt..<dataAt + size, seed: 0) else {
                    throw CRDTError.malformedBytes(offset: sumAt, reason: "LZ4 frame: data block checksum mismatch")
                }
            }
            if info & 0x8000_0000 != 0 {
                out.append(contentsOf: input.bytes[data.offset..<data.end])
                continue
            }
            let before = out.count
            // LZ4 expands at most 255:1: no need to reserve the whole block maximum.
            let capacity = min(blockSize, size &* 255 &+ 16)
            out.append(contentsOf: repeatElement(0, count: capacity))
            let produced: Int32 = input.bytes.withUnsafeBufferPointer { src in
                out.withUnsafeMutableBufferPointer { dst in
                    src.baseAddress!.advanced(by: dataAt).withMemoryRebound(to: CChar.self, capacity: size) { s in
                        dst.baseAddress!.advanced(by: before).withMemoryRebound(to: CChar.self, capacity: capacity) { d in
                            LZ4_decompress_safe(s, d, Int32(size), Int32(capacity))
                        }
                    }
                }
            }
            guard produced >= 0 else { throw CRDTError.malformedBytes(offset: dataAt, reason: "LZ4 frame: corrupt compressed data block") }
            out.removeLast(capacity - Int(produced))
        }
        if let contentSize, contentSize != UInt64(out.count) {
            throw CRDTError.malformedBytes(offset: start, reason: "LZ4 frame: \(out.count) bytes where the header says \(contentSize)")
        }
        if hasContentChecksum {
            let sumAt = r.offset
            guard try r.u32() == XXHash32.hash(out, 0..<out.count, seed: 0) else {
                throw CRDTError.malformedBytes(offset: sumAt, reason: "LZ4 frame: content checksum mismatch")
            }
        }
        try r.expectEnd("the LZ4 frame")
        return out
    }
}
