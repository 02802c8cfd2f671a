import QuireCRDT
import QuireModel

// Stand-in for QuireJSON's CRDT value mapping until it is merged (the merge removes this file).
extension CRDTValue {
    init(_ json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .number(.integer(let integer)): self = .int(Int64(integer))
        case .number(.double(let double)): self = .double(double)
        case .string(let text): self = .string(text)
        case .array(let elements): self = .list(elements.map(CRDTValue.init))
        case .object(let object):
            var map: [String: CRDTValue] = [:]
            for member in object { map[member.key] = CRDTValue(member.value) }
            self = .map(map)
        }
    }
}
