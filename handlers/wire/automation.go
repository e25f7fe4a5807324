package wire

import (
	"time"

	"studio/engine/automations"
	"studio/engine/model/automation"
)

// Automation is an automation as §4.3 writes it, with what the caller
// may do with it.
type Automation struct {
	SchemaVersion       int                 `json:"schemaVersion"`
	ID                  string              `json:"id"`
	SiteID              string              `json:"siteId"`
	Name                string              `json:"name"`
	Job                 Job                 `json:"job"`
	Recurrence          Recurrence          `json:"recurrence"`
	State               string              `json:"state"`
	PausedReason        string              `json:"pausedReason,omitempty"`
	ConsecutiveFailures int                 `json:"consecutiveFailures"`
	Owner               Owner               `json:"owner"`
	NextRunAt           string              `json:"nextRunAt,omitempty"`
	LastRun             *Run                `json:"lastRun,omitempty"`
	CreatedAt           string              `json:"createdAt"`
	UpdatedAt           string              `json:"updatedAt"`
	Rev                 int64               `json:"rev"`
	Abilities           AutomationAbilities `json:"abilities"`
}

type Job struct {
	Kind           string   `json:"kind"`
	Builtin        string   `json:"builtin,omitempty"`
	StaleAfterDays int      `json:"staleAfterDays,omitempty"`
	Exclude        []string `json:"exclude,omitempty"`
	// Agent tasks (§4.3): the key's id, never its secret.
	KeyID              string             `json:"keyId,omitempty"`
	Instructions       string             `json:"instructions,omitempty"`
	ModeCap            string             `json:"modeCap,omitempty"`
	ReadsUntrustedText *bool              `json:"readsUntrustedText,omitempty"`
	WindowMinutes      int                `json:"windowMinutes,omitempty"`
	Budget             *automation.Budget `json:"budget,omitempty"`
	Scopes             []string           `json:"scopes,omitempty"`
}

type Recurrence struct {
	Start    string `json:"start"`
	TimeZone string `json:"timeZone"`
	Rule     string `json:"rule,omitempty"`
	Preset   string `json:"preset"`
}

type Owner struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
}

type AutomationAbilities struct {
	Edit      bool `json:"edit"`
	Delete    bool `json:"delete"`
	Duplicate bool `json:"duplicate"`
	Pause     bool `json:"pause"`
	Resume    bool `json:"resume"`
	RunNow    bool `json:"runNow"`
	TakeOver  bool `json:"takeOver"`
}

// Run is a ScheduleRun as §4.4 writes it.
type Run struct {
	SchemaVersion   int            `json:"schemaVersion"`
	ID              string         `json:"id"`
	SiteID          string         `json:"siteId"`
	Subject         map[string]any `json:"subject"`
	OccurrenceAt    string         `json:"occurrenceAt"`
	State           string         `json:"state"`
	Outcome         string         `json:"outcome,omitempty"`
	Trigger         string         `json:"trigger,omitempty"`
	Attempt         int            `json:"attempt"`
	StartedAt       string         `json:"startedAt,omitempty"`
	EndedAt         string         `json:"endedAt,omitempty"`
	LatenessSeconds *int64         `json:"latenessSeconds,omitempty"`
	Adjusted        string         `json:"adjusted,omitempty"`
	Counts          map[string]int `json:"counts,omitempty"`
	Error           map[string]any `json:"error,omitempty"`
	// Agent runs (§4.4): when it ends, what it spent, its taint and
	// end_run's summary (plain text).
	EndsAt    string            `json:"endsAt,omitempty"`
	Usage     *automation.Usage `json:"usage,omitempty"`
	Taint     *automation.Taint `json:"taint,omitempty"`
	Summary   string            `json:"summary,omitempty"`
	CreatedAt string            `json:"createdAt"`
	UpdatedAt string            `json:"updatedAt"`
	Rev       int64             `json:"rev"`
}

// Stamp is an instant as the automation shapes write it: RFC 3339 in UTC.
func Stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func stampPtr(t *time.Time) string {
	if t == nil {
		return ""
	}
	return Stamp(*t)
}

