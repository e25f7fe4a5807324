package templates

// OAuthConsentPage is the consent page of a connector that asks to act as
// an agent of the signed-in person (issue 38).
type OAuthConsentPage struct {
	// Client is the name the client registered; Destination where the
	// answer goes (a host, or an app's scheme).
	Client      string
	Destination string
	// Site is the site the key will work on; OtherSites the person's
	// others, each the same page there.
	Site       string
	OtherSites []SiteLink
	Modes      []ModeChoice
	Scopes     []ScopeChoice
	// Fields carry the authorization request on to the answer.
	Fields []HiddenField
	Errors FieldErrors
	Error  string
}
