#include <cmark-gfm.h>
#include <cmark-gfm-core-extensions.h>
// The node struct: footnote labels, bullet characters and setext headings have no accessor.
#include <cmark-gfm/node.h>
