import QuireList
import QuireModel
import Testing

/// The list commands as state edits: the resulting Lexical JSON, flat string and selection.
@Suite struct ListCommandTests {
    @Test func insertListTurnsTheSelectedParagraphsIntoOneList() throws {
        var state = try Blocks.state(document(paragraph(text("one")), paragraph(text("two")), paragraph(text("three"))))
        try state.select(anchor: .text(Blocks.key(state, 0, 0), 1), focus: .text(Blocks.key(state, 1, 0), 2))
        let texts = [Blocks.key(state, 0, 0), Blocks.key(state, 1, 0)]
        try state.insertList(.bullet)
        #expect(LexicalJSON.export(state) == document(
            list(.bullet, item(1, text("one")), item(2, text("two"))), paragraph(text("three"))))
        #expect(FlatString.render(state) == "one\ntwo\nthree")
        #expect(state.selection?.anchor == .text(texts[0], 1))
        #expect(state.selection?.focus == .text(texts[1], 2))
        #expect(Blocks.key(state, 0, 1, 0) == texts[1], "content keeps its keys")
    }

    @Test func insertListMergesWithListsOfTheSameTypeOnBothSides() throws {
        var state = try Blocks.state(document(
            list(.number, item(1, text("a")), item(2, text("b"))), paragraph(text("c")), list(.number, item(1, text("d")))))
        try state.select(.text(Blocks.key(state, 1, 0), 0))
        try state.insertList(.number)
        #expect(LexicalJSON.export(state) == document(
            list(.number, item(1, text("a")), item(2, text("b")), item(3, text("c")), item(4, text("d")))))
        #expect(FlatString.render(state) == "a\nb\nc\nd")
        #expect(state.selection?.anchor == .text(Blocks.key(state, 0, 2, 0), 0))
    }

    @Test func insertListJoinsTheNextListOnlyWhenItHasTheType() throws {
        var state = try Blocks.state(document(paragraph(text("x")), list(.number, item(1, text("y"))), paragraph()))
        try state.select(.text(Blocks.key(state, 0, 0), 1))
        try state.insertList(.number)
        #expect(LexicalJSON.export(state) == document(list(.number, item(1, text("x")), item(2, text("y"))), paragraph()))
        try state.select(.element(Blocks.key(state, 1), 0))
        try state.insertList(.check)
        #expect(LexicalJSON.export(state) == document(
            list(.number, item(1, text("x")), item(2, text("y"))), list(.check, item(1, checked: false))))
        #expect(state.selection?.anchor == .element(Blocks.key(state, 1, 0), 0), "an empty block's element point moves to the item")
    }

    @Test func insertListOfAnotherTypeRetypesTheList() throws {
        var state = try Blocks.state(document(list(.number, start: 3, item(3, text("a")), item(4, text("b")))))
        try state.select(.text(Blocks.key(state, 0, 1, 0), 0))
        try state.insertList(.check)
        #expect(LexicalJSON.export(state) == document(
            list(.check, item(1, checked: false, text("a")), item(2, checked: false, text("b")))))
        try state.insertList(.bullet)
        #expect(LexicalJSON.export(state) == document(list(.bullet, item(1, text("a")), item(2, text("b")))))
    }

    @Test func insertListIndentsAnIndentedParagraph() throws {
        let indented: JSONValue = {
            guard case .object(var object) = paragraph(text("deep")) else { return .null }
            object["indent"] = int(1)
            return .object(object)
        }()
        var state = try Blocks.state(document(indented))
        try state.select(.text(Blocks.key(state, 0, 0), 0))
        try state.insertList(.bullet)
        #expect(LexicalJSON.export(state) == document(list(.bullet, item(1, list(.bullet, item(1, indent: 1, text("deep")))))))
    }

    @Test func removeListTurnsEveryItemOfTheWholeListIntoAParagraph() throws {
        var state = try Blocks.state(document(
            list(.number, item(1, text("a")), item(2, list(.bullet, item(1, indent: 1, text("b")))), item(2, text("c"))), paragraph(text("p"))))
        let b = Blocks.key(state, 0, 1, 0, 0, 0)
        try state.select(.text(b, 1))
        try state.removeList()
        #expect(LexicalJSON.export(state) == document(paragraph(text("a")), paragraph(text("b")), paragraph(text("c")), paragraph(text("p"))))
        #expect(FlatString.render(state) == "a\nb\nc\np")
        #expect(state.selection?.anchor == .text(b, 1))
    }

    @Test func removeListOfAnEmptyItemPutsTheCaretInItsParagraph() throws {
        var state = try Blocks.state(document(list(.bullet, item(1))))
        try state.select(.element(Blocks.key(state, 0, 0), 0))
        try state.removeList()
        #expect(LexicalJSON.export(state) == document(paragraph()))
        #expect(state.selection?.anchor == .element(Blocks.key(state, 0), 0))
    }

    @Test func toggleListRemovesAListOfTheTypeAndInsertsOtherwise() throws {
        var state = try Blocks.state(document(paragraph(text("a"))))
        try state.select(.text(Blocks.key(state, 0, 0), 0))
        try state.toggleList(.bullet)
        #expect(LexicalJSON.export(state) == document(list(.bullet, item(1, text("a")))))
        try state.toggleList(.number)
        #expect(LexicalJSON.export(state) == document(list(.number, item(1, text("a")))))
        try state.toggleList(.number)
        #expect(LexicalJSON.export(state) == document(paragraph(text("a"))))
    }

    @Test func indentMakesANestedListInAWrapperItem() throws {
        var state = try Blocks.state(document(list(.number, item(1, text("a")), item(2, text("b")), item(3, text("c")))))
        let b = Blocks.key(state, 0, 1, 0)
        try state.select(.text(b, 0))
        #expect(try state.indentListItems())
        #expect(LexicalJSON.export(state) == document(
            list(.number, item(1, text("a")), item(2, list(.number, item(1, indent: 1, text("b")))), item(2, text("c")))))
        #expect(FlatString.render(state) == "a\nb\nc")
        #expect(state.selection?.anchor == .text(b, 0))
    }

    @Test func indentJoinsTheNestedListsAroundTheItem() throws {
        var state = try Blocks.state(document(list(.bullet,
            item(1, text("a")), item(2, list(.bullet, item(1, indent: 1, text("b")))), item(2, text("c")),
            item(3, list(.bullet, item(1, indent: 1, text("d")))), item(3, text("e")))))
        try state.select(.text(Blocks.key(state, 0, 2, 0), 1))
        try state.indentListItems()
        #expect(LexicalJSON.export(state) == document(list(.bullet,
            item(1, text("a")),
            item(2, list(.bullet, item(1, indent: 1, text("b")), item(2, indent: 1, text("c")), item(3, indent: 1, text("d")))),
            item(2, text("e")))))
    }

    @Test func indentMovesIntoTheFollowingNestedList() throws {
        var state = try Blocks.state(document(list(.bullet,
            item(1, text("a")), item(2, text("b")), item(3, list(.bullet, item(1, indent: 1, text("c")))))))
        try state.select(.text(Blocks.key(state, 0, 1, 0), 0))
        try state.indentListItems()
        #expect(LexicalJSON.export(state) == document(list(.bullet,
            item(1, text("a")), item(2, list(.bullet, item(1, indent: 1, text("b")), item(2, indent: 1, text("c")))))))
    }

    @Test func outdentTheFirstMiddleAndLastNestedItem() throws {
        let nested = document(list(.number,
            item(1, text("a")), item(2, list(.number, item(1, indent: 1, text("b")), item(2, indent: 1, text("c")), item(3, indent: 1, text("d")))),
            item(2, text("e"))))
        var first = try Blocks.state(nested)
        try first.select(.text(Blocks.key(first, 0, 1, 0, 0, 0), 0))
        #expect(try first.outdentListItems())
        #expect(LexicalJSON.export(first) == document(list(.number,
            item(1, text("a")), item(2, text("b")), item(3, list(.number, item(1, indent: 1, text("c")), item(2, indent: 1, text("d")))),
            item(3, text("e")))))

        var middle = try Blocks.state(nested)
        let c = Blocks.key(middle, 0, 1, 0, 1, 0)
        try middle.select(.text(c, 1))
        try middle.outdentListItems()
        #expect(LexicalJSON.export(middle) == document(list(.number,
            item(1, text("a")), item(2, list(.number, item(1, indent: 1, text("b")))), item(2, text("c")),
            item(3, list(.number, item(1, indent: 1, text("d")))), item(3, text("e")))))
        #expect(middle.selection?.anchor == .text(c, 1))

        var last = try Blocks.state(nested)
        try last.select(.text(Blocks.key(last, 0, 1, 0, 2, 0), 0))
        try last.outdentListItems()
        #expect(LexicalJSON.export(last) == document(list(.number,
            item(1, text("a")), item(2, list(.number, item(1, indent: 1, text("b")), item(2, indent: 1, text("c")))),
            item(2, text("d")), item(3, text("e")))))
        #expect(FlatString.render(last) == "a\nb\nc\nd\ne")
    }

    @Test func outdentOfATopLevelItemChangesNothingButIsInAList() throws {
        var state = try Blocks.state(document(list(.bullet, item(1, text("a")))))
        try state.select(.text(Blocks.key(state, 0, 0, 0), 0))
        let before = LexicalJSON.export(state)
        #expect(try state.outdentListItems())
        #expect(LexicalJSON.export(state) == before)
        var paragraphs = try Blocks.state(document(paragraph(text("p"))))
        try paragraphs.select(.text(Blocks.key(paragraphs, 0, 0), 0))
        #expect(try !paragraphs.indentListItems(), "no list item selected: not handled")
    }

    @Test func toggleCheckedChecksAllUnlessAllAreChecked() throws {
        var state = try Blocks.state(document(list(.check, item(1, checked: true, text("a")), item(2, checked: false, text("b")))))
        try state.select(anchor: .text(Blocks.key(state, 0, 0, 0), 0), focus: .text(Blocks.key(state, 0, 1, 0), 1))
        try state.toggleListItemChecked()
        #expect(LexicalJSON.export(state) == document(list(.check, item(1, checked: true, text("a")), item(2, checked: true, text("b")))))
        try state.toggleListItemChecked()
        #expect(LexicalJSON.export(state) == document(list(.check, item(1, checked: false, text("a")), item(2, checked: false, text("b")))))
        try state.toggleListItemChecked(Blocks.key(state, 0, 1))
        #expect(LexicalJSON.export(state) == document(list(.check, item(1, checked: false, text("a")), item(2, checked: true, text("b")))))
    }

    @Test func toggleCheckedOfAnItemOutsideACheckListIsATypedError() throws {
        var state = try Blocks.state(document(list(.bullet, item(1, text("a")))))
        let before = LexicalJSON.export(state)
        let item = Blocks.key(state, 0, 0)
        #expect(throws: ModelError.invalidNode(type: "listitem", reason: NodeValidationError(field: "checked", message: "node \(item) is not an item of a check list"))) {
            try state.toggleListItemChecked(item)
        }
        #expect(LexicalJSON.export(state) == before)
    }

    @Test func setListStartRenumbersAndRefusesBulletLists() throws {
        var state = try Blocks.state(document(list(.number, item(1, text("a")), item(2, list(.number, item(1, indent: 1, text("x")))), item(2, text("b")))))
        try state.select(.text(Blocks.key(state, 0, 2, 0), 0))
        try state.setListStart(7)
        #expect(LexicalJSON.export(state) == document(
            list(.number, start: 7, item(7, text("a")), item(8, list(.number, item(1, indent: 1, text("x")))), item(8, text("b")))))
        var bullets = try Blocks.state(document(list(.bullet, item(1, text("a")))))
        try bullets.select(.text(Blocks.key(bullets, 0, 0, 0), 0))
        #expect(throws: ModelError.self) { try bullets.setListStart(3) }
        #expect(LexicalJSON.export(bullets) == document(list(.bullet, item(1, text("a")))))
    }
}
