package release

// MaxItems is the most items one release may carry (§6.1 step 7).
const MaxItems = 100

// releaseKinds are the node kinds a release may carry; never "site" (§4.2).
var releaseKinds = map[NodeKind]bool{
	KindPage: true, KindContentEntry: true, KindTaxonomy: true, KindTerm: true,
	KindRedirect: true, KindMenu: true, KindAsset: true,
}

// removableKinds may be removed by a release; removing the others stays an
// ordinary publish in v1 (§6.1 step 3).
var removableKinds = map[NodeKind]bool{KindContentEntry: true, KindPage: true, KindRedirect: true}

// ValidateItems applies the item rules the schema leaves to code (§4.2, §6.1):
// 1..MaxItems items, one per node, a release kind, a set with a target that
// differs from its base, a removal with a base and no target of a removable
// kind. Items are checked in node-id order so the same set always gives the
// same error. It returns an *Error.
func ValidateItems(items []Item) error {
	switch {
	case len(items) == 0:
		return &Error{Code: CodeNoItems}
	case len(items) > MaxItems:
		return &Error{Code: CodeTooManyItems}
	}
	sorted := sortedByNode(items)
	for i, it := range sorted {
		fail := func(code string) error { return &Error{Code: code, NodeID: it.NodeID} }
		if i > 0 && sorted[i-1].NodeID == it.NodeID {
			return fail(CodeDuplicateNode)
		}
		if !releaseKinds[it.NodeKind] {
			return fail(CodeBadNodeKind)
		}
		switch it.Op {
		case OpSet:
			if it.Target == nil {
				return fail(CodeMissingTarget)
			}
			if it.Base != nil && *it.Target == *it.Base {
				return fail(CodeNothingToPublish)
			}
		case OpRemove:
			if it.Target != nil || it.Base == nil || !removableKinds[it.NodeKind] {
				return fail(CodeBadRemoval)
			}
		default:
			return fail(CodeBadOp)
		}
	}
	return nil
}
