import QuireHTML
import QuireMarkup
import QuireModel
import Testing

/// One HTML input and the outline of what it imports as.
struct Mapping: Sendable, CustomTestStringConvertible {
    var html: String
    var expected: String
    var testDescription: String { html }
    init(_ html: String, _ expected: String) {
        self.html = html
        self.expected = expected
    }
}

@Suite struct ElementMappingTests {
    static let blocks: [Mapping] = [
        Mapping("<p>one</p><p>two</p>", #"paragraph("one") paragraph("two")"#),
        Mapping("<h1>A</h1><h2>B</h2><h3>C</h3><h4>D</h4><h5>E</h5><h6>F</h6>",
                #"heading{tag="h1"}("A") heading{tag="h2"}("B") heading{tag="h3"}("C") heading{tag="h4"}("D") heading{tag="h5"}("E") heading{tag="h6"}("F")"#),
        Mapping("<blockquote>quoted</blockquote>", #"quote("quoted")"#),
        Mapping("<blockquote><p>a</p><p>b</p></blockquote>", #"quote("a" ⏎ "b")"#),
        Mapping("<blockquote>a<ul><li>x</li></ul>b</blockquote>", #"quote("a") list{tag="ul",listType="bullet",start=1}(listitem("x")) quote("b")"#),
        Mapping("<blockquote><h2>heading in quote</h2>text</blockquote>", #"heading{tag="h2"}("heading in quote") quote("text")"#),
        Mapping("<ul><li>a</li><li>b</li></ul>", #"list{tag="ul",listType="bullet",start=1}(listitem("a") listitem("b"))"#),
        Mapping(#"<ol start="7"><li>a</li><li>b</li></ol>"#, #"list{tag="ol",listType="number",start=7}(listitem("a") listitem("b"))"#),
        Mapping("<ul><li>a<ul><li>b<ol><li>c</li></ol></li></ul></li><li>d</li></ul>",
                #"list{tag="ul",listType="bullet",start=1}(listitem("a") listitem(list{tag="ul",listType="bullet",start=1}(listitem("b") listitem(list{tag="ol",listType="number",start=1}(listitem("c"))))) listitem("d"))"#),
        Mapping("<ul><li><p>a</p><p>b</p></li></ul>", #"list{tag="ul",listType="bullet",start=1}(listitem("a" ⏎ "b"))"#),
        Mapping("<ul><li>a<pre>code\nline</pre>b</li></ul>", #"list{tag="ul",listType="bullet",start=1}(listitem("a" ⏎ code:"code" ⏎ code:"line" ⏎ "b"))"#),
        Mapping(#"<ul class="contains-task-list"><li><input type="checkbox" checked disabled> done</li><li><input type="checkbox"> open</li></ul>"#,
                #"list{tag="ul",listType="check",start=1}(listitem{checked=true}("done") listitem{checked=false}("open"))"#),
        Mapping(#"<ul><li role="checkbox" aria-checked="true">lexical</li><li aria-checked="false">x</li></ul>"#,
                #"list{tag="ul",listType="check",start=1}(listitem{checked=true}("lexical") listitem{checked=false}("x"))"#),
        Mapping("<ul>loose<li>a</li></ul>", #"list{tag="ul",listType="bullet",start=1}(listitem("loose") listitem("a"))"#),
        Mapping(#"<pre><code class="language-swift">let a = 1"# + "\n\n  b()\n</code></pre>", #"code{language="swift"}("let a = 1" ⏎ ⏎ "  b()")"#),
        Mapping(#"<pre class="lang-js">x</pre>"#, #"code{language="js"}("x")"#),
        Mapping(#"<pre data-language="rust">fn main() {}</pre>"#, #"code{language="rust"}("fn main() {}")"#),
        Mapping("<pre>  keep   this\n\tand tabs\n</pre>", "code{language=null}(\"  keep   this\" ⏎ \"\tand tabs\")"),
        Mapping("<code>a\nb</code>", #"code{language=null}("a" ⏎ "b")"#),
        Mapping(#"<table><tr><th>h1</th><th scope="row">h2</th></tr><tr><td colspan="2" rowspan="3">c</td></tr></table>"#,
                #"table(tablerow(tablecell{headerState=1}(paragraph("h1")) tablecell{headerState=2}(paragraph("h2"))) tablerow(tablecell{colSpan=2,rowSpan=3}(paragraph("c"))))"#),
        Mapping("<table><thead><tr><td><p>a</p><p>b</p></td><td></td></tr></thead></table>",
                #"table(tablerow(tablecell(paragraph("a") paragraph("b")) tablecell(paragraph())))"#),
        Mapping("<table><caption>cap</caption><tr><td>a</td></tr></table>", #"table(tablerow(tablecell(paragraph("cap"))) tablerow(tablecell(paragraph("a"))))"#),
        Mapping("<p>a</p><hr><p>b</p>", #"paragraph("a") horizontalrule paragraph("b")"#),
        Mapping(#"<p style="text-align: center" dir="rtl">centered</p>"#, #"paragraph{format="center",direction="rtl"}("centered")"#),
    ]

    @Test(arguments: blocks) func blockElements(_ mapping: Mapping) throws {
        let state = try importHTML(mapping.html)
        #expect(Outline.of(state) == mapping.expected)
        // Nothing is left over: a quote taken apart before it had content leaves no node behind.
        var reachable = 0
        var pending: [NodeKey] = [.root]
        while let key = pending.popLast() {
            reachable += 1
            pending.append(contentsOf: state.children(of: key).map(\.key))
        }
        #expect(state.nodeCount == reachable)
    }

    static let inlines: [Mapping] = [
        Mapping(#"<p><a href=" https://x.org/ " title="T" target="_blank" rel="noopener">link</a> <a name="anchor">anchor</a></p>"#,
                #"paragraph(link{url="https://x.org/",title="T",target="_blank",rel="noopener"}("link") " anchor")"#),
        Mapping(#"<p><img src="a.png" alt="alt text" width="40" height="30" title="t"></p>"#,
                #"paragraph(image{title="t",src="a.png",altText="alt text",width=40,height=30})"#),
        Mapping(#"<p><img src="b.png" style="width: 12px; height:7px"></p>"#, #"paragraph(image{src="b.png",altText="",width=12,height=7})"#),
        Mapping("<p>a<br>b<br><br>c<br></p>", #"paragraph("a" ⏎ "b" ⏎ ⏎ "c")"#),
        Mapping("<p><b>b</b><strong>s</strong><i>i</i><em>e</em><u>u</u><s>s</s><del>d</del><strike>k</strike><code>c</code><sub>1</sub><sup>2</sup><mark>m</mark><kbd>k</kbd><ins>n</ins></p>",
                #"paragraph(b:"bs" i:"ie" u:"u" s:"sdk" code:"c" sub:"1" sup:"2" mark:"m" code:"k" u:"n")"#),
        Mapping(#"<p><span style="font-weight: 700">a</span><span style="font-style: italic">b</span><span style="text-decoration: underline line-through">c</span><span style="vertical-align: super">d</span><span style="text-transform: uppercase">e</span></p>"#,
                #"paragraph(b:"a" i:"b" u+s:"c" sup:"d" upper:"e")"#),
        Mapping(#"<p><b style="font-weight: normal">gdocs</b><b><span style="font-weight:400">unbold</span></b></p>"#, #"paragraph("gdocsunbold")"#),
        Mapping("<b>bold<i>both</b>italic</i>", #"paragraph(b:"bold" b+i:"both" i:"italic")"#),
        Mapping(#"<a href="x"><div>block in link</div></a>"#, #"paragraph(link{url="x"}("block in link"))"#),
        Mapping("<p>x&nbsp;&nbsp;y &amp; &lt;z&gt;</p>", "paragraph(\"x\u{A0}\u{A0}y & <z>\")"),
    ]

    @Test(arguments: inlines) func inlineElementsAndFormats(_ mapping: Mapping) throws {
        #expect(try outline(mapping.html) == mapping.expected)
    }

    /// Without the plugin that converts an element, its text stays: an image keeps its
    /// description, a list its items' text.
    @Test func unconfiguredConversionsKeepTheText() throws {
        let converter = HTMLConverter(registry: NodeRegistry(), contributions: [])
        let state = try importHTML(#"<h1>Title</h1><ul><li>a</li><li>b</li></ul><p><img src="x.png" alt="no plugin"> <a href="/x">link</a></p>"#, converter: converter)
        #expect(Outline.of(state) == #"paragraph("Title") paragraph("a") paragraph("b") paragraph("no plugin link")"#)
    }
}

@Suite struct WhitespaceTests {
    static let cases: [Mapping] = [
        Mapping("<p>  a   b \n c  </p>", #"paragraph("a b c")"#),
        Mapping("<p>a <b> b</b> c</p>", #"paragraph("a " b:"b" " c")"#),
        Mapping("<p>a<b> </b>b</p>", #"paragraph("a" b:" " "b")"#),
        Mapping("<p><b>a </b> <i> b</i></p>", #"paragraph(b:"a " i:"b")"#),
        Mapping("<p>a <br> b</p>", #"paragraph("a" ⏎ "b")"#),
        Mapping("<p>   </p><p> x </p>", #"paragraph() paragraph("x")"#),
        Mapping("<p>a<p>b", #"paragraph("a") paragraph("b")"#),
        Mapping("\n  <p>a</p>\n  <p>b</p>\n", #"paragraph("a") paragraph("b")"#),
        Mapping(#"<p>a <span style="white-space: pre-wrap">  two  </span> b</p>"#, #"paragraph("a   two   b")"#),
        Mapping("<pre>\nfirst line feed dropped\n\n</pre>", #"code{language=null}("first line feed dropped" ⏎)"#),
        Mapping("<ul>\n  <li>\n    a\n  </li>\n  <li>b </li>\n</ul>", #"list{tag="ul",listType="bullet",start=1}(listitem("a") listitem("b"))"#),
    ]

    @Test(arguments: cases) func whitespaceCollapsesAsABrowserShowsIt(_ mapping: Mapping) throws {
        #expect(try outline(mapping.html) == mapping.expected)
    }
}

@Suite struct UnknownElementTests {
    static let cases: [Mapping] = [
        Mapping("<div>a<div>b</div>c</div>", #"paragraph("a") paragraph("b") paragraph("c")"#),
        Mapping("<section>one</section><nav>two</nav><article><header>three</header><footer>four</footer></article>",
                #"paragraph("one") paragraph("two") paragraph("three") paragraph("four")"#),
        Mapping("<dl><dt>t</dt><dd>d</dd></dl><figure><figcaption>cap</figcaption></figure>", #"paragraph("t") paragraph("d") paragraph("cap")"#),
        Mapping("<span>loose</span> text <i>here</i>", #"paragraph("loose text " i:"here")"#),
        Mapping("<custom-el>custom</custom-el><x-y><p>inner</p></x-y>", #"paragraph("custom") paragraph("inner")"#),
        Mapping("<li>stray item</li>", #"paragraph("stray item")"#),
        Mapping("<h1>a<div>b</div></h1>", #"heading{tag="h1"}("a" ⏎ "b")"#),
        Mapping("<table><tr><td>cell <div>in div</div></td></tr></table>", #"table(tablerow(tablecell(paragraph("cell") paragraph("in div"))))"#),
    ]

    @Test(arguments: cases) func textInUnknownElementsIsKept(_ mapping: Mapping) throws {
        #expect(try outline(mapping.html) == mapping.expected)
    }

    @Test func scriptStyleAndHeadContributeNothing() throws {
        let html = "<head><title>T</title><style>p{}</style><meta charset=utf-8></head><body><script>alert(1)</script><p>kept</p>"
            + "<noscript>ns</noscript><template><p>tpl</p></template><style>.x{}</style></body>"
        #expect(try outline(html) == #"paragraph("kept")"#)
    }
}
