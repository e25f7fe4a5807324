package templates

// PauseEffectsView is what the kill switch leaves running and what it holds
// (engine.PauseEffects): the embargo lifts and expiries of the live site in
// the next 24 hours, each with the way to change it, and the releases the
// pause holds.
type PauseEffectsView struct {
	Gates     []GateAheadRow
	MoreGates int
	Held      []HeldRow
	HeldCount int
}

// GateAheadRow is one embargo lift ("from") or expiry ("until") to come.
type GateAheadRow struct {
	Title   string
	Edge    string // from | until
	When    TimePair
	EditURL string // the node's editor, at its Schedule card
}

// HeldRow is one release the pause holds.
type HeldRow struct {
	Title string
	When  TimePair
	URL   string
}
