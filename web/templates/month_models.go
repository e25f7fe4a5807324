package templates

// MonthView is the Month grid of the Schedules page (RFC §15.2, §15.3,
// §15.7), every word and decision already made: MonthGrid only lays it out.
// The shell around it (navigation, filters, the time-zone note) is the
// Schedules page's own.
type MonthView struct {
	// Month is "2026-10"; Caption names it ("October 2026" / "Ekim 2026").
	Month   string
	Caption string
	// Weekdays are the column headers, from the language's first day of
	// the week.
	Weekdays []MonthWeekday
	// Weeks are the grid's rows, each of seven days, covering the month.
	Weeks [][]MonthDay
	// Focus is the day ("2006-01-02") that holds the grid's one tab stop:
	// today in the current month, else the first of the month.
	Focus string
	// URLs of the Schedules page for the months around this one, in the
	// same state otherwise; the grid's keyboard moves there (PageUp/Down,
	// Shift for a year, arrows past the month's ends).
	PrevMonthURL, NextMonthURL, PrevYearURL, NextYearURL string
	// GridURL reloads this grid alone (after a move, or "Load the latest").
	GridURL string
	// PageURL is this month on the Schedules page; State is its query
	// ("view=month&date=2026-10&kind=publish"), which a move sends back so
	// the grid returns as the person saw it.
	PageURL string
	State   string
	// CanDrag turns on drag to reschedule (a person who may move
	// releases); each chip says whether it may be dragged.
	CanDrag bool
	// CanApprove says which approval effect a move has (D4): an approver
	// keeps the approval, anyone else sends it for approval again.
	CanApprove bool
	CSRF       string
	// ZoneLabel is "Istanbul (UTC+3)": times and days are the site's.
	ZoneLabel string
	// MinDate is the site's today ("2006-01-02"), the earliest date a
	// move may choose.
	MinDate string
}

// MonthWeekday is one column header.
type MonthWeekday struct {
	Name    string // "Monday"
	Short   string // "Mon"
	Weekend bool
}

// MonthDay is one cell of the grid.
type MonthDay struct {
	Date string // "2006-01-02", in the site's zone
	Day  int
	// Label is the day's own name ("Monday 12 October" / "12 Ekim
	// Pazartesi"), the name of the day's number. The cell has no name of
	// its own: its content (the day, then its chips) is its name, and
	// Counts its description ("today, 3 items: 2 publishes, 1 waiting for
	// approval"), so what is read is what is shown (WCAG 2.5.3).
	Label   string
	Counts  string
	InMonth bool // false for the leading and trailing days of other months
	Past    bool
	Today   bool
	Weekend bool
	// Droppable days take a dragged schedule: today and later.
	Droppable bool
	// Chips are at most three of the day's items; More counts the rest,
	// which MoreURL (the day's agenda) shows.
	Chips   []MonthChip
	More    int
	MoreURL string
	// DayURL is the day's agenda; PanelURL the phone's panel of it.
	DayURL   string
	PanelURL string
	// Dots stand in for chips on a phone: up to three kinds, and one more
	// for a pending approval.
	Dots        []string
	ApprovalDot bool
}

// MonthChip is one item on a day: a release, a gate or an automation run.
type MonthChip struct {
	ID    string
	Kind  string // publish | expiry | embargo | release | automation
	State string // the release state, or "scheduled" for gates and runs to come
	// Look is the fill (§15.3): filled | dashed (waiting for approval,
	// proposals) | struck (denied, expired, canceled) | faded (done) |
	// ghost (a recurring run to come) | gate (an embargo or expiry gate).
	Look string
	// Tone is the colour family: neutral | warn | danger | info | ok | muted.
	Tone string
	// Icons name the kind and the origin or approval, from the grid's
	// sprite ("publish", "agent", "auto", "pending", "warning" …).
	Icons   []string
	Running bool // a spinner with role="status"
	Time    string
	Title   string
	Href    string
	// Sentence is the accessible name, which starts with what the chip
	// shows: "09:00 ‘Election results’, Publish, by Elif, waiting for
	// approval".
	Sentence string
	// RunningLabel is the spinner's word ("Publishing…"); Badge the
	// state's badge where there is room for it (a phone's day panel).
	RunningLabel string
	Badge        string
	// Held is the visible badge of a release the kill switch holds past
	// its time ("Held: paused"), on the chip itself.
	Held string
	// Draggable chips carry what a move needs: the release's rev, its
	// wall-clock date and time in the site's zone, and When, the
	// localized "Monday 12 October, 09:00" the dialog shows as "Now".
	Draggable bool
	Rev       int64
	Date      string
	Clock     string
	When      string
	// Menu is an automation occurrence's ⋯ menu, in the day's panel (the
	// grid's chips stay links: a menu inside a cell would break the grid's
	// one tab stop).
	Menu *OccurrenceMenu
}

// MonthDayPanel is a day's agenda under the grid on a phone.
type MonthDayPanel struct {
	CSRF    string // for the occurrences' Run now
	Date    string
	Heading string
	Chips   []MonthChip
	DayURL  string
}

// MonthMoved is the answer to a move from the grid: the grid as it is now
// and the toast that says so, with Undo while the move is new.
type MonthMoved struct {
	Grid    MonthView
	Message string
	// Undo, when set, moves the release back (a form posted with the new
	// rev and the old date and time).
	Undo *MonthUndo
}

// MonthUndo is the toast's Undo.
type MonthUndo struct {
	Action string
	Rev    int64
	Date   string
	Clock  string
}

// MonthProblem is a refused move: a sentence and, when someone changed the
// schedule meanwhile, "Load the latest".
type MonthProblem struct {
	Message    string
	Fields     FieldErrors
	LatestURL  string // the grid fragment
	LatestPage string // the same, as a page (without JavaScript)
}

// MoveDialogView is what the reschedule dialog needs (MoveDialog): its id,
// the session's token, the Month's state (its grid comes back) or the
// Agenda's page to come back to (Next), the zone's name, the first day
// it takes, and whether the person keeps an approval when they move.
type MoveDialogView struct {
	ID, CSRF, State, Next, ZoneLabel, MinDate string
	CanApprove                                bool
}
