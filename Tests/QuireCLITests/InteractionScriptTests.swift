import QuireJSON
import Testing

/// `quire edit-script`'s interaction steps: reload, suggest, viewport, userScroll, highlight,
/// focus, and the "viewport" and "caret" output.
@Suite struct InteractionScriptTests {
    func run(_ steps: [String]) throws -> (QuireProcess.Result, JSONObject?) {
        try EditScriptCLITests().run(steps)
    }

    func viewport(_ output: JSONObject?) -> [Int?] {
        let viewport = output?["viewport"]?.objectValue
        return [viewport?["firstRow"]?.intValue, viewport?["rows"]?.intValue, viewport?["columns"]?.intValue]
    }

    func caret(_ output: JSONObject?) -> [Int?] {
        let caret = output?["caret"]?.objectValue
        return [caret?["row"]?.intValue, caret?["column"]?.intValue]
    }

    @Test func aReloadKeepsTheSelectionAndUndoesInOneStep() throws {
        let steps = [
            #"{"op":"type","text":"The quick brown fox"}"#, #"{"op":"select","start":16,"end":19}"#,
            #"{"op":"reload","text":"The slow brown fox"}"#,
        ]
        let (result, output) = try run(steps)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(output?["text"]?.stringValue == "The slow brown fox")
        #expect(output?["selection"]?.arrayValue?.map(\.intValue) == [15, 18])
        #expect(output?["viewport"] == nil && output?["caret"] == nil)
        let (_, undone) = try run(steps + [#"{"op":"undo"}"#])
        #expect(undone?["text"]?.stringValue == "The quick brown fox")
        #expect(undone?["selection"]?.arrayValue?.map(\.intValue) == [16, 19])
    }

    @Test func aReloadDuringCompositionWaitsForIt() throws {
        let (result, output) = try run([
            #"{"op":"type","text":"hello"}"#, #"{"op":"mark","text":"か","selStart":1,"selEnd":1}"#,
            #"{"op":"reload","text":"Hello"}"#, #"{"op":"mark","text":"かな","selStart":2,"selEnd":2}"#, #"{"op":"unmark"}"#,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(output?["text"]?.stringValue == "Helloかな")
        #expect(output?["selection"]?.arrayValue?.map(\.intValue) == [7, 7])
    }

    @Test func suggestions() throws {
        let (result, output) = try run([
            #"{"op":"type","text":"I like te now"}"#, #"{"op":"select","start":9,"end":9}"#,
            #"{"op":"suggest","word":"tea","replace":"word"}"#,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(output?["text"]?.stringValue == "I like tea now")
        #expect(output?["selection"]?.arrayValue?.map(\.intValue) == [11, 11])
        let (_, replaced) = try run([
            #"{"op":"type","text":"one two"}"#, #"{"op":"select","start":0,"end":3}"#, #"{"op":"suggest","word":"three","replace":"selection"}"#,
            #"{"op":"suggest","word":"four"}"#, #"{"op":"undo"}"#,
        ])
        #expect(replaced?["text"]?.stringValue == "three two")
        #expect(replaced?["selection"]?.arrayValue?.map(\.intValue) == [6, 6])
    }

    @Test func theViewportFollowsTheCaretWithOneRowOfPadding() throws {
        let (result, output) = try run([
            #"{"op":"viewport","width":5,"height":3}"#,
            #"{"op":"type","text":"aaaa bbbb cccc dddd eeee ffff"}"#,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        // Six rows of five cells; the caret at the end of the last row, the view on its last three.
        #expect(viewport(output) == [3, 3, 5])
        #expect(caret(output) == [5, 4])
        let (_, wide) = try run([#"{"op":"viewport","width":6,"height":3}"#, #"{"op":"type","text":"漢字かな👍🏽"}"#])
        #expect(caret(wide) == [1, 4])
    }

    @Test func readingAwayHighlightsAndNavigationDoNotMoveTheView() throws {
        let steps = [
            #"{"op":"viewport","width":5,"height":3}"#,
            #"{"op":"type","text":"aaaa bbbb cccc dddd eeee ffff"}"#,
            #"{"op":"userScroll","row":0}"#,
            #"{"op":"highlight","ranges":[[0,4,"search"],[10,14,"search"]]}"#,
            #"{"op":"select","start":27,"end":27}"#,
        ]
        let (result, output) = try run(steps)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(viewport(output) == [0, 3, 5])
        #expect(output?["highlights"]?.arrayValue?.count == 2)
        // Typing returns to the caret; so does focus.
        let (_, typed) = try run(steps + [#"{"op":"type","text":"!"}"#])
        #expect(viewport(typed) == [3, 3, 5])
        let (_, focused) = try run(steps + [#"{"op":"focus"}"#])
        #expect(viewport(focused) == [3, 3, 5])
    }

    @Test func aReloadAboveTheViewportMovesTheViewWithTheText() throws {
        let steps = [
            #"{"op":"viewport","width":20,"height":3}"#,
            #"{"op":"type","text":"p1\np2\np3\np4\np5\np6"}"#,
            #"{"op":"select","start":13,"end":13}"#,
        ]
        let (_, before) = try run(steps)
        let (result, after) = try run(steps + [#"{"op":"reload","text":"new1\nnew2\np1\np2\np3\np4\np5\np6"}"#])
        #expect(result.status == 0, "\(result.stderr)")
        let firstRow = try #require(viewport(before)[0])
        let caretRow = try #require(caret(before)[0])
        #expect(viewport(after)[0] == firstRow + 2)
        #expect(caret(after)[0] == caretRow + 2)
        #expect(after?["selection"]?.arrayValue?.map(\.intValue) == [23, 23])
    }

    @Test func badInteractionStepsNameTheirLine() throws {
        let cases: [([String], String)] = [
            ([#"{"op":"viewport","width":0,"height":3}"#], "line 1: a viewport needs a positive width and height"),
            ([#"{"op":"type","text":"x"}"#, #"{"op":"viewport","width":5,"height":-2}"#], "line 2: a viewport needs a positive"),
            ([#"{"op":"viewport","width":5}"#], "line 1: \"viewport\" needs an integer \"height\""),
            ([#"{"op":"userScroll","row":0}"#], "line 1: \"userScroll\" needs a viewport step"),
            ([#"{"op":"viewport","width":5,"height":2}"#, #"{"op":"userScroll","row":3}"#], "line 2: row 3 is outside"),
            ([#"{"op":"viewport","width":5,"height":2}"#, #"{"op":"userScroll","row":-1}"#], "line 2: row -1 is outside"),
            ([#"{"op":"suggest"}"#], "line 1: \"suggest\" needs a string \"word\""),
            ([#"{"op":"suggest","word":"  "}"#], "line 1: a suggestion needs a word"),
            ([#"{"op":"suggest","word":"x","replace":"line"}"#], "line 1: \"replace\" is \"word\" or \"selection\""),
            ([#"{"op":"reload"}"#], "line 1: \"reload\" needs a string \"text\""),
            ([#"{"op":"type","text":"ab"}"#, #"{"op":"highlight","ranges":[[0,9,"x"]]}"#], "line 2: highlight \"x\" 0..<9 is empty or outside the text"),
            ([#"{"op":"highlight","ranges":[[0,"x"]]}"#], "line 1: \"ranges\"[0] is not [start, end, name]"),
            ([#"{"op":"highlight"}"#], "line 1: \"highlight\" needs \"ranges\""),
        ]
        for (steps, message) in cases {
            let (result, _) = try run(steps)
            #expect(result.status != 0, "\(steps)")
            #expect(result.stderr.contains(message), "\(steps): \(result.stderr)")
        }
    }
}
