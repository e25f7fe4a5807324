package api

import "studio/handlers/wire"

// The release's shape moved to handlers/wire (shared with MCP); its test
// here reads it under the names it was written against.
var releaseJSON = wire.ReleaseOf

const (
	metaOutcomeRunID   = wire.MetaOutcomeRunID
	metaOutcomeReason  = wire.MetaOutcomeReason
	metaOutcomeMessage = wire.MetaOutcomeMessage
	metaOutcomeCode    = wire.MetaOutcomeCode
)
