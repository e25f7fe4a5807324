package templates

// SettingsPage is Site settings: the site's time zone and the Schedules
// section (scheduler health, the kill switch, the daily write cap).
type SettingsPage struct {
	SiteRev     int64
	TimeZone    string // the field's value: the site's zone, or what was typed
	ZoneLabel   string // the site's zone as "İstanbul (UTC+3)"
	Zones       []ZoneOption
	BrowserZone *ZoneOption // the viewer's zone, when it differs from the site's
	Lang        string      // the site's language field: the site's, or what was sent
	Langs       []string    // the languages a site may speak
	// PublicURL and DefaultHost are the address form's fields: the site's,
	// or what was sent.
	PublicURL   string
	DefaultHost bool

	Health    HealthView
	Switch    KillSwitchView
	DailyCap  DailyCapView
	Errors    FieldErrors
	Error     string // a refusal that belongs to no field
	ErrorFor  string // the form the refusal belongs to: "timeZone", "lang", "address", "pause", "resume" or "dailyWriteCap"
	Confirm   string // the confirm step shown open: "pause" or "resume" (without JavaScript, or after a refusal)
	ReturnURL string
}

// ZoneOption is one zone of the time zone list.
type ZoneOption struct {
	Name  string // "Europe/Istanbul"
	Label string // "İstanbul (UTC+3)"
}

// HealthView is the scheduler's health (§8.7).
type HealthView struct {
	State    string    // running | late | stopped
	LastTick *TimePair // nil before the first tick
	NextWake *TimePair
	Trigger  string
	// Stuck are the releases the scheduler should have taken and has not:
	// due and not claimed, or running past the end of their lease.
	Stuck []StuckRow
}

// StuckRow is one release the scheduler has not taken.
type StuckRow struct {
	ID    string
	Title string
	Key   string   // settings.stuck_due or settings.stuck_lease
	At    TimePair // its time, or the end of its lease
}

// KillSwitchView is the site's kill switch and the form that flips it.
type KillSwitchView struct {
	Rev    int64
	Paused *PausedView // nil while schedules run
	Reason string      // the reason field's value
	// Effects is what pausing leaves running (the dialog says it before
	// the person pauses) and, while paused, what it holds.
	Effects PauseEffectsView
}

// PausedView says who paused the site's schedules, when and why.
type PausedView struct {
	By        string
	At        TimePair
	Reason    string
	CanResume bool // the viewer may resume (site:settings): the banner links to settings
	// Effects is what still happens while paused, and what is held.
	Effects PauseEffectsView
}

// DailyCapView is the daily automation write cap with today's use.
type DailyCapView struct {
	Rev   int64
	Cap   int
	Value string // the field's value
	Used  int
}
