import Foundation
import Testing

/// Issue 20: what a careless or hostile user feeds the command line ends in a typed error, never
/// a crash, a hang or silently lost content.
@Suite struct HostileInputTests {
    static func document(_ children: String) -> String {
        #"{"root":{"type":"root","children":["# + children + "]}}"
    }

    static func list(start: String) -> String {
        document(#"{"type":"list","listType":"number","start":"# + start + #","tag":"ol","children":[{"type":"listitem","value":1,"children":[{"type":"text","text":"a"}]},{"type":"listitem","value":2,"children":[{"type":"text","text":"b"}]}]}"#)
    }

    /// A list start near Int.max passed `check` and then trapped in the run builder and the
    /// markdown writer; the start field now has a range, refused where it is written.
    @Test func aListStartBeyondTheFieldRangeIsRefusedWithItsPath() throws {
        for command in [["check", "-"], ["show", "-", "--plain"], ["convert", "-", "-"]] {
            let result = try QuireProcess.run(command, stdin: Self.list(start: "9223372036854775807"))
            #expect(result.status == 1, "\(command)")
            #expect(result.stderr.contains("$.root.children[0].start"), "\(command): \(result.stderr)")
        }
        let largest = try QuireProcess.run(["show", "-", "--plain"], stdin: Self.list(start: "9007199254740990"))
        #expect(largest.status == 0, "\(largest.stderr)")
        #expect(largest.stdout.contains("9007199254740990. a") && largest.stdout.contains("9007199254740991. b"))
    }

    /// A span of 2^40 was accepted by `check`; spans are bounded as HTML bounds them.
    @Test func aCellSpanBeyondTheRangeIsRefused() throws {
        let table = Self.document(#"{"type":"table","children":[{"type":"tablerow","children":[{"type":"tablecell","colSpan":1099511627776,"headerState":0,"children":[{"type":"paragraph","children":[]}]}]}]}"#)
        let result = try QuireProcess.run(["check", "-"], stdin: table)
        #expect(result.status == 1)
        #expect(result.stderr.contains("$.root.children[0].children[0].children[0].colSpan"), "\(result.stderr)")
    }

    /// `--width` near Int.max trapped in reserveCapacity, 1e9 wrote gigabytes, 0 was accepted.
    @Test(arguments: ["0", "10001", "1000000000", "9223372036854775807"])
    func showRefusesAWidthOutsideItsRangeAsAUsageError(width: String) throws {
        let result = try QuireProcess.run(["show", "-", "--plain", "--width", width], stdin: "---\n")
        #expect(result.status == 64)
        #expect(result.stderr.contains("--width must be from 1 to 10000"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }
}
