import QuireModel
import QuireStyle
import QuireTextStorage
import Testing

@Suite struct ThemeTests {
    @Test func placeholder() {}
}
