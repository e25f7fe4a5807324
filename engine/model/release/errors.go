package release

// Error codes returned in *Error. They are API values: keep them stable.
const (
	// Items (§4.2, §6.1).
	CodeNoItems          = "no_items"
	CodeTooManyItems     = "too_many_items"
	CodeDuplicateNode    = "duplicate_node"
	CodeBadNodeKind      = "bad_node_kind"
	CodeBadOp            = "bad_op" // an item kind other than set or remove
	CodeMissingTarget    = "missing_target"
	CodeNothingToPublish = "nothing_to_publish"
	CodeBadRemoval       = "bad_removal"

	// Times (§6.1 step 7, §9.5).
	CodeTimeInPast = "time_in_past"
	CodeTooSoon    = "too_soon"
	CodeTooFar     = "too_far"

	// States (§4.2).
	CodeUnknownState = "unknown_state"
)

// Error is a refusal with a stable code; NodeID names the offending item when
// there is one.
type Error struct {
	Code   string
	NodeID string
}

func (e *Error) Error() string {
	if e.NodeID != "" {
		return "release: " + e.Code + " (" + e.NodeID + ")"
	}
	return "release: " + e.Code
}