func RunOf(r automations.Run) Run {
	out := Run{SchemaVersion: 1, ID: r.ID, SiteID: r.SiteID, OccurrenceAt: Stamp(r.OccurrenceAt), State: r.State,
		Outcome: r.Outcome, Trigger: r.Trigger, Attempt: r.Attempt, StartedAt: stampPtr(r.StartedAt), EndedAt: stampPtr(r.EndedAt),
		LatenessSeconds: r.LatenessSeconds, Adjusted: r.Adjusted, Counts: r.Counts, CreatedAt: Stamp(r.CreatedAt),
		UpdatedAt: Stamp(r.UpdatedAt), Rev: r.Rev}
	if r.SubjectKind == automations.SubjectRelease {
		out.Subject = map[string]any{"kind": "release", "releaseId": r.SubjectID}
	} else {
		out.Subject = map[string]any{"kind": "automation", "automationId": r.SubjectID, "job": r.Job}
	}
	if r.Job == automations.JobAgentTask && r.StartedAt != nil {
		usage := r.Ledger.Usage
		out.EndsAt, out.Usage, out.Taint, out.Summary = stampPtr(r.EndsAt), &usage, r.Ledger.Taint, r.Summary
	}
	if r.ErrorCode != "" {
		out.Error = map[string]any{"code": r.ErrorCode}
		if r.ErrorMessage != "" {
			out.Error["message"] = r.ErrorMessage
		}
	}
	return out
}

func AutomationOf(ans automations.Answer) Automation {
	a := ans.Automation
	out := Automation{SchemaVersion: 1, ID: a.ID, SiteID: a.SiteID, Name: a.Name,
		Recurrence: Recurrence{Start: a.StartLocal, TimeZone: a.TimeZone, Rule: a.Rule, Preset: a.Preset},
		State:      a.State, PausedReason: a.PausedReason, ConsecutiveFailures: a.ConsecutiveFailures,
		Owner:     Owner{ID: a.Owner.ID, Name: a.Owner.Name},
		NextRunAt: stampPtr(a.NextRunAt), CreatedAt: Stamp(a.CreatedAt), UpdatedAt: Stamp(a.UpdatedAt), Rev: a.Rev}
	if b, ok := a.Builtin(); ok {
		out.Job = Job{Kind: string(automation.JobBuiltin), Builtin: string(b), StaleAfterDays: a.Config.StaleAfterDays,
			Exclude: a.Config.Exclude}
	} else if t := a.Task; t != nil {
		untrusted, budget := t.ReadsUntrustedText, t.Budget
		out.Job = Job{Kind: a.Job, KeyID: t.KeyID, Instructions: t.Instructions, ModeCap: string(t.ModeCap),
			ReadsUntrustedText: &untrusted, WindowMinutes: t.WindowMinutes, Budget: &budget}
		for _, sc := range t.Scopes {
			out.Job.Scopes = append(out.Job.Scopes, string(sc))
		}
	} else {
		out.Job = Job{Kind: a.Job}
	}
	if a.LastRun != nil {
		r := RunOf(*a.LastRun)
		out.LastRun = &r
	}
	may := ans.Abilities
	out.Abilities = AutomationAbilities{Edit: may.Edit, Delete: may.Delete, Duplicate: may.Duplicate, Pause: may.Pause,
		Resume: may.Resume, RunNow: may.RunNow, TakeOver: may.TakeOver}
	return out
}

// RunDetail is §12 get_run's answer: the ScheduleRun and its trail.
type RunDetail struct {
	Run
	AuditRowIDs []int64  `json:"auditRowIds"`
	Snapshots   []string `json:"snapshots"`
	Approvals   []string `json:"approvals"`
}

// RunDetailOf is a run with its audit rows, snapshots and approvals.
func RunDetailOf(d automations.RunDetail) RunDetail {
	return RunDetail{Run: RunOf(d.Run), AuditRowIDs: d.AuditRowIDs, Snapshots: d.Snapshots, Approvals: d.Approvals}
}
