// Node fields are JSONValues, and every importer of the model reads and writes them; re-exporting
// the JSON module spares each of them a second import of the type its fields are made of.
@_exported import QuireJSON
